//! The Superways paper's topologies (issue 19, item 2): node and link counts and routes on
//! small instances, the paper's 20 x 20 network, and Jellyfish's random wiring.

mod common;

use fanin_engine::ids::{HostId, NodeId};
use fanin_engine::routing::Routes;
use fanin_engine::topology::{NodeKind, Topology};
use fanin_engine::parse_scenario;
use std::collections::BTreeSet;

const WL: &str = "[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h1\"\nbytes = \"1KB\"\n";

fn topo(fields: &str, seed: u64) -> Topology {
    let toml = format!("seed = {seed}\n[topology]\n{fields}\n{WL}");
    parse_scenario(&toml, &common::load_file).unwrap_or_else(|e| panic!("{e}")).topology
}

fn node(t: &Topology, name: &str) -> NodeId {
    NodeId::from(t.nodes.iter().position(|n| n.name == name).unwrap_or_else(|| panic!("no node {name}")))
}

/// The equal-cost next hops at node `at` toward host `h{dst}`, as `from->to` names.
fn next(t: &Topology, r: &Routes, at: &str, dst: u32) -> Vec<String> {
    r.next_hops(node(t, at), HostId(dst)).iter().map(|&p| t.port_name(p)).collect()
}

fn links_of(t: &Topology, name: &str) -> Vec<(String, u64)> {
    let n = node(t, name);
    t.ports().filter(|(_, p)| p.from == n).map(|(_, p)| (t.nodes[p.to.idx()].name.clone(), p.rate_bps)).collect()
}

const G10: u64 = 10_000_000_000;
const G40: u64 = 40_000_000_000;

#[test]
fn superways_on_a_small_leaf_spine() {
    // 3 racks of 2, 2 spines; h1 gets a link to each spine.
    let t = topo(
        "kind = \"leaf_spine\"\nleaves = 3\nspines = 2\nhosts_per_leaf = 2\nfabric_link = { rate = \"40Gbps\" }\n\
         superways = { servers = [{ server = \"h1\", links = 2 }] }",
        1,
    );
    assert_eq!((t.nodes.len(), t.links.len()), (6 + 3 + 2, 6 + 6 + 2));
    assert_eq!(links_of(&t, "h1"), [("leaf0".into(), G10), ("spine0".into(), G40), ("spine1".into(), G40)]);
    let r = Routes::shortest_paths(&t);
    // A remote sender's leaf reaches h1 through either spine's shortcut (3 hops, not 4).
    assert_eq!(next(&t, &r, "leaf1", 1), ["leaf1->spine0", "leaf1->spine1"]);
    assert_eq!(next(&t, &r, "spine0", 1), ["spine0->h1"]);
    assert_eq!(r.hops(HostId(2), HostId(1)), 3);
    // A local sender stays on the leaf.
    assert_eq!(next(&t, &r, "leaf0", 1), ["leaf0->h1"]);
    // h1 sends to remote racks on its shortcuts (ACKs symmetric), locally on its leaf link.
    assert_eq!(next(&t, &r, "h1", 4), ["h1->spine0", "h1->spine1"]);
    assert_eq!(next(&t, &r, "h1", 0), ["h1->leaf0"]);
    // No route transits h1: spine0 reaches h0 through leaf0 only.
    assert_eq!(next(&t, &r, "spine0", 0), ["spine0->leaf0"]);
}

