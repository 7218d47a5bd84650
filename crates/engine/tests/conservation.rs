//! Property test: random small scenarios (topology, rates, delays, tiny buffers that drop,
//! congestion control, workloads) conserve bytes at every instant we stop them, and a run
//! whose flows all completed has delivered every byte and left nothing in the network.
//! The seed list is fixed, so the test is deterministic.

mod common;

use fanin_engine::units::PS_PER_US;
use fanin_engine::{parse_scenario, Column, Simulation};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

struct Generated {
    toml: String,
    describe: String,
}

fn pick<'a, T>(rng: &mut Xoshiro256PlusPlus, xs: &'a [T]) -> &'a T {
    xs.choose(rng).unwrap()
}

fn link(rng: &mut Xoshiro256PlusPlus) -> String {
    let rate = pick(rng, &["1Gbps", "10Gbps", "25Gbps", "40Gbps", "100Gbps", "3Gbps"]);
    let delay = pick(rng, &["100ns", "1us", "5us", "333ns"]);
    format!("{{ rate = \"{rate}\", delay = \"{delay}\" }}")
}

fn generate(seed: u64) -> Generated {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut t = format!("seed = {seed}\nmax_duration = \"30s\"\n");
    // Topology and the host names it creates.
    let kind = *pick(&mut rng, &["star", "dumbbell", "leaf_spine", "fat_tree"]);
    let hosts: Vec<String> = match kind {
        "star" | "dumbbell" => {
            let s = rng.gen_range(2..=8);
            let r = rng.gen_range(1..=3);
            t += &format!("[topology]\nkind = \"{kind}\"\nsenders = {s}\nreceivers = {r}\nhost_link = {}\n", link(&mut rng));
            if rng.gen_bool(0.3) {
                t += &format!("receiver_link = {}\n", link(&mut rng));
            }
            if kind == "dumbbell" {
                t += &format!("core_link = {}\n", link(&mut rng));
            }
            (0..s).map(|i| format!("s{i}")).chain((0..r).map(|i| format!("r{i}"))).collect()
        }
        "leaf_spine" => {
            let (l, sp, h) = (rng.gen_range(2..=3), rng.gen_range(1..=2), rng.gen_range(2..=4));
            t += &format!(
                "[topology]\nkind = \"leaf_spine\"\nleaves = {l}\nspines = {sp}\nhosts_per_leaf = {h}\nhost_link = {}\nfabric_link = {}\n",
                link(&mut rng),
                link(&mut rng)
            );
            (0..l * h).map(|i| format!("h{i}")).collect()
        }
        _ => {
            t += &format!("[topology]\nkind = \"fat_tree\"\nk = 4\nhost_link = {}\nfabric_link = {}\n", link(&mut rng), link(&mut rng));
            (0..16).map(|i| format!("h{i}")).collect()
        }
    };
    // Small switch buffers, so that queues overflow.
    let limit = *pick(&mut rng, &["4pkt", "8pkt", "20pkt", "50pkt", "30KB", "1000pkt"]);
    let marking = match rng.gen_range(0..4) {
        0 => "{ kind = \"none\" }".to_string(),
        1 => format!("{{ kind = \"step\", threshold = \"{}pkt\" }}", rng.gen_range(1..=20)),
        2 => "{ kind = \"dequeue_red\", min = \"3KB\", max = \"20KB\", phantom = { size = \"60KB\", slowdown = 10 } }".to_string(),
        _ => "{ kind = \"red\", min = \"3pkt\", max = \"10pkt\", p_max = 0.2, weight = 0.5 }".to_string(),
    };
    t += &format!("[switch.queue]\nlimit = \"{limit}\"\nmarking = {marking}\n");
    // Trimming (headers keep 64 B) into a small control queue, strict or round-robin.
    if rng.gen_bool(0.3) {
        t += &format!("trim = true\ncontrol = {}\n", pick(&mut rng, &["{ limit = \"6pkt\" }", "{ service = \"wrr\", weight = 3 }"]));
    }
    // A shared buffer of 60 packets per switch (a lone busy port may hold 20) in every
    // third scenario, chosen without a draw so that the others stay as they were.
    if seed % 3 == 0 {
        t += "[switch.buffer]\nkind = \"dynamic_threshold\"\nalpha = 0.5\nsize = \"60pkt\"\n";
    }
    if rng.gen_bool(0.2) {
        t += "[host.queue]\nlimit = \"30pkt\"\n";
    }
    // Transport.
    let cc = *pick(&mut rng, &["newreno", "dctcp", "hotnets_dctcp"]);
    t += &format!("[transport]\ncc = \"{cc}\"\n");
    if cc == "newreno" && rng.gen_bool(0.5) {
        t += "ecn = true\n";
    }
    t += &format!("mtu = \"{}\"\n", pick(&mut rng, &["1500B", "1000B", "576B"]));
    t += &format!("min_rto = \"{}\"\nmax_rto = \"20ms\"\n", pick(&mut rng, &["100us", "1ms", "5ms"]));
    t += &format!("initial_rto = \"{}\"\n", pick(&mut rng, &["1ms", "10ms"]));
    t += &format!("init_cwnd = \"{}pkt\"\n", rng.gen_range(1..=20));
    t += &format!("sack = {}\n", rng.gen_bool(0.7));
    t += &format!("delayed_ack = {}\n", pick(&mut rng, &[1, 1, 2, 3]));
    t += "delayed_ack_timeout = \"50us\"\n";
    // Workloads: one to three, sizes that end.
    let n = hosts.len();
    let size = |rng: &mut Xoshiro256PlusPlus| format!("{}B", rng.gen_range(1..=400_000));
    let mut kinds = Vec::new();
    for _ in 0..rng.gen_range(1..=3) {
        let start = format!("{}ns", rng.gen_range(0..200_000));
        match rng.gen_range(0..3) {
            0 => {
                let recv = &hosts[rng.gen_range(0..n)];
                let degree = rng.gen_range(1..n);
                t += &format!(
                    "[[workload]]\nkind = \"incast\"\nreceiver = \"{recv}\"\nsenders = \"all\"\ndegree = {degree}\nbytes_per_sender = \"{}\"\nstart = \"{start}\"\npick = \"random\"\njitter = \"{}ns\"\n",
                    size(&mut rng),
                    rng.gen_range(0..5_000)
                );
                kinds.push(format!("incast{degree}"));
            }
            1 => {
                for _ in 0..rng.gen_range(1..=4) {
                    let s = rng.gen_range(0..n);
                    let d = (s + rng.gen_range(1..n)) % n;
                    t += &format!(
                        "[[workload]]\nkind = \"flow\"\nsrc = \"{}\"\ndst = \"{}\"\nbytes = \"{}\"\nstart = \"{start}\"\n",
                        hosts[s],
                        hosts[d],
                        size(&mut rng)
                    );
                }
                kinds.push("flows".into());
            }
            _ => {
                t += &format!("[[workload]]\nkind = \"permutation\"\nbytes = \"{}\"\nstart = \"{start}\"\n", size(&mut rng));
                kinds.push("permutation".into());
            }
        }
    }
    let buffer = if seed % 3 == 0 { " shared buffer" } else { "" };
    Generated { describe: format!("seed {seed}: {kind} {cc} limit {limit} marking {marking} {kinds:?}{buffer}"), toml: t }
}

