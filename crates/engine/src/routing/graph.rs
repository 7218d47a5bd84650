//! The topology as the route searches read it (`Graph`, each node's ports in CSR form), and
//! how a set of next hops to parallel links is weighed by node.

use crate::ids::{NodeId, PortId};
use crate::topology::Topology;

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

/// `weigh_by_node` for the set of next hops `hops[from..]` if it reaches some node twice.
pub(super) fn weigh_if_repeated(hops: &mut Vec<PortId>, from: usize, marks: &mut NodeMarks, port_to: &[NodeId]) {
    if hops.len() - from > 1 && marks.repeats(&hops[from..], port_to) {
        let mut set = hops.split_off(from);
        weigh_by_node(&mut set, port_to);
        hops.extend(set);
    }
}

/// Build-time scratch: whether a set of next hops reaches some node twice (then ECMP is
/// weighed by node), in one pass.
pub(super) struct NodeMarks {
    mark: Vec<u32>,
    epoch: u32,
}

impl NodeMarks {
    pub(super) fn new(n_nodes: usize) -> NodeMarks {
        NodeMarks { mark: vec![0; n_nodes], epoch: 0 }
    }

    /// Forgets every mark.
    pub(super) fn clear(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.fill(0);
            self.epoch = 1;
        }
    }

    /// Marks node `n`; whether it was not marked yet.
    pub(super) fn first(&mut self, n: NodeId) -> bool {
        std::mem::replace(&mut self.mark[n.idx()], self.epoch) != self.epoch
    }

    pub(super) fn repeats(&mut self, hops: &[PortId], port_to: &[NodeId]) -> bool {
        self.clear();
        hops.iter().any(|p| !self.first(port_to[p.idx()]))
    }
}