#[test]
fn the_papers_network_and_its_superways() {
    let base = "kind = \"leaf_spine\"\nleaves = 20\nspines = 10\nhosts_per_leaf = 20\n\
                host_link = { rate = \"10Gbps\", delay = \"10us\" }\nfabric_link = { rate = \"40Gbps\", delay = \"10us\" }";
    let t = topo(base, 1);
    assert_eq!((t.hosts.len(), t.nodes.len(), t.links.len()), (400, 430, 400 + 200));
    assert_eq!(links_of(&t, "leaf0").iter().filter(|(_, r)| *r == G40).count(), 10);
    // Figs 6-9: server 19 of every rack, 3 links to spines 0, 1, 2; both placement forms.
    let code = topo(&format!("{base}\nsuperways = {{ per_rack = 19, links = 3 }}"), 1);
    let plan: Vec<String> = (0..20).map(|r| format!("{{ server = {}, links = 3 }}", 20 * r + 19)).collect();
    let listed = topo(&format!("{base}\nsuperways = {{ servers = [{}] }}", plan.join(", ")), 1);
    assert_eq!(code, listed);
    assert_eq!(code.links.len(), 600 + 60);
    let names = ["leaf0", "spine0", "spine1", "spine2"];
    let expected: Vec<(String, u64)> = names.iter().map(|n| (n.to_string(), if *n == "leaf0" { G10 } else { G40 })).collect();
    assert_eq!(links_of(&code, "h19"), expected);
    assert_eq!(links_of(&code, "h399").len(), 4);
    assert_eq!(links_of(&code, "h18").len(), 1);
    // A remote sender reaches an aggregator in 3 hops over spines 0-2 only.
    let r = Routes::shortest_paths(&code);
    assert_eq!(r.hops(HostId(20), HostId(19)), 3);
    assert_eq!(next(&code, &r, "leaf1", 19), ["leaf1->spine0", "leaf1->spine1", "leaf1->spine2"]);
}

#[test]
fn subways_links_each_server_to_the_next_racks_leaf() {
    let t = topo("kind = \"subways\"\nleaves = 3\nspines = 1\nhosts_per_leaf = 2", 1);
    assert_eq!((t.nodes.len(), t.links.len()), (6 + 3 + 1, 6 + 3 + 6));
    assert_eq!(links_of(&t, "h0"), [("leaf0".into(), G10), ("leaf1".into(), G10)]);
    assert_eq!(links_of(&t, "h5"), [("leaf2".into(), G10), ("leaf0".into(), G10)]);
    let r = Routes::shortest_paths(&t);
    // h0 -> h2 (rack 1): h0's second NIC is on leaf1, 2 hops.
    assert_eq!(next(&t, &r, "h0", 2), ["h0->leaf1"]);
    // h0 -> h4 (rack 2): h4's second NIC is on leaf0, so leaf0 delivers directly.
    assert_eq!(next(&t, &r, "h0", 4), ["h0->leaf0"]);
    assert_eq!(next(&t, &r, "leaf0", 4), ["leaf0->h4"]);
    assert_eq!(r.hops(HostId(0), HostId(4)), 2);
}

#[test]
fn bcube_level_links_same_index_servers() {
    let t = topo("kind = \"bcube\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 3", 1);
    assert_eq!((t.nodes.len(), t.links.len()), (6 + 2 + 1 + 3, 6 + 2 + 6));
    assert_eq!(links_of(&t, "bcube0"), [("h0".into(), G10), ("h3".into(), G10)]);
    let r = Routes::shortest_paths(&t);
    assert_eq!(next(&t, &r, "h0", 3), ["h0->bcube0"]);
    assert_eq!(r.hops(HostId(0), HostId(3)), 2);
    // No server relays: h0 -> h4 takes the leaf-spine path (4 hops), not bcube0 -> h3 -> ...
    assert_eq!(next(&t, &r, "h0", 4), ["h0->leaf0"]);
    assert_eq!(r.hops(HostId(0), HostId(4)), 4);
}

