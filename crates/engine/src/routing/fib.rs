//! The switches' forwarding tables in the form the hot path wants.
//!
//! [`Routes`] answers for every node; packets only need switches (a host always sends on its
//! NIC). Each switch keeps a row with one cell per destination *class*, not per host: a
//! host hanging off one switch is reached through that switch, so every other switch
//! forwards to it as to its siblings, and the attachment switch itself delivers on the
//! host's own port. A cell holds the answer itself (the port, or where the ECMP group's
//! ports start and how many there are), so a lookup is one read of the row and at most
//! one of the group's ports: a chain of dependent loads is what a packet-hop waits on.
//! A k = 16 fat-tree's rows take 160 KB instead of 5.5 MB as `Routes` entries. Choices
//! equal `Routes::select`.
//!
//! Where the topology groups its hosts in blocks (a fat-tree's pods), rows are folded by
//! block: a switch sends every class of a block it is not in alike (an edge or an
//! aggregation switch: up; a core: down the pod's port), so its row holds one cell per
//! block and spells out only its own block class by class. At k = 32 that is 48 cells a
//! switch instead of 512 (245 KB of rows instead of 2.6 MB, which missed the CPU's L2 at
//! most hops). The fold is checked cell by cell; where any switch needs two blocks
//! spelled out (shortcut links, a hint that does not hold) the rows stay whole.
//!
//! Where the folded rows and the hosts' columns follow a rule (every fat-tree, a star), a
//! lookup can compute its answer from one line per switch instead (`closed.rs`); the run
//! loop does so once its working set outgrows the cache (`Fib::compute`).

use super::closed::{progression, Affine, HostRule, Shape};
use super::table::{mix, Routes, MULTI, NO_NODE, NO_ROUTE as ROUTES_NO_ROUTE};
use crate::ids::{HostId, NodeId, PortId};
use crate::topology::{NodeKind, Topology};

/// A cell is `len << LEN_SHIFT | x`, where `x` is where a list of ports starts in `ports`:
/// an ECMP group (`len` > 1, the flow's hash picks one), one next hop (`len` 1), or a
/// class's hosts at the switch they hang off (`len` 0, the destination's place in its
/// class picks its port). One shape for all three, so a lookup takes no branch that
/// depends on the packet: at two switches out of three in a fat-tree it would mispredict.
const LEN_SHIFT: u32 = 24;
const X_MASK: u32 = (1 << LEN_SHIFT) - 1;
/// No route (a broken invariant if a packet ever needs it; `Routes::select` panics too).
const NO_ROUTE: u32 = u32::MAX;
/// The cell of every host's row: `ports[0]`, port 0 (a host sends on its NIC; the run loop
/// asks anyway, to keep the question of whether a node is a host off its path).
const AT_HOST: u32 = 1 << LEN_SHIFT;

/// A destination host's columns: its block's (read by the switches outside the block) and
/// its class's within the block (`fine`, read by the switch whose row spells the block out),
/// and its place among its class's hosts. Unfolded rows: a block per class.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Dest {
    block: u32,
    fine: u32,
    local: u32,
}

/// Per node: where its row starts in `rows`, and which block the row spells out class by
/// class (`NO_BLOCK`: none, as at a core switch, a host, or in unfolded rows).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct NodeRow {
    start: u32,
    own: u32,
}

const NO_BLOCK: u32 = u32::MAX;

pub struct Fib {
    /// Cells per row (read by the tests; rows are found by `node_row`).
    #[cfg_attr(not(test), allow(dead_code))]
    width: usize,
    /// Per destination host.
    dest: Vec<Dest>,
    /// Per node (hosts share the last row).
    node_row: Vec<NodeRow>,
    /// `rows[start + column]`: a cell (see `LEN_SHIFT`).
    rows: Vec<u32>,
    /// The port lists cells point into, one after another (each switch's stored once).
    ports: Vec<PortId>,
    /// Where the rows and columns follow a rule (`closed.rs`): the hosts' columns, and each
    /// switch's row as a `Shape`, `shapes[node - base]` (0: the hosts', whose ids come
    /// first). `computing`: the rule, while lookups use it (`compute`).
    rule: Option<HostRule>,
    computing: Option<HostRule>,
    shapes: Vec<Shape>,
    base: u32,
}

