//! Jellyfish (Singla et al., NSDI '12): switches wired to each other at random, each using
//! a given number of network ports. Here two kinds of switch, as in the Superways paper's
//! baseline: `leaves` outer switches with hosts and `leaf_ports` network ports each, and
//! `spines` inner switches with `spine_ports` each. Drawn from the run's seed.

use super::{add_hosts, connect, host_ids, LinkParams, NodeKind, Topology};
use crate::ids::NodeId;
use crate::rng::{stream, Stream};
use rand::Rng;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JellyfishParams {
    pub leaves: u32,
    pub hosts_per_leaf: u32,
    pub leaf_ports: u32,
    pub spines: u32,
    pub spine_ports: u32,
    pub host_link: LinkParams,
    pub fabric_link: LinkParams,
}

/// Wiring attempts before giving up on a connected graph.
const ATTEMPTS: u64 = 64;

/// Hosts `h0..` leaf-major, then `leaf{i}`, `spine{j}`. Groups `all` and `leaf{i}`. `None`
/// if no attempt gave a connected switch graph.
pub fn jellyfish(p: &JellyfishParams, seed: u64) -> Option<Topology> {
    let mut t = Topology::default();
    let hosts = add_hosts(&mut t, "h", p.leaves * p.hosts_per_leaf);
    let leaves: Vec<NodeId> = (0..p.leaves).map(|i| t.add_node(NodeKind::Switch, format!("leaf{i}"))).collect();
    let spines: Vec<NodeId> = (0..p.spines).map(|j| t.add_node(NodeKind::Switch, format!("spine{j}"))).collect();
    let per = p.hosts_per_leaf as usize;
    for (n, &h) in hosts.iter().enumerate() {
        connect(&mut t, h, leaves[n / per], p.host_link);
    }
    let ports: Vec<u32> = leaves.iter().map(|_| p.leaf_ports).chain(spines.iter().map(|_| p.spine_ports)).collect();
    let switches: Vec<NodeId> = leaves.iter().chain(&spines).copied().collect();
    let edges = (0..ATTEMPTS).map(|a| wire(&ports, a, seed)).find(|e| connected(ports.len(), e))?;
    for (u, v) in edges {
        connect(&mut t, switches[u], switches[v], p.fabric_link);
    }
    t.groups.push(("all".into(), host_ids(&t, &hosts)));
    for (i, chunk) in hosts.chunks(per).enumerate() {
        let g = host_ids(&t, chunk);
        t.groups.push((format!("leaf{i}"), g));
    }
    Some(t)
}

/// One random wiring (Jellyfish's construction): join random pairs of switches that both
/// have a free port and no link yet; when none is left but switches still have free
/// ports, break a random link and rewire its ends to them. No self-loops, no parallel
/// links; ports stay free only when no such swap exists.
fn wire(ports: &[u32], attempt: u64, seed: u64) -> Vec<(usize, usize)> {
    let n = ports.len();
    let mut rng = stream(seed, Stream::Topology, attempt);
    let mut free = ports.to_vec();
    let mut adj = vec![false; n * n];
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    loop {
        pairs.clear();
        for u in 0..n {
            for v in u + 1..n {
                if free[u] > 0 && free[v] > 0 && !adj[u * n + v] {
                    pairs.push((u, v));
                }
            }
        }
        if !pairs.is_empty() {
            let (u, v) = pairs[rng.gen_range(0..pairs.len())];
            join(&mut adj, &mut free, &mut edges, n, u, v);
            continue;
        }
        // Free ports only where a link exists already: break a random link `a-b` and join
        // its ends to the switches with free ports, `u-a` and `v-b` (`u == v` when one
        // switch has two free ports left).
        let Some(u) = (0..n).find(|&x| free[x] > 0) else { break };
        let v = if free[u] >= 2 { u } else {
            match (u + 1..n).find(|&x| free[x] > 0) {
                Some(v) => v,
                None => break,
            }
        };
        let fits = |a: usize, b: usize| a != u && a != v && b != u && b != v && !adj[u * n + a] && !adj[v * n + b];
        let breakable: Vec<(usize, bool)> = (0..edges.len())
            .flat_map(|e| [(e, false), (e, true)])
            .filter(|&(e, flip)| {
                let (a, b) = edges[e];
                if flip { fits(b, a) } else { fits(a, b) }
            })
            .collect();
        if breakable.is_empty() {
            break;
        }
        let (e, flip) = breakable[rng.gen_range(0..breakable.len())];
        let (a, b) = edges.swap_remove(e);
        let (a, b) = if flip { (b, a) } else { (a, b) };
        adj[a * n + b] = false;
        adj[b * n + a] = false;
        free[a] += 1;
        free[b] += 1;
        join(&mut adj, &mut free, &mut edges, n, u, a);
        join(&mut adj, &mut free, &mut edges, n, v, b);
    }
    edges.sort_unstable();
    edges
}

fn join(adj: &mut [bool], free: &mut [u32], edges: &mut Vec<(usize, usize)>, n: usize, u: usize, v: usize) {
    adj[u * n + v] = true;
    adj[v * n + u] = true;
    free[u] -= 1;
    free[v] -= 1;
    edges.push((u.min(v), u.max(v)));
}

fn connected(n: usize, edges: &[(usize, usize)]) -> bool {
    let mut seen = vec![false; n];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(u) = stack.pop() {
        for &(a, b) in edges {
            let w = if a == u { b } else if b == u { a } else { continue };
            if !seen[w] {
                seen[w] = true;
                stack.push(w);
            }
        }
    }
    seen.iter().all(|&s| s)
}
