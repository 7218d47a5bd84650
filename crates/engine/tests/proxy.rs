//! The proxy paper's schemes (Zhou et al., HotNets '25) on a reduced two-site network: two
//! leaves joined by one long link stand for the two datacenters and the long haul. The
//! proxy is h0; senders h1..; the receiver sits behind the long link.

mod common;

use common::{run, u64s};
use fanin_engine::{Column, Results};

/// `degree` senders of `total` bytes through the scheme; a `limit`-packet switch buffer.
fn scenario(scheme: &str, degree: u32, total: &str, limit: &str, seed: u64) -> String {
    format!(
        r#"
seed = {seed}
[topology]
kind = "leaf_spine"
leaves = 2
spines = 1
hosts_per_leaf = 6
host_link = {{ rate = "100Gbps", delay = "1us" }}
fabric_link = {{ rate = "100Gbps", delay = "50us" }}
[switch.queue]
limit = "{limit}"
marking = {{ kind = "step", threshold = "33pkt" }}
[transport]
cc = "hotnets_dctcp"
mtu = "4150B"
header = "0B"
ack_size = "64B"
init_cwnd = "1bdp"
min_cwnd = "1pkt"
min_rto = "2rtt"
initial_rto = "3rtt"
fast_retransmit = false
[[workload]]
kind = "proxy_incast"
scheme = "{scheme}"
proxy = "h0"
senders = ["h1", "h2", "h3", "h4", "h5"]
degree = {degree}
receiver = "h6"
total_bytes = "{total}"
[record]
flows = true
"#
    )
}

fn ict_ps(r: &Results) -> u64 {
    let ict = u64s(r, "incasts", "ict_ps");
    assert_eq!(ict.len(), 1);
    assert!(ict[0] > 0, "the incast completed");
    ict[0]
}

fn summary(r: &Results, key: &str) -> f64 {
    r.summary.iter().find(|(k, _)| k == key).map(|(_, v)| *v).unwrap_or_else(|| panic!("no summary {key}"))
}

fn i64s(r: &Results, table: &str, col: &str) -> Vec<i64> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::I64(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

#[test]
fn without_loss_every_scheme_moves_the_same_bytes_in_about_the_same_time() {
    let base = run(&scenario("baseline", 4, "4MB", "100000pkt", 1));
    let stream = run(&scenario("streamlined", 4, "4MB", "100000pkt", 1));
    let naive = run(&scenario("naive", 4, "4MB", "100000pkt", 1));
    let (b, s, n) = (ict_ps(&base), ict_ps(&stream), ict_ps(&naive));
    eprintln!("ICT baseline {b} streamlined {s} naive {n}");
    for r in [&base, &stream, &naive] {
        assert_eq!(summary(r, "drops"), 0.0);
        assert_eq!(summary(r, "timeouts"), 0.0);
    }
    // The relay adds two short hops to a 200 us path; the split connection adds proxy_S's
    // own start (it waits for the first bytes).
    assert!((s as f64 / b as f64 - 1.0).abs() < 0.05, "streamlined {s} vs baseline {b}");
    assert!((n as f64 / b as f64 - 1.0).abs() < 0.10, "naive {n} vs baseline {b}");
    // Streamlined: every flow is routed through h0 and is one connection.
    assert_eq!(i64s(&stream, "flows", "via"), vec![0; 4]);
    // Naive: two connections per flow; the proxy_R legs finish before proxy_S's.
    let finish = u64s(&naive, "flows", "finish_ps");
    let incast = i64s(&naive, "flows", "incast_id");
    assert_eq!(finish.len(), 8);
    let legs: Vec<u64> = (0..8).filter(|&i| incast[i] < 0).map(|i| finish[i]).collect();
    let onward: Vec<u64> = (0..8).filter(|&i| incast[i] == 0).map(|i| finish[i]).collect();
    assert_eq!((legs.len(), onward.len()), (4, 4));
    assert!(legs.iter().max() < onward.iter().min(), "the split ACKs end the legs early");
    assert_eq!(*onward.iter().max().unwrap(), u64s(&naive, "incasts", "last_finish_ps")[0]);
}

#[test]
fn a_split_connection_conserves_bytes_and_is_deterministic() {
    let a = run(&scenario("naive", 4, "2MB", "60pkt", 3));
    let b = run(&scenario("naive", 4, "2MB", "60pkt", 3));
    assert_eq!(u64s(&a, "flows", "finish_ps"), u64s(&b, "flows", "finish_ps"));
    let acked = u64s(&a, "flows", "bytes_acked");
    assert!(acked.iter().all(|&x| x == 500_000));
}
