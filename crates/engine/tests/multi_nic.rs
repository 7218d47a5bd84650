//! Hosts with several links and static routes (issue 19, item 1). A flow picks its NIC by
//! the rule the switches use (per-flow ECMP over equal-cost next nodes), its ideal FCT
//! follows the path its packets take, and a static route is followed hop by hop.
//!
//! Each test runs its flows one at a time (a start every `GAP`, each done well within it)
//! and reads which ports a flow used from the queue counters' growth over its slot.

mod common;

use fanin_engine::ids::{HostId, NodeId, PortId};
use fanin_engine::scenario::StaticRoute;
use fanin_engine::topology::{NodeKind, Topology};
use fanin_engine::units::serialization_ps;
use fanin_engine::{parse_scenario, Simulation};
use std::collections::BTreeSet;

const G10: u64 = 10_000_000_000;
const G40: u64 = 40_000_000_000;
const US: u64 = 1_000_000;
const GAP: u64 = 1_000 * US;

/// A scenario of `n` flows of `bytes` from `src[i]` to `dst[i]`, one every `GAP`, on a
/// leaf-spine with `hosts` hosts (its topology is replaced by the test's own).
fn scenario(hosts: u32, pairs: &[(u32, u32)], bytes: u64, extra: &str) -> String {
    let mut s = format!(
        "name = \"multi-nic\"\nseed = 5\n[topology]\nkind = \"leaf_spine\"\nleaves = 1\nspines = 1\nhosts_per_leaf = {hosts}\n\
         [transport]\ncc = \"dctcp\"\n{extra}\n"
    );
    for (i, (a, b)) in pairs.iter().enumerate() {
        s += &format!("[[workload]]\nkind = \"flow\"\nsrc = \"h{a}\"\ndst = \"h{b}\"\nbytes = \"{bytes}B\"\nstart = \"{}us\"\n", i as u64 * GAP / US);
    }
    s
}

/// Runs flow after flow; per flow, the ports that carried its packets (data and ACKs).
fn ports_per_flow(toml: &str, topo: Topology, pinned: Vec<StaticRoute>) -> (Simulation, Vec<BTreeSet<PortId>>) {
    let mut spec = parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"));
    spec.topology = topo;
    spec.routing.static_routes = pinned;
    let mut sim = Simulation::new(&spec).unwrap();
    let n = sim.world().flows.len();
    let counts = |sim: &Simulation| -> Vec<u64> { sim.world().ports.iter().map(|p| p.queue.counters.enqueued_pkts).collect() };
    let mut used = Vec::new();
    for i in 0..n {
        let before = counts(&sim);
        sim.run_until((i as u64 + 1) * GAP - 1);
        let after = counts(&sim);
        used.push((0..after.len()).filter(|&p| after[p] > before[p]).map(PortId::from).collect());
        assert!(sim.world().flows[i].finished(), "flow {i} did not finish in its slot");
    }
    (sim, used)
}

fn link(t: &mut Topology, a: NodeId, b: NodeId, rate: u64) {
    t.add_link(a, b, rate, US);
}

/// The ideal FCT of a one-packet-per-hop store-and-forward path with these link rates
/// (every link 1 us, the ACK back on the same links): the base RTT plus the flow's bytes
/// at the slowest link, the first packet counted once.
fn ideal(rates: &[u64], first: u64, ack: u64, flow_wire: u64) -> u64 {
    let b = *rates.iter().min().unwrap();
    let rtt: u64 = rates.iter().map(|&r| 2 * US + serialization_ps(first, r) + serialization_ps(ack, r)).sum();
    rtt - serialization_ps(first, b) + serialization_ps(flow_wire, b)
}

/// Senders s0..s7 (40G) on switch C; C links to A and B (40G); receiver R has a 10G NIC
/// to A and a 40G NIC to B. Host numbering: s0..s7 are h0..h7, R is h8.
fn dual_homed_receiver() -> Topology {
    let mut t = Topology::default();
    let s: Vec<NodeId> = (0..8).map(|i| t.add_node(NodeKind::Host, format!("h{i}"))).collect();
    let r = t.add_node(NodeKind::Host, "h8");
    let [a, b, c] = ["A", "B", "C"].map(|n| t.add_node(NodeKind::Switch, n));
    for &h in &s {
        link(&mut t, h, c, G40);
    }
    link(&mut t, r, a, G10);
    link(&mut t, r, b, G40);
    link(&mut t, c, a, G40);
    link(&mut t, c, b, G40);
    t
}

#[test]
fn a_dual_homed_host_spreads_flows_over_its_nics_and_each_ideal_fct_follows_its_path() {
    let t = dual_homed_receiver();
    let names = |ports: &BTreeSet<PortId>| -> Vec<String> { ports.iter().map(|&p| t.port_name(p)).collect() };
    // Eight flows into R, then eight out of it.
    let pairs: Vec<(u32, u32)> = (0..8).map(|i| (i, 8)).chain((0..8).map(|i| (8, i))).collect();
    let bytes = 14_600;
    let (sim, used) = ports_per_flow(&scenario(9, &pairs, bytes, ""), t.clone(), vec![]);
    let w = sim.world();
    let tr = &w.transport;
    let (first, ack, wire) = (tr.wire_bytes(tr.mss()), tr.ack_bytes, tr.flow_wire_bytes(bytes));
    let (slow, fast) = (ideal(&[G40, G40, G10], first, ack, wire), ideal(&[G40, G40, G40], first, ack, wire));
    let mut via = [0u32; 2];
    for (i, f) in w.flows.iter().enumerate() {
        // R's link the data crossed: into R for s -> R, out of R for R -> s (the ACKs hash
        // on their own at R and at C, so they may cross the other one).
        let data = |x: &str| if i < 8 { format!("{x}->h8") } else { format!("h8->{x}") };
        let crossed = |x: &str| used[i].iter().any(|&p| t.port_name(p) == data(x));
        let (through_a, through_b) = (crossed("A"), crossed("B"));
        assert!(through_a != through_b, "flow {i}: {:?}", names(&used[i]));
        via[through_b as usize] += 1;
        let expected = if through_a { slow } else { fast };
        assert_eq!(f.ideal_fct, expected, "flow {i} via {}", if through_a { "A" } else { "B" });
        // The path routing reports is the one taken.
        let path: BTreeSet<PortId> = w.routes.path(&w.topo, f.src, f.dst, f.entropy).into_iter().collect();
        assert!(path.is_subset(&used[i]), "flow {i}: {:?} vs {:?}", names(&path), names(&used[i]));
    }
    // 16 flows by a fair hash: both NICs used (P(all on one) = 2^-15).
    assert!(via[0] > 0 && via[1] > 0, "{via:?}");
    assert!(slow > fast);
}

