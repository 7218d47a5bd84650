//! The switches' forwarding tables in the form the hot path wants.
//!
//! [`Routes`] answers for every node; packets only need switches (a host always sends on its
//! NIC). Here each switch keeps a row of 16-bit local group ids and a small table of its own
//! next-hop groups. A row has one column per destination *class*, not per host: a host
//! hanging off one switch is reached through that switch, so every other switch forwards to
//! it as to its siblings, and the attachment switch itself delivers on the host's own port.
//! A k = 16 fat-tree's rows take 80 KB instead of 0.6 MB (5.5 MB as `Routes` entries), so
//! the lookup stays in cache. Choices equal `Routes::select`.

use super::table::{mix, Routes};
use crate::ids::{HostId, NodeId, PortId};
use crate::topology::{NodeKind, Topology};

#[derive(Copy, Clone, Debug)]
struct Group {
    start: u32,
    len: u32,
}

const NO_NODE: NodeId = NodeId(u32::MAX);
/// The `len` of the group a switch uses for the hosts it delivers to: the port is the
/// destination's own (`host_port`).
const DELIVER: u32 = u32::MAX;
/// Every switch's `DELIVER` group is its first.
const DELIVER_ID: u16 = 0;

pub struct Fib {
    n_classes: usize,
    /// Per destination host: its column.
    host_class: Vec<u32>,
    /// Per destination host: the port its attachment switch delivers on (`DELIVER` groups).
    host_port: Vec<PortId>,
    /// Per node: its switch row, or `u32::MAX` for a host.
    row_of: Vec<u32>,
    /// `rows[row * n_classes + class]`: a group id local to the switch.
    rows: Vec<u16>,
    /// Per switch row: where its groups start in `groups`.
    group_base: Vec<u32>,
    groups: Vec<Group>,
    ports: Vec<PortId>,
}

impl Fib {
    /// `None` when a switch has more than 65,534 distinct next-hop sets (then the caller
    /// falls back to `Routes`).
    pub fn new(topo: &Topology, routes: &Routes) -> Option<Fib> {
        let switches: Vec<NodeId> =
            (0..topo.nodes.len()).map(NodeId::from).filter(|&n| topo.nodes[n.idx()].kind == NodeKind::Switch).collect();
        let (n_hosts, n_rows) = (topo.hosts.len(), switches.len());
        let mut fib = Fib { n_classes: 0, host_class: Vec::new(), host_port: Vec::new(), row_of: vec![u32::MAX; topo.nodes.len()], rows: Vec::new(), group_base: Vec::new(), groups: Vec::new(), ports: Vec::new() };
        // Per switch, per host: a group id local to the switch.
        let mut ids = vec![0u16; n_rows * n_hosts];
        let mut local: Vec<Vec<PortId>> = Vec::new();
        for (row, &n) in switches.iter().enumerate() {
            fib.row_of[n.idx()] = row as u32;
            fib.group_base.push(fib.groups.len() as u32);
            // Local id 0: delivery to the destination's own port (used where it attaches).
            fib.groups.push(Group { start: 0, len: DELIVER });
            local.clear();
            for h in 0..n_hosts {
                let hops = routes.next_hops(n, HostId::from(h));
                let id = 1 + match local.iter().position(|g| g.as_slice() == hops) {
                    Some(i) => i,
                    None => {
                        local.push(hops.to_vec());
                        fib.groups.push(Group { start: fib.ports.len() as u32, len: hops.len() as u32 });
                        fib.ports.extend_from_slice(hops);
                        local.len() - 1
                    }
                };
                ids[row * n_hosts + h] = u16::try_from(id).ok()?;
            }
        }
        let classes = fib.classify(topo, routes, &ids, n_rows);
        let n = classes.len();
        fib.n_classes = n;
        fib.rows = vec![0; n_rows * n];
        for (c, &(h, attach)) in classes.iter().enumerate() {
            for row in 0..n_rows {
                fib.rows[row * n + c] = ids[row * n_hosts + h];
            }
            if attach != NO_NODE {
                fib.rows[fib.row_of[attach.idx()] as usize * n + c] = DELIVER_ID;
            }
        }
        Some(fib)
    }

    /// Fills `host_class` and `host_port` and returns each class's representative host and
    /// attachment switch. A host joins the class of the first host on its attachment switch
    /// when every other switch routes to both alike; otherwise (or when it is not attached
    /// by one link to one switch) it keeps a column of its own, with no attachment.
    fn classify(&mut self, topo: &Topology, routes: &Routes, ids: &[u16], n_rows: usize) -> Vec<(usize, NodeId)> {
        let n_hosts = topo.hosts.len();
        let mut classes: Vec<(usize, NodeId)> = Vec::new();
        // Per attachment switch: the class its first host opened.
        let mut first_on: Vec<Option<u32>> = vec![None; topo.nodes.len()];
        for (h, (attach, port)) in attachments(topo, routes).into_iter().enumerate() {
            let alike = |r: usize| (0..n_rows).all(|row| row == self.row_of[attach.idx()] as usize || ids[row * n_hosts + h] == ids[row * n_hosts + r]);
            let joined = match first_on.get(attach.idx()).copied().flatten() {
                Some(c) if alike(classes[c as usize].0) => Some(c),
                _ => None,
            };
            let class = joined.unwrap_or_else(|| {
                let own = attach != NO_NODE && first_on[attach.idx()].is_none();
                classes.push((h, if own { attach } else { NO_NODE }));
                let c = classes.len() as u32 - 1;
                if own {
                    first_on[attach.idx()] = Some(c);
                }
                c
            });
            self.host_class.push(class);
            self.host_port.push(port);
        }
        classes
    }

