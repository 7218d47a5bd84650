//! The endpoints' side of the world: flows starting, hosts sending data and ACKs, the
//! shared transport's timers. Kept beside `world.rs` in the same module so the compiler
//! still inlines the whole per-packet path.

use super::flow::{NEVER, NO_FLOW, NO_HOST, NO_INCAST, NO_RPC, NO_TURNS};
use super::world::World;
use crate::des::{Event, EventKind};
use crate::ids::{FlowId, HostId};
use crate::packet::{flags, Packet, PacketKind, PacketRef, NIL};
use crate::routing::select::{AckSeen, Loss};
use crate::routing::PathSelector;
use crate::transport::{AckToSend, Recovery};
use crate::units::Time;

impl World {
    // ---- transport --------------------------------------------------------------------

    /// `transport.timestamp = "first_switch"`: Uno's artifact re-stamps a data packet at
    /// the first switch with its arrival minus one serialization and the host link's delay,
    /// the instant its NIC started sending it (`start`). RTT samples then leave out the
    /// host's NIC queue, which several paced flows of one host build up.
    #[inline(never)]
    pub(super) fn stamp_at_first_switch(&mut self, r: PacketRef, start: Time) {
        let pkt = self.pool.get_mut(r);
        if pkt.kind == PacketKind::Data {
            pkt.ts = start;
        }
    }

    pub(super) fn flow_start(&mut self, f: FlowId) {
        self.pending_starts -= 1;
        self.active_flows += 1;
        if self.transport.icon.is_some() {
            self.announce_degree_at_start(f);
        }
        if self.receiver_policy.is_some() {
            self.open_at_receiver(f);
        }
        self.pump(f, NIL);
        self.arm_rto(f);
    }

    /// Sends whatever the flow's window allows (a naive proxy's onward connection: when its
    /// turn comes). `spare` is a packet slot to reuse (an ACK that just arrived), or `NIL`.
    #[inline]
    pub(super) fn pump(&mut self, f: FlowId, spare: PacketRef) {
        let turns = self.flows[f.idx()].turns;
        if turns != NO_TURNS {
            return self.take_turns(turns, spare);
        }
        self.send_segments::<false>(f, spare);
    }

    /// Sends the segments the flow's window allows (`ONE`: at most one); returns how many
    /// it sent. A constant, so the ordinary path carries no limit test.
    #[inline]
    pub(super) fn send_segments<const ONE: bool>(&mut self, f: FlowId, mut spare: PacketRef) -> u32 {
        let mut sent = 0;
        let now = self.sched.now();
        let ecn = self.transport.ecn;
        let header = self.transport.header + self.transport.framing;
        let flow = &mut self.flows[f.idx()];
        // A relayed connection addresses its relay, which forwards to the receiver.
        let dst = flow.route_dst;
        let src = flow.src;
        // TSQ never holds a flow with at most two packets in its NIC: that test, on the
        // flow's own line, spares most sends the call.
        let tsq_floor = self.tsq.as_ref().map_or(u64::MAX, |c| 2 * c.packet);
        while !ONE || sent == 0 {
            if tsq_floor != u64::MAX && self.flows[f.idx()].nic.bytes_upper(now) > tsq_floor && self.tsq_holds(f, now) {
                break;
            }
            let flow = &mut self.flows[f.idx()];
            let Some(seg) = flow.sender.next_segment(now) else { break };
            // It goes into the network below (counted here, where the flow is at hand).
            flow.packet_in();
            sent += 1;
            let entropy = flow.selector.on_send(&mut self.host_draws, src);
            let mut fl = if ecn { flags::ECT } else { 0 };
            if seg.retransmission {
                fl |= flags::RETX;
            }
            if seg.cwr {
                fl |= flags::CWR;
            }
            let nic = self.nic(src, dst, entropy);
            let pkt = Packet {
                flow: f,
                dst,
                entropy,
                wire_bytes: (seg.len + header) as u32,
                payload: seg.len as u16,
                kind: PacketKind::Data,
                flags: fl,
                seq: seg.seq,
                sack_start: 0,
                sack_len: 0,
                next_hop: 0,
                ts: now,
                arrive_at: 0,
                next: NIL,
            };
            let r = if spare != NIL {
                *self.pool.get_mut(spare) = pkt;
                std::mem::replace(&mut spare, NIL)
            } else {
                self.pool.alloc(pkt)
            };
            self.injected_bytes += pkt.wire_bytes as u64;
            self.enqueue(nic, r);
            if tsq_floor != u64::MAX {
                let done = nic_departure(&self.ports[nic.idx()], now);
                self.flows[f.idx()].nic.push(now, done, pkt.wire_bytes);
            }
            if self.flows[f.idx()].sender.parts.is_some() {
                let wait = nic_departure(&self.ports[nic.idx()], now) - now;
                self.flows[f.idx()].sender.nic_wait(wait);
            }
        }
        if spare != NIL {
            self.pool.free(spare);
        }
        let flow = &mut self.flows[f.idx()];
        flow.sender.end_burst(now, sent);
        if let Some(at) = flow.sender.take_pace_wait() {
            self.arm_pacer(f, at);
        }
        sent
    }

