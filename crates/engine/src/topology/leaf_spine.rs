//! Two-tier leaf-spine (folded Clos): every leaf has one link to every spine.

use super::{add_hosts, connect, host_ids, LinkParams, NodeKind, Topology};
use crate::ids::NodeId;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafSpineParams {
    pub leaves: u32,
    pub spines: u32,
    pub hosts_per_leaf: u32,
    pub host_link: LinkParams,
    pub fabric_link: LinkParams,
}

/// Hosts `h0..` leaf-major, then switches `leaf{i}`, `spine{j}`. Over-subscription is
/// `hosts_per_leaf * host rate : spines * fabric rate`. Groups `all` and `leaf{i}`.
pub fn leaf_spine(p: &LeafSpineParams) -> Topology {
    debug_assert!(p.leaves >= 1 && p.spines >= 1 && p.hosts_per_leaf >= 1);
    let mut t = Topology::default();
    let hosts = add_hosts(&mut t, "h", p.leaves * p.hosts_per_leaf);
    let leaves: Vec<_> =
        (0..p.leaves).map(|i| t.add_node(NodeKind::Switch, format!("leaf{i}"))).collect();
    let spines: Vec<_> =
        (0..p.spines).map(|j| t.add_node(NodeKind::Switch, format!("spine{j}"))).collect();
    let per = p.hosts_per_leaf as usize;
    for (n, &h) in hosts.iter().enumerate() {
        connect(&mut t, h, leaves[n / per], p.host_link);
    }
    for &leaf in &leaves {
        for &spine in &spines {
            connect(&mut t, leaf, spine, p.fabric_link);
        }
    }
    let all = host_ids(&t, &hosts);
    t.groups.push(("all".into(), all));
    for (i, chunk) in hosts.chunks(per).enumerate() {
        let g = host_ids(&t, chunk);
        t.groups.push((format!("leaf{i}"), g));
    }
    t
}

/// Subways type-1 (Liu et al., ISCA '19) as the Superways paper simulates it: every host
/// of rack `r` also links, at the host rate, to the leaf of rack `(r + 1) mod leaves`.
/// No leaves are added. Needs two racks or more.
pub fn subways(p: &LeafSpineParams) -> Topology {
    debug_assert!(p.leaves >= 2);
    let mut t = leaf_spine(p);
    let leaf = |r: u32| NodeId::from((p.leaves * p.hosts_per_leaf + r) as usize);
    for n in 0..p.leaves * p.hosts_per_leaf {
        let next = (n / p.hosts_per_leaf + 1) % p.leaves;
        let h = t.hosts[n as usize];
        connect(&mut t, h, leaf(next), p.host_link);
    }
    t
}

/// Where `bcube`'s hosts take their second link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BcubeLevel {
    /// One BCube(n, 1) level (Guo et al., SIGCOMM '09), n = `hosts_per_leaf`: switch
    /// `bcube{j}` links host `j` of every rack.
    Switches,
    /// The Superways authors' ns-3 code: host `i` (numbered leaf-major) links to leaf
    /// `i mod spines`, so a host whose leaf that is has two parallel links to it.
    LeafIModSpines,
}

/// Leaf-spine plus a second link per host at the host rate, as `level` says. Hosts do not
/// relay (routing never transits a host), so a BCube level only adds paths between
/// same-index hosts.
pub fn bcube(p: &LeafSpineParams, level: BcubeLevel) -> Topology {
    let mut t = leaf_spine(p);
    let hosts = p.leaves * p.hosts_per_leaf;
    match level {
        BcubeLevel::Switches => {
            let level: Vec<NodeId> = (0..p.hosts_per_leaf).map(|j| t.add_node(NodeKind::Switch, format!("bcube{j}"))).collect();
            for n in 0..hosts {
                let h = t.hosts[n as usize];
                connect(&mut t, h, level[(n % p.hosts_per_leaf) as usize], p.host_link);
            }
        }
        BcubeLevel::LeafIModSpines => {
            let leaf = |r: u32| NodeId::from((hosts + r) as usize);
            for n in 0..hosts {
                let h = t.hosts[n as usize];
                connect(&mut t, h, leaf(n % p.spines), p.host_link);
            }
        }
    }
    t
}
