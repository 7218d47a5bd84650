//! Snapshot goldens for the topology builders and their routes. Expected values are written
//! inline: a change to node order, naming, link order or the ECMP hash shows up as a diff here.

use fanin_engine::ids::{HostId, NodeId, PortId};
use fanin_engine::routing::Routes;
use fanin_engine::topology::*;

const HOST: LinkParams = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };
const FABRIC: LinkParams = LinkParams { rate_bps: 40_000_000_000, delay_ps: 2_000_000 };
const CORE: LinkParams = LinkParams { rate_bps: 100_000_000_000, delay_ps: 5_000_000 };

fn star(senders: u32) -> Topology {
    dumbbell(&DumbbellParams {
        senders,
        receivers: 1,
        sender_link: HOST,
        receiver_link: FABRIC,
        core_link: None,
    })
}

fn bell(senders: u32, receivers: u32) -> Topology {
    dumbbell(&DumbbellParams {
        senders,
        receivers,
        sender_link: HOST,
        receiver_link: FABRIC,
        core_link: Some(CORE),
    })
}

fn ls(leaves: u32, spines: u32, hosts_per_leaf: u32) -> Topology {
    leaf_spine(&LeafSpineParams {
        leaves,
        spines,
        hosts_per_leaf,
        host_link: HOST,
        fabric_link: FABRIC,
    })
}

fn ft(k: u32) -> Topology {
    fat_tree(&FatTreeParams { k, host_link: HOST, fabric_link: FABRIC })
}

fn node(t: &Topology, name: &str) -> NodeId {
    NodeId::from(t.nodes.iter().position(|n| n.name == name).unwrap_or_else(|| panic!("{name}")))
}

fn host(t: &Topology, name: &str) -> HostId {
    t.nodes[node(t, name).idx()].host.unwrap()
}

fn names(t: &Topology, ports: &[PortId]) -> Vec<String> {
    ports.iter().map(|&p| t.port_name(p)).collect()
}

fn node_names(t: &Topology) -> Vec<&str> {
    t.nodes.iter().map(|n| n.name.as_str()).collect()
}

/// (nodes, switches, hosts, links)
fn counts(t: &Topology) -> (usize, usize, usize, usize) {
    let switches = t.nodes.iter().filter(|n| n.kind == NodeKind::Switch).count();
    (t.nodes.len(), switches, t.hosts.len(), t.links.len())
}

fn hosts(ids: &[u32]) -> Vec<HostId> {
    ids.iter().map(|&h| HostId(h)).collect()
}

/// Every link's `a -> b` direction, in link order.
fn link_names(t: &Topology) -> Vec<String> {
    (0..t.links.len()).map(|l| t.port_name(PortId::from(2 * l))).collect()
}

/// Checks a path hop by hop: it starts at `src`, chains, ends at `dst`, only switches are
/// transited, every port is one of its node's next hops, and the length is `hops()`.
fn check_path(t: &Topology, r: &Routes, src: HostId, dst: HostId, entropy: u32) -> Vec<PortId> {
    let path = r.path(t, src, dst, entropy);
    let mut at = t.hosts[src.idx()];
    for (i, &p) in path.iter().enumerate() {
        let port = t.port(p);
        assert_eq!(port.from, at, "path {src:?}->{dst:?} breaks at hop {i}");
        assert!(r.next_hops(at, dst).contains(&p), "hop {i} is not an equal-cost next hop");
        if i > 0 {
            assert_eq!(t.nodes[at.idx()].kind, NodeKind::Switch, "path transits a host");
        }
        at = port.to;
    }
    assert_eq!(at, t.hosts[dst.idx()]);
    assert_eq!(path.len() as u32, r.hops(src, dst));
    path
}