    /// TCP Small Queues: whether the flow must leave its next segment in the socket because
    /// enough of its bytes wait in its NIC; if so, it is woken when the oldest leaves. Asked
    /// only once more than two packets may be there (the caller's inline test).
    #[inline(never)]
    fn tsq_holds(&mut self, f: FlowId, now: Time) -> bool {
        let Some(cfg) = &self.tsq else { return false };
        let default_srtt = self.class_rtt.0;
        let flow = &mut self.flows[f.idx()];
        let s = &flow.sender;
        // A flow with at most one segment out always sends (`tcp_rtx_queue_empty_or_single_skb`).
        if s.snd_nxt - s.snd_una <= s.window.mss {
            return false;
        }
        let srtt = s.rtt.srtt().unwrap_or(default_srtt);
        let mut limit = cfg.limit(s.window.cwnd, s.window.ssthresh, srtt);
        // Retransmissions may use twice the limit (`tcp_xmit_retransmit_queue`).
        if s.has_lost() {
            limit *= 2;
        }
        if !flow.nic.exceeds(now, limit) {
            return false;
        }
        if flow.wake_at == NEVER {
            if let Some(at) = flow.nic.next_departure() {
                flow.wake_at = at;
                self.sched.at(at, Event::new(EventKind::Wake, flow.id.0));
            }
        }
        true
    }

    pub(super) fn wake_fired(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        flow.wake_at = NEVER;
        if flow.finished() {
            return;
        }
        self.pump(f, NIL);
        if self.flows[f.idx()].rto_deadline == NEVER {
            self.arm_rto(f);
        }
    }

    #[inline(always)]
    pub(super) fn on_data(&mut self, host: HostId, r: PacketRef, pkt: &Packet) {
        let now = self.sched.now();
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        if let Some(hc) = &mut self.host_counters {
            hc.ingress(host, now, pkt.wire_bytes as u64, pkt.has(flags::RETX), pkt.has(flags::CE), &mut flow.last_bin_dst);
        }
        if pkt.has(flags::TRIMMED) {
            // Only the header arrived: ask for the segment again, at once.
            let back = if flow.via == NO_HOST { flow.src } else { flow.via };
            let me = flow.dst;
            self.send_nack(r, pkt, back, me);
            return;
        }
        if self.receiver_policy.is_some() {
            self.receiver_saw_data(f, pkt.payload as u64);
        }
        let flow = &mut self.flows[f.idx()];
        let ce = flow.receiver.counted_ce(pkt.seq, pkt.has(flags::CE));
        if let Some(a) = flow.receiver.ce_change_ack(ce) {
            flow.dack_armed = false;
            let ts = flow.dack_ts;
            self.send_ack(f, NIL, a, ts, pkt.entropy);
        }
        if self.flows[f.idx()].erasure.is_some() {
            self.erasure_data(f, pkt);
        }
        let flow = &mut self.flows[f.idx()];
        let ack = flow.receiver.on_data(pkt.seq, pkt.payload as u64, ce, pkt.has(flags::CWR));
        let rpc = flow.rpc != NO_RPC;
        let mut received = false;
        if flow.recv_done == NEVER && flow.receiver.complete() {
            flow.recv_done = now;
            received = rpc;
            if flow.incast != NO_INCAST {
                let inc = &mut self.incasts[flow.incast as usize];
                inc.last_delivery = inc.last_delivery.max(now);
            }
        }
        if rpc {
            self.rpc_data(f, pkt.payload as u64, pkt.has(flags::CE));
            if received {
                self.rpc_received(f);
            }
        }
        let flow = &mut self.flows[f.idx()];
        if flow.feeds != NO_FLOW {
            let (next, have) = (flow.feeds, flow.receiver.rcv_nxt);
            self.supply(next, have);
        }
        let flow = &mut self.flows[f.idx()];
        match ack {
            Some(a) => {
                // This ACK covers anything a pending delayed ACK would have.
                flow.dack_armed = false;
                self.send_ack(f, r, a, pkt.ts, pkt.entropy)
            }
            None => {
                self.pool.free(r);
                if !self.flows[f.idx()].dack_armed {
                    // The delayed ACK echoes the first segment it covers, so RTT samples stay true.
                    self.flows[f.idx()].dack_ts = pkt.ts;
                }
                self.arm_delayed_ack(f);
            }
        }
    }

