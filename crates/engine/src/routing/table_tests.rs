//! Unit tests of `table.rs`: route shapes by hand, and every topology kind against the
//! dense table (`dense.rs`) as the oracle.

use super::*;
use crate::topology::NodeKind::{Host, Switch};

fn names(topo: &Topology, ports: &[PortId]) -> Vec<String> {
    ports.iter().map(|&p| topo.port_name(p)).collect()
}

/// `y - A - x - B - z` with a detour `A - C - D - B`: the route `y -> z` must take the
/// longer all-switch detour, since host `x` (dual-homed on A and B) does not forward.
fn dual_homed() -> Topology {
    let mut t = Topology::default();
    let (x, y, z) = (t.add_node(Host, "x"), t.add_node(Host, "y"), t.add_node(Host, "z"));
    let [a, b, c, d] = ["A", "B", "C", "D"].map(|n| t.add_node(Switch, n));
    for (u, v) in [(x, a), (x, b), (y, a), (z, b), (a, c), (c, d), (d, b)] {
        t.add_link(u, v, 1, 1);
    }
    t
}

#[test]
fn hosts_never_transit() {
    let t = dual_homed();
    let r = Routes::shortest_paths(&t);
    let (x, y, z) = (HostId(0), HostId(1), HostId(2));
    assert_eq!(names(&t, &r.path(&t, y, z, 7)), ["y->A", "A->C", "C->D", "D->B", "B->z"]);
    assert_eq!(r.hops(y, z), 5);
    // x may send, though not forward: its uplink to B is the short way to z.
    assert_eq!(names(&t, r.next_hops(t.hosts[0], z)), ["x->B"]);
    assert_eq!(r.hops(x, z), 2);
    assert_eq!(r.hops(x, x), 0);
    assert!(r.next_hops(t.hosts[2], z).is_empty());
}

#[test]
fn hosts_never_transit_even_on_a_tie() {
    // A - C - B and A - x - B are equally long, but only the first is a route.
    let mut t = Topology::default();
    let (x, y, z) = (t.add_node(Host, "x"), t.add_node(Host, "y"), t.add_node(Host, "z"));
    let [a, b, c] = ["A", "B", "C"].map(|n| t.add_node(Switch, n));
    for (u, v) in [(x, a), (x, b), (y, a), (z, b), (a, c), (c, b)] {
        t.add_link(u, v, 1, 1);
    }
    let r = Routes::shortest_paths(&t);
    assert_eq!(names(&t, r.next_hops(a, HostId(2))), ["A->C"]);
    assert_eq!(names(&t, r.next_hops(b, HostId(1))), ["B->C"]);
    assert_eq!(r.hops(HostId(1), HostId(2)), 4);
}

#[test]
fn unreachable_is_empty_not_a_loop() {
    let mut t = Topology::default();
    let (h0, h1) = (t.add_node(Host, "h0"), t.add_node(Host, "h1"));
    let (s0, s1) = (t.add_node(Switch, "s0"), t.add_node(Switch, "s1"));
    t.add_link(h0, s0, 1, 1);
    t.add_link(h1, s1, 1, 1);
    let r = Routes::shortest_paths(&t);
    assert!(!r.reachable(HostId(0), HostId(1)));
    assert!(r.reachable(HostId(0), HostId(0)));
    assert!(r.next_hops(s0, HostId(1)).is_empty());
    let err = std::panic::catch_unwind(|| r.select(s0, HostId(1), 0));
    assert!(err.is_err());
}