#[test]
fn star_golden() {
    let t = star(3);
    assert_eq!(counts(&t), (5, 1, 4, 4));
    assert_eq!(node_names(&t), ["s0", "s1", "s2", "r0", "sw0"]);
    assert_eq!(link_names(&t), ["s0->sw0", "s1->sw0", "s2->sw0", "r0->sw0"]);
    assert_eq!(t.group("senders").unwrap(), hosts(&[0, 1, 2]));
    assert_eq!(t.group("receivers").unwrap(), hosts(&[3]));
    assert_eq!(t.group("all").unwrap(), hosts(&[0, 1, 2, 3]));
    assert_eq!(t.port_name(t.named_port("bottleneck").unwrap()), "sw0->r0");
    assert_eq!(t.named_port("core"), None);
    assert_eq!(t.port(t.named_port("bottleneck").unwrap()).rate_bps, FABRIC.rate_bps);
    assert_eq!(t.links[0].rate_bps, HOST.rate_bps);
    assert_eq!(t.links[0].delay_ps, HOST.delay_ps);

    let r = Routes::shortest_paths(&t);
    assert_eq!(names(&t, &check_path(&t, &r, HostId(0), HostId(3), 0)), ["s0->sw0", "sw0->r0"]);
    assert_eq!(names(&t, &check_path(&t, &r, HostId(3), HostId(2), 0)), ["r0->sw0", "sw0->s2"]);
    assert_eq!(r.multi_groups(), 0, "a star has one path between any two hosts");
}

#[test]
fn dumbbell_golden() {
    let t = bell(4, 1);
    assert_eq!(counts(&t), (7, 2, 5, 6));
    assert_eq!(node_names(&t), ["s0", "s1", "s2", "s3", "r0", "tor_a", "tor_b"]);
    assert_eq!(
        link_names(&t),
        ["s0->tor_b", "s1->tor_b", "s2->tor_b", "s3->tor_b", "r0->tor_a", "tor_b->tor_a"]
    );
    assert_eq!(t.group("senders").unwrap(), hosts(&[0, 1, 2, 3]));
    assert_eq!(t.group("receivers").unwrap(), hosts(&[4]));
    assert_eq!(t.group("all").unwrap(), hosts(&[0, 1, 2, 3, 4]));
    let core = t.named_port("core").unwrap();
    assert_eq!(t.port_name(core), "tor_b->tor_a");
    assert_eq!((t.port(core).rate_bps, t.port(core).delay_ps), (CORE.rate_bps, CORE.delay_ps));
    assert_eq!(t.port_name(t.named_port("bottleneck").unwrap()), "tor_a->r0");

    let r = Routes::shortest_paths(&t);
    let s0_r0 = check_path(&t, &r, HostId(0), HostId(4), 12345);
    assert_eq!(names(&t, &s0_r0), ["s0->tor_b", "tor_b->tor_a", "tor_a->r0"]);
    let r0_s3 = check_path(&t, &r, HostId(4), HostId(3), 0);
    assert_eq!(names(&t, &r0_s3), ["r0->tor_a", "tor_a->tor_b", "tor_b->s3"]);
    assert_eq!(r.hops(HostId(1), HostId(2)), 2);
}

#[test]
fn dumbbell_bottleneck_is_r0_with_many_receivers() {
    let t = bell(2, 3);
    assert_eq!(node_names(&t), ["s0", "s1", "r0", "r1", "r2", "tor_a", "tor_b"]);
    assert_eq!(t.port_name(t.named_port("bottleneck").unwrap()), "tor_a->r0");
    assert_eq!(t.group("receivers").unwrap(), hosts(&[2, 3, 4]));
}