    /// A split connection's relay has received `have` bytes in order: its onward
    /// connection may send up to there.
    fn supply(&mut self, f: FlowId, have: u64) {
        let flow = &mut self.flows[f.idx()];
        if have <= flow.sender.available || flow.finished() {
            return;
        }
        flow.sender.available = have;
        self.pump(f, NIL);
        if self.flows[f.idx()].rto_deadline == NEVER {
            self.arm_rto(f);
        }
    }

    /// Turns the trimmed data packet in slot `r` into a NACK of its segment, sent from host
    /// `from` to host `to`. It echoes the trimmed transmission's send time, so the sender
    /// can tell a stale NACK.
    pub(super) fn send_nack(&mut self, r: PacketRef, pkt: &Packet, to: crate::ids::HostId, from: crate::ids::HostId) {
        let flow = &mut self.flows[pkt.flow.idx()];
        flow.nacks_sent += 1;
        flow.packet_in();
        let entropy = flow.selector.reply(pkt.entropy, &mut self.host_draws, from);
        let nack = Packet {
            dst: to,
            entropy,
            wire_bytes: self.transport.ack_bytes as u32,
            kind: PacketKind::Nack,
            flags: pkt.flags & flags::ECT,
            sack_start: 0,
            sack_len: 0,
            next_hop: 0,
            arrive_at: 0,
            next: NIL,
            ..*pkt
        };
        *self.pool.get_mut(r) = nack;
        self.injected_bytes += nack.wire_bytes as u64;
        let nic = self.nic(from, to, entropy);
        self.enqueue(nic, r);
    }

    /// A NACK reached the sender: the segment is retransmitted first when the window allows.
    #[inline]
    pub(super) fn on_nack(&mut self, r: PacketRef, pkt: &Packet) {
        let now = self.sched.now();
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        // The oldest outstanding segment is being repaired: the timer, whose job is to catch
        // losses nobody signalled, starts over with its retransmission (htsim's UEC source
        // gives every resend a fresh deadline). Else a head segment trimmed again and
        // again would time out while its NACKs still arrive.
        let head = pkt.seq <= flow.sender.snd_una;
        if flow.finished() || !flow.sender.on_nack(now, pkt.seq, pkt.ts) {
            self.pool.free(r);
            return;
        }
        flow.selector.on_loss(now, flow.sender.rto_in_force(), Loss::TrimNack);
        self.pump(f, r);
        if head || self.flows[f.idx()].rto_deadline == NEVER {
            self.arm_rto(f);
        }
    }

    /// Turns slot `r` (or a new one if `NIL`) into an ACK and sends it from the receiver.
    /// The ACK echoes `entropy`, the acknowledged data packet's (it returns on the path that
    /// entropy picks, and tells UnoLB which subflow was heard from).
    #[inline]
    pub(super) fn send_ack(&mut self, f: FlowId, r: PacketRef, a: AckToSend, ts_echo: Time, entropy: u32) {
        let window = self.ack_window_field(f);
        let flow = &self.flows[f.idx()];
        let mut fl = if self.transport.ecn { flags::ECT } else { 0 };
        if a.ece {
            fl |= flags::ECE;
        }
        let entropy = flow.selector.reply(entropy, &mut self.host_draws, flow.dst);
        let blocks = a.sacks.iter().take_while(|b| !b.is_empty()).count();
        let mut ack = Packet {
            flow: f,
            dst: flow.ack_dst,
            entropy,
            wire_bytes: self.transport.ack_wire_bytes(blocks) as u32,
            // An ACK carries no data: the field holds the receiver's window (0: none).
            payload: window,
            kind: PacketKind::Ack,
            flags: fl,
            seq: a.ack,
            sack_start: 0,
            sack_len: 0,
            next_hop: 0,
            ts: ts_echo,
            arrive_at: 0,
            next: NIL,
        };
        ack.set_sack(a.sacks[0].start, a.sacks[0].end);
        let r = if r == NIL {
            self.pool.alloc(ack)
        } else {
            *self.pool.get_mut(r) = ack;
            r
        };
        let nic = self.nic(flow.dst, ack.dst, entropy);
        if !a.sacks[0].is_empty() && self.transport.sender.recovery != Recovery::Basic {
            let [_, extra @ ..] = &a.sacks;
            self.keep_extra_sacks(r, extra);
        }
        self.injected_bytes += ack.wire_bytes as u64;
        self.flows[f.idx()].packet_in();
        self.enqueue(nic, r);
    }