#[test]
fn parallel_links_form_one_deduplicated_group() {
    let mut t = Topology::default();
    let hs: Vec<_> = (0..3).map(|i| t.add_node(Host, format!("h{i}"))).collect();
    let (s0, s1) = (t.add_node(Switch, "s0"), t.add_node(Switch, "s1"));
    t.add_link(hs[0], s0, 1, 1);
    t.add_link(hs[1], s1, 1, 1);
    t.add_link(hs[2], s1, 1, 1);
    let p1 = t.add_link(s0, s1, 1, 1);
    let p2 = t.add_link(s0, s1, 1, 1);
    let r = Routes::shortest_paths(&t);
    assert_eq!(r.next_hops(s0, HostId(1)), [p1, p2]);
    assert_eq!(r.next_hops(s0, HostId(2)), [p1, p2]);
    assert_eq!(r.cell(s0, HostId(1)), r.cell(s0, HostId(2)), "one group, stored once");
    // s0 -> s1 (toward h1, h2) and s1 -> s0 (toward h0): two sets in all.
    assert_eq!(r.multi_groups(), 2);
    let picks: Vec<_> = (0..64).map(|e| r.select(s0, HostId(1), e)).collect();
    assert!(picks.contains(&p1) && picks.contains(&p2));
}

#[test]
fn ecmp_is_node_level_with_lags_below() {
    // x has one link to A and a LAG of three to B; y hangs off C, joined to A and B.
    let mut t = Topology::default();
    let (x, y) = (t.add_node(Host, "x"), t.add_node(Host, "y"));
    let [a, b, c] = ["A", "B", "C"].map(|n| t.add_node(Switch, n));
    let xa = t.add_link(x, a, 1, 1);
    let lag: Vec<PortId> = (0..3).map(|_| t.add_link(x, b, 1, 1)).collect();
    for (u, v) in [(y, c), (a, c), (b, c)] {
        t.add_link(u, v, 1, 1);
    }
    let r = Routes::shortest_paths(&t);
    // A listed three times, each LAG member once: A and B half each, a third of B's
    // half per member.
    assert_eq!(r.next_hops(x, HostId(1)), [xa, xa, xa, lag[0], lag[1], lag[2]]);
    let n = 60_000u32;
    let via_a = (0..n).filter(|&e| r.select(x, HostId(1), e) == xa).count();
    assert!((29_000..31_000).contains(&via_a), "{via_a}");
    let first = (0..n).filter(|&e| r.select(x, HostId(1), e) == lag[0]).count();
    assert!((9_500..10_500).contains(&first), "{first}");
}

#[test]
fn a_pinned_column_follows_its_path_only() {
    let t = dual_homed();
    let mut r = Routes::shortest_paths(&t);
    let path: Vec<NodeId> = ["y", "A", "x"].map(|n| NodeId::from(t.nodes.iter().position(|m| m.name == n).unwrap())).to_vec();
    let ids = r.pin(&t, &[path]);
    assert_eq!(ids, [HostId(3)]);
    assert_eq!(r.n_dests(), 4);
    assert_eq!(names(&t, &r.path(&t, HostId(1), ids[0], 0)), ["y->A", "A->x"]);
    // Off the path (B) there is no route; the hosts' columns are unchanged.
    assert!(r.next_hops(NodeId(4), ids[0]).is_empty());
    assert_eq!(r.hops(HostId(1), HostId(2)), 5);
    let fib = super::super::Fib::new(&t, &r).unwrap();
    assert_eq!(fib.select(NodeId(3), ids[0], 9), r.select(NodeId(3), ids[0], 9));
}

#[test]
fn single_next_hop_is_the_entry_itself() {
    let t = dual_homed();
    let r = Routes::shortest_paths(&t);
    let y_node = t.hosts[1];
    let e = r.cell(y_node, HostId(2));
    assert_eq!(e & MULTI, 0);
    for entropy in [0, 1, u32::MAX] {
        assert_eq!(r.select(y_node, HostId(2), entropy), PortId(e));
    }
}