impl Fib {
    /// `None` when the tables cannot be this compact (a list of more than 255 ports, or
    /// more than 2^24 of them): the caller then falls back to `Routes`.
    pub fn new(topo: &Topology, routes: &Routes) -> Option<Fib> {
        let switches: Vec<NodeId> =
            (0..topo.nodes.len()).map(NodeId::from).filter(|&n| topo.nodes[n.idx()].kind == NodeKind::Switch).collect();
        // Classes: the routes' host classes, then one per static route.
        let (n_hosts, n_host_classes) = (topo.hosts.len(), routes.n_classes());
        let n = n_host_classes + routes.n_dests() - n_hosts;
        let mut fib = Fib { width: n, dest: Vec::with_capacity(routes.n_dests()), node_row: Vec::new(), rows: Vec::new(), ports: vec![PortId(0)], rule: None, computing: None, shapes: Vec::new(), base: 0 };
        // Per class: its hosts in host order (the first is the one its cells come from);
        // where the class hangs off a switch, the ports that switch delivers them on.
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); n_host_classes];
        for h in 0..n_hosts {
            let (c, _) = routes.class(h);
            fib.dest.push(Dest { block: c as u32, fine: 0, local: members[c].len() as u32 });
            members[c].push(h as u32);
        }
        fib.dest.extend((n_host_classes..n).map(|class| Dest { block: class as u32, fine: 0, local: 0 }));
        let mut row_of = vec![u32::MAX; topo.nodes.len()];
        fib.rows = vec![AT_HOST; (switches.len() + 1) * n];
        let mut lists = CellsOnce::new(topo.port_count(), routes.n_groups());
        let mut attached = vec![None; topo.nodes.len()];
        for (c, hosts) in members.iter().enumerate() {
            let attach = routes.class(hosts[0] as usize).1;
            if attach != NO_NODE {
                attached[attach.idx()] = Some(c);
            }
        }
        for (row, &node) in switches.iter().enumerate() {
            row_of[node.idx()] = row as u32;
            lists.next_row();
            // Each distinct list stored once per switch, in the order the destinations
            // first need it: the classes by their first host, and at the switch a class
            // hangs off, each of its hosts (their own ports).
            let own: &[u32] = attached[node.idx()].map_or(&[], |c| &members[c]);
            let (mut i, mut j) = (0, 0);
            while i < n_host_classes || j < own.len() {
                let first = members.get(i).map_or(u32::MAX, |m| m[0]);
                let h = first.min(own.get(j).copied().unwrap_or(u32::MAX));
                let cell = lists.cell(&mut fib, routes, routes.cell(node, HostId(h)))?;
                if h == first {
                    fib.rows[row * n + i] = cell;
                    i += 1;
                }
                if own.get(j) == Some(&h) {
                    j += 1;
                }
            }
            for (k, col) in (n_hosts..routes.n_dests()).enumerate() {
                fib.rows[row * n + n_host_classes + k] = lists.cell(&mut fib, routes, routes.cell(node, HostId::from(col)))?;
            }
        }
        for (c, hosts) in members.iter().enumerate() {
            let attach = routes.class(hosts[0] as usize).1;
            if attach != NO_NODE {
                let ports: Vec<PortId> = hosts.iter().map(|&h| routes.next_hops(attach, HostId(h))[0]).collect();
                fib.rows[row_of[attach.idx()] as usize * n + c] = fib.cell(&ports, 0)?;
            }
        }
        let mut own = vec![NO_BLOCK; switches.len() + 1];
        let mut split = fib.width as u32;
        if topo.host_blocks > 0 {
            let mut block_of: Vec<u32> = members.iter().map(|m| (m[0] as usize / topo.host_blocks) as u32).collect();
            // A static route's column is a block of its own, after the hosts'.
            let after = block_of.iter().max().map_or(0, |&b| b + 1);
            block_of.extend((0..(n - n_host_classes) as u32).map(|k| after + k));
            if let Some(folded) = Folded::new(&fib.rows, n, &block_of) {
                for d in &mut fib.dest {
                    (d.block, d.fine) = (block_of[d.block as usize], folded.fine[d.block as usize]);
                }
                (fib.rows, fib.width, own) = (folded.rows, folded.width, folded.own);
                split = fib.dest.iter().map(|d| d.fine).min().unwrap_or(0);
            }
        }
        let w = fib.width;
        let host_row = NodeRow { start: u32::try_from(switches.len() * w).ok()?, own: NO_BLOCK };
        fib.node_row = row_of
            .iter()
            .map(|&row| match row {
                u32::MAX => Some(host_row),
                row => Some(NodeRow { start: u32::try_from(row as usize * w).ok()?, own: own[row as usize] }),
            })
            .collect::<Option<_>>()?;
        fib.close(&switches, split, &own, topo.nodes.len());
        Some(fib)
    }

    /// Takes the closed form (`closed.rs`) if the hosts' columns and every switch's row fit
    /// one: switches numbered after all hosts, no static routes, and per row block columns
    /// and class columns each in arithmetic progression, with one exception at most.
    fn close(&mut self, switches: &[NodeId], split: u32, own: &[u32], n_nodes: usize) {
        let base = switches.first().map_or(0, |s| s.0);
        let numbered = switches.iter().enumerate().all(|(i, s)| s.0 == base + i as u32) && base as usize + switches.len() == n_nodes;
        let columns: Vec<(u32, u32, u32)> = self.dest.iter().map(|d| (d.block, d.fine, d.local)).collect();
        let Some(rule) = HostRule::find(&columns).filter(|_| numbered) else { return };
        let (class, per_block) = rule.sizes();
        let host = Affine { len: 1, ..Affine::default() };
        let mut shapes = vec![Shape { own: NO_BLOCK, split: u32::MAX, special: u32::MAX, lists: [host; 3] }];
        for (r, &o) in own.iter().enumerate().take(switches.len()) {
            let row = &self.rows[r * self.width..(r + 1) * self.width];
            let readable = |c: u32| if c < split { c != o } else { o != NO_BLOCK && c - split < per_block };
            let mut lists = Vec::with_capacity(row.len());
            for (c, &cell) in row.iter().enumerate() {
                lists.push(match readable(c as u32) {
                    false => None,
                    true if cell == NO_ROUTE => return,
                    true => {
                        let (len, x) = (cell >> LEN_SHIFT, (cell & X_MASK) as usize);
                        // A class's list is as long as the class: at most `class` hosts
                        // (the last may have fewer), and every place used is checked.
                        let n = if len == 0 { class } else { len } as usize;
                        let Some(list) = progression(len, &self.ports[x..(x + n).min(self.ports.len())]) else { return };
                        Some(list)
                    }
                });
            }
            match Shape::find(o, split, &lists) {
                Some(shape) => shapes.push(shape),
                None => return,
            }
        }
        (self.rule, self.shapes, self.base) = (Some(rule), shapes, base - 1);
        #[cfg(debug_assertions)]
        self.check_rule(switches);
    }

    /// Debug builds: the rule answers as the tables, at every switch for a spread of hosts
    /// (all of them in small topologies) and entropies.
    #[cfg(debug_assertions)]
    fn check_rule(&mut self, switches: &[NodeId]) {
        let hosts = self.dest.len();
        let step = (switches.len() * hosts / (1 << 18)).max(1);
        for &node in switches {
            for h in (node.idx() % step..hosts).step_by(step) {
                for e in [0, 0x9e37_79b9, u32::MAX] {
                    let dst = HostId::from(h);
                    self.compute(false);
                    let read = self.select(node, dst, e);
                    self.compute(true);
                    debug_assert_eq!(self.select(node, dst, e), read, "node {} host {h}", node.0);
                }
            }
        }
        self.compute(false);
    }

    /// The cell for a list of ports (stored at the end of `ports`) with this `len`.
    fn cell(&mut self, hops: &[PortId], len: usize) -> Option<u32> {
        if hops.is_empty() {
            return Some(NO_ROUTE);
        }
        let len = u32::try_from(len).ok().filter(|&l| l < 256)?;
        let x = u32::try_from(self.ports.len()).ok().filter(|&x| x + hops.len() as u32 <= X_MASK)?;
        self.ports.extend_from_slice(hops);
        Some(len << LEN_SHIFT | x)
    }

    /// The egress port at switch `node` for a packet to `dst` with this flow entropy (at a
    /// host: port 0, which nothing uses).
    #[inline(always)]
    pub fn select(&self, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        if let Some(rule) = self.computing {
            return self.select_closed(rule, node, dst, entropy);
        }
        let row = *at(&self.node_row, node.idx());
        let d = *at(&self.dest, dst.idx());
        let column = std::hint::select_unpredictable(d.block == row.own, d.fine, d.block);
        let cell = *at(&self.rows, (row.start + column) as usize);
        if cell == NO_ROUTE {
            no_route(node, dst);
        }
        let (len, x) = (cell >> LEN_SHIFT, cell & X_MASK);
        // Multiply-shift maps the hash onto 0..len without a division (as `Routes`); a
        // single next hop gets 0.
        let hashed = ((mix(entropy, node) as u64 * len as u64) >> 32) as u32;
        let i = std::hint::select_unpredictable(len == 0, d.local, hashed);
        *at(&self.ports, (x + i) as usize)
    }
}