    #[inline(always)]
    pub(super) fn on_ack(&mut self, r: PacketRef, pkt: &Packet) {
        let now = self.sched.now();
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        if let Some(hc) = &mut self.host_counters {
            hc.ingress(flow.src, now, pkt.wire_bytes as u64, false, pkt.has(flags::CE), &mut flow.last_bin_src);
        }
        if flow.finished() {
            self.pool.free(r);
            return;
        }
        let sacks = self.sacks_of(r, pkt);
        if pkt.payload != 0 {
            self.take_advertised(f, pkt.seq, pkt.payload);
        }
        if self.flows[f.idx()].rpc != NO_RPC {
            self.rpc_track_cwnd(f, now);
        }
        let flow = &mut self.flows[f.idx()];
        let ece = pkt.has(flags::ECE);
        let una = flow.sender.snd_una;
        let effect = flow.sender.on_ack(now, pkt.seq, &sacks, ece, pkt.ts);
        let acked = flow.sender.snd_una - una;
        flow.selector.on_ack(now, &AckSeen { entropy: pkt.entropy, acked, ece });
        if effect.finished {
            self.pool.free(r);
            self.finish_flow(f);
            return;
        }
        self.pump(f, r);
        // RFC 6298 5.3: restart on new data acknowledged; also arm a stopped timer.
        if effect.restart_rto || self.flows[f.idx()].rto_deadline == NEVER {
            self.arm_rto(f);
        } else if self.flows[f.idx()].sender.aux_timer().is_some() {
            self.schedule_timer(f);
        }
    }

    pub(super) fn finish_flow(&mut self, f: FlowId) {
        let now = self.sched.now();
        let flow = &mut self.flows[f.idx()];
        flow.finish = now;
        flow.rto_deadline = NEVER;
        flow.sender.release();
        flow.nic.release();
        self.active_flows -= 1;
        if flow.incast != NO_INCAST {
            let inc = &mut self.incasts[flow.incast as usize];
            inc.finished_flows += 1;
            inc.last_finish = inc.last_finish.max(now);
        }
        if flow.rpc != NO_RPC {
            self.rpc_finished(f);
        } else if self.receiver_policy.is_some() {
            self.close_at_receiver(f);
        }
        self.measured_flow_finished(f);
        if self.retire {
            self.note_finished(f);
        }
        self.done = !self.has_work();
    }

    // ---- timers -----------------------------------------------------------------------

    /// (Re)starts the retransmission timer, or stops it when nothing is outstanding. The
    /// pending event is moved only when the deadline comes earlier; a later deadline is
    /// picked up when the event fires, so each ACK costs no heap operation.
    pub(super) fn arm_rto(&mut self, f: FlowId) {
        let now = self.sched.now();
        let flow = &mut self.flows[f.idx()];
        if flow.sender.parts.is_some() && flow.sender.packet_rto().is_some() {
            return self.arm_packet_rto(f);
        }
        if !flow.sender.outstanding() {
            flow.rto_deadline = NEVER;
            return;
        }
        flow.rto_deadline = now + flow.sender.rto();
        self.schedule_timer(f);
    }

    /// The flow's one timer event stands for the earlier of its RTO and its reordering or
    /// probe timer; it is moved only when that comes earlier than the pending event.
    pub(super) fn schedule_timer(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        let due = flow.rto_deadline.min(flow.sender.aux_timer().map_or(NEVER, |a| a.at()));
        if due != NEVER && (flow.rto_event_at == NEVER || flow.rto_event_at > due) {
            flow.rto_gen = flow.rto_gen.wrapping_add(1);
            flow.rto_event_at = due;
            self.sched.at(due, Event::timer(EventKind::Rto, flow.id.0, flow.rto_gen));
        }
    }

