//! Topology graph and builders (dumbbell, leaf-spine and its Subways and BCube variants,
//! fat-tree, Jellyfish, multi-datacenter networks joining several of them, and Superways
//! shortcuts on top of a base).
//!
//! Every builder numbers hosts before switches, so in a built topology host `h` is also node
//! `h` (`topo.hosts[h] == NodeId(h)`); code should still go through `topo.hosts` rather than
//! rely on it. Each host link is added with the host as its `a` end, so a host's uplink is
//! the link's even port and the switch's port down to the host is the odd one.
pub mod dumbbell;
pub mod fat_tree;
pub mod graph;
pub mod jellyfish;
pub mod leaf_spine;
pub mod multi_dc;
pub mod pods;
pub mod superways;

pub use dumbbell::{dumbbell, DumbbellParams};
pub use fat_tree::{fat_tree, FatTreeParams};
pub use graph::{Link, Node, NodeKind, Port, Topology, NO_DC};
pub use jellyfish::{jellyfish, JellyfishParams};
pub use leaf_spine::{bcube, leaf_spine, subways, BcubeLevel, LeafSpineParams};
pub use superways::{add_superways, ShortcutServer, ShortcutTarget, SuperwaysParams};
pub use multi_dc::{multi_dc, DcFabric, Interconnect, MultiDcParams};
pub use pods::{pod_count, pod_cut};

use crate::ids::{HostId, NodeId, PortId};
use crate::units::Time;

/// Rate and propagation delay of a full-duplex link (both directions alike).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkParams {
    pub rate_bps: u64,
    pub delay_ps: Time,
}

/// Which builder to run, with its parameters (the scenario layer validates them first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TopologyParams {
    Dumbbell(DumbbellParams),
    LeafSpine(LeafSpineParams),
    FatTree(FatTreeParams),
    MultiDc(MultiDcParams),
    Subways(LeafSpineParams),
    Bcube(LeafSpineParams, BcubeLevel),
    Jellyfish(JellyfishParams),
    /// A base topology with Superways shortcuts added.
    Superways(Box<TopologyParams>, SuperwaysParams),
}

impl TopologyParams {
    /// Builds the network; `seed` (the run's) draws a random one (Jellyfish). Fails only
    /// when no random wiring came out connected.
    pub fn build(&self, seed: u64) -> Result<Topology, String> {
        Ok(match self {
            TopologyParams::Dumbbell(p) => dumbbell(p),
            TopologyParams::LeafSpine(p) => leaf_spine(p),
            TopologyParams::FatTree(p) => fat_tree(p),
            TopologyParams::MultiDc(p) => multi_dc(p),
            TopologyParams::Subways(p) => subways(p),
            TopologyParams::Bcube(p, level) => bcube(p, *level),
            TopologyParams::Jellyfish(p) => jellyfish(p, seed).ok_or("no connected random wiring in 64 draws (too few ports?)")?,
            TopologyParams::Superways(base, p) => {
                let mut t = base.build(seed)?;
                add_superways(&mut t, p);
                t
            }
        })
    }
}

/// Adds `count` hosts named `{prefix}0..` and returns their node ids.
fn add_hosts(t: &mut Topology, prefix: &str, count: u32) -> Vec<NodeId> {
    (0..count).map(|i| t.add_node(NodeKind::Host, format!("{prefix}{i}"))).collect()
}

/// Adds a link `a`–`b` with `l`; returns the `a -> b` port.
fn connect(t: &mut Topology, a: NodeId, b: NodeId, l: LinkParams) -> PortId {
    t.add_link(a, b, l.rate_bps, l.delay_ps)
}

/// The host ids of `nodes` (which must all be hosts), for a group.
fn host_ids(t: &Topology, nodes: &[NodeId]) -> Vec<HostId> {
    nodes.iter().map(|n| t.nodes[n.idx()].host.expect("group member is a host")).collect()
}

/// The rate, one direction, of every link from a host-facing switch to another switch: the
/// capacity traffic between racks can use (a leaf-spine's leaf uplinks, a fat-tree's
/// edge-to-aggregation links). A link between two host-facing switches counts once.
pub fn uplink_capacity_bps(t: &Topology) -> u64 {
    let is_switch = |n: NodeId| t.nodes[n.idx()].kind == NodeKind::Switch;
    let mut faces_hosts = vec![false; t.nodes.len()];
    for l in &t.links {
        if !is_switch(l.a) || !is_switch(l.b) {
            faces_hosts[l.a.idx()] = true;
            faces_hosts[l.b.idx()] = true;
        }
    }
    t.links
        .iter()
        .filter(|l| is_switch(l.a) && is_switch(l.b) && (faces_hosts[l.a.idx()] || faces_hosts[l.b.idx()]))
        .map(|l| l.rate_bps)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const G10: LinkParams = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };

    #[test]
    fn uplink_capacity_of_a_leaf_spine_and_a_fat_tree() {
        // ICON's network: 20 leaves x 10 spines at 10 Gb/s, 2:1 below 400 hosts.
        let icon = leaf_spine(&LeafSpineParams { leaves: 20, spines: 10, hosts_per_leaf: 20, host_link: G10, fabric_link: G10 });
        assert_eq!(uplink_capacity_bps(&icon), 2_000_000_000_000);
        // k = 4: 8 edge switches with 2 links up each; the aggregation-core links do not count.
        let fast = LinkParams { rate_bps: 40_000_000_000, ..G10 };
        let ft = fat_tree(&FatTreeParams { k: 4, host_link: G10, fabric_link: fast });
        assert_eq!(uplink_capacity_bps(&ft), 16 * 40_000_000_000);
        // A dumbbell's core link joins two host-facing switches: counted once.
        let db = dumbbell(&DumbbellParams { senders: 2, receivers: 1, sender_link: G10, receiver_link: G10, core_link: Some(fast) });
        assert_eq!(uplink_capacity_bps(&db), 40_000_000_000);
    }
}
