//! `[switch.buffer]`: Dynamic Threshold sharing of one buffer among a switch's ports.

mod common;

use fanin_engine::units::PS_PER_US;
use fanin_engine::{parse_scenario, Simulation};

/// Eight senders and one receiver on one switch (9 ports); each sender's 10 segments leave
/// in its first window, so 80 packets reach the receiver's port within 12 us while it
/// sends 10: about 70 wait at once.
fn incast(switch: &str) -> String {
    format!(
        r#"seed = 2
[topology]
kind = "star"
senders = 8
host_link = {{ rate = "10Gbps", delay = "2us" }}
{switch}
[transport]
cc = "newreno"
min_rto = "1ms"
init_cwnd = "10pkt"
[[workload]]
kind = "incast"
degree = 8
bytes_per_sender = "14600B"
[record]
flows = true
"#
    )
}

/// The receiver's port (the switch's port to `r0`): dropped, most ever waiting.
fn receiver_port(r: &fanin_engine::Results) -> (u64, u64) {
    let names = match r.table("ports").unwrap().column("port_name").unwrap() {
        fanin_engine::Column::Str(v) => v.clone(),
        c => panic!("{c:?}"),
    };
    let i = names.iter().position(|n| n.ends_with("->r0")).unwrap();
    (common::u64s(r, "ports", "dropped_pkts")[i], common::u64s(r, "ports", "max_queue_pkts")[i])
}

#[test]
fn dynamic_threshold_admits_an_incast_that_static_partitions_drop() {
    // Static partitioning of a 180-packet buffer: 20 packets per port.
    let fixed = common::run(&incast("[switch.queue]\nlimit = \"20pkt\""));
    let (drops, max) = receiver_port(&fixed);
    assert!(drops > 0 && max == 20, "static: {drops} dropped, {max} at most");
    // The same 180 packets shared at alpha = 1: one busy port may hold half
    // (q + 1 <= 180 - q while q <= 89), more than the 70 that wait.
    let shared = common::run(&incast("[switch.queue]\nlimit = \"1000pkt\"\n[switch.buffer]\nkind = \"dynamic_threshold\"\nper_port = \"20pkt\""));
    let (drops, max) = receiver_port(&shared);
    assert_eq!(drops, 0);
    assert!(max > 20 && max <= 90, "shared: {max} at most");
    // At alpha = 1/8, T = (180 - q) / 8 caps the port at 20 (q + 1 <= (180 - q) / 8 while
    // q <= 19): the same drops as the static split would give a 20-packet port.
    let tight = common::run(&incast("[switch.queue]\nlimit = \"1000pkt\"\n[switch.buffer]\nkind = \"dynamic_threshold\"\nalpha = 0.125\nsize = \"180pkt\""));
    // (The ACKs on the senders' ports never wait, so the receiver's port is the sum.)
    assert_eq!(receiver_port(&tight), receiver_port(&fixed));
}

#[test]
fn a_shared_buffer_in_bytes_conserves_bytes_while_it_drops_and_trims() {
    for trim in ["", "trim = true\n"] {
        let switch = format!("[switch.queue]\nlimit = \"1MB\"\n{trim}marking = {{ kind = \"step\", threshold = \"30KB\" }}\n[switch.buffer]\nkind = \"dynamic_threshold\"\nalpha = 0.5\nsize = \"60KB\"");
        let toml = incast(&switch).replace("newreno", "dctcp").replace("14600B", "64KB");
        let spec = parse_scenario(&toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(&spec).unwrap();
        let mut lossy = 0;
        for at in (1..40).map(|i| i * 7 * PS_PER_US) {
            sim.run_until(at);
            let c = sim.conservation();
            assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{trim} at {at} ps: {c:?}");
            lossy += (c.dropped > 0 && c.in_flight > 0) as u32;
        }
        sim.run();
        let c = sim.conservation();
        assert_eq!((c.in_flight, c.injected), (0, c.delivered + c.dropped));
        assert!(lossy > 0, "{trim}: nothing was dropped while packets were in flight");
        let r = sim.finish();
        assert!(common::u64s(&r, "flows", "bytes_acked").iter().all(|&b| b == 64_000));
        // 60 KB at alpha 1/2: a port admits a packet of p <= 1500 B onto q only if
        // q' = q + p <= (60,000 - q) / 2, i.e. 3 q' <= 60,000 + p: never above 20,500 B.
        let max = common::u64s(&r, "ports", "max_queue_bytes").into_iter().max().unwrap();
        assert!(max <= 20_500 && max > 18_000, "{trim}: {max} B at most");
    }
}

/// The periodic variant (the Superways authors' module): T = 2B until the first
/// recomputation, then alpha (B - inactive) / (1 + alpha x active ports).
#[test]
fn periodic_threshold_follows_the_ports_active_in_the_last_period() {
    let buffer = |update: &str| {
        incast(&format!("[switch.queue]\nlimit = \"1000pkt\"\n[switch.buffer]\nkind = \"dynamic_threshold\"\nper_port = \"20pkt\"\nupdate = \"{update}\""))
    };
    // Recomputed every 1 ms: the whole burst (80 packets within 12 us) meets T = 2B = 360,
    // so only the 180-packet buffer bounds it: nothing is dropped.
    let slow = common::run(&buffer("1ms"));
    let (drops, slow_max) = receiver_port(&slow);
    assert_eq!(drops, 0);
    assert!(slow_max > 60, "{slow_max} waited at most");
    // Every 4 us: at 4 us only the receiver's port has admitted (T = 180 / 2 = 90); at
    // 8 us the first ACKs (the receiver's first packet lands at 6.4 us) make the senders'
    // ports active too, and T falls to 180 / (1 + active) while the burst still waits.
    let fast = common::run(&buffer("4us"));
    // Exact Dynamic Threshold at the same alpha drops nothing here (the test above); this
    // reading of it does, since idle ACK ports count as sharers.
    let (drops, max) = receiver_port(&fast);
    assert!(drops > 0 && max < slow_max, "every 4 us: {drops} dropped, {max} at most");
}