/// Small instances of every topology kind, with the irregular shapes routing must
/// handle: hosts with several links (dual-homed, LAGs, Superways' extra links), a host
/// hanging off a host, random wiring.
fn every_kind() -> Vec<Topology> {
    use crate::topology::*;
    let l = LinkParams { rate_bps: 1, delay_ps: 1 };
    let ls = |leaves, spines, hosts_per_leaf| LeafSpineParams { leaves, spines, hosts_per_leaf, host_link: l, fabric_link: l };
    let mut topos = vec![dual_homed()];
    for core_link in [None, Some(l)] {
        topos.push(dumbbell(&DumbbellParams { senders: 3, receivers: 2, sender_link: l, receiver_link: l, core_link }));
    }
    topos.push(leaf_spine(&ls(3, 2, 4)));
    for k in [4, 6] {
        topos.push(fat_tree(&FatTreeParams { k, host_link: l, fabric_link: l }));
    }
    topos.push(subways(&ls(4, 2, 3)));
    topos.push(bcube(&ls(3, 2, 3), BcubeLevel::Switches));
    topos.push(bcube(&ls(3, 2, 3), BcubeLevel::LeafIModSpines));
    let border = Interconnect::Border { border_links: 2, wan_links: 2, border_link: l };
    for (fabric, interconnect) in [
        (DcFabric::FatTree { k: 4 }, border.clone()),
        (DcFabric::LeafSpine { leaves: 3, spines: 2, hosts_per_leaf: 2 }, border),
        (DcFabric::LeafSpine { leaves: 2, spines: 3, hosts_per_leaf: 2 }, Interconnect::Backbone { routers: 2 }),
    ] {
        let p = MultiDcParams { dcs: 2, fabric, host_link: l, fabric_link: l, long_haul_link: l, interconnect };
        topos.push(multi_dc(&p));
    }
    let jp = JellyfishParams { leaves: 6, hosts_per_leaf: 3, leaf_ports: 3, spines: 3, spine_ports: 4, host_link: l, fabric_link: l };
    let jelly = jellyfish(&jp, 7).expect("a connected wiring");
    topos.push(jelly.clone());
    let servers = vec![ShortcutServer { host: HostId(1), switches: vec![0, 1] }, ShortcutServer { host: HostId(4), switches: vec![2, 2] }];
    for (mut t, to) in [(leaf_spine(&ls(3, 3, 2)), ShortcutTarget::Spines), (jelly, ShortcutTarget::Spines), (leaf_spine(&ls(4, 2, 2)), ShortcutTarget::Leaves)] {
        add_superways(&mut t, &SuperwaysParams { servers: servers.clone(), to, link: l });
        topos.push(t);
    }
    // Extra hosts on the dual-homed fixture's switches, plus one hanging off a host.
    let mut t2 = topos[0].clone();
    for (name, at) in [("y2", 3), ("z2", 4), ("z3", 4), ("w", 1)] {
        let n = t2.add_node(Host, name);
        t2.add_link(n, NodeId(at), 1, 1);
    }
    topos.push(t2);
    topos.push(twin_leaves());
    topos
}

/// A leaf-spine (6 leaves, 3 spines, 2 hosts a leaf) whose leaves are twins in pairs, or
/// not: leaves 0 and 1 have a second link to spine 0, leaves 2 and 3 share a dual-homed
/// host, leaves 4 and 5 are linked to each other, and two more leaves have no spine.
fn twin_leaves() -> Topology {
    use crate::topology::*;
    let l = LinkParams { rate_bps: 1, delay_ps: 1 };
    let mut t = leaf_spine(&LeafSpineParams { leaves: 6, spines: 3, hosts_per_leaf: 2, host_link: l, fabric_link: l });
    let (leaf, spine0) = (|i: u32| NodeId(12 + i), NodeId(18));
    let x = t.add_node(Host, "x");
    for (u, v) in [(leaf(0), spine0), (leaf(1), spine0), (x, leaf(2)), (x, leaf(3)), (leaf(4), leaf(5))] {
        t.add_link(u, v, 1, 1);
    }
    for i in 6..8 {
        let alone = t.add_node(Switch, &format!("leaf{i}"));
        for j in 0..2 {
            let h = t.add_node(Host, &format!("alone{i}.{j}"));
            t.add_link(h, alone, 1, 1);
        }
    }
    t
}