/// The authors' code's "BCube": host i (leaf-major) also links to leaf i mod spines.
#[test]
fn bcube_code_variant_links_host_i_to_leaf_i_mod_spines() {
    let t = topo("kind = \"bcube\"\nlevel = \"leaf_i_mod_spines\"\nleaves = 3\nspines = 2\nhosts_per_leaf = 3", 1);
    // No switch added: 9 hosts + 3 leaves + 2 spines; 9 + 9 host links, 3 x 2 fabric.
    assert_eq!((t.nodes.len(), t.links.len()), (14, 24));
    // h0's second link doubles its own leaf (a LAG of two); h4 (rack 1) goes to leaf0.
    assert_eq!(links_of(&t, "h0"), [("leaf0".into(), G10), ("leaf0".into(), G10)]);
    assert_eq!(links_of(&t, "h4"), [("leaf1".into(), G10), ("leaf0".into(), G10)]);
    let r = Routes::shortest_paths(&t);
    // h6 (rack 2) reaches h0 in 2 hops through its link to leaf0, which then hashes over
    // h0's two parallel links.
    assert_eq!(next(&t, &r, "h6", 0), ["h6->leaf0"]);
    assert_eq!(next(&t, &r, "leaf0", 0), ["leaf0->h0", "leaf0->h0"]);
    assert_eq!(r.hops(HostId(6), HostId(0)), 2);
    // h6 -> h7 (same rack, h7's second link on leaf1): its own leaf, 2 hops.
    assert_eq!(next(&t, &r, "h6", 7), ["h6->leaf2"]);
}

#[test]
fn bcube_code_variant_needs_a_leaf_per_spine() {
    let toml = format!("[topology]\nkind = \"bcube\"\nlevel = \"leaf_i_mod_spines\"\nleaves = 2\nspines = 3\nhosts_per_leaf = 1\n{WL}");
    let e = parse_scenario(&toml, &common::load_file).err().expect("an error").to_string();
    assert!(e.contains("topology.level") && e.contains("needs spines <= leaves, got 3 > 2"), "{e}");
}

/// The paper's Jellyfish: 20 outer switches (20 servers, 10 network ports each), 10 inner
/// (20 ports), 40G links.
const JELLYFISH: &str = "kind = \"jellyfish\"\nleaves = 20\nhosts_per_leaf = 20\nleaf_ports = 10\nspines = 10\nspine_ports = 20\n\
                         fabric_link = { rate = \"40Gbps\" }";

/// Switch-to-switch links as (lower, higher) node pairs.
fn fabric(t: &Topology) -> Vec<(NodeId, NodeId)> {
    let sw = |n: NodeId| t.nodes[n.idx()].kind == NodeKind::Switch;
    t.links.iter().filter(|l| sw(l.a) && sw(l.b)).map(|l| (l.a.min(l.b), l.a.max(l.b))).collect()
}

#[test]
fn jellyfish_switches_have_their_degree_and_the_graph_is_connected() {
    for seed in [1, 2, 3] {
        let t = topo(JELLYFISH, seed);
        assert_eq!(t.nodes.len(), 400 + 30);
        let f = fabric(&t);
        // 20 x 10 + 10 x 20 ports: 200 links, all used.
        assert_eq!(f.len(), 200);
        let distinct: BTreeSet<_> = f.iter().copied().collect();
        assert_eq!(distinct.len(), 200, "no parallel links");
        assert!(f.iter().all(|(a, b)| a != b), "no self-loops");
        for i in 0..20 {
            assert_eq!(links_of(&t, &format!("leaf{i}")).len(), 20 + 10, "leaf{i}");
        }
        for j in 0..10 {
            assert_eq!(links_of(&t, &format!("spine{j}")).len(), 20, "spine{j}");
        }
        // Connected: every host reaches every other (routes never transit hosts).
        let r = Routes::shortest_paths(&t);
        assert!((1..400).all(|h| r.reachable(HostId(0), HostId(h))));
    }
}

#[test]
fn jellyfish_is_a_function_of_the_seed() {
    assert_eq!(topo(JELLYFISH, 7), topo(JELLYFISH, 7));
    assert_ne!(fabric(&topo(JELLYFISH, 7)), fabric(&topo(JELLYFISH, 8)));
    // Superways on Jellyfish links to inner switches.
    let t = topo(&format!("{JELLYFISH}\nsuperways = {{ per_rack = 19, links = 3 }}"), 7);
    assert_eq!(fabric(&t), fabric(&topo(JELLYFISH, 7)));
    assert_eq!(links_of(&t, "h19").iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["leaf0", "spine0", "spine1", "spine2"]);
}