#[test]
fn leaf_spine_golden() {
    let t = ls(2, 2, 2);
    assert_eq!(counts(&t), (8, 4, 4, 8));
    assert_eq!(node_names(&t), ["h0", "h1", "h2", "h3", "leaf0", "leaf1", "spine0", "spine1"]);
    assert_eq!(
        link_names(&t),
        [
            "h0->leaf0",
            "h1->leaf0",
            "h2->leaf1",
            "h3->leaf1",
            "leaf0->spine0",
            "leaf0->spine1",
            "leaf1->spine0",
            "leaf1->spine1",
        ]
    );
    assert_eq!(t.group("all").unwrap(), hosts(&[0, 1, 2, 3]));
    assert_eq!(t.group("leaf0").unwrap(), hosts(&[0, 1]));
    assert_eq!(t.group("leaf1").unwrap(), hosts(&[2, 3]));
    assert_eq!(t.links[4].rate_bps, FABRIC.rate_bps);

    let r = Routes::shortest_paths(&t);
    let (h0, h1, h3) = (HostId(0), HostId(1), HostId(3));
    assert_eq!(r.hops(h0, h1), 2);
    assert_eq!(r.hops(h0, h3), 4);
    assert_eq!(names(&t, &check_path(&t, &r, h0, h1, 0)), ["h0->leaf0", "leaf0->h1"]);
    assert_eq!(names(&t, r.next_hops(node(&t, "leaf0"), h3)), ["leaf0->spine0", "leaf0->spine1"]);
    assert_eq!(names(&t, r.next_hops(node(&t, "spine1"), h3)), ["spine1->leaf1"]);
    assert_eq!(names(&t, r.next_hops(node(&t, "leaf1"), h3)), ["leaf1->h3"]);
    // Both spines carry h0 -> h3 traffic for some entropy, and nothing else is ever used.
    let mut seen: Vec<Vec<String>> =
        (0..64).map(|e| names(&t, &check_path(&t, &r, h0, h3, e))).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(
        seen,
        [
            ["h0->leaf0", "leaf0->spine0", "spine0->leaf1", "leaf1->h3"],
            ["h0->leaf0", "leaf0->spine1", "spine1->leaf1", "leaf1->h3"],
        ]
    );
}

#[test]
fn leaf_spine_hops_all_pairs() {
    let t = ls(4, 3, 5);
    assert_eq!(counts(&t), (27, 7, 20, 20 + 12));
    assert_eq!(t.group("leaf3").unwrap(), hosts(&[15, 16, 17, 18, 19]));
    let r = Routes::shortest_paths(&t);
    for s in 0..20u32 {
        for d in 0..20u32 {
            let want = if s == d {
                0
            } else if s / 5 == d / 5 {
                2
            } else {
                4
            };
            assert_eq!(r.hops(HostId(s), HostId(d)), want, "h{s} -> h{d}");
            check_path(&t, &r, HostId(s), HostId(d), s * 31 + d);
            if s / 5 != d / 5 {
                let leaf = node(&t, &format!("leaf{}", s / 5));
                assert_eq!(r.next_hops(leaf, HostId(d)).len(), 3);
            }
        }
    }
}

#[test]
fn fat_tree_k4_golden() {
    let t = ft(4);
    assert_eq!(counts(&t), (36, 20, 16, 48));
    assert_eq!(
        node_names(&t)[14..],
        [
            "h14", "h15", "edge0_0", "edge0_1", "edge1_0", "edge1_1", "edge2_0", "edge2_1",
            "edge3_0", "edge3_1", "agg0_0", "agg0_1", "agg1_0", "agg1_1", "agg2_0", "agg2_1",
            "agg3_0", "agg3_1", "core0", "core1", "core2", "core3",
        ]
    );
    let links = link_names(&t);
    assert_eq!(links[..4], ["h0->edge0_0", "h1->edge0_0", "h2->edge0_1", "h3->edge0_1"]);
    assert_eq!(links[14..16], ["h14->edge3_1", "h15->edge3_1"]);
    assert_eq!(
        links[16..20],
        ["edge0_0->agg0_0", "edge0_0->agg0_1", "edge0_1->agg0_0", "edge0_1->agg0_1"]
    );
    assert_eq!(links[32..36], ["agg0_0->core0", "agg0_0->core1", "agg0_1->core2", "agg0_1->core3"]);
    assert_eq!(links[44..], ["agg3_0->core0", "agg3_0->core1", "agg3_1->core2", "agg3_1->core3"]);
    assert!(t.links[..16].iter().all(|l| l.rate_bps == HOST.rate_bps));
    assert!(t.links[16..].iter().all(|l| l.rate_bps == FABRIC.rate_bps));
    assert_eq!(t.group("all").unwrap().len(), 16);
    assert_eq!(t.group("pod2").unwrap(), hosts(&[8, 9, 10, 11]));
    assert_eq!(t.group("pod4"), None);
    // Every switch has k ports.
    for (i, n) in t.nodes.iter().enumerate() {
        let degree = t.links.iter().filter(|l| l.a.idx() == i || l.b.idx() == i).count();
        assert_eq!(degree, if n.kind == NodeKind::Switch { 4 } else { 1 }, "{}", n.name);
    }
}

