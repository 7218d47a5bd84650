//! Where a packet goes next: the NIC a host sends on, the destination column it carries,
//! and the hop each switch will take, chosen as the packet starts towards it.

use super::world::{World, NOT_A_HOST, REMOTE};
use crate::ids::{HostId, NodeId, PortId};
use crate::packet::PacketRef;

/// The hop of a packet that arrives at a host: `HOST_HOP | host`, in its arrival event
/// and in `Packet::next_hop` where a switch would find its egress port. Host numbers, like
/// ports, are below 2^24 (every host has a port), and `NOT_A_HOST` and `REMOTE` have this
/// bit set, so a node's `node_host` below `HOST_HOP` is a host. The run loop then tells a
/// host's arrival from the event alone (`World::host_of`), without reading the port and
/// the node.
pub(super) const HOST_HOP: u32 = 1 << 31;
const _: () = assert!(NOT_A_HOST & HOST_HOP != 0 && REMOTE & HOST_HOP != 0);

impl World {
    /// The NIC host `src` sends a packet to `dst` (a routing destination: a host or a static
    /// route's column) with this entropy on: the same per-flow ECMP choice every switch
    /// makes, so a flow's first hop and its ideal FCT's path agree.
    #[inline(always)]
    pub(super) fn nic(&self, src: HostId, dst: HostId, entropy: u32) -> PortId {
        if self.multi_homed {
            return self.routes.select(self.topo.hosts[src.idx()], dst, entropy);
        }
        self.host_nic[src.idx()]
    }

    /// The destination column packets from `src` to `dst` carry: `dst`, unless a static
    /// route covers the pair (build time only).
    pub(super) fn route_dst(&self, src: HostId, dst: HostId) -> HostId {
        self.pinned.iter().find(|p| (p.0, p.1) == (src, dst)).map_or(dst, |p| p.2)
    }

    /// Chooses, as a packet starts towards switch `node`, the port that switch will send it
    /// on (routing does not change during a run), so its arrival event names the egress
    /// port and the run loop can prefetch it with the arriving one (`prefetch_ports`).
    /// Towards a host: `HOST_HOP | host`.
    #[inline(always)]
    pub(super) fn route_ahead(&self, node: NodeId, r: PacketRef) -> u32 {
        let pkt = self.pool.get(r);
        debug_assert!(node.idx() < self.node_host.len());
        // SAFETY: a port leads to a node of this world.
        let host = unsafe { *self.node_host.get_unchecked(node.idx()) };
        let port = match &self.fib {
            // Asked at hosts too (a meaningless port), then set aside without a branch:
            // whether the node is a host would be mispredicted at one hop in three.
            Some(fib) => fib.select(node, pkt.dst, pkt.entropy).0,
            None if host != NOT_A_HOST => 0,
            None => self.select_without_fib(node, pkt.dst, pkt.entropy).0,
        };
        std::hint::select_unpredictable(host < HOST_HOP, HOST_HOP | host, port)
    }

    /// The host a hop names (`HOST_HOP`), or `None` for a switch's egress port.
    #[inline(always)]
    pub(super) fn host_of(hop: u32) -> Option<u32> {
        (hop & HOST_HOP != 0).then_some(hop & !HOST_HOP)
    }

    /// `Routes::select` out of the loop: without a `Fib` (never in the benches) a call per
    /// hop is the least of the cost, and inlined, the class lookup changed the loop's code
    /// around it (+0.5% instructions on `fanin bench` (b)).
    #[cold]
    #[inline(never)]
    fn select_without_fib(&self, node: NodeId, dst: HostId, entropy: u32) -> PortId {
        self.routes.select(node, dst, entropy)
    }
}
