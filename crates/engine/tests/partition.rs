//! Partitioned runs (issue 23): a `multi_dc` run cut per datacenter gives the same tables
//! and summary on 1, 2 and 3 threads, and the same as the run as one world.

mod common;

// As in the Python module, so the probe's timings see the same memory.
#[global_allocator]
static ALLOC: fanin_engine::huge_pages::HugePages = fanin_engine::huge_pages::HugePages;

use fanin_engine::{parse_scenario, Column, Results, Simulation, ValidSpec};

fn spec(toml: &str) -> ValidSpec {
    parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"))
}

/// Results with the wall clock left out and floats as bits (so NaN compares equal).
fn comparable(mut r: Results) -> Results {
    r.summary.retain(|(k, _)| k != "wall_s");
    for t in &mut r.tables {
        for (_, c) in t.columns.iter_mut() {
            if let Column::F64(v) = c {
                *c = Column::U64(v.iter().map(|x| x.to_bits()).collect());
            }
        }
    }
    r
}

/// Runs `sim` in steps of `step_ps` (0: in one go).
fn run(mut sim: Simulation, step_ps: u64) -> Results {
    if step_ps == 0 {
        sim.run();
    } else {
        let mut t = 0;
        while !sim.run_until(t) {
            t += step_ps;
        }
    }
    comparable(sim.finish())
}

/// The whole run and the partitioned ones on 1 to 3 threads (and in steps) agree exactly;
/// returns the whole run's results.
fn same_for_every_thread_count(s: &ValidSpec, parts: usize) -> Results {
    let whole = run(Simulation::whole(s).unwrap(), 0);
    for threads in 1..=3 {
        let sim = Simulation::partitioned(s, threads).unwrap();
        assert_eq!(sim.partitions(), parts);
        assert!(run(sim, 0) == whole, "{threads} thread(s) changed a result");
    }
    let stepped = run(Simulation::with_threads(s, 2).unwrap(), 37_000_000);
    assert!(stepped == whole, "running in steps changed a result");
    whole
}

fn column(r: &Results, table: &str, name: &str) -> Column {
    r.table(table).unwrap().columns.iter().find(|(n, _)| n == name).unwrap().1.clone()
}

/// Two leaf-spine datacenters (4 leaves x 4 hosts each) joined by border switches over two
/// 10 us WAN links; `more` adds lines after the topology.
fn two_dcs(more: &str) -> String {
    format!(
        r#"name = "two-dcs"
seed = 7
[topology]
kind = "multi_dc"
dcs = 2
fabric = "leaf_spine"
leaves = 4
spines = 2
hosts_per_leaf = 4
interconnect = "border"
wan_links = 2
host_link = {{ rate = "10Gbps", delay = "1us" }}
fabric_link = {{ rate = "40Gbps", delay = "1us" }}
long_haul_link = {{ rate = "40Gbps", delay = "10us" }}
{more}
[record]
flows = true
"#
    )
}

#[test]
fn cross_dc_flows_both_ways_with_equal_starts() {
    // Flows across in both directions and inside each DC, several starting at the same
    // picosecond (ties), into shared receivers.
    let mut wl = String::new();
    for (src, dst, start) in [(0, 16, 0), (1, 16, 0), (2, 17, 0), (16, 0, 0), (17, 0, 0), (3, 4, 0), (20, 21, 5), (5, 31, 5), (31, 5, 5)] {
        wl += &format!("[[workload]]\nkind = \"flow\"\nsrc = \"h{src}\"\ndst = \"h{dst}\"\nbytes = \"300KB\"\nstart = \"{start}us\"\n");
    }
    let r = same_for_every_thread_count(&spec(&two_dcs(&wl)), 2);
    assert_eq!(column(&r, "flows", "completed"), Column::Bool(vec![true; 9]));
}

