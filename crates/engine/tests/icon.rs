//! ICON (spec `icon.md`): pacing by incast degree on the paper's leaf-spine, end to end.
mod common;
use fanin_engine::{Column, Results};

/// The spec's leaf-spine (20 leaves x 20 servers, 10 spines, 10 Gb/s, 10 us links), its
/// drop-tail 200-packet ports with DCTCP marking at K = 65, and one 26 x 20 KB incast into
/// an idle sink: the spec's micro-test. `extra` adds transport settings.
fn micro(extra: &str) -> String {
    format!(
        r#"seed = 5
{}marking = {{ kind = "step", threshold = "65pkt" }}
[transport]
cc = "dctcp"
min_rto = "10ms"
{extra}
{}[record]
flows = true
"#,
        common::ICON_LEAF_SPINE,
        common::ICON_MICRO_INCAST
    )
}

fn port_max(r: &Results, col: &str) -> u64 {
    match r.table("ports").unwrap().column(col).unwrap() {
        Column::U64(v) => *v.iter().max().unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn icon_paces_an_incast_under_the_buffer_where_dctcp_overflows() {
    let dctcp = common::run(&micro(""));
    let icon = common::run(&micro("[transport.icon]"));
    // DCTCP's first flight is 26 x 10 packets at once, beyond 200 packets.
    assert!(port_max(&dctcp, "dropped_pkts") > 0, "DCTCP drops");
    assert_eq!(port_max(&icon, "dropped_pkts"), 0, "ICON drops nothing");
    // Under Eq. 1 the 26 senders together send about one window per RTT: the queue stays
    // below the marking threshold, where DCTCP's burst fills the buffer.
    assert!(port_max(&icon, "max_queue_pkts") < 65);
    assert_eq!(port_max(&dctcp, "max_queue_pkts"), 200);
    // Every flow finished in both.
    for r in [&dctcp, &icon] {
        assert_eq!(common::opt_u64s(r, "flows", "fct_ps").iter().filter(|f| f.is_none()).count(), 0);
    }
}

#[test]
fn cross_leaf_base_rtt_is_80_us_of_propagation() {
    // One full segment from leaf 0 to leaf 1: four links each way at 10 us, plus four
    // serializations of the 1500 B packet (1.2 us) and of the 40 B ACK (32 ns).
    let r = common::run(&micro("").replace("degree = 26", "degree = 1").replace("senders = \"all\"", "senders = [\"h20\"]").replace("20KB", "1460B"));
    let ideal = common::u64s(&r, "flows", "ideal_fct_ps")[0];
    assert_eq!(ideal, 80_000_000 + 4 * 1_200_000 + 4 * 32_000);
}

#[test]
fn arrivals_see_the_queue_ahead_of_them() {
    // The sink's downlink: every packet that reached it arrived once, found between 0 and
    // 200 packets ahead, and every drop found the queue full.
    let r = common::run(&micro("").replace("flows = true", "flows = true\nqueue_events = { ports = [\"leaf0->h0\"] }"));
    let ahead = common::u64s(&r, "arrival_queues", "packets_ahead");
    let arrivals = common::u64s(&r, "arrival_queues", "arrivals");
    let port = |col: &str| match r.table("ports").unwrap().column(col).unwrap() {
        Column::U64(v) => v[r.table("ports").unwrap().column("port_name").map(|c| match c {
            Column::Str(n) => n.iter().position(|n| n == "leaf0->h0").unwrap(),
            _ => unreachable!(),
        }).unwrap()],
        other => panic!("{other:?}"),
    };
    let (enqueued, dropped) = (port("enqueued_pkts"), port("dropped_pkts"));
    assert!(dropped > 0);
    assert_eq!(arrivals.iter().sum::<u64>(), enqueued + dropped);
    assert_eq!(*ahead.last().unwrap(), 200);
    assert!(*arrivals.last().unwrap() >= dropped, "every drop found 200 ahead");
    assert_eq!(ahead[0], 0, "the first arrival found the port idle");
}
