//! Per-packet spraying: one flow's data and ACKs spread over every equal-cost path, where
//! per-flow ECMP keeps them on one. Each packet draws one of the flow's 256 entropies, so
//! a path's share is the share of those entropies that hash to it; runs stay
//! deterministic.

mod common;

use fanin_engine::routing::select::wire;
use fanin_engine::{parse_scenario, Column, Results, Simulation};

/// One 2 MB flow across a 2-leaf, 4-spine fabric; `routing` is the `[routing]` section's body.
fn scenario(routing: &str) -> String {
    format!(
        r#"
seed = 9
[topology]
kind = "leaf_spine"
leaves = 2
spines = 4
hosts_per_leaf = 2
host_link = {{ rate = "10Gbps", delay = "1us" }}
[routing]
{routing}
[[workload]]
kind = "flow"
src = "h0"
dst = "h2"
bytes = "2MB"
"#
    )
}

const SPRAY: &str = "lb = \"spray\"";

fn one_flow(routing: &str) -> Results {
    common::run(&scenario(routing))
}

/// Packets sent by each port whose name starts with `prefix`, in port order.
fn tx(r: &Results, prefix: &str) -> Vec<u64> {
    let ports = r.table("ports").unwrap();
    let Column::Str(names) = ports.column("port_name").unwrap() else { panic!() };
    let pkts = common::u64s(r, "ports", "tx_pkts");
    names.iter().zip(pkts).filter(|(n, _)| n.starts_with(prefix)).map(|(_, p)| p).collect()
}

fn shares(counts: &[u64]) -> Vec<f64> {
    let total: u64 = counts.iter().sum();
    counts.iter().map(|&c| c as f64 / total as f64).collect()
}

/// Per port leaving `leaf` towards a spine (in port order): the share of the flow's
/// `entropies` path entropies that leave through it, data (h0 -> h2) from leaf0 and ACKs
/// (h2 -> h0) from leaf1.
fn entropy_shares(leaf: &str, entropies: u32) -> Vec<f64> {
    let spec = parse_scenario(&scenario(SPRAY), &common::load_file).unwrap();
    let sim = Simulation::new(&spec).unwrap();
    let w = sim.world();
    let f = &w.flows[0];
    let (src, dst) = if leaf == "leaf0" { (f.src, f.dst) } else { (f.dst, f.src) };
    let uplinks: Vec<usize> = (0..w.ports.len()).filter(|&p| w.topo.port_name(p.into()).starts_with(&format!("{leaf}->spine"))).collect();
    let mut counts = vec![0u64; uplinks.len()];
    for e in 0..entropies {
        let path = w.routes.path(&w.topo, src, dst, wire(f.entropy, e));
        counts[uplinks.iter().position(|&u| path.contains(&u.into())).unwrap()] += 1;
    }
    shares(&counts)
}

#[test]
fn spraying_spreads_data_and_acks_over_every_spine() {
    let ecmp = one_flow("lb = \"ecmp\"");
    let spray = one_flow(SPRAY);
    // Entropies without end: every packet an independent uniform choice.
    let even = one_flow("lb = \"spray\"\nentropies = 1073741824");
    for r in [&ecmp, &spray, &even] {
        assert!(common::bools(r, "flows", "completed")[0]);
    }
    // Data leaves leaf0 towards the spines, ACKs leave leaf1 (about 1,400 each).
    for leaf in ["leaf0", "leaf1"] {
        let prefix = format!("{leaf}->spine");
        let e = tx(&ecmp, &prefix);
        assert_eq!(e.iter().filter(|&&p| p > 0).count(), 1, "ECMP keeps one path: {prefix} {e:?}");
        // Binomial noise on ~1,400 packets: a share's standard deviation is 0.012.
        let s = shares(&tx(&even, &prefix));
        assert!(s.iter().all(|share| (share - 0.25).abs() < 0.035), "{prefix} {s:?}");
        // With 256 entropies a spine gets its entropies' share, which is not a quarter.
        let expected = entropy_shares(leaf, 256);
        let s = shares(&tx(&spray, &prefix));
        assert_eq!(s.len(), 4);
        assert!(s.iter().zip(&expected).all(|(a, b)| (a - b).abs() < 0.035), "{prefix} {s:?} against {expected:?}");
        assert!(expected.iter().any(|share| (share - 0.25).abs() > 0.01), "{expected:?}");
    }
    // The same seed sprays the same way.
    assert_eq!(tx(&one_flow(SPRAY), "leaf0->spine"), tx(&spray, "leaf0->spine"));
}
