//! The dense forwarding table fanin used before issue 23 (a cell per node and destination
//! column, one BFS per column), kept as the tests' oracle: `Routes` must answer every
//! (node, destination) exactly as this does. Never built outside tests (a 100,000-host star
//! would need 40 GB).

use super::graph::weigh_by_node;
use crate::ids::{HostId, NodeId, PortId};
use crate::topology::{NodeKind, Topology};

pub(crate) struct DenseRoutes {
    n_dests: usize,
    /// `hops[node * n_dests + dst]`: the equal-cost next hops, ascending (node-weighted).
    hops: Vec<Vec<PortId>>,
}

impl DenseRoutes {
    pub(crate) fn shortest_paths(topo: &Topology) -> DenseRoutes {
        let n_nodes = topo.nodes.len();
        let n_hosts = topo.hosts.len();
        let port_to: Vec<NodeId> = topo.ports().map(|(_, p)| p.to).collect();
        let forwards: Vec<bool> = topo.nodes.iter().map(|n| n.kind == NodeKind::Switch).collect();
        let out: Vec<Vec<PortId>> = (0..n_nodes).map(|n| topo.ports().filter(|(_, p)| p.from.idx() == n).map(|(id, _)| id).collect()).collect();
        let mut r = DenseRoutes { n_dests: n_hosts, hops: vec![Vec::new(); n_nodes * n_hosts] };
        for (h, &dst) in topo.hosts.iter().enumerate() {
            let d = dst.idx();
            let mut dist = vec![u32::MAX; n_nodes];
            let mut queue = vec![d];
            dist[d] = 0;
            let mut head = 0;
            while head < queue.len() {
                let v = queue[head];
                head += 1;
                if v != d && !forwards[v] {
                    continue;
                }
                for q in &out[v] {
                    let u = port_to[q.idx()].idx();
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        queue.push(u);
                    }
                }
            }
            for &u in &queue[1..] {
                let mut hops: Vec<PortId> = out[u]
                    .iter()
                    .copied()
                    .filter(|q| {
                        let w = port_to[q.idx()].idx();
                        dist[w] == dist[u] - 1 && (w == d || forwards[w])
                    })
                    .collect();
                weigh_by_node(&mut hops, &port_to);
                r.hops[u * n_hosts + h] = hops;
            }
        }
        r
    }

    /// As `Routes::pin`: a column per path, next hops only along it (each hop's LAG).
    pub(crate) fn pin(&mut self, topo: &Topology, paths: &[Vec<NodeId>]) {
        let (old, n) = (self.n_dests, self.n_dests + paths.len());
        let mut hops = vec![Vec::new(); topo.nodes.len() * n];
        for node in 0..topo.nodes.len() {
            hops[node * n..node * n + old].clone_from_slice(&self.hops[node * old..(node + 1) * old]);
        }
        for (i, path) in paths.iter().enumerate() {
            for w in path.windows(2) {
                hops[w[0].idx() * n + old + i] = topo.ports().filter(|(_, p)| p.from == w[0] && p.to == w[1]).map(|(id, _)| id).collect();
            }
        }
        self.hops = hops;
        self.n_dests = n;
    }

    pub(crate) fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        &self.hops[node.idx() * self.n_dests + dst.idx()]
    }
}