/// Leaf-spine with 2 leaves, 2 spines, 2 hosts per leaf, and h1 also linked to spine1
/// (a Superways shortcut): nodes h0..h3, leaf0, leaf1, spine0, spine1.
fn leaf_spine_with_shortcut() -> Topology {
    let mut t = Topology::default();
    let h: Vec<NodeId> = (0..4).map(|i| t.add_node(NodeKind::Host, format!("h{i}"))).collect();
    let l: Vec<NodeId> = (0..2).map(|i| t.add_node(NodeKind::Switch, format!("leaf{i}"))).collect();
    let s: Vec<NodeId> = (0..2).map(|i| t.add_node(NodeKind::Switch, format!("spine{i}"))).collect();
    for (i, &x) in h.iter().enumerate() {
        link(&mut t, x, l[i / 2], G10);
    }
    for &a in &l {
        for &b in &s {
            link(&mut t, a, b, G40);
        }
    }
    link(&mut t, h[1], s[1], G40);
    t
}

#[test]
fn a_static_route_is_followed_hop_by_hop() {
    let t = leaf_spine_with_shortcut();
    // h0 -> h1 share leaf0 (shortest: h0-leaf0-h1); pinned through spine1's shortcut.
    // h2 -> h1 is left to ECMP: leaf1-spine1-h1 is the only 3-hop way. (The scenario
    // checks of `[[routing.static]]` are in scenario_errors.rs: the parsed topology here
    // lacks the shortcut, so the route is given validated.)
    let nodes = ["h0", "leaf0", "spine1", "h1"].map(|n| NodeId::from(t.nodes.iter().position(|x| x.name == n).unwrap())).to_vec();
    let pinned = vec![StaticRoute { src: HostId(0), dst: HostId(1), nodes }];
    let (sim, used) = ports_per_flow(&scenario(4, &[(0, 1), (2, 1), (1, 0)], 14_600, ""), t.clone(), pinned);
    let names = |i: usize| -> Vec<String> {
        let mut v: Vec<String> = used[i].iter().map(|&p| t.port_name(p)).collect();
        v.sort();
        v
    };
    let mut pinned = vec!["h0->leaf0", "leaf0->spine1", "spine1->h1", "h1->spine1", "spine1->leaf0", "leaf0->h0"];
    pinned.sort();
    assert_eq!(names(0), pinned);
    let mut ecmp = vec!["h2->leaf1", "leaf1->spine1", "spine1->h1", "h1->spine1", "spine1->leaf1", "leaf1->h2"];
    ecmp.sort();
    assert_eq!(names(1), ecmp);
    // The reverse pair (h1 -> h0) was not given: its data takes the pinned path backwards,
    // and its ACKs the forward one.
    assert_eq!(names(2), pinned);
    // Its ideal FCT is that of the pinned 3-hop path (10G at both ends' leaf links).
    let w = sim.world();
    let tr = &w.transport;
    let (first, ack, wire) = (tr.wire_bytes(tr.mss()), tr.ack_bytes, tr.flow_wire_bytes(14_600));
    assert_eq!(w.flows[0].ideal_fct, ideal(&[G10, G40, G40], first, ack, wire));
}

#[test]
fn a_lag_of_parallel_links_spreads_flows() {
    // h0..h15 on A, h16 on B, A and B joined by three parallel links.
    let mut t = Topology::default();
    let h: Vec<NodeId> = (0..17).map(|i| t.add_node(NodeKind::Host, format!("h{i}"))).collect();
    let [a, b] = ["A", "B"].map(|n| t.add_node(NodeKind::Switch, n));
    for &x in &h[..16] {
        link(&mut t, x, a, G10);
    }
    link(&mut t, h[16], b, G40);
    for _ in 0..3 {
        link(&mut t, a, b, G10);
    }
    let pairs: Vec<(u32, u32)> = (0..16).map(|i| (i, 16)).collect();
    let (_, used) = ports_per_flow(&scenario(17, &pairs, 1460, ""), t.clone(), vec![]);
    let mut per_link = [0u32; 3];
    for u in &used {
        let lag: Vec<usize> = u.iter().filter(|&&p| t.port_name(p) == "A->B").map(|p| p.idx() / 2 - 17).collect();
        assert_eq!(lag.len(), 1, "one member of the LAG per flow");
        per_link[lag[0]] += 1;
    }
    assert!(per_link.iter().all(|&n| n > 0), "{per_link:?}");
    assert_eq!(per_link.iter().sum::<u32>(), 16);
}