#[test]
fn fat_tree_k8_counts() {
    let t = ft(8);
    assert_eq!(counts(&t), (208, 80, 128, 384));
    assert_eq!(t.group("pod7").unwrap(), (112..128).map(HostId).collect::<Vec<_>>());
    assert_eq!(t.nodes[t.hosts[127].idx()].name, "h127");
    assert_eq!(t.port_name(PortId(2 * 127)), "h127->edge7_3");
    assert_eq!(t.port_name(PortId(2 * 383)), "agg7_3->core15");
    let r = Routes::shortest_paths(&t);
    assert_eq!(r.next_hops(node(&t, "edge0_0"), HostId(127)).len(), 4);
    assert_eq!(r.next_hops(node(&t, "agg0_0"), HostId(127)).len(), 4);
    assert_eq!(names(&t, r.next_hops(node(&t, "core13"), HostId(127))), ["core13->agg7_3"]);
}

#[test]
fn fat_tree_k4_next_hops() {
    let t = ft(4);
    let r = Routes::shortest_paths(&t);
    let h15 = host(&t, "h15"); // pod 3, edge3_1
    let nh = |n: &str| names(&t, r.next_hops(node(&t, n), h15));
    assert_eq!(nh("h0"), ["h0->edge0_0"]);
    assert_eq!(nh("edge0_0"), ["edge0_0->agg0_0", "edge0_0->agg0_1"]);
    assert_eq!(nh("agg0_1"), ["agg0_1->core2", "agg0_1->core3"]);
    for c in 0..4 {
        let want = format!("core{c}->agg3_{}", c / 2);
        assert_eq!(nh(&format!("core{c}")), [want]);
    }
    assert_eq!(nh("agg3_0"), ["agg3_0->edge3_1"]);
    assert_eq!(nh("edge3_0"), ["edge3_0->agg3_0", "edge3_0->agg3_1"]);
    assert_eq!(nh("edge3_1"), ["edge3_1->h15"]);
    assert_eq!(nh("h15"), Vec::<String>::new());
    assert_eq!(nh("h14"), ["h14->edge3_1"]);
    assert_eq!(r.hops(HostId(14), h15), 2);
    assert_eq!(r.hops(HostId(12), h15), 4);
    assert_eq!(r.hops(HostId(0), h15), 6);
}

#[test]
fn fat_tree_k4_all_paths_valid() {
    let t = ft(4);
    let r = Routes::shortest_paths(&t);
    for s in 0..16u32 {
        for d in 0..16u32 {
            let want = if s == d {
                0
            } else if s / 2 == d / 2 {
                2
            } else if s / 4 == d / 4 {
                4
            } else {
                6
            };
            for e in [0, 1, 0xdead_beef, s << 8 | d] {
                assert_eq!(check_path(&t, &r, HostId(s), HostId(d), e).len(), want, "h{s}->h{d}");
            }
        }
    }
}

#[test]
fn fat_tree_k4_route_golden() {
    // Pins the ECMP hash: if this changes, every multipath result changes with it.
    let t = ft(4);
    let r = Routes::shortest_paths(&t);
    let render = |e| names(&t, &r.path(&t, HostId(0), HostId(15), e)).join(" ");
    let got: Vec<String> = (0..4).map(render).collect();
    assert_eq!(
        got,
        [
            "h0->edge0_0 edge0_0->agg0_1 agg0_1->core2 core2->agg3_1 agg3_1->edge3_1 edge3_1->h15",
            "h0->edge0_0 edge0_0->agg0_0 agg0_0->core1 core1->agg3_0 agg3_0->edge3_1 edge3_1->h15",
            "h0->edge0_0 edge0_0->agg0_0 agg0_0->core1 core1->agg3_0 agg3_0->edge3_1 edge3_1->h15",
            "h0->edge0_0 edge0_0->agg0_1 agg0_1->core3 core3->agg3_1 agg3_1->edge3_1 edge3_1->h15",
        ]
    );
}