/// The class-based tables answer every (node, destination, entropy) exactly as the
/// dense table of one BFS per host did, static routes included.
#[test]
fn agrees_with_the_dense_table_on_every_kind() {
    use super::super::dense::DenseRoutes;
    for (i, t) in every_kind().iter().enumerate() {
        let (mut r, mut dense) = (Routes::shortest_paths(t), DenseRoutes::shortest_paths(t));
        // Two static routes: host 0 to the last host through its first switch, and back.
        let (a, z) = (t.hosts[0], *t.hosts.last().unwrap());
        let sw = t.ports().find(|(_, p)| p.from == a).unwrap().1.to;
        let mut paths = vec![vec![a, sw]];
        if t.ports().any(|(_, p)| p.from == sw && p.to == z) {
            paths[0].push(z);
            paths.push(vec![z, sw, a]);
        }
        r.pin(t, &paths);
        dense.pin(t, &paths);
        let mut checked = 0;
        for n in (0..t.nodes.len()).map(NodeId::from) {
            for h in (0..r.n_dests()).map(HostId::from) {
                let want = dense.next_hops(n, h);
                assert_eq!(r.next_hops(n, h), want, "topology {i} ({}): node {} to {}", t.nodes[0].name, t.nodes[n.idx()].name, h.0);
                for e in [0u32, 1, 77, 0xdead_beef, u32::MAX] {
                    if !want.is_empty() {
                        let pick = want[((mix(e, n) as u64 * want.len() as u64) >> 32) as usize];
                        assert_eq!(r.select(n, h, e), pick);
                    }
                }
                checked += want.len();
            }
        }
        assert!(checked > t.nodes.len(), "topology {i}: routes found");
    }
}

/// The searches on two threads make the tables one thread makes, groups numbered alike:
/// every kind, and a fat-tree with enough classes that the threads take turns many times.
#[test]
fn two_search_threads_make_the_same_tables() {
    use crate::topology::{fat_tree, FatTreeParams, LinkParams};
    let l = LinkParams { rate_bps: 1, delay_ps: 1 };
    let mut topos = every_kind();
    topos.push(fat_tree(&FatTreeParams { k: 12, host_link: l, fabric_link: l }));
    for (i, t) in topos.iter().enumerate() {
        let one = Routes::searched(t, Some(false), false).0;
        assert_eq!(Routes::searched(t, Some(true), false).0, one, "topology {i} ({})", t.nodes[0].name);
    }
}

/// Twin classes' columns, made from one search, are the columns their own searches make,
/// groups numbered alike, on one thread and two; and twins spare most searches: one per
/// fat-tree pod, one for a whole leaf-spine.
#[test]
fn twin_classes_make_the_same_tables() {
    use crate::topology::{fat_tree, leaf_spine, FatTreeParams, LeafSpineParams, LinkParams};
    let l = LinkParams { rate_bps: 1, delay_ps: 1 };
    let mut topos = every_kind();
    topos.push(fat_tree(&FatTreeParams { k: 8, host_link: l, fabric_link: l }));
    topos.push(leaf_spine(&LeafSpineParams { leaves: 6, spines: 3, hosts_per_leaf: 2, host_link: l, fabric_link: l }));
    let mut searches = Vec::new();
    for (i, t) in topos.iter().enumerate() {
        let (alone, classes) = Routes::searched(t, Some(false), false);
        assert_eq!(classes, alone.n_classes());
        for two_threads in [false, true] {
            let (twinned, searched) = Routes::searched(t, Some(two_threads), true);
            assert_eq!(twinned, alone, "topology {i} ({}), two threads {two_threads}", t.nodes[0].name);
            assert_eq!(Routes::shortest_paths(t), alone, "topology {i}");
            searches.push((searched, classes));
        }
    }
    let n = searches.len();
    // The twin leaves: 0 and 1 twins, 2 and 3 twins, the rest searched (and the dual-homed
    // host's own class); the fat-tree: 8 pods of 4 edges; the leaf-spine: one search.
    assert_eq!(searches[n - 6..].iter().step_by(2).copied().collect::<Vec<_>>(), [(7, 9), (8, 32), (1, 6)]);
}

