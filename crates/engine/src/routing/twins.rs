//! Twin destination classes: classes whose switches have the same neighbours, so that one
//! search serves them all.
//!
//! Say the hosts of classes `c` and `o` hang off switches `t` and `s` whose neighbours with
//! rows are the same nodes (the edges of one fat-tree pod, every leaf of a leaf-spine).
//! Then any other node is as far from `t` as from `s`, and no shortest path to either passes
//! through the other (a neighbour of both would be a shorter way). So every node but `t`,
//! `s` and their neighbours has the same next hops toward both, port for port, and `c`'s
//! column is `o`'s but at those nodes: `t` delivers, each neighbour forwards on its links to
//! `t`, and `s` goes up to every neighbour that forwards. At k = 48 this leaves one search a
//! pod (48 instead of 1,152); a leaf-spine needs one in all.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use super::cell::NO_NODE;
use super::graph::{weigh_if_repeated, Graph, NodeMarks};
use crate::ids::{NodeId, PortId};

/// Per class, the first class before it that is its twin, or `None` to search. A switch
/// with no forwarding neighbour, or a link to itself, is searched.
pub(super) fn twins(g: &Graph) -> Vec<Option<usize>> {
    let mut first: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut twin_of = |c: usize, t: NodeId| {
        let mut near: Vec<u32> = g.fwd.of(t.idx()).iter().map(|q| g.port_to[q.idx()].0).collect();
        near.sort_unstable();
        near.dedup();
        if near.contains(&t.0) || !near.iter().any(|&n| g.forwards[n as usize]) {
            return None;
        }
        match first.entry(near) {
            Entry::Occupied(e) => Some(*e.get()),
            Entry::Vacant(e) => {
                e.insert(c);
                None
            }
        }
    };
    g.attach.iter().enumerate().map(|(c, &t)| if t == NO_NODE { None } else { twin_of(c, t) }).collect()
}

/// Each twin's column copied from its twin's, row by row.
pub(super) fn copy_columns(cells: &mut [u32], n_classes: usize, twin: &[Option<usize>]) {
    let pairs: Vec<(usize, usize)> = twin.iter().enumerate().filter_map(|(c, of)| of.map(|of| (c, of))).collect();
    if pairs.is_empty() {
        return;
    }
    for row in cells.chunks_exact_mut(n_classes) {
        for &(c, of) in &pairs {
            row[c] = row[of];
        }
    }
}

/// Scratch for the nodes where twin columns differ, kept from class to class.
pub(super) struct Differences {
    marks: NodeMarks,
    /// Per neighbour of `t`: its place among them, in the order a search reaches them.
    place: Vec<u32>,
    /// (place, neighbour, its port back to `t`) for each of `t`'s ports.
    links: Vec<(u32, NodeId, PortId)>,
    hops: Vec<PortId>,
}

impl Differences {
    pub(super) fn new(n_nodes: usize) -> Differences {
        Differences { marks: NodeMarks::new(n_nodes), place: vec![0; n_nodes], links: Vec::new(), hops: Vec::new() }
    }

    /// Calls `each(node, next hops)` for every node but `t` whose next hops toward the class
    /// on `t` differ from those toward its twin on `s`, in the order a search from `t`'s
    /// hosts reaches them (so new groups are numbered as a search would number them): `t`'s
    /// neighbours, in the order of `t`'s ports, then `s`.
    pub(super) fn each(&mut self, g: &Graph, t: NodeId, s: NodeId, mut each: impl FnMut(NodeId, &[PortId])) {
        self.marks.clear();
        self.links.clear();
        let mut places = 0;
        for q in g.fwd.of(t.idx()) {
            let u = g.port_to[q.idx()];
            if self.marks.first(u) {
                self.place[u.idx()] = places;
                places += 1;
            }
            // A link's two ports are `2l` and `2l + 1` (see `topology::graph`).
            self.links.push((self.place[u.idx()], u, PortId(q.0 ^ 1)));
        }
        // Ascending port within a neighbour, as its adjacency lists them. Its ports all lead
        // to `t`, so weighing by node would leave them as they are.
        self.links.sort_unstable();
        for same in self.links.chunk_by(|a, b| a.0 == b.0) {
            self.hops.clear();
            self.hops.extend(same.iter().map(|l| l.2));
            each(same[0].1, &self.hops);
        }
        self.hops.clear();
        self.hops.extend(g.fwd.of(s.idx()).iter().copied().filter(|p| g.forwards[g.port_to[p.idx()].idx()]));
        weigh_if_repeated(&mut self.hops, 0, &mut self.marks, g.port_to);
        each(s, &self.hops);
    }
}
