//! The searches that fill `Routes`' cells: one breadth-first search per destination class
//! that has no twin (`twins.rs`), over the topology's ports in `Adjacency` form, next hops
//! to parallel links weighed by node (`weigh_by_node`).
//!
//! A class's search reads the topology only, and its cells are a column of their own, so on
//! a large topology the classes are searched on two threads (one takes every other search).
//! What the searches find is taken into the cells in class order on the calling thread, so
//! groups are numbered, and the tables come out, exactly as one thread makes them.

use std::collections::HashMap;
use std::sync::mpsc;

use super::cell::{group_ports, intern, Group, NO_ROUTE, NO_ROW};
use super::graph::{weigh_if_repeated, Graph, NodeMarks};
use super::twins::{copy_columns, twins, Differences};
use crate::ids::PortId;

/// Above how many port visits (searches x ports they follow) the searches use a second
/// thread. Twins leave regular topologies few searches (a k = 16 fat-tree 16, 0.08 M
/// visits, less work than a thread's start; k = 48 48, 5.3 M); a Jellyfish wiring has no
/// twins and searches once for every switch with hosts.
const TWO_THREADS_ABOVE: usize = 1 << 22;

/// How many classes' findings may wait for the calling thread (each about a port list).
const IN_FLIGHT: usize = 4;

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

/// Fills every class's cells: class `c` from a search from its first host `reps[c]`, or
/// from its twin's column (see `twins`) when `use_twins` and it has one, with the searches
/// on two threads or one as `two_threads` says (`None`: by the number of port visits).
/// Returns how many classes were searched.
pub(super) fn fill_classes(g: &Graph, into: &mut Cells, reps: &[usize], two_threads: Option<bool>, use_twins: bool) -> usize {
    let twin = if use_twins { twins(g) } else { vec![None; reps.len()] };
    let searched: Vec<usize> = (0..reps.len()).filter(|&c| twin[c].is_none()).collect();
    let mut mine = Search::new(g.row_of.len());
    if !two_threads.unwrap_or(searched.len().saturating_mul(g.fwd.ports.len()) > TWO_THREADS_ABOVE) {
        fill_in_order(g, into, &twin, |c| mine.class(g, c, reps[c]));
        return searched.len();
    }
    std::thread::scope(|scope| {
        let (theirs_tx, theirs) = mpsc::sync_channel(IN_FLIGHT);
        let their_classes: Vec<usize> = searched.iter().copied().skip(1).step_by(2).collect();
        scope.spawn(move || {
            let mut search = Search::new(g.row_of.len());
            for c in their_classes {
                if theirs_tx.send(search.class(g, c, reps[c])).is_err() {
                    return;
                }
            }
        });
        let mut nth = 0;
        fill_in_order(g, into, &twin, |c| {
            nth += 1;
            if nth % 2 == 1 { mine.class(g, c, reps[c]) } else { theirs.recv().expect("the second search thread stopped") }
        });
    });
    searched.len()
}

/// Takes every class into the cells in class order, a searched class from `search`, a twin
/// by what differs from its twin's column; the twins' columns are copied at the end, row by
/// row (a column at a time would stride through the whole table once per class).
fn fill_in_order(g: &Graph, into: &mut Cells, twin: &[Option<usize>], mut search: impl FnMut(usize) -> Found) {
    let mut last = vec![NO_ROUTE; g.row_of.len()];
    let mut differences = Differences::new(g.row_of.len());
    let mut changed: Vec<(usize, u32)> = Vec::new();
    for (c, &of) in twin.iter().enumerate() {
        let Some(of) = of else {
            into.take(g, c, &search(c), &mut last);
            continue;
        };
        let t = g.attach[c];
        changed.push((into.index(g, t.idx(), c), NO_ROUTE));
        differences.each(g, t, g.attach[of], |u, hops| changed.push((into.index(g, u.idx(), c), into.cell_for(u.idx(), hops, &mut last))));
    }
    copy_columns(into.cells, into.n_classes, twin);
    for (i, cell) in changed {
        into.cells[i] = cell;
    }
}

impl Cells<'_> {
    /// Class `c`'s column from its search.
    fn take(&mut self, g: &Graph, c: usize, found: &Found, last: &mut [u32]) {
        let mut start = 0;
        for &(u, end) in &found.nodes {
            let hops = &found.hops[start..end as usize];
            start = end as usize;
            let u = u as usize;
            let i = self.index(g, u, c);
            self.cells[i] = self.cell_for(u, hops, last);
        }
    }

    /// Where node `u`'s cell toward class `c` is.
    fn index(&self, g: &Graph, u: usize, c: usize) -> usize {
        g.row_of[u] as usize * self.n_classes + c
    }

    /// Node `u`'s cell for next hops `hops`: the port itself, or their group. `last` holds
    /// each node's most recent group, which is almost always its next one too (a leaf's
    /// "all spines" set), and spares most hash lookups.
    fn cell_for(&mut self, u: usize, hops: &[PortId], last: &mut [u32]) -> u32 {
        if let &[p] = hops {
            p.0
        } else if last[u] != NO_ROUTE && group_ports(self.groups, self.ports, last[u]) == hops {
            last[u]
        } else {
            last[u] = intern(self.groups, self.ports, hops, self.interned);
            last[u]
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
        Search { dist: vec![u32::MAX; n_nodes], queue: Vec::with_capacity(n_nodes), marks: NodeMarks::new(n_nodes) }
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
            weigh_if_repeated(&mut found.hops, from, &mut self.marks, g.port_to);
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

