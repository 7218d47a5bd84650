//! The switches' forwarding tables in the form the hot path wants.
//!
//! [`Routes`] answers for every node; packets only need switches (a host always sends on its
//! NIC). Each switch keeps a row with one cell per destination *class*, not per host: a
//! host hanging off one switch is reached through that switch, so every other switch
//! forwards to it as to its siblings, and the attachment switch itself delivers on the
//! host's own port. A cell holds the answer itself (the port, or where the ECMP group's
//! ports start and how many there are), so a lookup is one read of the row and at most
//! one of the group's ports: a chain of dependent loads is what a packet-hop waits on.
//! A k = 16 fat-tree's rows take 160 KB instead of 5.5 MB as `Routes` entries. Choices
//! equal `Routes::select`.

use super::table::{mix, Routes};
use crate::ids::{HostId, NodeId, PortId};
use crate::topology::{NodeKind, Topology};

const NO_NODE: NodeId = NodeId(u32::MAX);
/// A cell is `len << LEN_SHIFT | x`, where `x` is where a list of ports starts in `ports`:
/// an ECMP group (`len` > 1, the flow's hash picks one), one next hop (`len` 1), or a
/// class's hosts at the switch they hang off (`len` 0, the destination's place in its
/// class picks its port). One shape for all three, so a lookup takes no branch that
/// depends on the packet: at two switches out of three in a fat-tree it would mispredict.
const LEN_SHIFT: u32 = 24;
const X_MASK: u32 = (1 << LEN_SHIFT) - 1;
/// No route (a broken invariant if a packet ever needs it; `Routes::select` panics too).
const NO_ROUTE: u32 = u32::MAX;
/// The cell of every host's row: `ports[0]`, port 0 (a host sends on its NIC; the run loop
/// asks anyway, to keep the question of whether a node is a host off its path).
const AT_HOST: u32 = 1 << LEN_SHIFT;

/// A destination host's column, and its place among its class's hosts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Dest {
    class: u32,
    local: u32,
}

pub struct Fib {
    n_classes: usize,
    /// Per destination host.
    dest: Vec<Dest>,
    /// Per node: where its row starts in `rows` (`row * n_classes`); hosts share the last row.
    row_start: Vec<u32>,
    /// `rows[row * n_classes + class]`: a cell (see `LEN_SHIFT`).
    rows: Vec<u32>,
    /// The port lists cells point into, one after another (each switch's stored once).
    ports: Vec<PortId>,
}

impl Fib {
    /// `None` when the tables cannot be this compact (a list of more than 255 ports, or
    /// more than 2^24 of them): the caller then falls back to `Routes`.
    pub fn new(topo: &Topology, routes: &Routes) -> Option<Fib> {
        let switches: Vec<NodeId> =
            (0..topo.nodes.len()).map(NodeId::from).filter(|&n| topo.nodes[n.idx()].kind == NodeKind::Switch).collect();
        // Destination columns: the hosts, then static routes (each a column of its own).
        let (n_hosts, n_rows) = (routes.n_dests(), switches.len());
        let mut fib = Fib { n_classes: 0, dest: Vec::new(), row_start: Vec::new(), rows: Vec::new(), ports: vec![PortId(0)] };
        let mut row_of = vec![u32::MAX; topo.nodes.len()];
        // Per switch, per host: the cell (each switch's distinct lists stored once).
        let mut cells = vec![0u32; n_rows * n_hosts];
        let mut local: Vec<(&[PortId], u32)> = Vec::new();
        for (row, &n) in switches.iter().enumerate() {
            row_of[n.idx()] = row as u32;
            local.clear();
            for h in 0..n_hosts {
                let hops = routes.next_hops(n, HostId::from(h));
                let cell = match local.iter().find(|(g, _)| *g == hops) {
                    Some(&(_, cell)) => cell,
                    None => {
                        let cell = fib.cell(hops, hops.len())?;
                        local.push((hops, cell));
                        cell
                    }
                };
                cells[row * n_hosts + h] = cell;
            }
        }
        let (classes, members) = fib.classify(topo, routes, &cells, &row_of);
        let n = classes.len();
        fib.n_classes = n;
        fib.rows = vec![AT_HOST; (n_rows + 1) * n];
        for (c, &(h, attach)) in classes.iter().enumerate() {
            for row in 0..n_rows {
                fib.rows[row * n + c] = cells[row * n_hosts + h];
            }
            if attach != NO_NODE {
                fib.rows[row_of[attach.idx()] as usize * n + c] = fib.cell(&members[c], 0)?;
            }
        }
        let host_row = u32::try_from(n_rows * n).ok()?;
        fib.row_start = row_of.iter().map(|&row| if row == u32::MAX { Some(host_row) } else { u32::try_from(row as usize * n).ok() }).collect::<Option<_>>()?;
        Some(fib)
    }

