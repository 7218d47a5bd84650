//! Shortest-path forwarding with per-flow ECMP, stored by destination class.
//!
//! Hosts hanging off one switch by a single link are reached through that switch, so every
//! other node forwards to them alike: they share a destination *class*, and a node's row
//! holds one cell per class, not per host (a k = 48 fat-tree: 1,152 classes for 27,648
//! hosts; a star: one). The switch they hang off delivers on each host's own port
//! (`deliver`). Hosts whose links all lead to one node have no row at all: toward anything
//! that node reaches they send on those links. So the tables grow as forwarding nodes x
//! classes, not nodes x hosts (the dense table this replaced needed 40 GB for a
//! 100,000-host star; `dense.rs` keeps it as the tests' oracle). Static routes (`pin`) are
//! short lists of (node, cell) along their paths.
//!
//! A cell is a single `u32`: with its top bit clear it *is* the next-hop port, so the
//! common single-path case is one array read. With the top bit set, the low bits index
//! `groups`, the deduplicated multi-port sets, each a `(start, len)` slice of the flat
//! `ports` vector. `ports` begins with every port as its own one-element slice, so
//! `next_hops` can hand out a slice for a single port as well. The run loop forwards with
//! `Fib`, built from these; `select` here serves hosts with several NICs and the fallback.

use std::collections::HashMap;

use super::bfs::{fill_classes, Cells};
use super::cell::{group_ports, intern, Group, NO_ROW};
pub(crate) use super::cell::{MULTI, NO_NODE, NO_ROUTE};
use super::graph::{Adjacency, Graph};
use crate::ids::{HostId, NodeId, PortId};
use crate::topology::{NodeKind, Topology};

/// Equal-cost next hops from every node toward every host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routes {
    n_hosts: usize,
    forwards: Vec<bool>,
    /// Per node: its row of `cells`, or `NO_ROW` for a host whose links all lead to one
    /// node, which answers by rule from `uplink`.
    row_of: Vec<u32>,
    /// Per node without a row: its links as a cell, and the node they lead to.
    uplink: Vec<(u32, NodeId)>,
    n_classes: usize,
    /// Per host: its class. Per class: the switch its hosts hang off by their single link
    /// (`NO_NODE` for a host of any other shape, which has a class of its own).
    class_of: Vec<u32>,
    attach: Vec<NodeId>,
    /// Per host with an attachment switch: that switch's port down to it.
    deliver: Vec<PortId>,
    /// `cells[row * n_classes + class]`.
    cells: Vec<u32>,
    groups: Vec<Group>,
    ports: Vec<PortId>,
    /// Where each port leads and where each destination column ends (the hosts, then the
    /// static routes' last nodes), so `hops` can walk without a topology.
    port_to: Vec<NodeId>,
    host_node: Vec<NodeId>,
    /// Per static route: (node, cell) along its path.
    pinned: Vec<Vec<(NodeId, u32)>>,
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

/// The node all of a host's links lead to, if they lead to one (then the host answers by
/// rule and needs no row); `None` for a switch or a host with no link.
fn one_neighbour(links: &[PortId], port_to: &[NodeId], forwards: bool) -> Option<NodeId> {
    let via = port_to[links.first()?.idx()];
    (!forwards && links.iter().all(|p| port_to[p.idx()] == via)).then_some(via)
}

/// A host's uplink when it has exactly one link and that link leads to a switch: such
/// hosts share the class of their switch.
fn single_uplink(links: &[PortId], port_to: &[NodeId], forwards: &[bool]) -> Option<PortId> {
    match links {
        &[up] if forwards[port_to[up.idx()].idx()] => Some(up),
        _ => None,
    }
}

/// The size of a topology's routing tables, known before they are built (for the memory
/// estimate): nodes with a row, switches, and destination classes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TableShape {
    pub rows: u64,
    pub switches: u64,
    pub classes: u64,
}

impl TableShape {
    pub fn of(topo: &Topology) -> TableShape {
        let port_to: Vec<NodeId> = topo.ports().map(|(_, p)| p.to).collect();
        let forwards: Vec<bool> = topo.nodes.iter().map(|n| n.kind == NodeKind::Switch).collect();
        let out = Adjacency::new(topo, |_| true);
        let rows = (0..topo.nodes.len()).filter(|&n| one_neighbour(out.of(n), &port_to, forwards[n]).is_none()).count();
        let mut opened = vec![false; topo.nodes.len()];
        let classes = topo
            .hosts
            .iter()
            .filter(|h| match single_uplink(out.of(h.idx()), &port_to, &forwards) {
                Some(up) => !std::mem::replace(&mut opened[port_to[up.idx()].idx()], true),
                None => true,
            })
            .count();
        TableShape { rows: rows as u64, switches: forwards.iter().filter(|&&f| f).count() as u64, classes: classes as u64 }
    }