impl Fib {
    /// Whether lookups compute their answer from the rule, where there is one, rather than
    /// read the tables. Both answer alike. Computing costs a packet-hop about ten more
    /// instructions (two divisions by multiplication, and choosing the list), and spares
    /// it a chain of three dependent reads: worth it only while the packets streaming
    /// through the caches push the tables out (the run loop's far lead: bench (d) 11%
    /// faster), not when they stay in L1 and L2 (bench (a) 4.5% slower).
    pub fn compute(&mut self, on: bool) {
        self.computing = self.rule.filter(|_| on);
    }

    /// Whether there is a rule to compute by.
    #[cfg(test)]
    pub fn has_rule(&self) -> bool {
        self.rule.is_some()
    }

    /// `select` by the closed form: one read, of the switch's `Shape`.
    #[inline(always)]
    fn select_closed(&self, rule: HostRule, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        let shape = at(&self.shapes, node.0.saturating_sub(self.base) as usize);
        let (block, fine, local) = rule.columns(dst.0);
        let column = std::hint::select_unpredictable(block == shape.own, fine, block);
        let list = shape.list(column);
        let hashed = ((mix(entropy, node) as u64 * list.len as u64) >> 32) as u32;
        let i = std::hint::select_unpredictable(list.len == 0, local, hashed);
        PortId(list.port(column, i))
    }
}