    /// The cell for a list of ports (stored at the end of `ports`) with this `len`.
    fn cell(&mut self, hops: &[PortId], len: usize) -> Option<u32> {
        if hops.is_empty() {
            return Some(NO_ROUTE);
        }
        let len = u32::try_from(len).ok().filter(|&l| l < 256)?;
        let x = u32::try_from(self.ports.len()).ok().filter(|&x| x + hops.len() as u32 <= X_MASK)?;
        self.ports.extend_from_slice(hops);
        Some(len << LEN_SHIFT | x)
    }

    /// Fills `dest` and returns each class's representative host and attachment switch, and
    /// the ports that switch delivers to the class's hosts on, in their `local` order. A
    /// host joins the class of the first host on its attachment switch when every other
    /// switch routes to both alike; otherwise (or when it is not attached by one link to
    /// one switch) it keeps a column of its own, with no attachment.
    #[allow(clippy::type_complexity)]
    fn classify(&mut self, topo: &Topology, routes: &Routes, cells: &[u32], row_of: &[u32]) -> (Vec<(usize, NodeId)>, Vec<Vec<PortId>>) {
        let n_hosts = routes.n_dests();
        let n_rows = cells.len() / n_hosts.max(1);
        let mut classes: Vec<(usize, NodeId)> = Vec::new();
        let mut members: Vec<Vec<PortId>> = Vec::new();
        // Per attachment switch: the class its first host opened.
        let mut first_on: Vec<Option<u32>> = vec![None; topo.nodes.len()];
        for (h, (attach, port)) in attachments(topo, routes).into_iter().enumerate() {
            let alike = |r: usize| (0..n_rows).all(|row| row == row_of[attach.idx()] as usize || cells[row * n_hosts + h] == cells[row * n_hosts + r]);
            let joined = match first_on.get(attach.idx()).copied().flatten() {
                Some(c) if alike(classes[c as usize].0) => Some(c),
                _ => None,
            };
            let class = joined.unwrap_or_else(|| {
                let own = attach != NO_NODE && first_on[attach.idx()].is_none();
                classes.push((h, if own { attach } else { NO_NODE }));
                members.push(Vec::new());
                let c = classes.len() as u32 - 1;
                if own {
                    first_on[attach.idx()] = Some(c);
                }
                c
            });
            let m = &mut members[class as usize];
            self.dest.push(Dest { class, local: m.len() as u32 });
            m.push(port);
        }
        (classes, members)
    }

    /// The egress port at switch `node` for a packet to `dst` with this flow entropy (at a
    /// host: port 0, which nothing uses).
    #[inline(always)]
    pub fn select(&self, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        let start = *at(&self.row_start, node.idx()) as usize;
        let d = *at(&self.dest, dst.idx());
        let cell = *at(&self.rows, start + d.class as usize);
        if cell == NO_ROUTE {
            no_route(node, dst);
        }
        let (len, x) = (cell >> LEN_SHIFT, cell & X_MASK);
        // Multiply-shift maps the hash onto 0..len without a division (as `Routes`); a
        // single next hop gets 0.
        let hashed = ((mix(entropy, node) as u64 * len as u64) >> 32) as u32;
        let i = std::hint::select_unpredictable(len == 0, d.local, hashed);
        *at(&self.ports, (x + i) as usize)
    }
}

#[cold]
#[inline(never)]
fn no_route(node: NodeId, dst: HostId) -> ! {
    panic!("no route from node {} to host {}", node.0, dst.0)
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

/// Per destination: the switch a host hangs off and the port that switch delivers on, when
/// the host has one link, to a switch whose only route to it is that link; else `NO_NODE`
/// (always for a static route's column).
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
    (0..routes.n_dests())
        .map(|h| {
            if h >= topo.hosts.len() {
                return none;
            }
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
        // Each switch stores its distinct port lists once: an edge its group up (2 ports),
        // a port per host (found before the hosts were classed, then unused) and its
        // class's list of the two; an aggregation its group up and one edge each down; a
        // core one port per pod. Plus the hosts' port 0.
        assert_eq!(fib.ports.len(), 1 + 8 * (2 + 1 + 1 + 2) + 8 * (2 + 1 + 1) + 4 * 4);
        // Hosts have a row too (the run loop asks without checking); nothing uses its port.
        assert_eq!(fib.select(topo.hosts[0], HostId(5), 7), PortId(0));
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
        let classes: Vec<u32> = fib.dest.iter().map(|d| d.class).collect();
        assert_eq!(classes, [0, 1, 1, 2]);
        assert_agrees(&topo, &routes, &fib);
    }
}