    /// Bytes of `Routes` and `Fib` together: a cell per row and class in each (the `Fib`
    /// has switch rows and one for the hosts), and about 20 bytes per host and 16 per node.
    pub fn bytes(&self, nodes: u64, hosts: u64) -> u64 {
        (self.rows + self.switches + 1).saturating_mul(self.classes).saturating_mul(4) + hosts * 20 + nodes * 16
    }
}

impl Routes {
    /// Shortest paths by hop count from every node to every host; only switches forward (a
    /// path never transits a host).
    pub fn shortest_paths(topo: &Topology) -> Routes {
        Routes::searched(topo, None, true).0
    }

    /// `shortest_paths`, searching on two threads or one as `two_threads` says (`None`: by
    /// the topology's size), and making twin classes' columns from one search when `twins`
    /// (see `twins.rs`); the tables are the same every way. Also returns how many
    /// classes were searched.
    pub(super) fn searched(topo: &Topology, two_threads: Option<bool>, twins: bool) -> (Routes, usize) {
        let (n_nodes, n_ports) = (topo.nodes.len(), topo.port_count());
        assert!(n_ports < MULTI as usize, "too many ports for a routing entry");
        let port_to: Vec<NodeId> = topo.ports().map(|(_, p)| p.to).collect();
        let forwards: Vec<bool> = topo.nodes.iter().map(|n| n.kind == NodeKind::Switch).collect();
        let out = Adjacency::new(topo, |_| true);
        let mut r = Routes {
            n_hosts: topo.hosts.len(),
            forwards,
            row_of: vec![NO_ROW; n_nodes],
            uplink: vec![(NO_ROUTE, NO_NODE); n_nodes],
            n_classes: 0,
            class_of: Vec::with_capacity(topo.hosts.len()),
            attach: Vec::new(),
            deliver: vec![PortId(u32::MAX); topo.hosts.len()],
            cells: Vec::new(),
            groups: vec![Group { start: 0, len: 0 }],
            ports: (0..n_ports).map(PortId::from).collect(),
            port_to,
            host_node: topo.hosts.clone(),
            pinned: Vec::new(),
        };
        let mut interned: HashMap<Vec<PortId>, u32> = HashMap::new();
        let n_rows = r.assign_rows(&out, &mut interned);
        let reps = r.assign_classes(topo, &out);
        r.cells = vec![NO_ROUTE; n_rows * r.n_classes];
        // BFS walks switches and the nodes with rows only: a rowless host is never expanded
        // and no route passes through it (`fwd` leaves out the links to them).
        let fwd = Adjacency::new(topo, |p| r.row_of[r.port_to[p.idx()].idx()] != NO_ROW);
        let graph = Graph { out: &out, fwd: &fwd, host_node: &r.host_node, forwards: &r.forwards, port_to: &r.port_to, row_of: &r.row_of, attach: &r.attach };
        let mut cells = Cells { cells: &mut r.cells, n_classes: r.n_classes, groups: &mut r.groups, ports: &mut r.ports, interned: &mut interned };
        let searches = fill_classes(&graph, &mut cells, &reps, two_threads, twins);
        (r, searches)
    }

    /// Gives every node a row but a host whose links all lead to one node; returns the rows.
    fn assign_rows(&mut self, out: &Adjacency, interned: &mut HashMap<Vec<PortId>, u32>) -> usize {
        let mut n_rows = 0;
        for n in 0..self.row_of.len() {
            let links = out.of(n);
            if let Some(via) = one_neighbour(links, &self.port_to, self.forwards[n]) {
                self.uplink[n] = (self.intern(links, interned), via);
            } else {
                self.row_of[n] = n_rows;
                n_rows += 1;
            }
        }
        n_rows as usize
    }

    /// Puts the hosts with one link, to a switch, in the class of the first such host on
    /// that switch, every other host in a class of its own; returns each class's first host.
    fn assign_classes(&mut self, topo: &Topology, out: &Adjacency) -> Vec<usize> {
        let mut class_on = vec![u32::MAX; topo.nodes.len()];
        let mut reps = Vec::new();
        for (h, node) in topo.hosts.iter().enumerate() {
            let attach = match single_uplink(out.of(node.idx()), &self.port_to, &self.forwards) {
                Some(up) => {
                    // A link's two ports are `2l` and `2l + 1` (see `topology::graph`), so
                    // `up ^ 1` is the switch's port down to the host.
                    self.deliver[h] = PortId(up.0 ^ 1);
                    self.port_to[up.idx()]
                }
                None => NO_NODE,
            };
            if attach == NO_NODE || class_on[attach.idx()] == u32::MAX {
                if attach != NO_NODE {
                    class_on[attach.idx()] = reps.len() as u32;
                }
                reps.push(h);
                self.attach.push(attach);
            }
            let c = if attach == NO_NODE { reps.len() as u32 - 1 } else { class_on[attach.idx()] };
            self.class_of.push(c);
        }
        self.n_classes = reps.len();
        reps
    }