/// Twins on random two-tier wirings where many leaves share their spines, with parallel
/// links, dual-homed hosts, leaf-to-leaf links and hosts on spines sprinkled in: the tables
/// are the ones every class's own search makes.
#[test]
fn twins_on_random_wirings_make_the_same_tables() {
    use rand::{Rng, SeedableRng};
    let (mut searched, mut classes) = (0, 0);
    for seed in 0..200u64 {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut t = Topology::default();
        let spines: Vec<NodeId> = (0..rng.gen_range(2..5)).map(|i| t.add_node(Switch, format!("s{i}"))).collect();
        let leaves: Vec<NodeId> = (0..rng.gen_range(3..9)).map(|i| t.add_node(Switch, format!("l{i}"))).collect();
        let patterns: Vec<u32> = (0..2).map(|_| rng.gen_range(1..1u32 << spines.len())).collect();
        for (i, &leaf) in leaves.iter().enumerate() {
            for j in 0..rng.gen_range(1..3) {
                let h = t.add_node(Host, format!("h{i}.{j}"));
                t.add_link(h, leaf, 1, 1);
            }
            let pattern = patterns[rng.gen_range(0..2)];
            for (b, &spine) in spines.iter().enumerate() {
                if pattern >> b & 1 == 1 {
                    t.add_link(leaf, spine, 1, 1);
                }
            }
        }
        let pick = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus, of: &[NodeId]| of[rng.gen_range(0..of.len())];
        for extra in 0..rng.gen_range(0..4) {
            let (a, b) = (pick(&mut rng, &leaves), pick(&mut rng, &leaves));
            match rng.gen_range(0..4) {
                0 => {
                    let s = pick(&mut rng, &spines);
                    t.add_link(a, s, 1, 1);
                }
                1 if a != b => {
                    let x = t.add_node(Host, format!("x{extra}"));
                    t.add_link(x, a, 1, 1);
                    t.add_link(x, b, 1, 1);
                }
                2 if a != b => {
                    t.add_link(a, b, 1, 1);
                }
                _ => {
                    let x = t.add_node(Host, format!("y{extra}"));
                    t.add_link(x, pick(&mut rng, &spines), 1, 1);
                }
            }
        }
        let (alone, n) = Routes::searched(&t, Some(false), false);
        let (twinned, s) = Routes::searched(&t, Some(false), true);
        assert_eq!(twinned, alone, "seed {seed}");
        (searched, classes) = (searched + s, classes + n);
    }
    assert!(searched * 3 < classes * 2, "twins spared {} of {classes} searches", classes - searched);
}

/// Hosts of one switch share a class; a host with more than one link has its own.
#[test]
fn classes_group_single_homed_hosts_by_switch() {
    use crate::topology::*;
    let l = LinkParams { rate_bps: 1, delay_ps: 1 };
    let ft = fat_tree(&FatTreeParams { k: 4, host_link: l, fabric_link: l });
    let r = Routes::shortest_paths(&ft);
    // 8 edge switches, 2 hosts each; 20 switch rows, no host rows.
    assert_eq!(r.n_classes(), 8);
    assert_eq!(r.cells.len(), 20 * 8);
    let r = Routes::shortest_paths(&dual_homed());
    // x (dual-homed) alone; y on A; z on B. x keeps a row.
    assert_eq!((0..3).map(|h| r.class(h).0).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(r.cells.len(), 5 * 3);
    // The estimate counts the same rows and classes, before anything is built.
    assert_eq!(TableShape::of(&ft), TableShape { rows: 20, switches: 20, classes: 8 });
    assert_eq!(TableShape::of(&dual_homed()), TableShape { rows: 5, switches: 4, classes: 3 });
}

#[test]
fn mix_depends_on_node_and_entropy() {
    assert_ne!(mix(1, NodeId(0)), mix(1, NodeId(1)));
    assert_ne!(mix(1, NodeId(0)), mix(2, NodeId(0)));
    // The top bit (what multiply-shift uses for two ports) is balanced over entropies.
    let ones = (0..10_000u32).filter(|&e| mix(e, NodeId(5)) >> 31 == 1).count();
    assert!((4_700..5_300).contains(&ones), "{ones}");
}
