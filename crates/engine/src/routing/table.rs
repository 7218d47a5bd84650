//! Shortest-path forwarding tables with per-flow ECMP.
//!
//! This sits on the per-packet hot path, so the layout is chosen for one cache miss per hop:
//! `entries[node * n_dests + dst]` is a single `u32`. With its top bit clear it *is* the
//! next-hop port, so the common single-path case is one array read. With the top bit set, the
//! low bits index `groups`, the deduplicated multi-port sets, each a `(start, len)` slice of
//! the flat `ports` vector. `ports` begins with every port as its own one-element slice, so
//! `next_hops` can hand out a slice for a single port as well.

use std::collections::HashMap;

use crate::ids::{HostId, NodeId, PortId};
use crate::topology::{NodeKind, Topology};

/// Tag of an entry that names a group rather than a port.
const MULTI: u32 = 1 << 31;
/// Group 0 is the empty set: the node is the destination itself, or cannot reach it.
const NO_ROUTE: u32 = MULTI;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Group {
    start: u32,
    len: u32,
}

/// Equal-cost next hops from every node toward every host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routes {
    /// Columns per row: the hosts, then one per pinned (static) route (see `pin`).
    n_dests: usize,
    entries: Vec<u32>,
    groups: Vec<Group>,
    ports: Vec<PortId>,
    /// Where each port leads and where each host sits, so `hops` can walk without a topology.
    port_to: Vec<NodeId>,
    host_node: Vec<NodeId>,
}

