//! Marking at dequeue from a phantom queue (Uno §1.2): on a small incast, DCTCP driven by a
//! phantom counter that drains at 0.9x line rate keeps the physical queue near empty, while
//! packets are still marked; marking from the physical queue holds it around the thresholds.

mod common;

fn incast(marking: &str) -> fanin_engine::Results {
    common::run(&format!(
        r#"
seed = 3
[topology]
kind = "star"
senders = 4
host_link = {{ rate = "100Gbps", delay = "1us" }}
[switch.queue]
limit = "1MB"
marking = {marking}
[transport]
cc = "dctcp"
mtu = "4160B"
header = "64B"
init_cwnd = "20pkt"
min_rto = "1ms"
[[workload]]
kind = "incast"
degree = 4
bytes_per_sender = "2MB"
[record]
queues = {{ ports = "bottleneck", interval = "1us" }}
"#
    ))
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort();
    v[v.len() / 2]
}

#[test]
fn phantom_marking_keeps_the_physical_queue_near_empty() {
    let physical = incast(r#"{ kind = "dequeue_red", min = "40KB", max = "120KB" }"#);
    let phantom = incast(r#"{ kind = "dequeue_red", min = "10KB", max = "300KB", phantom = { size = "500KB", slowdown = 10 } }"#);
    for r in [&physical, &phantom] {
        assert!(common::bools(r, "incasts", "completed")[0]);
        assert!(r.scalar("marks").unwrap() > 0.0);
    }
    let q_physical = median(common::u64s(&physical, "queues", "bytes"));
    let q_phantom = median(common::u64s(&phantom, "queues", "bytes"));
    let counter = common::u64s(&phantom, "queues", "phantom_bytes");
    eprintln!("median physical queue: {q_physical} B with physical marking, {q_phantom} B with phantom marking (phantom median {} B)", median(counter.clone()));
    assert!(q_physical >= 40_000, "physical marking holds the queue near Kmin: {q_physical}");
    assert!(q_phantom * 10 < q_physical, "{q_phantom} vs {q_physical}");
    assert!(median(counter) > 10_000, "the phantom counter sits above Kmin while the queue is empty");
    assert!(common::u64s(&physical, "queues", "phantom_bytes").iter().all(|&b| b == 0));
}