    /// The interned cell for a set of next hops (build time only).
    fn intern(&mut self, hops: &[PortId], interned: &mut HashMap<Vec<PortId>, u32>) -> u32 {
        intern(&mut self.groups, &mut self.ports, hops, interned)
    }

    /// The ports of a group cell (a cell with the `MULTI` bit).
    fn group_ports(&self, cell: u32) -> &[PortId] {
        group_ports(&self.groups, &self.ports, cell)
    }

    /// The cell at `node` toward destination column `dst`.
    pub(crate) fn cell(&self, node: NodeId, dst: HostId) -> u32 {
        let d = dst.idx();
        if d >= self.n_hosts {
            // The last hop at `node` wins, as when static routes were table columns.
            return self.pinned[d - self.n_hosts].iter().rev().find(|(n, _)| *n == node).map_or(NO_ROUTE, |&(_, c)| c);
        }
        let row = self.row_of[node.idx()];
        if row == NO_ROW {
            return self.rowless_cell(node, dst);
        }
        let c = self.class_of[d] as usize;
        if self.attach[c] == node {
            return self.deliver[d].0;
        }
        self.cells[row as usize * self.n_classes + c]
    }

    /// A host whose links all lead to node `via` sends on them toward anything `via` is or
    /// forwards to (it never transits another host).
    fn rowless_cell(&self, node: NodeId, dst: HostId) -> u32 {
        let target = self.host_node[dst.idx()];
        let (links, via) = self.uplink[node.idx()];
        let reaches = via == target || (self.forwards[via.idx()] && self.cell(via, dst) != NO_ROUTE);
        if node != target && reaches { links } else { NO_ROUTE }
    }

    /// Adds one destination column per static route, each a node path from a host to a
    /// host through switches, and returns their ids (`n_hosts + i`): a packet addressed to
    /// one follows its path hop by hop (parallel links on a hop stay a LAG, hashed per
    /// flow) and is delivered to the path's last host. Nodes off the path have no route.
    pub fn pin(&mut self, topo: &Topology, paths: &[Vec<NodeId>]) -> Vec<HostId> {
        let mut interned: HashMap<Vec<PortId>, u32> = (1..self.groups.len()).map(|g| (self.group_ports(MULTI | g as u32).to_vec(), MULTI | g as u32)).collect();
        let mut ids = Vec::with_capacity(paths.len());
        for path in paths {
            let mut hops = Vec::with_capacity(path.len());
            for w in path.windows(2) {
                let lag: Vec<PortId> = topo.ports().filter(|(_, p)| p.from == w[0] && p.to == w[1]).map(|(id, _)| id).collect();
                assert!(!lag.is_empty(), "static route hop without a link");
                hops.push((w[0], self.intern(&lag, &mut interned)));
            }
            self.pinned.push(hops);
            ids.push(HostId::from(self.host_node.len()));
            self.host_node.push(*path.last().expect("a static route has nodes"));
        }
        ids
    }

    /// Destination columns: the hosts, then the static routes.
    pub fn n_dests(&self) -> usize {
        self.host_node.len()
    }

    /// Host classes (the static routes' columns are not among them).
    pub(crate) fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Host `h`'s class, and the switch the class's hosts hang off (`NO_NODE`: none).
    pub(crate) fn class(&self, h: usize) -> (usize, NodeId) {
        let c = self.class_of[h] as usize;
        (c, self.attach[c])
    }

    /// The ports a cell names (empty for `NO_ROUTE`).
    pub(crate) fn cell_ports(&self, cell: u32) -> &[PortId] {
        if cell & MULTI == 0 {
            &self.ports[cell as usize..cell as usize + 1]
        } else {
            self.group_ports(cell)
        }
    }

    /// How many groups there are (cells with the `MULTI` bit index below this).
    pub(crate) fn n_groups(&self) -> usize {
        self.groups.len()
    }

    /// All equal-cost next-hop ports at `node` toward host `dst`, in ascending port order
    /// (empty if `node` is `dst` or cannot reach it).
    #[inline]
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        self.cell_ports(self.cell(node, dst))
    }

    /// Per-flow ECMP: one of `next_hops`, chosen from the flow's entropy mixed with the node
    /// id. Deterministic and allocation-free, a few array reads. Panics if `node` has no
    /// route to `dst` (a broken internal invariant).
    #[inline]
    pub fn select(&self, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        let e = self.cell(node, dst);
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

    /// The node a packet to `dst` (a host or a static route's column) is delivered at.
    pub fn target(&self, dst: HostId) -> NodeId {
        self.host_node[dst.idx()]
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

/// One BFS per class, with its scratch kept across classes.
#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