    /// Where `select` will read for `(node, dst)` (for prefetching; hosts give a harmless
    /// out-of-range pointer that is never dereferenced).
    #[inline(always)]
    pub fn entry_ptr(&self, node: NodeId, dst: HostId) -> *const u8 {
        let row = self.row_of[node.idx()] as usize;
        let class = *at(&self.host_class, dst.idx()) as usize;
        self.rows.as_ptr().wrapping_add(row.wrapping_mul(self.n_classes).wrapping_add(class)) as *const u8
    }

    /// The egress port at switch `node` for a packet to `dst` with this flow entropy.
    #[inline(always)]
    pub fn select(&self, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        let row = *at(&self.row_of, node.idx()) as usize;
        debug_assert!(row != u32::MAX as usize, "a host does not forward");
        let id = *at(&self.rows, row * self.n_classes + *at(&self.host_class, dst.idx()) as usize) as usize;
        let g = *at(&self.groups, *at(&self.group_base, row) as usize + id);
        if g.len == 1 {
            return *at(&self.ports, g.start as usize);
        }
        if g.len == DELIVER {
            return *at(&self.host_port, dst.idx());
        }
        debug_assert!(g.len > 0, "no route");
        let i = ((mix(entropy, node) as u64 * g.len as u64) >> 32) as u32;
        *at(&self.ports, (g.start + i) as usize)
    }
}

/// Unchecked indexing for `select`: every index there is built with the tables (nodes and
/// hosts of this topology, rows and groups of its switches), so it is in range (checked in
/// debug builds). Bounds checks were a tenth of a packet-hop's instructions.
#[inline(always)]
fn at<T>(v: &[T], i: usize) -> &T {
    debug_assert!(i < v.len());
    // SAFETY: see above.
    unsafe { v.get_unchecked(i) }
}

/// Per host: the switch it hangs off and the port that switch delivers on, when the host
/// has one link, to a switch whose only route to it is that link; else `NO_NODE`.
fn attachments(topo: &Topology, routes: &Routes) -> Vec<(NodeId, PortId)> {
    // Per node: how many links leave it, and where the first one goes.
    let mut out: Vec<(u32, NodeId)> = vec![(0, NO_NODE); topo.nodes.len()];
    for (_, p) in topo.ports() {
        let o = &mut out[p.from.idx()];
        o.0 += 1;
        if o.0 == 1 {
            o.1 = p.to;
        }
    }
    let none = (NO_NODE, PortId(u32::MAX));
    (0..topo.hosts.len())
        .map(|h| {
            let node = topo.hosts[h];
            let (links, attach) = out[node.idx()];
            if links != 1 || topo.nodes[attach.idx()].kind != NodeKind::Switch {
                return none;
            }
            match routes.next_hops(attach, HostId::from(h)) {
                [port] if topo.port(*port).to == node => (attach, *port),
                _ => none,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{fat_tree, FatTreeParams, LinkParams, Topology};

    #[test]
    fn agrees_with_routes_everywhere() {
        let l = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };
        let topo = fat_tree(&FatTreeParams { k: 4, host_link: l, fabric_link: l });
        let routes = Routes::shortest_paths(&topo);
        let fib = Fib::new(&topo, &routes).unwrap();
        // One column per edge switch (k^2/2 of them), not per host.
        assert_eq!(fib.n_classes, 8);
        assert_agrees(&topo, &routes, &fib);
    }

    fn assert_agrees(topo: &Topology, routes: &Routes, fib: &Fib) {
        for (n, node) in topo.nodes.iter().enumerate() {
            if node.kind != NodeKind::Switch {
                continue;
            }
            for h in 0..topo.hosts.len() {
                for e in [0u32, 1, 77, 0xdead_beef, u32::MAX] {
                    let (n, h) = (NodeId::from(n), HostId::from(h));
                    if routes.next_hops(n, h).is_empty() {
                        continue;
                    }
                    assert_eq!(fib.select(n, h, e), routes.select(n, h, e));
                }
            }
        }
    }

    /// A dual-homed host keeps a column of its own; its single-homed siblings share one.
    #[test]
    fn a_dual_homed_host_keeps_its_own_column() {
        let mut topo = Topology::default();
        let s: Vec<NodeId> = (0..2).map(|i| topo.add_node(NodeKind::Switch, format!("s{i}"))).collect();
        let h: Vec<NodeId> = (0..4).map(|i| topo.add_node(NodeKind::Host, format!("h{i}"))).collect();
        topo.add_link(s[0], s[1], 10_000_000_000, 1_000_000);
        for (host, sw) in [(0, 0), (1, 0), (2, 0), (3, 1)] {
            topo.add_link(h[host], s[sw], 10_000_000_000, 1_000_000);
        }
        topo.add_link(h[0], s[1], 10_000_000_000, 1_000_000);
        let routes = Routes::shortest_paths(&topo);
        let fib = Fib::new(&topo, &routes).unwrap();
        assert_eq!(fib.host_class, [0, 1, 1, 2]);
        assert_agrees(&topo, &routes, &fib);
    }
}
