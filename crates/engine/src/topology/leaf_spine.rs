//! Two-tier leaf-spine (folded Clos): every leaf has one link to every spine.

use super::{add_hosts, connect, host_ids, LinkParams, NodeKind, Topology};

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
