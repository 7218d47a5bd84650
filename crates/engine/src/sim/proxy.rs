//! The streamlined proxy's relay (Zhou et al., HotNets '25): a connection routed through a
//! proxy host is not terminated there. A data packet trimmed before the proxy becomes a
//! NACK to its sender and goes no further (so the sender hears of the loss within
//! microseconds, not one inter-DC RTT); any other packet is forwarded unchanged, data to
//! the receiver and ACKs / NACKs back to the sender. Processing takes no time.
//!
//! The naive proxy is two ordinary connections per flow, the first (sender -> proxy_R)
//! feeding the second (proxy_S -> receiver) through `Flow::feeds`; what lives here is how
//! proxy_S's connections share its NIC: in turn, one packet whenever the NIC is free
//! (`crate::proxy::round_robin`).

use super::flow::NEVER;
use super::world::World;
use crate::des::{Event, EventKind};
use crate::ids::{FlowId, HostId};
use crate::packet::{flags, Packet, PacketKind, PacketRef, NIL};
use crate::proxy::round_robin::{Turns, NO_TURN};

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
        self.flows[pkt.flow.idx()].packet_in();
        let nic = self.nic(proxy, to, pkt.entropy);
        self.enqueue(nic, r);
    }
}

impl World {
    /// Puts the connections from `proxy` created since flow `first` (a naive proxy's
    /// onward connections) in one turn order.
    pub(super) fn serve_in_turn(&mut self, proxy: HostId, first: usize) {
        let t = self.proxy_turns.len() as u32;
        let mut turns = Turns::new(self.host_nic[proxy.idx()]);
        for i in first..self.flows.len() {
            if self.flows[i].src == proxy {
                turns.add(FlowId::from(i));
                self.flows[i].turns = t;
            }
        }
        self.proxy_turns.push(turns);
    }

    /// While the proxy's NIC is free, the connection whose turn it is (and that has bytes
    /// and window) puts one packet on it; once the NIC is busy, one event at the end of
    /// its transmission gives the next turn. `spare` (an ACK's slot) is not reused.
    pub(super) fn take_turns(&mut self, t: u32, spare: PacketRef) {
        if spare != NIL {
            self.pool.free(spare);
        }
        let now = self.sched.now();
        let nic = self.proxy_turns[t as usize].nic;
        loop {
            self.catch_up(nic, now);
            let p = &self.ports[nic.idx()];
            // Caught up: a packet still queued means the NIC is busy past `now`.
            if !p.queue.is_empty() || p.busy_until > now {
                let at = p.busy_until;
                let turns = &mut self.proxy_turns[t as usize];
                if turns.wake_at == NO_TURN {
                    turns.wake_at = at;
                    self.sched.at(at, Event::new(EventKind::ProxyTurn, t));
                }
                return;
            }
            let mut turns = std::mem::replace(&mut self.proxy_turns[t as usize], Turns::new(nic));
            let mut sender = usize::MAX;
            let sent = turns.serve(|f| {
                if self.flows[f.idx()].finished() || self.send_segments::<true>(f, NIL) == 0 {
                    return false;
                }
                sender = f.idx();
                true
            });
            self.proxy_turns[t as usize] = turns;
            if !sent {
                return;
            }
            // A connection that had nothing outstanding starts its retransmission timer.
            if self.flows[sender].rto_deadline == NEVER {
                self.arm_rto(FlowId::from(sender));
            }
        }
    }

    pub(super) fn proxy_turn_fired(&mut self, t: u32) {
        self.proxy_turns[t as usize].wake_at = NO_TURN;
        self.take_turns(t, NIL);
    }
}
