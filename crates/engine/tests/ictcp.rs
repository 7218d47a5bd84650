//! ICTCP (spec `icon.md` §1.3) end to end: receiver windows on the spec's leaf-spine.
mod common;
use fanin_engine::ids::FlowId;
use fanin_engine::transport::receiver_policy::Ictcp;
use fanin_engine::transport::Policy;
use fanin_engine::{parse_scenario, Column, Results, Simulation};

const MSS: u64 = 1460;

/// The spec's leaf-spine with NewReno without ECN, RTO_min 10 ms; `extra` adds to
/// [transport], `workload` is the traffic.
fn leaf_spine(extra: &str, workload: &str) -> String {
    format!("seed = 5\n{}[transport]\ncc = \"newreno\"\nmin_rto = \"10ms\"\n{extra}\n{workload}[record]\nflows = true\n", common::ICON_LEAF_SPINE)
}

/// One 10 MB flow across leaves (base RTT 80 us).
const LONE: &str = "[[workload]]\nkind = \"flow\"\nsrc = \"h25\"\ndst = \"h1\"\nbytes = \"10MB\"\n";

fn simulate(toml: &str) -> Simulation {
    let spec = parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    sim
}

fn ictcp(sim: &Simulation) -> &Ictcp {
    match &sim.world().receiver_policy {
        Some(Policy::Ictcp(p)) => p,
        None => panic!("ICTCP is off"),
    }
}

fn ports(r: &Results, col: &str) -> Vec<u64> {
    match r.table("ports").unwrap().column(col).unwrap() {
        Column::U64(v) => v.clone(),
        other => panic!("{other:?}"),
    }
}

/// Drops (all ports), the largest queue, the median and largest FCT (us).
fn summary(r: &Results) -> (u64, u64, f64, f64) {
    let mut fct = common::u64s(r, "flows", "fct_ps");
    fct.sort_unstable();
    let us = |ps: u64| ps as f64 / 1e6;
    (ports(r, "dropped_pkts").iter().sum(), *ports(r, "max_queue_pkts").iter().max().unwrap(), us(fct[fct.len() / 2]), us(fct[fct.len() - 1]))
}

#[test]
fn the_advertised_window_limits_an_incasts_first_flight() {
    let newreno = common::run(&leaf_spine("", common::ICON_MICRO_INCAST));
    let paper = simulate(&leaf_spine("[transport.ictcp]", common::ICON_MICRO_INCAST));
    let two = simulate(&leaf_spine("[transport.ictcp]\ninit_rwnd = \"2pkt\"", common::ICON_MICRO_INCAST));
    // The windows each flow ever advertised, in MSS.
    let largest = |s: &Simulation| -> Vec<u64> { (0..26).map(|f| ictcp(s).largest_rwnd(FlowId(f)) / MSS).collect() };
    let (paper_windows, two_windows) = (largest(&paper), largest(&two));
    let (paper, two) = (paper.finish(), two.finish());
    for (name, r) in [("newreno", &newreno), ("ictcp", &paper), ("ictcp 2pkt", &two)] {
        let (drops, max_queue, p50, max) = summary(r);
        eprintln!("{name}: drops {drops}, max queue {max_queue} pkts, FCT p50 {p50:.1} us, max {max:.1} us");
    }
    eprintln!("largest windows (MSS): ictcp {paper_windows:?}, ictcp 2pkt {two_windows:?}");
    let (nr, ic, ic2) = (summary(&newreno), summary(&paper), summary(&two));
    // NewReno's first flight is 26 x 10 packets into a 200-packet port. ICTCP's initial
    // window is the same 10 MSS (the spec's IW), and its sink's link is full from the
    // first sub-slot on (BW_A = 0): no window ever grows, so it drops too, but no more.
    assert_eq!((nr.1, ic.1), (200, 200));
    assert!(nr.0 > 0 && ic.0 > 0 && ic.0 <= nr.0, "drops: newreno {}, ictcp {}", nr.0, ic.0);
    assert!(paper_windows.iter().all(|&w| w == 10), "{paper_windows:?}");
    // ICTCP's own initial 2 MSS: a first flight of 52 packets, no drop.
    assert_eq!(ic2.0, 0);
    assert!(ic2.1 < 60, "max queue {}", ic2.1);
    assert!(two_windows.iter().all(|&w| (2..10).contains(&w)), "{two_windows:?}");
    for r in [&newreno, &paper, &two] {
        assert!(common::bools(r, "flows", "completed").iter().all(|c| *c));
    }
}

#[test]
fn a_lone_flows_window_grows_to_the_path() {
    // 10 MB over an 80 us path: BDP = 100 KB, 68 MSS. From 10 MSS the window doubles
    // while the quota covers it (to 40), then grows by 1 MSS every other RTT until BW_A
    // is gone (0.9 C), near 66 MSS.
    let toml = leaf_spine("[transport.ictcp]", LONE);
    let spec = parse_scenario(&toml, &common::load_file).unwrap();
    let mut sim = Simulation::new(&spec).unwrap();
    let delivered = |s: &Simulation| s.world().flows[0].receiver.rcv_nxt;
    sim.run_until(6_000_000_000);
    let at_6ms = delivered(&sim);
    sim.run_until(9_000_000_000);
    let late_gbps = (delivered(&sim) - at_6ms) as f64 * 8.0 / 3e-3 / 1e9;
    sim.run();
    let largest = ictcp(&sim).largest_rwnd(FlowId(0)) / MSS;
    let r = sim.finish();
    let fct = common::u64s(&r, "flows", "fct_ps")[0];
    let mean_gbps = 10e6 * 8.0 / (fct as f64 / 1e12) / 1e9;
    let newreno = common::run(&leaf_spine("", LONE));
    let newreno_gbps = 10e6 * 8.0 / (common::u64s(&newreno, "flows", "fct_ps")[0] as f64 / 1e12) / 1e9;
    eprintln!("lone 10 MB flow: ICTCP largest window {largest} MSS, {late_gbps:.2} Gb/s in [6, 9] ms, {mean_gbps:.2} Gb/s over its FCT {:.0} us (NewReno {newreno_gbps:.2} Gb/s)", fct as f64 / 1e6);
    assert!((60..=68).contains(&largest), "{largest} MSS");
    assert!(late_gbps > 8.0, "ICTCP holds a lone flow at {late_gbps:.2} Gb/s");
    // The slow +1 MSS phase costs about a sixth of NewReno's rate over the whole flow.
    assert!(mean_gbps > 7.5 && mean_gbps < newreno_gbps, "{mean_gbps:.2} Gb/s");
}
