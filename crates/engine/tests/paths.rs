//! Packets go where routing says. A packet's egress port at each switch is chosen when it
//! starts towards that switch and carried in its arrival event; here every port a k = 4
//! fat-tree's permutation traffic used must lie on some flow's ECMP path (data one way,
//! ACKs back on the same entropy), and every such port must have carried packets.

mod common;

use fanin_engine::{parse_scenario, Simulation};
use std::collections::BTreeSet;

#[test]
fn packets_follow_the_routes_ecmp_picks() {
    let toml = include_str!("fixtures/fat_tree_k4_permutation.toml");
    let spec = parse_scenario(toml, &common::load_file).unwrap();
    let mut sim = Simulation::new(&spec).unwrap();
    assert!(sim.run_until(u64::MAX));
    let w = sim.world();
    let mut expected = BTreeSet::new();
    for f in &w.flows {
        expected.extend(w.routes.path(&w.topo, f.src, f.dst, f.entropy));
        expected.extend(w.routes.path(&w.topo, f.dst, f.src, f.entropy));
    }
    let used: BTreeSet<_> = (0..w.ports.len())
        .filter(|&p| w.ports[p].queue.counters.enqueued_pkts > 0)
        .map(fanin_engine::ids::PortId::from)
        .collect();
    // ECMP leaves some fabric ports idle, so the check has something to catch.
    assert!(expected.len() < w.ports.len(), "{} of {} ports on paths", expected.len(), w.ports.len());
    assert_eq!(used, expected);
}