/// Counts how often each core carries `src -> dst` over the given entropies.
fn core_spread(t: &Topology, r: &Routes, src: u32, dst: u32, entropies: &[u32]) -> Vec<usize> {
    let cores: Vec<NodeId> = (0..4).map(|c| node(t, &format!("core{c}"))).collect();
    let mut hits = vec![0; 4];
    for &e in entropies {
        let path = r.path(t, HostId(src), HostId(dst), e);
        let via: Vec<usize> =
            path.iter().filter_map(|&p| cores.iter().position(|&c| c == t.port(p).to)).collect();
        assert_eq!(via.len(), 1, "an inter-pod path crosses exactly one core");
        hits[via[0]] += 1;
    }
    hits
}

#[test]
fn fat_tree_k4_ecmp_spreads_evenly() {
    let t = ft(4);
    let r = Routes::shortest_paths(&t);
    let sequential: Vec<u32> = (0..10_000).collect();
    // A xorshift stream, as per-flow hashes would look.
    let mut x = 0x1234_5678u32;
    let random: Vec<u32> = (0..10_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect();
    for entropies in [&sequential, &random] {
        for (src, dst) in [(0, 15), (3, 4), (9, 1), (13, 10)] {
            let hits = core_spread(&t, &r, src, dst, entropies);
            for (c, &n) in hits.iter().enumerate() {
                // 25% +- 3% of 10,000
                assert!((2_200..=2_800).contains(&n), "h{src}->h{dst}: core{c} got {n} ({hits:?})");
            }
        }
    }
}

#[test]
fn routes_are_deterministic() {
    let t = ft(4);
    let (r1, r2) = (Routes::shortest_paths(&t), Routes::shortest_paths(&t));
    assert_eq!(r1, r2);
    for e in [0u32, 7, 99, 0xffff_ffff] {
        let p = r1.path(&t, HostId(2), HostId(13), e);
        assert_eq!(p, r1.path(&t, HostId(2), HostId(13), e));
        assert_eq!(p, r2.path(&t, HostId(2), HostId(13), e));
    }
}

#[test]
fn topology_params_dispatch() {
    let p = TopologyParams::FatTree(FatTreeParams { k: 4, host_link: HOST, fabric_link: FABRIC });
    assert_eq!(p.build(1).unwrap(), ft(4));
    let p = TopologyParams::LeafSpine(LeafSpineParams {
        leaves: 2,
        spines: 2,
        hosts_per_leaf: 2,
        host_link: HOST,
        fabric_link: FABRIC,
    });
    assert_eq!(p.build(1).unwrap(), ls(2, 2, 2));
    let p = TopologyParams::Dumbbell(DumbbellParams {
        senders: 4,
        receivers: 1,
        sender_link: HOST,
        receiver_link: FABRIC,
        core_link: Some(CORE),
    });
    assert_eq!(p.build(1).unwrap(), bell(4, 1));
}

/// Build times, not a pass/fail check: `cargo test --release --test topology_golden -- --ignored --nocapture`.
#[test]
#[ignore]
fn time_fat_tree_routes() {
    for k in [8, 16, 24] {
        let t0 = std::time::Instant::now();
        let t = ft(k);
        let t1 = std::time::Instant::now();
        let r = Routes::shortest_paths(&t);
        let t2 = std::time::Instant::now();
        println!(
            "k={k}: {} hosts {} switches {} links; topology {:?}, routes {:?}, {} multi groups",
            t.hosts.len(),
            t.nodes.len() - t.hosts.len(),
            t.links.len(),
            t1 - t0,
            t2 - t1,
            r.multi_groups()
        );
    }
}