/// Makes ECMP node-level: a flow picks its next node uniformly among the equal-cost ones,
/// then a link among parallel links to that node (a LAG). With `k_j` links to node `j`,
/// each of those ports is listed `lcm(k) / k_j` times, so one hash does both choices and a
/// lookup stays one index. Sets with one link per node (every builder's) are unchanged.
fn weigh_by_node(hops: &mut Vec<PortId>, port_to: &[NodeId]) {
    let count = |p: PortId| hops.iter().filter(|q| port_to[q.idx()] == port_to[p.idx()]).count();
    let counts: Vec<usize> = hops.iter().map(|&p| count(p)).collect();
    if counts.iter().all(|&c| c == counts[0]) {
        return;
    }
    let lcm = counts.iter().fold(1, |a, &b| a / gcd(a, b) * b);
    let weighted: Vec<PortId> = hops.iter().zip(&counts).flat_map(|(&p, &c)| std::iter::repeat_n(p, lcm / c)).collect();
    *hops = weighted;
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Mixes the per-flow entropy with the node id. Without the node, every hop would reduce the
/// same value the same way and correlated choices would polarize (an edge that picked its
/// first agg would make that agg pick its first core, and half the cores would sit idle).
#[inline(always)]
pub(crate) fn mix(entropy: u32, node: NodeId) -> u32 {
    // The murmur3 finalizer: cheap, and every input bit flips about half the output bits.
    let mut h = entropy ^ node.0.wrapping_mul(0x9E37_79B9);
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

#[cold]
#[inline(never)]
fn no_route(node: NodeId, dst: HostId) -> ! {
    panic!("no route from node {} to host {}", node.0, dst.0)
}

impl Routes {
    /// Shortest paths by hop count from every node to every host; only switches forward (a
    /// path never transits a host).
    pub fn shortest_paths(topo: &Topology) -> Routes {
        Self::build(topo, true)
    }

    /// `share_siblings: false` runs one BFS per host; tests compare it with the shared build.
    fn build(topo: &Topology, share_siblings: bool) -> Routes {
        let (n_nodes, n_hosts, n_ports) = (topo.nodes.len(), topo.hosts.len(), topo.port_count());
        assert!(n_ports < MULTI as usize, "too many ports for a routing entry");
        let port_to: Vec<NodeId> = topo.ports().map(|(_, p)| p.to).collect();
        let forwards: Vec<bool> = topo.nodes.iter().map(|n| n.kind == NodeKind::Switch).collect();

        // Out ports of each node in CSR form, ascending port id, so groups list ports in a
        // fixed order and the same entropy picks the same port on every run.
        let mut out_start = vec![0u32; n_nodes + 1];
        for (_, p) in topo.ports() {
            out_start[p.from.idx() + 1] += 1;
        }
        for i in 0..n_nodes {
            out_start[i + 1] += out_start[i];
        }
        let mut out_ports = vec![PortId(0); n_ports];
        let mut fill = out_start.clone();
        for (id, p) in topo.ports() {
            out_ports[fill[p.from.idx()] as usize] = id;
            fill[p.from.idx()] += 1;
        }
        let out = |n: usize| &out_ports[out_start[n] as usize..out_start[n + 1] as usize];

        let mut routes = Routes {
            n_dests: n_hosts,
            entries: vec![NO_ROUTE; n_nodes * n_hosts],
            groups: vec![Group { start: 0, len: 0 }],
            ports: (0..n_ports).map(PortId::from).collect(),
            port_to,
            host_node: topo.hosts.clone(),
        };
        // Build-time only: interning sets of ports. `last` remembers each node's most recent
        // group, which is almost always the next one too (a leaf's "all spines" set), and
        // spares most hash lookups.
        let mut interned: HashMap<Vec<PortId>, u32> = HashMap::new();
        let mut last = vec![NO_ROUTE; n_nodes];
        let mut dist = vec![u32::MAX; n_nodes];
        let mut queue: Vec<usize> = Vec::with_capacity(n_nodes);
        let mut hops: Vec<PortId> = Vec::new();
        // `first_on[s]`: the first single-homed host on switch `s` whose column was computed.
        let mut first_on = vec![u32::MAX; n_nodes];

        for (h, &dst_node) in topo.hosts.iter().enumerate() {
            let d = dst_node.idx();
            if share_siblings {
                if let &[up] = out(d) {
                    let s = routes.port_to[up.idx()].idx();
                    if forwards[s] {
                        if first_on[s] == u32::MAX {
                            first_on[s] = h as u32;
                        } else {
                            routes.copy_sibling_column(first_on[s] as usize, h, up, s);
                            continue;
                        }
                    }
                }
            }
            // BFS from the destination. Links are full duplex, so following a node's out
            // ports backwards is the same as following in ports. A host other than `d` gets
            // a distance (it can send) but is never expanded (it does not forward).
            dist.fill(u32::MAX);
            queue.clear();
            dist[d] = 0;
            queue.push(d);
            let mut head = 0;
            while head < queue.len() {
                let v = queue[head];
                head += 1;
                if v != d && !forwards[v] {
                    continue;
                }
                for &q in out(v) {
                    let u = routes.port_to[q.idx()].idx();
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        queue.push(u);
                    }
                }
            }
            for &u in &queue[1..] {
                hops.clear();
                hops.extend(out(u).iter().copied().filter(|q| {
                    let w = routes.port_to[q.idx()].idx();
                    dist[w] == dist[u] - 1 && (w == d || forwards[w])
                }));
                debug_assert!(!hops.is_empty(), "BFS reached node {u} without a way back");
                weigh_by_node(&mut hops, &routes.port_to);
                let entry = if hops.len() == 1 {
                    hops[0].0
                } else if last[u] != NO_ROUTE && routes.group_ports(last[u]) == hops.as_slice() {
                    last[u]
                } else {
                    let e = *interned.entry(hops.clone()).or_insert_with(|| {
                        let g = routes.groups.len() as u32;
                        let start = routes.ports.len() as u32;
                        routes.ports.extend_from_slice(&hops);
                        routes.groups.push(Group { start, len: hops.len() as u32 });
                        MULTI | g
                    });
                    last[u] = e;
                    e
                };
                routes.entries[u * n_hosts + h] = entry;
            }
        }
        routes
    }

    /// Fills host `h`'s column from that of `h0`, another host hanging off the same switch
    /// `s` by a single link (`up` is `h`'s uplink). Everywhere but at `s` and the two hosts
    /// themselves the routes toward them coincide: any path reaches them through `s`. This
    /// saves one BFS per host beyond the first on each ToR (12x fewer at k = 24).
    fn copy_sibling_column(&mut self, h0: usize, h: usize, up: PortId, s: usize) {
        let n = self.n_dests;
        for row in self.entries.chunks_exact_mut(n) {
            row[h] = row[h0];
        }
        let (node, node0) = (self.host_node[h].idx(), self.host_node[h0].idx());
        // A link's two ports are `2l` and `2l + 1` (see `topology::graph`), so `up ^ 1` is
        // the switch's port down to `h`.
        self.entries[s * n + h] = up.0 ^ 1;
        self.entries[node * n + h] = NO_ROUTE;
        // h0 was the destination of the copied column; now it sends up its own single link,
        // the reverse of `s`'s (single-port) entry toward it.
        let down0 = self.entries[s * n + h0];
        debug_assert_eq!(down0 & MULTI, 0);
        self.entries[node0 * n + h] = down0 ^ 1;
    }

    /// The ports of a group entry (an entry with the `MULTI` bit).
    fn group_ports(&self, entry: u32) -> &[PortId] {
        let g = self.groups[(entry & !MULTI) as usize];
        &self.ports[g.start as usize..(g.start + g.len) as usize]
    }

    #[inline(always)]
    fn entry(&self, node: NodeId, dst: HostId) -> u32 {
        self.entries[node.idx() * self.n_dests + dst.idx()]
    }

    /// The interned entry for a set of next hops (build time only).
    fn intern(&mut self, hops: &[PortId]) -> u32 {
        if let &[p] = hops {
            return p.0;
        }
        let g = self.groups.len() as u32;
        self.groups.push(Group { start: self.ports.len() as u32, len: hops.len() as u32 });
        self.ports.extend_from_slice(hops);
        MULTI | g
    }

    /// Adds one destination column per static route, each a node path from a host to a
    /// host through switches, and returns their ids (`n_hosts + i`): a packet addressed to
    /// one follows its path hop by hop (parallel links on a hop stay a LAG, hashed per
    /// flow) and is delivered to the path's last host. Nodes off the path have no route.
    pub fn pin(&mut self, topo: &Topology, paths: &[Vec<NodeId>]) -> Vec<HostId> {
        if paths.is_empty() {
            // Nothing to add: copying the table (nodes x hosts entries, 400 MB for the
            // 10,000-sender dumbbell) would change nothing.
            return Vec::new();
        }
        let (old, n) = (self.n_dests, self.n_dests + paths.len());
        let mut entries = vec![NO_ROUTE; topo.nodes.len() * n];
        for (row, new) in self.entries.chunks_exact(old).zip(entries.chunks_exact_mut(n)) {
            new[..old].copy_from_slice(row);
        }
        self.entries = entries;
        self.n_dests = n;
        let mut ids = Vec::with_capacity(paths.len());
        for (i, path) in paths.iter().enumerate() {
            let col = old + i;
            for w in path.windows(2) {
                let lag: Vec<PortId> = topo.ports().filter(|(_, p)| p.from == w[0] && p.to == w[1]).map(|(id, _)| id).collect();
                assert!(!lag.is_empty(), "static route hop without a link");
                let e = self.intern(&lag);
                self.entries[w[0].idx() * n + col] = e;
            }
            self.host_node.push(*path.last().expect("a static route has nodes"));
            ids.push(HostId::from(col));
        }
        ids
    }

    /// Destination columns: the hosts, then the static routes.
    pub fn n_dests(&self) -> usize {
        self.n_dests
    }

    /// All equal-cost next-hop ports at `node` toward host `dst`, in ascending port order
    /// (empty if `node` is `dst` or cannot reach it).
    #[inline]
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        let e = self.entry(node, dst);
        if e & MULTI == 0 {
            &self.ports[e as usize..e as usize + 1]
        } else {
            self.group_ports(e)
        }
    }

    /// Per-flow ECMP: one of `next_hops`, chosen from the flow's entropy mixed with the node
    /// id. Deterministic and allocation-free; a single next hop is one array read.
    /// Panics if `node` has no route to `dst` (a broken internal invariant).
    #[inline]
    pub fn select(&self, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        let e = self.entry(node, dst);
        if e & MULTI == 0 {
            return PortId(e);
        }
        let g = self.groups[(e & !MULTI) as usize];
        if g.len == 0 {
            no_route(node, dst);
        }
        // Multiply-shift maps the hash onto 0..len without a division.
        let i = ((mix(entropy, node) as u64 * g.len as u64) >> 32) as u32;
        self.ports[(g.start + i) as usize]
    }

    /// The ports a packet with this entropy traverses from host `src` to host `dst`
    /// (following `select`). Empty if `src == dst`; panics if `dst` is unreachable.
    pub fn path(&self, topo: &Topology, src: HostId, dst: HostId, entropy: u32) -> Vec<PortId> {
        let target = self.host_node[dst.idx()];
        let mut node = topo.hosts[src.idx()];
        let mut ports = Vec::new();
        while node != target {
            let p = self.select(node, dst, entropy);
            ports.push(p);
            node = topo.port(p).to;
        }
        ports
    }

    /// Number of hops (links) on any shortest path `src -> dst`; panics if unreachable.
    pub fn hops(&self, src: HostId, dst: HostId) -> u32 {
        let target = self.host_node[dst.idx()];
        let mut node = self.host_node[src.idx()];
        let mut n = 0;
        while node != target {
            let p = match self.next_hops(node, dst).first() {
                Some(&p) => p,
                None => no_route(node, dst),
            };
            node = self.port_to[p.idx()];
            n += 1;
        }
        n
    }

    /// Whether `dst` can be reached from `src` without transiting another host.
    pub fn reachable(&self, src: HostId, dst: HostId) -> bool {
        src == dst || !self.next_hops(self.host_node[src.idx()], dst).is_empty()
    }

    /// Number of distinct multi-port groups (for diagnostics: single ports need none).
    pub fn multi_groups(&self) -> usize {
        self.groups.len() - 1
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(r.entry(s0, HostId(1)), r.entry(s0, HostId(2)), "one group, stored once");
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
        let e = r.entry(y_node, HostId(2));
        assert_eq!(e & MULTI, 0);
        for entropy in [0, 1, u32::MAX] {
            assert_eq!(r.select(y_node, HostId(2), entropy), PortId(e));
        }
    }

    #[test]
    fn sharing_sibling_columns_changes_nothing() {
        use crate::topology::*;
        let l = LinkParams { rate_bps: 1, delay_ps: 1 };
        let mut topos = vec![
            dual_homed(),
            fat_tree(&FatTreeParams { k: 4, host_link: l, fabric_link: l }),
            fat_tree(&FatTreeParams { k: 6, host_link: l, fabric_link: l }),
            leaf_spine(&LeafSpineParams {
                leaves: 3,
                spines: 2,
                hosts_per_leaf: 4,
                host_link: l,
                fabric_link: l,
            }),
        ];
        for core_link in [None, Some(l)] {
            let p = DumbbellParams {
                senders: 3,
                receivers: 2,
                sender_link: l,
                receiver_link: l,
                core_link,
            };
            topos.push(dumbbell(&p));
        }
        // Extra hosts on the dual-homed fixture's switches, plus one hanging off a host.
        let t = topos[0].clone();
        let mut t2 = t.clone();
        for (name, at) in [("y2", 3), ("z2", 4), ("z3", 4), ("w", 1)] {
            let n = t2.add_node(Host, name);
            t2.add_link(n, NodeId(at), 1, 1);
        }
        topos.push(t2);
        for t in &topos {
            let shared = Routes::build(t, true);
            assert_eq!(shared, Routes::build(t, false), "{:?}", t.nodes[0].name);
        }
    }

    #[test]
    fn mix_depends_on_node_and_entropy() {
        assert_ne!(mix(1, NodeId(0)), mix(1, NodeId(1)));
        assert_ne!(mix(1, NodeId(0)), mix(2, NodeId(0)));
        // The top bit (what multiply-shift uses for two ports) is balanced over entropies.
        let ones = (0..10_000u32).filter(|&e| mix(e, NodeId(5)) >> 31 == 1).count();
        assert!((4_700..5_300).contains(&ones), "{ones}");
    }
}
