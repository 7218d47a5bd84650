//! Several datacenters joined by long-haul links.
//!
//! Each datacenter is a leaf-spine or a fat-tree from the ordinary builders; their top
//! tier (spines or cores) meets the outside world through one of two interconnects:
//!
//! - `Backbone` (HotNets '25): `routers` backbone routers; router `r` links top switch
//!   `⌊r·T/routers⌋` of every datacenter (T top switches per DC) over a long-haul link.
//!   Ports leaving a router are `inter`.
//! - `Border` (Uno SC '25): one border switch per datacenter; every top switch has
//!   `border_links` parallel links to it, and every pair of borders `wan_links` parallel
//!   long-haul links. Ports on links touching a border are `inter`.
//!
//! Hosts come first, datacenter by datacenter (`h0..` numbered across datacenters), then
//! each datacenter's switches (`dc{d}_` + the builder's name), then the interconnect's.

use super::{fat_tree, leaf_spine, FatTreeParams, LeafSpineParams, LinkParams, NodeKind, Topology, NO_DC};
use crate::ids::{HostId, NodeId};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DcFabric {
    LeafSpine { leaves: u32, spines: u32, hosts_per_leaf: u32 },
    FatTree { k: u32 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interconnect {
    Backbone { routers: u32 },
    Border { border_links: u32, wan_links: u32, border_link: LinkParams },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiDcParams {
    pub dcs: u32,
    pub fabric: DcFabric,
    pub host_link: LinkParams,
    pub fabric_link: LinkParams,
    /// Top switch to backbone router, or border to border.
    pub long_haul_link: LinkParams,
    pub interconnect: Interconnect,
}

/// One datacenter as its builder makes it, and the names of its top-tier switches.
fn datacenter(p: &MultiDcParams) -> (Topology, &'static str) {
    match p.fabric {
        DcFabric::LeafSpine { leaves, spines, hosts_per_leaf } => {
            let lp = LeafSpineParams { leaves, spines, hosts_per_leaf, host_link: p.host_link, fabric_link: p.fabric_link };
            (leaf_spine(&lp), "spine")
        }
        DcFabric::FatTree { k } => (fat_tree(&FatTreeParams { k, host_link: p.host_link, fabric_link: p.fabric_link }), "core"),
    }
}

pub fn multi_dc(p: &MultiDcParams) -> Topology {
    let (dc, top_prefix) = datacenter(p);
    let n_dc = p.dcs as usize;
    let mut t = Topology::default();
    // Node ids in the joined topology: all hosts first, then each datacenter's switches.
    let mut map: Vec<Vec<NodeId>> = vec![vec![NodeId(0); dc.nodes.len()]; n_dc];
    for (d, m) in map.iter_mut().enumerate() {
        for &h in &dc.hosts {
            m[h.idx()] = t.add_node(NodeKind::Host, format!("h{}", t.hosts.len()));
            t.nodes[m[h.idx()].idx()].dc = d as u32;
        }
    }
    let mut tops: Vec<Vec<NodeId>> = vec![Vec::new(); n_dc];
    for (d, m) in map.iter_mut().enumerate() {
        for (i, node) in dc.nodes.iter().enumerate() {
            if node.kind == NodeKind::Switch {
                m[i] = t.add_node(NodeKind::Switch, format!("dc{d}_{}", node.name));
                t.nodes[m[i].idx()].dc = d as u32;
                if node.name.starts_with(top_prefix) {
                    tops[d].push(m[i]);
                }
            }
        }
    }
    for m in &map {
        for l in &dc.links {
            t.add_link(m[l.a.idx()], m[l.b.idx()], l.rate_bps, l.delay_ps);
        }
    }
    let mut inter = vec![false; t.port_count()];
    let mut add = |t: &mut Topology, a: NodeId, b: NodeId, l: LinkParams, a_out: bool, b_out: bool| {
        let port = t.add_link(a, b, l.rate_bps, l.delay_ps);
        inter.extend([a_out, b_out]);
        port
    };
    match p.interconnect {
        Interconnect::Backbone { routers } => {
            let per_dc = tops[0].len();
            for r in 0..routers as usize {
                let br = t.add_node(NodeKind::Switch, format!("br{r}"));
                t.nodes[br.idx()].dc = NO_DC;
                for top in &tops {
                    add(&mut t, top[r * per_dc / routers as usize], br, p.long_haul_link, false, true);
                }
            }
        }
        Interconnect::Border { border_links, wan_links, border_link } => {
            let borders: Vec<NodeId> = (0..n_dc)
                .map(|d| {
                    let b = t.add_node(NodeKind::Switch, format!("dc{d}_border"));
                    t.nodes[b.idx()].dc = d as u32;
                    b
                })
                .collect();
            for (d, top) in tops.iter().enumerate() {
                for &c in top {
                    for _ in 0..border_links {
                        add(&mut t, c, borders[d], border_link, true, true);
                    }
                }
            }
            for a in 0..n_dc {
                for b in a + 1..n_dc {
                    for _ in 0..wan_links {
                        add(&mut t, borders[a], borders[b], p.long_haul_link, true, true);
                    }
                }
            }
        }
    }
    t.inter_ports = inter;
    let all: Vec<HostId> = (0..t.hosts.len()).map(HostId::from).collect();
    let per = dc.hosts.len();
    let mut groups = vec![("all".to_string(), all.clone())];
    for d in 0..n_dc {
        let base = d * per;
        groups.push((format!("dc{d}"), all[base..base + per].to_vec()));
        for (name, members) in dc.groups.iter().filter(|(n, _)| n != "all") {
            groups.push((format!("dc{d}_{name}"), members.iter().map(|h| HostId::from(base + h.idx())).collect()));
        }
    }
    t.groups = groups;
    t
}
