mod common;

#[test]
#[ignore]
fn bench_a() {
    let t = std::time::Instant::now();
    let r = common::run(r#"
[topology]
kind = "star"
senders = 64
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "1000pkt"
marking = { kind = "step", threshold = "65pkt" }
[[workload]]
kind = "incast"
degree = 64
bytes_per_sender = "1MB"
"#);
    let wall = t.elapsed().as_secs_f64();
    let hops = r.scalar("packet_hops").unwrap();
    println!("{:?}", r.summary);
    println!("wall {wall:.3}s  Mhops/s {:.2} Mev/s {:.2}", hops / r.scalar("wall_s").unwrap() / 1e6, r.scalar("events").unwrap() / r.scalar("wall_s").unwrap() / 1e6);
    println!("ict {:?} ideal {:?}", common::u64s(&r, "incasts", "ict_ps"), common::u64s(&r, "incasts", "ideal_ict_ps"));
}

#[test]
#[ignore]
fn bench_b() {
    let r = common::run(r#"
duration = "5ms"
[topology]
kind = "fat_tree"
k = 8
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "1000pkt"
marking = { kind = "step", threshold = "65pkt" }
[[workload]]
kind = "permutation"
"#);
    let hops = r.scalar("packet_hops").unwrap();
    println!("{:?}", r.summary);
    println!("Mhops/s {:.2} Mev/s {:.2}", hops / r.scalar("wall_s").unwrap() / 1e6, r.scalar("events").unwrap() / r.scalar("wall_s").unwrap() / 1e6);
}

#[test]
#[ignore]
fn bench_c() {
    let r = common::run(r#"
duration = "2ms"
[topology]
kind = "fat_tree"
k = 16
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "1000pkt"
marking = { kind = "step", threshold = "65pkt" }
[[workload]]
kind = "permutation"
"#);
    let hops = r.scalar("packet_hops").unwrap();
    println!("{:?}", r.summary);
    println!("Mhops/s {:.2} Mev/s {:.2}", hops / r.scalar("wall_s").unwrap() / 1e6, r.scalar("events").unwrap() / r.scalar("wall_s").unwrap() / 1e6);
}
