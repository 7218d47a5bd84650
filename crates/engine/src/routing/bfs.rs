//! The searches that fill `Routes`' cells: one breadth-first search per destination class,
//! over the topology's ports in `Adjacency` form, next hops to parallel links weighed by
//! node (`weigh_by_node`).
//!
//! A class's search reads the topology only, and its cells are a column of their own, so on
//! a large topology the classes are searched on two threads (one takes the odd classes).
//! What the searches find is taken into the cells in class order on the calling thread, so
//! groups are numbered, and the tables come out, exactly as one thread makes them. At
//! k = 48 the searches are 80% of the set-up (1,152 of them over 110,000 switch ports).

use std::collections::HashMap;
use std::sync::mpsc;

use super::cell::{group_ports, intern, Group, NO_ROUTE, NO_ROW};
use crate::ids::{NodeId, PortId};
use crate::topology::Topology;

/// Above how many port visits (classes x ports the searches follow) the searches use a
/// second thread: a k = 16 fat-tree (0.5 M) searches in milliseconds on one, less than a
/// thread's start would be worth; k = 32 is 16.8 M, k = 48 127 M.
const TWO_THREADS_ABOVE: usize = 1 << 22;

/// How many classes' findings may wait for the calling thread (each about a port list).
const IN_FLIGHT: usize = 4;

/// What the searches read, fixed while they run.
pub(super) struct Graph<'a> {
    /// Every port of every node.
    pub out: &'a Adjacency,
    /// The ports into nodes with rows: what a route can take past its first hop.
    pub fwd: &'a Adjacency,
    pub host_node: &'a [NodeId],
    pub forwards: &'a [bool],
    pub port_to: &'a [NodeId],
    pub row_of: &'a [u32],
    /// Per class: the switch its hosts hang off (`NO_NODE`: a host of its own).
    pub attach: &'a [NodeId],
}

/// Where the findings go: the cells, and the groups of several ports they name.
pub(super) struct Cells<'a> {
    pub cells: &'a mut [u32],
    pub n_classes: usize,
    pub groups: &'a mut Vec<Group>,
    pub ports: &'a mut Vec<PortId>,
    pub interned: &'a mut HashMap<Vec<PortId>, u32>,
}

/// One class's search: each node it reached (but the class's attachment switch, which
/// delivers on each host's own port) with where its next hops end in `hops`.
#[derive(Default)]
struct Found {
    nodes: Vec<(u32, u32)>,
    hops: Vec<PortId>,
}

/// Fills every class's cells: class `c` from a search from its first host `reps[c]`, on
/// two threads or one as `two_threads` says (`None`: by the number of port visits).
pub(super) fn fill_classes(g: &Graph, into: &mut Cells, reps: &[usize], two_threads: Option<bool>) {
    let mut last = vec![NO_ROUTE; g.row_of.len()];
    let mut mine = Search::new(g.row_of.len());
    if !two_threads.unwrap_or(reps.len().saturating_mul(g.fwd.ports.len()) > TWO_THREADS_ABOVE) {
        for (c, &h) in reps.iter().enumerate() {
            into.take(g, c, &mine.class(g, c, h), &mut last);
        }
        return;
    }
    std::thread::scope(|scope| {
        let (odd_tx, odd) = mpsc::sync_channel(IN_FLIGHT);
        scope.spawn(move || {
            let mut search = Search::new(g.row_of.len());
            for c in (1..reps.len()).step_by(2) {
                if odd_tx.send(search.class(g, c, reps[c])).is_err() {
                    return;
                }
            }
        });
        for (c, &h) in reps.iter().enumerate() {
            let found = if c % 2 == 0 { mine.class(g, c, h) } else { odd.recv().expect("the second search thread stopped") };
            into.take(g, c, &found, &mut last);
        }
    });
}

impl Cells<'_> {
    /// Class `c`'s column from its search. `last` holds each node's most recent group,
    /// which is almost always its next one too (a leaf's "all spines" set), and spares most
    /// hash lookups.
    fn take(&mut self, g: &Graph, c: usize, found: &Found, last: &mut [u32]) {
        let mut start = 0;
        for &(u, end) in &found.nodes {
            let hops = &found.hops[start..end as usize];
            start = end as usize;
            let u = u as usize;
            let cell = if let &[p] = hops {
                p.0
            } else if last[u] != NO_ROUTE && group_ports(self.groups, self.ports, last[u]) == hops {
                last[u]
            } else {
                last[u] = intern(self.groups, self.ports, hops, self.interned);
                last[u]
            };
            self.cells[g.row_of[u] as usize * self.n_classes + c] = cell;
        }
    }
}

/// A search's scratch, kept from class to class.
struct Search {
    dist: Vec<u32>,
    queue: Vec<usize>,
    marks: NodeMarks,
}