#[test]
fn drops_and_timeouts_across_dcs() {
    // An 8-to-1 incast of short flows across the WAN into 4-packet queues: drops and RTOs.
    let toml = two_dcs(
        "[switch.queue]\nlimit = \"4pkt\"\n[transport]\nmin_rto = \"200us\"\ninitial_rto = \"300us\"\n\
         [[workload]]\nkind = \"incast\"\ndegree = 8\nsenders = [\"h0\", \"h1\", \"h2\", \"h3\", \"h4\", \"h5\", \"h6\", \"h7\"]\nreceiver = \"h20\"\nbytes_per_sender = \"30KB\"\n",
    );
    let r = same_for_every_thread_count(&spec(&toml), 2);
    let Column::U64(t) = column(&r, "flows", "timeouts") else { panic!() };
    assert!(t.iter().sum::<u64>() > 0, "the incast must time out somewhere: {t:?}");
    let Column::U64(d) = column(&r, "ports", "dropped_pkts") else { panic!() };
    assert!(d.iter().sum::<u64>() > 0);
}

#[test]
fn random_losses_on_the_wan_recovered_by_sack_across_dcs() {
    // Long flows both ways over WAN links that lose 2% of packets: ACKs crossing between
    // partitions carry up to three SACK blocks (Linux recovery), the second and third
    // beside the packet, and the senders' recovery reads them.
    let mut wl = String::new();
    for (src, dst) in [(0, 16), (1, 17), (18, 2), (3, 19)] {
        wl += &format!("[[workload]]\nkind = \"flow\"\nsrc = \"h{src}\"\ndst = \"h{dst}\"\nbytes = \"2MB\"\nstart = \"0us\"\n");
    }
    let toml = two_dcs(&format!(
        "[transport]\nrecovery = \"linux\"\n{wl}[[event]]\nat = \"0s\"\nlink = \"inter\"\naction = \"drop\"\nprobability = 0.02\n"
    ));
    let r = same_for_every_thread_count(&spec(&toml), 2);
    let Column::U64(fr) = column(&r, "flows", "fast_recoveries") else { panic!() };
    assert!(fr.iter().all(|&n| n > 0), "every flow must lose and recover by SACK: {fr:?}");
}

/// A measurement, not a check of its own (hence ignored): `FANIN_PARTITION_PROBE=file.toml`
/// times a scenario whole (mode 0) and partitioned on 1 and 2 threads (modes 1, 2;
/// `FANIN_PARTITION_MODES`), prints the partitions' balance, and asserts the results
/// agree. Data files come from the scenario's folder, `$FANIN_UNO_ARTIFACT` (the Uno
/// artifact's matrices, as `fanin.run` finds them) and the packaged workloads.
#[test]
#[ignore]
fn probe_a_scenario() {
    let Ok(path) = std::env::var("FANIN_PARTITION_PROBE") else { return };
    let dir = std::path::Path::new(&path).parent().unwrap().to_path_buf();
    let artifact = std::env::var("FANIN_UNO_ARTIFACT").map(std::path::PathBuf::from).ok();
    let load = move |name: &str| {
        let packaged = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/fanin/data/workloads").into();
        for d in [Some(dir.clone()), artifact.clone(), Some(packaged)].into_iter().flatten() {
            if let Ok(t) = std::fs::read_to_string(d.join(name)) {
                return Ok(t);
            }
        }
        Err(format!("{name} not found"))
    };
    let s = parse_scenario(&std::fs::read_to_string(&path).unwrap(), &load).unwrap_or_else(|e| panic!("{e}"));
    let modes: Vec<usize> = std::env::var("FANIN_PARTITION_MODES").unwrap_or("0,1,2".into()).split(',').map(|x| x.parse().unwrap()).collect();
    let mut first: Option<Results> = None;
    for threads in modes {
        let t0 = std::time::Instant::now();
        let sim = if threads == 0 { Simulation::whole(&s).unwrap() } else { Simulation::partitioned(&s, threads).unwrap() };
        let parts = sim.partitions();
        let built = t0.elapsed().as_secs_f64();
        let mut sim = sim;
        sim.time_windows();
        while !sim.run_until(u64::MAX - 1) {}
        let ran = t0.elapsed().as_secs_f64();
        if let Some(b) = sim.partition_balance() {
            let (e, c) = (b.events as f64 / b.critical_events as f64, b.cpu_ns as f64 / b.critical_cpu_ns as f64);
            eprintln!("  {b:?}: at most {e:.2}x by events, {c:.2}x by CPU time");
        }
        let r = run(sim, 0);
        let hops = r.summary.iter().find(|x| x.0 == "packet_hops").unwrap().1;
        let all = t0.elapsed().as_secs_f64();
        eprintln!("threads {threads} ({parts} partitions): {all:.3} s (set-up {built:.3} s, run {:.3} s, results {:.3} s), {hops} hops", ran - built, all - ran);
        match &first {
            None => first = Some(r),
            Some(f) => assert!(&r == f, "threads {threads} changed a result"),
        }
    }
}

