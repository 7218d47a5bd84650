//! The streamlined proxy's relay (Zhou et al., HotNets '25): a connection routed through a
//! proxy host is not terminated there. A data packet trimmed before the proxy becomes a
//! NACK to its sender and goes no further (so the sender hears of the loss within
//! microseconds, not one inter-DC RTT); any other packet is forwarded unchanged, data to
//! the receiver and ACKs / NACKs back to the sender. Processing takes no time.
//!
//! The naive proxy needs no code here: it is two ordinary connections per flow, the first
//! (sender -> proxy_R) feeding the second (proxy_S -> receiver) through `Flow::feeds`.

use super::world::World;
use crate::ids::HostId;
use crate::packet::{flags, Packet, PacketKind, PacketRef};

impl World {
    #[inline]
    pub(super) fn relay(&mut self, proxy: HostId, r: PacketRef, pkt: &Packet) {
        let flow = &self.flows[pkt.flow.idx()];
        let (src, dst) = (flow.src, flow.dst);
        if pkt.kind == PacketKind::Data && pkt.has(flags::TRIMMED) {
            self.proxy_nacks += 1;
            self.send_nack(r, pkt, src, proxy);
            return;
        }
        let to = if pkt.kind == PacketKind::Data { dst } else { src };
        self.pool.get_mut(r).dst = to;
        self.injected_bytes += pkt.wire_bytes as u64;
        let nic = self.host_nic[proxy.idx()];
        self.enqueue(nic, r);
    }
}
