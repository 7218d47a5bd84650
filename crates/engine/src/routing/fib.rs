//! The switches' forwarding tables in the form the hot path wants.
//!
//! [`Routes`] answers for every node; packets only need switches (a host always sends on its
//! NIC). Here each switch keeps a row of 16-bit local group ids, one per destination host,
//! and a small table of its own next-hop groups. A k = 16 fat-tree's rows take 0.6 MB
//! instead of 5.5 MB, so the lookup usually hits in cache. Choices equal `Routes::select`.

use super::table::{mix, Routes};
use crate::ids::{HostId, NodeId, PortId};
use crate::topology::{NodeKind, Topology};

#[derive(Copy, Clone, Debug)]
struct Group {
    start: u32,
    len: u32,
}

pub struct Fib {
    n_hosts: usize,
    /// Per node: its switch row, or `u32::MAX` for a host.
    row_of: Vec<u32>,
    /// `rows[row * n_hosts + dst]`: a group id local to the switch.
    rows: Vec<u16>,
    /// Per switch row: where its groups start in `groups`.
    group_base: Vec<u32>,
    groups: Vec<Group>,
    ports: Vec<PortId>,
}

impl Fib {
    /// `None` when a switch has more than 65,535 distinct next-hop sets (then the caller
    /// falls back to `Routes`).
    pub fn new(topo: &Topology, routes: &Routes) -> Option<Fib> {
        let n_hosts = topo.hosts.len();
        let mut fib = Fib { n_hosts, row_of: vec![u32::MAX; topo.nodes.len()], rows: Vec::new(), group_base: Vec::new(), groups: Vec::new(), ports: Vec::new() };
        let mut local: Vec<Vec<PortId>> = Vec::new();
        for (n, node) in topo.nodes.iter().enumerate() {
            if node.kind != NodeKind::Switch {
                continue;
            }
            fib.row_of[n] = fib.group_base.len() as u32;
            fib.group_base.push(fib.groups.len() as u32);
            local.clear();
            for h in 0..n_hosts {
                let hops = routes.next_hops(NodeId::from(n), HostId::from(h));
                let id = match local.iter().position(|g| g.as_slice() == hops) {
                    Some(i) => i,
                    None => {
                        local.push(hops.to_vec());
                        fib.groups.push(Group { start: fib.ports.len() as u32, len: hops.len() as u32 });
                        fib.ports.extend_from_slice(hops);
                        local.len() - 1
                    }
                };
                fib.rows.push(u16::try_from(id).ok()?);
            }
        }
        Some(fib)
    }

    /// Where `select` will read for `(node, dst)` (for prefetching; hosts give a harmless
    /// out-of-range pointer that is never dereferenced).
    #[inline(always)]
    pub fn entry_ptr(&self, node: NodeId, dst: HostId) -> *const u8 {
        let row = self.row_of[node.idx()] as usize;
        self.rows.as_ptr().wrapping_add(row.wrapping_mul(self.n_hosts).wrapping_add(dst.idx())) as *const u8
    }

    /// The egress port at switch `node` for a packet to `dst` with this flow entropy.
    #[inline(always)]
    pub fn select(&self, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        let row = self.row_of[node.idx()] as usize;
        let id = self.rows[row * self.n_hosts + dst.idx()] as usize;
        let g = self.groups[self.group_base[row] as usize + id];
        if g.len == 1 {
            return self.ports[g.start as usize];
        }
        debug_assert!(g.len > 0, "no route");
        let i = ((mix(entropy, node) as u64 * g.len as u64) >> 32) as u32;
        self.ports[(g.start + i) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{fat_tree, FatTreeParams, LinkParams};

    #[test]
    fn agrees_with_routes_everywhere() {
        let l = LinkParams { rate_bps: 10_000_000_000, delay_ps: 1_000_000 };
        let topo = fat_tree(&FatTreeParams { k: 4, host_link: l, fabric_link: l });
        let routes = Routes::shortest_paths(&topo);
        let fib = Fib::new(&topo, &routes).unwrap();
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
}