#[test]
fn poisson_arrivals_across_dcs() {
    // Open-loop flows between any hosts of both DCs (half of them across the WAN): every
    // partition draws the same arrivals; the sender's starts each.
    let toml = two_dcs(
        "[[workload]]\nkind = \"poisson\"\nload = 0.3\nsizes = \"websearch_dctcp2010_cdf.txt\"\nstop = \"10ms\"\n",
    );
    let r = same_for_every_thread_count(&spec(&toml), 2);
    let Column::U32(src) = column(&r, "flows", "src") else { panic!() };
    let Column::U32(dst) = column(&r, "flows", "dst") else { panic!() };
    let across = src.iter().zip(&dst).filter(|(s, d)| (**s < 16) != (**d < 16)).count();
    assert!(src.len() > 40 && across > 10, "{} flows, {across} across", src.len());
}

#[test]
fn three_dcs_over_backbone_routers_on_fewer_threads_than_partitions() {
    // HotNets' backbone: routers outside every DC join the first partition; three
    // partitions share two threads.
    let mut wl = String::new();
    for (src, dst) in [(0, 16), (16, 32), (32, 0), (1, 33), (17, 2), (3, 4)] {
        wl += &format!("[[workload]]\nkind = \"flow\"\nsrc = \"h{src}\"\ndst = \"h{dst}\"\nbytes = \"200KB\"\n");
    }
    let toml = format!(
        "[topology]\nkind = \"multi_dc\"\ndcs = 3\nfabric = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 4\n\
         interconnect = \"backbone\"\nrouters = 2\nhost_link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
         long_haul_link = {{ rate = \"40Gbps\", delay = \"50us\" }}\n{wl}[record]\nflows = true\n"
    );
    let r = same_for_every_thread_count(&spec(&toml), 3);
    assert_eq!(column(&r, "flows", "completed"), Column::Bool(vec![true; 6]));
}

#[test]
fn what_cannot_be_cut_runs_whole_and_says_why() {
    let sampled = two_dcs("[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h16\"\nbytes = \"10KB\"\n")
        .replace("flows = true\n", "flows = true\nqueues = { interval = \"10us\", ports = \"all\" }\n");
    let sim = Simulation::with_threads(&spec(&sampled), 2).unwrap();
    assert_eq!(sim.partitions(), 1);
    assert_eq!(sim.whole_because(), Some("[record] queue, rate and window series are not partitioned yet"));
    // Per datacenter, windows are an eighth of the WAN's delay: 125 ns at least.
    let flow = two_dcs("[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h16\"\nbytes = \"10KB\"\n");
    let short = Simulation::with_threads(&spec(&flow.replace("delay = \"10us\"", "delay = \"999ns\"")), 2).unwrap();
    assert_eq!(short.whole_because(), Some("links between partitions are shorter than 1 us"));
    assert_eq!(Simulation::with_threads(&spec(&flow.replace("delay = \"10us\"", "delay = \"1us\"")), 2).unwrap().partitions(), 2);
    let e = Simulation::with_threads(&spec(&sampled), 0).err().expect("0 threads");
    assert_eq!((e.path.as_str(), e.message.as_str()), ("threads", "must be at least 1"));
}

#[test]
fn erasure_coded_flows_across_dcs() {
    // UnoRC's blocks: the receiver's side in one partition, the sender's parity-NACK
    // handling in the other; drops into 8-packet queues make parity NACKs.
    let mut wl = String::new();
    for (src, dst) in [(0, 20), (1, 20), (2, 20), (3, 20), (16, 4), (17, 4)] {
        wl += &format!("[[workload]]\nkind = \"flow\"\nsrc = \"h{src}\"\ndst = \"h{dst}\"\nbytes = \"500KB\"\n");
    }
    let toml = two_dcs(&format!("[switch.queue]\nlimit = \"8pkt\"\n[routing]\nlb = \"spray\"\n[transport]\nrecovery = \"basic\"\n[transport.erasure]\n{wl}"));
    let r = same_for_every_thread_count(&spec(&toml), 2);
    assert!(r.table("erasure").unwrap().rows() > 0, "some flows must be coded");
    let nacks = r.summary.iter().find(|x| x.0 == "parity_nacks").unwrap().1;
    assert!(nacks > 0.0, "drops must make parity NACKs");
}

/// A k = 4 fat-tree cut into `parts` parts of whole pods (`[partition] by = "pod"`).
fn pods(parts: usize, more: &str) -> String {
    format!(
        r#"name = "pods"
seed = 3
[topology]
kind = "fat_tree"
k = 4
host_link = {{ rate = "10Gbps", delay = "1us" }}
fabric_link = {{ rate = "10Gbps", delay = "1us" }}
[partition]
by = "pod"
parts = {parts}
{more}
[record]
flows = true
"#
    )
}

/// A run cut by pod is cut so on one thread too (its tables are its own, not one world's),
/// and gives those tables on 1 to 3 threads and in steps; returns them.
fn same_cut_for_every_thread_count(s: &ValidSpec, parts: usize) -> Results {
    let one = Simulation::with_threads(s, 1).unwrap();
    assert_eq!(one.partitions(), parts);
    let one = run(one, 0);
    for threads in 2..=3 {
        assert!(run(Simulation::with_threads(s, threads).unwrap(), 0) == one, "{threads} threads changed a result");
    }
    assert!(run(Simulation::with_threads(s, 2).unwrap(), 37_000_000) == one, "running in steps changed a result");
    one
}

#[test]
fn a_fat_tree_cut_by_pod_is_the_same_on_every_thread_count() {
    // Every host sends to one in another pod (through the cores, between the parts) and an
    // incast into 8-packet queues from every pod drops and times out across the cut.
    let wl = "[switch.queue]\nlimit = \"8pkt\"\n[transport]\nmin_rto = \"200us\"\n\
              [[workload]]\nkind = \"permutation\"\nbytes = \"60KB\"\n\
              [[workload]]\nkind = \"incast\"\nreceiver = \"h5\"\ndegree = 12\nbytes_per_sender = \"20KB\"\nstart = \"20us\"\n";
    for parts in [2, 4] {
        let s = spec(&pods(parts, wl));
        let cut = same_cut_for_every_thread_count(&s, parts);
        // Another order of ties at the cores, the same network: every flow ends either way.
        let whole = run(Simulation::whole(&s).unwrap(), 0);
        for r in [&cut, &whole] {
            assert_eq!(column(r, "flows", "completed"), Column::Bool(vec![true; 28]));
        }
        let drops = |r: &Results| r.summary.iter().find(|x| x.0 == "drops").unwrap().1;
        assert!(drops(&cut) > 0.0, "the incast must drop packets");
    }
}

#[test]
fn a_cut_by_pod_names_what_it_cannot_cut() {
    let err = |toml: &str| match parse_scenario(toml, &common::load_file) {
        Err(e) => (e.path, e.message),
        Ok(s) => match Simulation::with_threads(&s, 1) {
            Err(e) => (e.path, e.message),
            Ok(_) => panic!("accepted: {toml}"),
        },
    };
    let wl = "[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h15\"\nbytes = \"10KB\"\n";
    assert_eq!(err(&pods(5, wl)), ("partition.parts".into(), "must be between 2 and 4, got 5".into()));
    assert_eq!(err(&pods(2, wl).replace("by = \"pod\"", "by = \"dc\"")).0, "partition.by");
    let leaf_spine = pods(2, wl).replace("kind = \"fat_tree\"\nk = 4", "kind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 8");
    assert_eq!(err(&leaf_spine), ("partition.by".into(), "needs a topology with pods (fat_tree)".into()));
    // Windows of a quarter of the links' delay: 125 ns at least.
    let short = pods(2, wl).replace("fabric_link = { rate = \"10Gbps\", delay = \"1us\" }", "fabric_link = { rate = \"10Gbps\", delay = \"499ns\" }");
    assert_eq!(err(&short), ("partition.by".into(), "links between partitions are shorter than 500 ns".into()));
    assert!(Simulation::with_threads(&spec(&short.replace("499ns", "500ns")), 1).is_ok());
    let sampled = pods(2, wl).replace("flows = true\n", "flows = true\nqueues = { interval = \"10us\", ports = \"all\" }\n");
    assert_eq!(err(&sampled), ("partition.by".into(), "[record] queue, rate and window series are not partitioned yet".into()));
    let two = two_dcs("[partition]\nby = \"pod\"\n[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h16\"\nbytes = \"10KB\"\n");
    assert_eq!(err(&two).0, "partition.by");
}

/// Bytes are conserved at every instant a cut run stops at, with packets queued on a link's
/// sender side, on the wire on its receiver's and between the two (sent in a window the far
/// side has not taken in yet, or in the window the stop cut short). Cut per datacenter, the
/// counts are one world's at the same instant.
#[test]
fn a_cut_run_conserves_bytes_at_every_stop() {
    let mut wl = String::new();
    for (src, dst) in [(0, 16), (1, 17), (18, 2), (3, 4)] {
        wl += &format!("[[workload]]\nkind = \"flow\"\nsrc = \"h{src}\"\ndst = \"h{dst}\"\nbytes = \"400KB\"\nstart = \"0us\"\n");
    }
    wl += "[switch.queue]\nlimit = \"4pkt\"\n[[workload]]\nkind = \"incast\"\ndegree = 6\nsenders = [\"h5\", \"h6\", \"h7\", \"h8\", \"h9\", \"h10\"]\nreceiver = \"h21\"\nbytes_per_sender = \"30KB\"\nstart = \"3us\"\n";
    let s = spec(&two_dcs(&wl));
    let (mut whole, mut cut) = (Simulation::whole(&s).unwrap(), Simulation::partitioned(&s, 2).unwrap());
    let (mut wan_busy, mut lossy) = (0, 0);
    // Stops off the windows' grid (10 us / 8), some inside a WAN packet's flight.
    for at in (1..60).map(|i| i * 3_300_000 + 170_000) {
        whole.run_until(at);
        cut.run_until(at);
        let (w, c) = (whole.conservation(), cut.conservation());
        assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "at {at} ps: {c:?}");
        assert_eq!(c, w, "at {at} ps");
        wan_busy += (c.in_flight > 0) as u32;
        lossy += (c.dropped > 0 && c.in_flight > 0) as u32;
    }
    assert!(wan_busy > 30 && lossy > 0, "the stops must catch packets in flight, after drops: {wan_busy}, {lossy}");
    // And cut by pod, where only the run's own counts can be checked.
    let s = spec(&pods(4, "[[workload]]\nkind = \"permutation\"\nbytes = \"60KB\"\n"));
    let mut cut = Simulation::with_threads(&s, 2).unwrap();
    for at in (1..40).map(|i| i * 1_700_000 + 90_000) {
        cut.run_until(at);
        let c = cut.conservation();
        assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "by pod, at {at} ps: {c:?}");
    }
}