#[cold]
#[inline(never)]
fn no_route(node: NodeId, dst: HostId) -> ! {
    panic!("no route from node {} to host {}", node.0, dst.0)
}

/// Unchecked indexing for `select`: every index there is built with the tables (nodes and
/// hosts of this topology, rows and groups of its switches), so it is in range (checked in
/// debug builds). Bounds checks were a tenth of a packet-hop's instructions.
#[inline(always)]
fn at<T>(v: &[T], i: usize) -> &T {
    debug_assert!(i < v.len());
    // SAFETY: see above.
    unsafe { v.get_unchecked(i) }
}

/// Build-time: whole rows (`n` cells each, the last the hosts') folded by block, if every
/// row is uniform on all its blocks but at most one.
struct Folded {
    /// Per row: `n_blocks` cells, one per block (the own block's is unused), then the own
    /// block's classes, one cell each.
    rows: Vec<u32>,
    width: usize,
    /// Per row: the block it spells out (`NO_BLOCK`: none).
    own: Vec<u32>,
    /// Per class: its column in the rows that spell its block out.
    fine: Vec<u32>,
}

impl Folded {
    fn new(whole: &[u32], n: usize, block_of: &[u32]) -> Option<Folded> {
        let n_blocks = block_of.iter().max().map_or(0, |&b| b as usize + 1);
        let mut fine = vec![0u32; n];
        let mut sizes = vec![0u32; n_blocks];
        for (c, &b) in block_of.iter().enumerate() {
            fine[c] = (n_blocks as u32).checked_add(sizes[b as usize])?;
            sizes[b as usize] += 1;
        }
        let width = n_blocks + sizes.iter().copied().max().unwrap_or(0) as usize;
        if width >= n {
            return None;
        }
        let n_rows = whole.len() / n;
        let (mut rows, mut own) = (vec![NO_ROUTE; n_rows * width], vec![NO_BLOCK; n_rows]);
        let mut seen = vec![false; n_blocks];
        for (r, row) in whole.chunks_exact(n).enumerate() {
            let folded = &mut rows[r * width..(r + 1) * width];
            // Each block's cell, and the one block (if any) whose classes differ.
            seen.fill(false);
            for (c, &cell) in row.iter().enumerate() {
                let b = block_of[c] as usize;
                if !seen[b] {
                    (seen[b], folded[b]) = (true, cell);
                } else if folded[b] != cell && own[r] != b as u32 {
                    if own[r] != NO_BLOCK {
                        return None;
                    }
                    own[r] = b as u32;
                }
            }
            if own[r] != NO_BLOCK {
                for (c, &cell) in row.iter().enumerate().filter(|&(c, _)| block_of[c] == own[r]) {
                    folded[fine[c] as usize] = cell;
                }
            }
        }
        Some(Folded { rows, width, own, fine })
    }
}

