//! UnoRC at the endpoints (`reliability::erasure`): which flows are coded, the receiver's
//! block bookkeeping on each data packet, its `ec_wait` timer and parity NACKs, and the
//! sender's answer to one. The sender's and receiver's own machinery is the shared one:
//! a coded flow only carries a padded stream and gets whole blocks acknowledged at once.

use super::flow::{NEVER, NO_HOST};
use super::world::World;
use crate::des::{Event, EventKind};
use crate::ids::{FlowId, HostId};
use crate::packet::{flags, Packet, PacketKind, PacketRef, NIL};
use crate::reliability::{BlockReceiver, ErasureScope};
use crate::routing::select::Loss;
use crate::routing::{PathSelector, Selector};
use crate::rng::{hash64, Stream};
use crate::transport::cc::FlowPath;
use crate::units::Time;

/// Seeds of the parity NACKs' entropies, apart from the flows' other streams.
const ERASURE_STREAM: u64 = 1 << 41;

impl World {
    /// The block receiver of a new flow if `[transport.erasure]` codes it: a flow with an
    /// end, not relayed, in the scope's class. Its wait is the class's `ec_wait`, or 1.05
    /// base RTT for a block first heard of through a retransmission (the artifact's
    /// `target_rtt`).
    pub(super) fn erasure_for(&self, f: FlowId, via: HostId, size: u64, path: &FlowPath) -> Option<Box<BlockReceiver>> {
        let cfg = self.transport.erasure?;
        let in_scope = cfg.scope == ErasureScope::All || path.inter;
        if !in_scope || size == u64::MAX || via != NO_HOST {
            return None;
        }
        let wait = if path.inter { cfg.ec_wait_inter } else { cfg.ec_wait };
        let retx_wait = path.base_rtt() * 21 / 20;
        let seed = hash64(self.seed, Stream::Flow, ERASURE_STREAM | f.0 as u64);
        Some(Box::new(BlockReceiver::new(cfg.shape, self.transport.mss(), size, wait, retx_wait, seed)))
    }

    /// A data packet of a coded flow reached its receiver (before the receiver takes it
    /// in): its block counts it; a block it completes is received whole, so the packet's
    /// ACK covers it; its timer is (re)armed.
    #[inline(never)]
    pub(super) fn erasure_data(&mut self, f: FlowId, pkt: &Packet) {
        let now = self.sched.now();
        let flow = &mut self.flows[f.idx()];
        let Some(e) = flow.erasure.as_mut() else { return };
        let arrival = e.on_packet(pkt.seq, pkt.has(flags::RETX), now);
        if let Some((start, end)) = arrival.decoded {
            flow.receiver.decoded(start, end);
        }
        if let Some(at) = arrival.armed {
            self.arm_ec_wait(f, at);
        }
    }

    /// One timer event per flow stands for its earliest block deadline; it is moved only
    /// when a deadline comes earlier (a replaced event is told by its generation).
    fn arm_ec_wait(&mut self, f: FlowId, at: Time) {
        let flow = &mut self.flows[f.idx()];
        let id = flow.id.0;
        let Some(e) = flow.erasure.as_mut() else { return };
        if at < e.event_at {
            e.event_at = at;
            e.event_gen = e.event_gen.wrapping_add(1);
            self.sched.at(at, Event::timer(EventKind::EcWait, id, e.event_gen));
        }
    }

    /// The receiver's block timer: each incomplete block past its deadline costs one
    /// parity NACK.
    pub(super) fn ec_wait_fired(&mut self, f: FlowId, ev: Event) {
        let now = self.sched.now();
        let Some(e) = self.flows[f.idx()].erasure.as_mut() else { return };
        if !ev.same_generation(e.event_gen) {
            return;
        }
        e.event_at = NEVER;
        // Allocates only when a block expired: at most once per NACK.
        let mut starts = Vec::new();
        let next = e.expire(now, |start| starts.push(start));
        for start in starts {
            self.send_parity_nack(f, start);
        }
        if let Some(at) = next {
            self.arm_ec_wait(f, at);
        }
    }

    /// A parity NACK of the block starting at byte `start`, from the receiver to where its
    /// ACKs go, on a random path (sprayed like the ACKs when packets are).
    fn send_parity_nack(&mut self, f: FlowId, start: u64) {
        let flow = &mut self.flows[f.idx()];
        let (from, to) = (flow.dst, flow.ack_dst);
        let Some(e) = flow.erasure.as_mut() else { return };
        let entropy = e.nack_entropy();
        e.nacks_sent += 1;
        // Sprayed like the ACKs when the flow sprays; else the NACK's own random path.
        let entropy = match &flow.selector {
            Selector::Spray(_) => flow.selector.reply(entropy, &mut self.host_draws, from),
            _ => entropy,
        };
        let nack = Packet {
            flow: f,
            dst: to,
            entropy,
            wire_bytes: self.transport.ack_bytes as u32,
            kind: PacketKind::ParityNack,
            flags: if self.transport.ecn { flags::ECT } else { 0 },
            seq: start,
            ts: self.sched.now(),
            next: NIL,
            ..Packet::default()
        };
        self.send_from_host(from, nack);
    }

    /// A parity NACK reached the sender: an incomplete block's packets in flight are
    /// retransmitted first, as the window allows, and the paths move as on an RTO.
    pub(super) fn on_parity_nack(&mut self, r: PacketRef, pkt: &Packet) {
        self.pool.free(r);
        let now = self.sched.now();
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        if let Some(hc) = &mut self.host_counters {
            hc.ingress(flow.src, now, pkt.wire_bytes as u64, false, pkt.has(flags::CE), &mut flow.last_bin_src);
        }
        let Some(e) = flow.erasure.as_ref() else { return };
        let (start, end) = e.block_range(pkt.seq);
        // The block holds the oldest unacknowledged byte: its retransmissions restart the
        // timer (as a NACK of the head segment does).
        let head = (start..end).contains(&flow.sender.snd_una);
        if flow.finished() || !flow.sender.on_parity_nack(start, end) {
            return;
        }
        if let Some(e) = flow.erasure.as_mut() {
            e.nacks_acted += 1;
        }
        self.reroute_on_parity_nack(f, now);
        self.pump(f, NIL);
        if head || self.flows[f.idx()].rto_deadline == NEVER {
            self.arm_rto(f);
        }
    }

    /// The flow's path selector hears of the NACK: UnoLB moves its stuck subflows as on an
    /// RTO (spec §1.4), PLB repaths at most once per RTO.
    fn reroute_on_parity_nack(&mut self, f: FlowId, now: Time) {
        let flow = &mut self.flows[f.idx()];
        let rto = flow.sender.rto_in_force();
        flow.selector.on_loss(now, rto, Loss::ParityNack);
    }
}
