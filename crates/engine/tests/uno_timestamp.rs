//! `transport.timestamp = "first_switch"` (Uno spec section 0): a data packet is re-stamped
//! when its NIC starts sending it, so the RTT samples leave out the host's NIC queue, which
//! two paced flows of one host build up.

use fanin_engine::units::PS_PER_US;
use fanin_engine::{parse_scenario, Simulation};

/// Two UnoCC flows of 489 full packets (2 MB) from s0, one to each receiver of a one-switch star. Each flow paces
/// at line rate, so s0's NIC is oversubscribed twice; nothing else queues (each receiver
/// port gets at most what the NIC sends, the ACKs return one packet time apart).
fn two_flows_from_one_host(timestamp: &str) -> Simulation {
    let toml = format!(
        r#"
[topology]
kind = "star"
senders = 1
receivers = 2
host_link = {{ rate = "100Gbps", delay = "1us" }}
[transport]
cc = "uno"
mtu = "4160B"
header = "64B"
timestamp = "{timestamp}"
[[workload]]
kind = "flow"
src = "s0"
dst = "r0"
bytes = "2002944B"
[[workload]]
kind = "flow"
src = "s0"
dst = "r1"
bytes = "2002944B"
"#
    );
    let spec = parse_scenario(&toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    sim
}

#[test]
fn first_switch_stamps_leave_the_nic_queue_out_of_rtt_samples() {
    // Two links each way: a 4160 B packet out, a 64 B ACK back, 1 us per link.
    let base = 4 * PS_PER_US + 2 * 332_800 + 2 * 5_120;
    let restamped = two_flows_from_one_host("first_switch");
    let at_sender = two_flows_from_one_host("sender");
    assert_eq!(restamped.world().class_rtt.0, base);
    for f in 0..2 {
        let (r, s) = (&restamped.world().flows[f], &at_sender.world().flows[f]);
        assert!(r.finished() && s.finished());
        // Every sample is the bare path: the smoothed RTT of equal samples is that sample.
        assert_eq!((r.sender.rtt.min_rtt, r.sender.rtt.srtt()), (base, Some(base)), "flow {f}");
        // Stamped at the sender, the samples carry the NIC queue (the other flow's packets).
        let srtt = s.sender.rtt.srtt().unwrap();
        assert!(srtt > base + PS_PER_US, "flow {f}: srtt {srtt} ps, base {base} ps");
    }
}