/// Build-time: one switch's `Fib` cell per distinct `Routes` cell, stored the first time
/// the switch needs it. `Routes` interns its groups, so equal cells are equal lists.
struct CellsOnce {
    /// Per port, then per group: (the row that stored it, its cell there).
    seen: Vec<(u32, u32)>,
    n_ports: usize,
    row: u32,
}

impl CellsOnce {
    fn new(n_ports: usize, n_groups: usize) -> CellsOnce {
        CellsOnce { seen: vec![(0, 0); n_ports + n_groups], n_ports, row: 0 }
    }

    fn next_row(&mut self) {
        self.row += 1;
    }

    fn cell(&mut self, fib: &mut Fib, routes: &Routes, cell: u32) -> Option<u32> {
        if cell == ROUTES_NO_ROUTE {
            return Some(NO_ROUTE);
        }
        let slot = if cell & MULTI == 0 { cell as usize } else { self.n_ports + (cell & !MULTI) as usize };
        let (row, stored) = self.seen[slot];
        if row == self.row {
            return Some(stored);
        }
        let hops = routes.cell_ports(cell);
        let stored = fib.cell(hops, hops.len())?;
        self.seen[slot] = (self.row, stored);
        Some(stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{fat_tree, FatTreeParams, LinkParams, Topology};

    #[test]
    fn agrees_with_routes_everywhere() {
        let l = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };
        let topo = fat_tree(&FatTreeParams { k: 4, host_link: l, fabric_link: l });
        let routes = Routes::shortest_paths(&topo);
        let mut fib = Fib::new(&topo, &routes).unwrap();
        // One class per edge switch (k^2/2 of them), not per host, folded by pod: a cell
        // per pod and one per edge switch of the row's own pod.
        assert_eq!(fib.dest.iter().map(|d| (d.block, d.fine)).max(), Some((3, 5)));
        assert_eq!(fib.width, 4 + 2);
        // Each switch stores its distinct port lists once: an edge its group up (2 ports),
        // a port per host (found before the hosts were classed, then unused) and its
        // class's list of the two; an aggregation its group up and one edge each down; a
        // core one port per pod. Plus the hosts' port 0.
        assert_eq!(fib.ports.len(), 1 + 8 * (2 + 1 + 1 + 2) + 8 * (2 + 1 + 1) + 4 * 4);
        // Hosts have a row too (the run loop asks without checking); nothing uses its port.
        assert_eq!(fib.select(topo.hosts[0], HostId(5), 7), PortId(0));
        assert_agrees(&topo, &routes, &mut fib);
    }

    fn k_ary(k: u32) -> Topology {
        let l = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };
        fat_tree(&FatTreeParams { k, host_link: l, fabric_link: l })
    }

    fn node(topo: &Topology, name: &str) -> NodeId {
        NodeId::from(topo.nodes.iter().position(|n| n.name == name).unwrap())
    }

    /// k = 8: 32 classes (edge switches) folded into 8 pods plus the own pod's 4 edges.
    #[test]
    fn rows_fold_by_pod() {
        let topo = k_ary(8);
        let routes = Routes::shortest_paths(&topo);
        let mut fib = Fib::new(&topo, &routes).unwrap();
        assert_eq!(fib.width, 8 + 4);
        // Edges and aggregations spell their own pod out; cores none.
        let own = |name: &str| fib.node_row[node(&topo, name).idx()].own;
        assert_eq!((own("edge3_1"), own("agg5_0"), own("core7")), (3, 5, NO_BLOCK));
        assert!(fib.has_rule());
        assert_agrees(&topo, &routes, &mut fib);
    }

    /// A link between two pods' edges makes their rows differ inside another pod as well as
    /// their own: no fold holds, so every row stays whole, with the same answers.
    #[test]
    fn a_fold_that_does_not_hold_keeps_rows_whole() {
        let mut topo = k_ary(4);
        topo.add_link(node(&topo, "edge0_0"), node(&topo, "edge1_0"), 10_000_000_000, 1_000_000);
        let routes = Routes::shortest_paths(&topo);
        let mut fib = Fib::new(&topo, &routes).unwrap();
        assert_eq!(fib.width, 8);
        assert!(fib.node_row.iter().all(|r| r.own == NO_BLOCK));
        assert_agrees(&topo, &routes, &mut fib);
    }