    pub(super) fn rto_fired(&mut self, f: FlowId, ev: Event) {
        let now = self.sched.now();
        let flow = &mut self.flows[f.idx()];
        if !ev.same_generation(flow.rto_gen) {
            return;
        }
        flow.rto_event_at = NEVER;
        if flow.finished() {
            return;
        }
        let aux = flow.sender.aux_timer().map_or(NEVER, |a| a.at());
        let due = flow.rto_deadline.min(aux);
        if due == NEVER {
            return;
        }
        if now < due {
            self.schedule_timer(f);
            return;
        }
        if aux <= now {
            // RACK's reordering timer or the tail loss probe; the RTO restarts after either.
            flow.sender.on_aux_timer(now);
            self.pump(f, NIL);
            self.arm_rto(f);
            return;
        }
        if flow.rpc != NO_RPC {
            self.rpc_track_cwnd(f, now);
        }
        let flow = &mut self.flows[f.idx()];
        flow.sender.on_timeout(now);
        flow.selector.on_loss(now, flow.sender.rto_in_force(), Loss::Timeout);
        self.pump(f, NIL);
        self.arm_rto(f);
    }

    /// One pacing event per flow stands: a later send time leaves the pending event to fire
    /// early and pump again; an earlier one (ICON's spacing shrinks when the window grows)
    /// replaces it, and the replaced event is ignored when it fires.
    fn arm_pacer(&mut self, f: FlowId, at: Time) {
        let flow = &mut self.flows[f.idx()];
        if flow.pace_at == NEVER || at < flow.pace_at {
            flow.pace_at = at;
            self.sched.at(at, Event::new(EventKind::Pace, flow.id.0));
        }
    }

    pub(super) fn pace_fired(&mut self, f: FlowId) {
        let now = self.sched.now();
        let flow = &mut self.flows[f.idx()];
        if now != flow.pace_at {
            return; // replaced by an earlier one
        }
        flow.pace_at = NEVER;
        if !flow.finished() {
            self.pump(f, NIL);
            // A paced segment may be the only one out (the window drained while it
            // waited): it needs a timer as any first send does (`arm_rto` arms Uno's
            // per-packet deadlines instead when the flow keeps them).
            if self.flows[f.idx()].rto_deadline == NEVER {
                self.arm_rto(f);
            }
        }
    }

    /// Keeps one event at the head of the flow's deadline queue (one scheduling at most per
    /// transmission: a new deadline is never earlier than the queued ones).
    fn arm_packet_rto(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        if flow.packet_rto_at != NEVER || flow.finished() {
            return;
        }
        let Some(q) = flow.sender.packet_rto_mut() else { return };
        if let Some(at) = q.next_deadline() {
            q.timer_ops += 1;
            flow.packet_rto_at = at;
            self.sched.at(at, Event::new(EventKind::PacketRto, flow.id.0));
        }
    }

    pub(super) fn packet_rto_fired(&mut self, f: FlowId) {
        let now = self.sched.now();
        let flow = &mut self.flows[f.idx()];
        flow.packet_rto_at = NEVER;
        if flow.finished() {
            return;
        }
        if flow.sender.on_packet_timeouts(now) > 0 {
            flow.selector.on_loss(now, flow.sender.rto_in_force(), Loss::Timeout);
        }
        self.pump(f, NIL);
        self.arm_packet_rto(f);
    }

    pub(super) fn arm_delayed_ack(&mut self, f: FlowId) {
        let flow = &mut self.flows[f.idx()];
        if flow.dack_armed {
            return;
        }
        flow.dack_armed = true;
        flow.dack_gen = flow.dack_gen.wrapping_add(1);
        let ev = Event::timer(EventKind::DelayedAck, flow.id.0, flow.dack_gen);
        self.sched.after(self.transport.delayed_ack_timeout, ev);
    }

    pub(super) fn delayed_ack_fired(&mut self, f: FlowId, ev: Event) {
        let flow = &mut self.flows[f.idx()];
        if !ev.same_generation(flow.dack_gen) || !flow.dack_armed {
            return;
        }
        flow.dack_armed = false;
        if let Some(a) = flow.receiver.flush() {
            let (ts, entropy) = (flow.dack_ts, flow.entropy);
            self.send_ack(f, NIL, a, ts, entropy);
        }
        if self.retire {
            self.retire_if_done(f);
        }
    }
}

/// When the packet last handed to a host NIC finishes leaving it: the transmitter's end
/// plus everything still waiting (that packet included, if it waits).
fn nic_departure(p: &crate::net::PortState, now: Time) -> Time {
    p.busy_until.max(now) + p.ser_time(p.queue.backlog.bytes + p.queue.control_backlog().bytes)
}
