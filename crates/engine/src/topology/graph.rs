//! The network as built: nodes, full-duplex links, and the directed ports they make.
//!
//! Link `l` gives two ports: `PortId(2l)` carries `a -> b`, `PortId(2l+1)` carries `b -> a`.
//! A port is the egress queue of its `from` node; hosts have one port per link (their NIC).

use crate::ids::{HostId, NodeId, PortId};
use crate::units::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub kind: NodeKind,
    /// Stable, human-readable name: `h12`, `tor3`, `spine0`, `agg2_1`, ...
    pub name: String,
    /// Dense host number for hosts, `None` for switches.
    pub host: Option<HostId>,
    /// The datacenter the node belongs to (0 in single-datacenter topologies): whether a
    /// flow crosses datacenters picks its congestion control and base RTT class.
    pub dc: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub a: NodeId,
    pub b: NodeId,
    pub rate_bps: u64,
    pub delay_ps: Time,
}

/// One direction of a link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay_ps: Time,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    /// `hosts[h]` is the node of host `h`.
    pub hosts: Vec<NodeId>,
    /// Named host groups a workload can refer to (`senders`, `receivers`, `leaf0`, ...).
    pub groups: Vec<(String, Vec<HostId>)>,
    /// Named ports a recorder can refer to (`bottleneck`, ...).
    pub named_ports: Vec<(String, PortId)>,
    /// Per port: whether it gets the `inter` (long-haul) queue configuration. Empty: none.
    pub inter_ports: Vec<bool>,
    /// Hosts come in consecutive blocks of this many that each switch outside a block
    /// reaches alike (a fat-tree's pods); 0: no such structure. A hint the forwarding
    /// tables check before they fold their rows by it (`routing::Fib`), never trust.
    pub host_blocks: usize,
}

/// The datacenter of a node that belongs to none (a backbone router).
pub const NO_DC: u32 = u32::MAX;

impl Topology {
    pub fn add_node(&mut self, kind: NodeKind, name: impl Into<String>) -> NodeId {
        let id = NodeId::from(self.nodes.len());
        let host = match kind {
            NodeKind::Host => {
                let h = HostId::from(self.hosts.len());
                self.hosts.push(id);
                Some(h)
            }
            NodeKind::Switch => None,
        };
        self.nodes.push(Node { kind, name: name.into(), host, dc: 0 });
        id
    }

    /// Adds a full-duplex link and returns its `a -> b` port (the reverse is `+1`).
    pub fn add_link(&mut self, a: NodeId, b: NodeId, rate_bps: u64, delay_ps: Time) -> PortId {
        self.links.push(Link { a, b, rate_bps, delay_ps });
        PortId::from(2 * (self.links.len() - 1))
    }

    pub fn dc_of(&self, node: NodeId) -> u32 {
        self.nodes[node.idx()].dc
    }

    /// Whether a flow from host `a` to host `b` leaves its datacenter.
    pub fn crosses_dc(&self, a: HostId, b: HostId) -> bool {
        self.dc_of(self.hosts[a.idx()]) != self.dc_of(self.hosts[b.idx()])
    }

    pub fn port_count(&self) -> usize {
        2 * self.links.len()
    }

    pub fn port(&self, p: PortId) -> Port {
        let l = self.links[p.idx() / 2];
        let (from, to) = if p.0 % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
        Port { from, to, rate_bps: l.rate_bps, delay_ps: l.delay_ps }
    }

    pub fn ports(&self) -> impl Iterator<Item = (PortId, Port)> + '_ {
        (0..self.port_count()).map(move |i| (PortId::from(i), self.port(PortId::from(i))))
    }

    pub fn group(&self, name: &str) -> Option<&[HostId]> {
        self.groups.iter().find(|(n, _)| n == name).map(|(_, g)| g.as_slice())
    }

    pub fn named_port(&self, name: &str) -> Option<PortId> {
        self.named_ports.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
    }

    /// Whether port `p` is of the `inter` class (long-haul queue configuration).
    pub fn is_inter(&self, p: PortId) -> bool {
        self.inter_ports.get(p.idx()).copied().unwrap_or(false)
    }

    /// A readable port name: `tor0->h3`.
    pub fn port_name(&self, p: PortId) -> String {
        let port = self.port(p);
        let (from, to) = (&self.nodes[port.from.idx()].name, &self.nodes[port.to.idx()].name);
        // Not `format!`: a 100,000-host run names 200,000 ports, at a tenth of the cost.
        let mut name = String::with_capacity(from.len() + 2 + to.len());
        name.push_str(from);
        name.push_str("->");
        name.push_str(to);
        name
    }
}
