//! The k-ary fat-tree of Al-Fares et al.: k pods of k/2 edge and k/2 aggregation switches,
//! (k/2)^2 cores, k^3/4 hosts; full bisection when host and fabric rates are equal.

use super::{add_hosts, connect, host_ids, LinkParams, NodeKind, Topology};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FatTreeParams {
    pub k: u32,
    pub host_link: LinkParams,
    pub fabric_link: LinkParams,
}

/// Hosts `h0..` pod-major then edge-major, then `edge{pod}_{i}`, `agg{pod}_{i}`, `core{i}`.
/// Agg `i` of every pod reaches cores `i*k/2 .. i*k/2 + k/2 - 1`. Groups `all`, `pod{p}`.
pub fn fat_tree(p: &FatTreeParams) -> Topology {
    debug_assert!(p.k >= 2 && p.k % 2 == 0, "fat-tree k must be even and >= 2");
    let (k, half) = (p.k as usize, p.k as usize / 2);
    let mut t = Topology::default();
    let hosts = add_hosts(&mut t, "h", p.k * p.k * p.k / 4);
    let mut tier = |name: &str| -> Vec<_> {
        (0..k * half)
            .map(|n| t.add_node(NodeKind::Switch, format!("{name}{}_{}", n / half, n % half)))
            .collect()
    };
    // `edges[pod * half + i]`, likewise `aggs`.
    let edges = tier("edge");
    let aggs = tier("agg");
    let cores: Vec<_> =
        (0..half * half).map(|c| t.add_node(NodeKind::Switch, format!("core{c}"))).collect();
    for (n, &h) in hosts.iter().enumerate() {
        connect(&mut t, h, edges[n / half], p.host_link);
    }
    for pod in 0..k {
        for e in 0..half {
            for a in 0..half {
                connect(&mut t, edges[pod * half + e], aggs[pod * half + a], p.fabric_link);
            }
        }
    }
    for pod in 0..k {
        for a in 0..half {
            for c in 0..half {
                connect(&mut t, aggs[pod * half + a], cores[a * half + c], p.fabric_link);
            }
        }
    }
    let all = host_ids(&t, &hosts);
    t.groups.push(("all".into(), all));
    for (pod, chunk) in hosts.chunks(half * half).enumerate() {
        let g = host_ids(&t, chunk);
        t.groups.push((format!("pod{pod}"), g));
    }
    t.host_blocks = half * half;
    t
}