    /// Blocks that cut across pods (three hosts each, edges of two) fold where they can and
    /// answer as the routes do; a pinned path's column is a block of its own.
    #[test]
    fn any_fold_that_holds_answers_as_the_routes() {
        let mut topo = k_ary(4);
        topo.host_blocks = 3;
        let mut routes = Routes::shortest_paths(&topo);
        let path = ["h0", "edge0_0", "agg0_0", "core0", "agg1_0", "edge1_0", "h4"].map(|n| node(&topo, n)).to_vec();
        let pinned = routes.pin(&topo, &[path]);
        let mut fib = Fib::new(&topo, &routes).unwrap();
        assert!(fib.width < 9, "{}", fib.width);
        assert_agrees(&topo, &routes, &mut fib);
        for n in ["edge0_0", "agg0_0", "core0", "agg1_0", "edge1_0"] {
            let n = node(&topo, n);
            assert_eq!(fib.select(n, pinned[0], 5), routes.select(n, pinned[0], 5));
        }
    }

    /// Every switch answers every host as `Routes` does, from the tables and (where there
    /// is a rule) computed.
    fn assert_agrees(topo: &Topology, routes: &Routes, fib: &mut Fib) {
        for computing in [false, true] {
            fib.compute(computing);
            for (n, node) in topo.nodes.iter().enumerate() {
                if node.kind != NodeKind::Switch {
                    continue;
                }
                for h in 0..topo.hosts.len() {
                    for e in [0u32, 1, 77, 0xdead_beef, u32::MAX] {
                        let (n, h) = (NodeId::from(n), HostId::from(h));
                        if routes.next_hops(n, h).is_empty() {
                            continue;
                        }
                        assert_eq!(fib.select(n, h, e), routes.select(n, h, e), "computing: {computing}");
                    }
                }
            }
        }
        fib.compute(false);
    }

    /// Fat-trees fit the rule, whether their sizes are powers of two or not (k = 6: classes
    /// of 3 hosts, pods of 9), and hosts still send on port 0.
    #[test]
    fn fat_trees_are_computed_as_they_are_read() {
        for k in [4, 6, 8, 16] {
            let topo = k_ary(k);
            let routes = Routes::shortest_paths(&topo);
            let mut fib = Fib::new(&topo, &routes).unwrap();
            assert!(fib.has_rule(), "k = {k}");
            fib.compute(true);
            assert_eq!(fib.select(topo.hosts[1], HostId(0), 9), PortId(0));
            assert_agrees(&topo, &routes, &mut fib);
        }
    }

    /// One switch with every host on it (bench (f)'s star): one class, one column.
    #[test]
    fn a_star_is_computed() {
        let mut topo = Topology::default();
        let hosts: Vec<NodeId> = (0..50).map(|i| topo.add_node(NodeKind::Host, format!("h{i}"))).collect();
        let s = topo.add_node(NodeKind::Switch, "s");
        for h in hosts {
            topo.add_link(h, s, 10_000_000_000, 1_000_000);
        }
        let routes = Routes::shortest_paths(&topo);
        let mut fib = Fib::new(&topo, &routes).unwrap();
        assert!(fib.has_rule());
        assert_agrees(&topo, &routes, &mut fib);
    }

    /// A dual-homed host keeps a column of its own; its single-homed siblings share one.
    #[test]
    fn a_dual_homed_host_keeps_its_own_column() {
        let mut topo = Topology::default();
        let s: Vec<NodeId> = (0..2).map(|i| topo.add_node(NodeKind::Switch, format!("s{i}"))).collect();
        let h: Vec<NodeId> = (0..4).map(|i| topo.add_node(NodeKind::Host, format!("h{i}"))).collect();
        topo.add_link(s[0], s[1], 10_000_000_000, 1_000_000);
        for (host, sw) in [(0, 0), (1, 0), (2, 0), (3, 1)] {
            topo.add_link(h[host], s[sw], 10_000_000_000, 1_000_000);
        }
        topo.add_link(h[0], s[1], 10_000_000_000, 1_000_000);
        let routes = Routes::shortest_paths(&topo);
        let mut fib = Fib::new(&topo, &routes).unwrap();
        // Switches come before the hosts here: no rule, the tables answer.
        assert!(!fib.has_rule());
        let classes: Vec<u32> = fib.dest.iter().map(|d| d.block).collect();
        assert_eq!(classes, [0, 1, 1, 2]);
        assert_agrees(&topo, &routes, &mut fib);
    }
}