#[test]
fn an_incast_to_a_superways_server_arrives_over_its_shortcuts() {
    // 3 racks of 2, 2 spines; h1 (rack 0) receives from the four hosts of racks 1 and 2.
    let toml = "seed = 1\n[topology]\nkind = \"leaf_spine\"\nleaves = 3\nspines = 2\nhosts_per_leaf = 2\n\
                fabric_link = { rate = \"40Gbps\" }\nsuperways = { servers = [{ server = 1, links = 2 }] }\n\
                [[workload]]\nkind = \"incast\"\nreceiver = \"h1\"\nsenders = [\"h2\", \"h3\", \"h4\", \"h5\"]\ndegree = 4\nbytes_per_sender = \"100KB\"\n";
    let spec = parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = fanin_engine::Simulation::new(&spec).unwrap();
    sim.run();
    let w = sim.world();
    assert!(w.flows.iter().all(|f| f.finished()));
    let carried = |name: &str| {
        let p = w.topo.ports().find(|(id, _)| w.topo.port_name(*id) == name).unwrap().0;
        w.ports[p.idx()].queue.counters.enqueued_pkts
    };
    // 4 x 100 KB in 1460-byte segments: 69 per flow, 276 data packets, all over the two
    // 40G shortcuts (3 hops), none down h1's own 10G leaf link (4 hops).
    let (s0, s1) = (carried("spine0->h1"), carried("spine1->h1"));
    assert_eq!(carried("leaf0->h1"), 0);
    assert!(s0 > 0 && s1 > 0, "{s0} {s1}");
    assert!(s0 + s1 >= 276, "{s0} + {s1}");
}

#[test]
fn extra_links_to_other_racks_leaves_for_fig_12() {
    // 4 racks of 2, 2 spines; h3 (rack 1) gets 2 links to the next racks' leaves, 2 and 3.
    let t = topo(
        "kind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 2\n\
         superways = { per_rack = 1, links = 2, to = \"leaves\" }",
        1,
    );
    assert_eq!(links_of(&t, "h3").iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["leaf1", "leaf2", "leaf3"]);
    // Rack 3 wraps to leaves 0 and 1.
    assert_eq!(links_of(&t, "h7").iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["leaf3", "leaf0", "leaf1"]);
    let r = Routes::shortest_paths(&t);
    // A sender in rack 2 reaches h3 in 2 hops, straight from its own leaf.
    assert_eq!(next(&t, &r, "leaf2", 3), ["leaf2->h3"]);
    assert_eq!(r.hops(HostId(4), HostId(3)), 2);
    // Rack 0's leaf has no direct link to h3 (h1's links go to leaves 1 and 2, h3's to 2 and 3).
    assert_eq!(r.hops(HostId(0), HostId(3)), 4);
    let err = |fields: &str| parse_scenario(&format!("[topology]\n{fields}\n{WL}"), &common::load_file).unwrap_err().to_string();
    let too_many = err("kind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 2\nsuperways = { per_rack = 1, links = 4, to = \"leaves\" }");
    assert!(too_many.contains("topology.superways.links") && too_many.contains("only the 3 other racks"), "{too_many}");
    let spines = err("kind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 2\nsuperways = { servers = [{ server = 3, links = 1, spines = [0] }], to = \"leaves\" }");
    assert!(spines.contains("servers[0].spines") && spines.contains("does not apply"), "{spines}");
    let to = err("kind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 2\nsuperways = { per_rack = 1, links = 1, to = \"racks\" }");
    assert!(to.contains("topology.superways.to") && to.contains("spines, leaves"), "{to}");
}