impl Search {
    fn new(n_nodes: usize) -> Search {
        Search { dist: vec![u32::MAX; n_nodes], queue: Vec::with_capacity(n_nodes), marks: NodeMarks { mark: vec![0; n_nodes], epoch: 0 } }
    }

    /// Class `c`'s next hops from a search from its first host `h`. Links are full duplex,
    /// so following a node's out ports backwards is the same as following in ports. A host
    /// is a search's start only: no route passes through one.
    fn class(&mut self, g: &Graph, c: usize, h: usize) -> Found {
        let d = g.host_node[h].idx();
        self.reach_from(g, d);
        let mut found = Found::default();
        for &u in &self.queue[1..] {
            if g.attach[c].idx() == u {
                continue;
            }
            // Only a neighbour of `d` can have a link to it among its next hops; links to
            // other rowless hosts never qualify, so `fwd` does for the rest.
            let links = if self.dist[u] == 1 { g.out.of(u) } else { g.fwd.of(u) };
            let want = self.dist[u] - 1;
            let from = found.hops.len();
            found.hops.extend(links.iter().copied().filter(|q| {
                let w = g.port_to[q.idx()].idx();
                self.dist[w] == want && (w == d || g.forwards[w])
            }));
            debug_assert!(found.hops.len() > from, "BFS reached node {u} without a way back");
            if found.hops.len() - from > 1 && self.marks.repeats(&found.hops[from..], g.port_to) {
                let mut hops = found.hops.split_off(from);
                weigh_by_node(&mut hops, g.port_to);
                found.hops.extend(hops);
            }
            found.nodes.push((u as u32, found.hops.len() as u32));
        }
        for &u in &self.queue {
            self.dist[u] = u32::MAX;
        }
        found
    }

    /// Distances from node `d` to every node with a row, walking through switches only;
    /// `queue` lists the nodes reached, `d` first.
    fn reach_from(&mut self, g: &Graph, d: usize) {
        self.queue.clear();
        self.dist[d] = 0;
        self.queue.push(d);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head];
            head += 1;
            if v != d && !g.forwards[v] {
                continue;
            }
            for &q in if v == d { g.out.of(v) } else { g.fwd.of(v) } {
                let u = g.port_to[q.idx()].idx();
                if self.dist[u] == u32::MAX && g.row_of[u] != NO_ROW {
                    self.dist[u] = self.dist[v] + 1;
                    self.queue.push(u);
                }
            }
        }
    }
}

/// Build-time scratch: whether a set of next hops reaches some node twice (then ECMP is
/// weighed by node), in one pass.
struct NodeMarks {
    mark: Vec<u32>,
    epoch: u32,
}

impl NodeMarks {
    fn repeats(&mut self, hops: &[PortId], port_to: &[NodeId]) -> bool {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.fill(0);
            self.epoch = 1;
        }
        hops.iter().any(|p| std::mem::replace(&mut self.mark[port_to[p.idx()].idx()], self.epoch) == self.epoch)
    }
}

/// Out ports per node in CSR form, ascending port id (so groups list ports in a fixed
/// order and the same entropy picks the same port on every run).
pub(super) struct Adjacency {
    start: Vec<u32>,
    pub(super) ports: Vec<PortId>,
}

impl Adjacency {
    /// The ports of `topo` that `keep` accepts.
    pub(super) fn new(topo: &Topology, keep: impl Fn(PortId) -> bool) -> Adjacency {
        let n = topo.nodes.len();
        let mut start = vec![0u32; n + 1];
        let from: Vec<NodeId> = topo.links.iter().flat_map(|l| [l.a, l.b]).collect();
        let kept = |i: usize| keep(PortId::from(i));
        for (i, f) in from.iter().enumerate() {
            if kept(i) {
                start[f.idx() + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut ports = vec![PortId(0); start[n] as usize];
        let mut fill = start.clone();
        for (i, f) in from.iter().enumerate() {
            if kept(i) {
                ports[fill[f.idx()] as usize] = PortId::from(i);
                fill[f.idx()] += 1;
            }
        }
        Adjacency { start, ports }
    }

    pub(super) fn of(&self, n: usize) -> &[PortId] {
        &self.ports[self.start[n] as usize..self.start[n + 1] as usize]
    }
}

/// Makes ECMP node-level: a flow picks its next node uniformly among the equal-cost ones,
/// then a link among parallel links to that node (a LAG). With `k_j` links to node `j`,
/// each of those ports is listed `lcm(k) / k_j` times, so one hash does both choices and a
/// lookup stays one index. Sets with one link per node (every builder's) are unchanged.
pub(crate) fn weigh_by_node(hops: &mut Vec<PortId>, port_to: &[NodeId]) {
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