fn column_u64(t: &fanin_engine::Table, name: &str) -> Vec<u64> {
    match t.column(name).unwrap() {
        Column::U64(v) => v.clone(),
        c => panic!("{name}: {c:?}"),
    }
}

#[test]
fn random_scenarios_conserve_bytes() {
    let (mut total_drops, mut total_retx, mut with_drops, mut kinds_seen) = (0.0, 0u64, 0, std::collections::BTreeSet::new());
    // Instants that caught packets in the network, and some of them after drops.
    let (mut busy_instants, mut lossy_instants) = (0, 0);
    let mut total_trims = 0;
    for seed in 1..=50u64 {
        let g = generate(seed);
        let spec = parse_scenario(&g.toml, &common::load_file).unwrap_or_else(|e| panic!("{}: {e}\n{}", g.describe, g.toml));
        let mut sim = Simulation::new(&spec).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1000 + seed);
        let mut instants: Vec<u64> = (0..6).map(|_| rng.gen_range(0..800 * PS_PER_US)).collect();
        instants.sort();
        for &at in &instants {
            sim.run_until(at);
            let c = sim.conservation();
            assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{} at {at} ps: {c:?}\n{}", g.describe, g.toml);
            busy_instants += (c.in_flight > 0) as u32;
            lossy_instants += (c.in_flight > 0 && c.dropped > 0) as u32;
            for f in &sim.world().flows {
                assert!(f.sender.snd_una <= f.receiver.rcv_nxt && f.receiver.rcv_nxt <= f.size, "{}", g.describe);
                assert!(f.receiver.bytes_received() <= f.size, "{}: received {} of {}", g.describe, f.receiver.bytes_received(), f.size);
            }
        }
        sim.run();
        let c = sim.conservation();
        let w = sim.world();
        assert!(w.flows.iter().all(|f| f.finished()), "{}: not every flow completed by {} ps\n{}", g.describe, sim.now_ps(), g.toml);
        assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{}: {c:?}", g.describe);
        assert_eq!(c.in_flight, 0, "{}: {c:?}\n{}", g.describe, g.toml);
        for (i, f) in w.flows.iter().enumerate() {
            assert_eq!(f.sender.snd_una, f.size, "{}: flow {i}", g.describe);
            assert_eq!(f.receiver.rcv_nxt, f.size, "{}: flow {i}", g.describe);
            assert_eq!(f.receiver.bytes_received(), f.size, "{}: flow {i} receiver counted {} of {}", g.describe, f.receiver.bytes_received(), f.size);
            assert!(f.recv_done <= f.finish);
        }
        let r = sim.finish();
        let ports = r.table("ports").unwrap();
        let (enq, tx, dropped) = (column_u64(ports, "enqueued_bytes"), column_u64(ports, "tx_bytes"), column_u64(ports, "dropped_bytes"));
        // Nothing is left in any queue: every admitted byte was transmitted.
        assert_eq!(enq, tx, "{}", g.describe);
        // The engine's dropped bytes also count what trimming cut off (64 B headers stay).
        let (trimmed, trims) = (column_u64(ports, "trimmed_bytes"), column_u64(ports, "trimmed_pkts"));
        let cut = trimmed.iter().sum::<u64>() - 64 * trims.iter().sum::<u64>();
        assert_eq!(dropped.iter().sum::<u64>() + cut, c.dropped, "{}", g.describe);
        total_trims += trims.iter().sum::<u64>();
        let acked = common::u64s(&r, "flows", "bytes_acked");
        assert_eq!(acked, common::u64s(&r, "flows", "size_bytes"), "{}", g.describe);
        let drops = r.scalar("drops").unwrap();
        total_drops += drops;
        with_drops += (drops > 0.0) as u32;
        total_retx += common::u64s(&r, "flows", "retx_bytes").iter().sum::<u64>();
        kinds_seen.insert(g.describe.split(' ').nth(2).unwrap().to_string());
    }
    eprintln!("{with_drops}/50 scenarios dropped; {total_drops} drops, {total_retx} bytes retransmitted; topologies {kinds_seen:?}; {busy_instants}/300 instants with packets in flight, {lossy_instants} of them after drops");
    assert!(busy_instants >= 150 && lossy_instants >= 50);
    // The generator must actually exercise loss and every topology.
    assert!(with_drops >= 15, "only {with_drops} scenarios dropped anything");
    assert_eq!(kinds_seen.len(), 4);
    assert!(total_trims > 0, "no scenario trimmed a packet");
}
