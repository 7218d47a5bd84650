//! Prefetching for the run loop: the packets, ports and queue heads the next events will
//! touch, requested while the current event runs (docs/performance.md, "What the hot path
//! looks like").

use super::flow::Flow;
use super::world::World;
use super::world::{NOT_A_HOST, REMOTE};
use crate::des::Event;
use crate::packet::PacketKind;
use crate::units::Time;
use crate::net::PortState;

#[inline(always)]
pub(super) fn prefetch(ptr: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// How many events ahead the run loop asks for each line: an arrival's packet and its port
/// (`packet`), the egress port that packet names (`egress`, which needs the packet's line),
/// and the packets both ports start next (`queues`, which needs the ports' lines). Each
/// step reads what the step before fetched, so the steps must be as far apart as a miss
/// takes to come in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Lead {
    pub packet: usize,
    pub egress: usize,
    pub queues: usize,
}

/// While what the run touches fits the shared L3 cache: one event is about as long as an
/// L3 hit.
pub(super) const NEAR_LEAD: Lead = Lead { packet: 2, egress: 1, queues: 0 };
/// Beyond L3 a miss goes to memory, several events' time: at k = 32 (42 MB of packets,
/// 9.4 MB of ports, 8.6 MB of flows) the near lead left the egress step waiting on the
/// packet's line at 17% of the loop's samples (docs/performance.md, "k = 32: rows by
/// pod, and prefetching beyond L3"); without the host steps, a sender took 3.5 times as
/// long over an ACK as at k = 16 (docs/performance.md, "k = 32: the hosts' lines").
pub(super) const FAR_LEAD: Lead = Lead { packet: 12, egress: 4, queues: 2 };
/// Beyond L3 only, a packet reaching a host has two steps more: its flow and its host's NIC
/// port (`HOST_FLOW_LEAD`, from the packet's line), then the scoreboard slots, NIC ring
/// entry and queue tails the host will touch (`HOST_STATE_LEAD`, from the flow's lines).
/// Within L3 they do not pay: the flows' lines come from L3 in less than a host's work
/// (at 1 and 0 events ahead, bench (c) ran 3% slower).
const HOST_FLOW_LEAD: usize = 8;
const HOST_STATE_LEAD: usize = 4;
/// Above how many bytes of ports, flows and handed-out packet slots the far lead is used
/// (`World::far_lead_above_bytes` starts here): half the L3 of these machines (32 MiB,
/// shared by the core's neighbours).
pub(super) const FAR_LEAD_ABOVE_BYTES: usize = 16 << 20;

/// The prefetching a call of the run loop does (see `World::cold_working_set`).
pub(super) struct Prefetching {
    /// How many slots the pool may hand out before the loop starts prefetching.
    pub packets_above: usize,
    /// Whether ports and flows alone outgrow `prefetch_above_bytes`.
    pub ports_cold: bool,
    /// Whether to prefetch with `FAR_LEAD` rather than `NEAR_LEAD`.
    pub far: bool,
}

impl World {
    /// The far lead's loop out of line: inlined, its copy of the handlers changed the near
    /// loop's code (+0.55% instructions on bench (b), which never takes it).
    #[inline(never)]
    pub(super) fn run_far(&mut self, stop: Time, ports_cold: bool) {
        self.run_prefetching::<true>(stop, ports_cold);
    }

    /// The run loop with prefetching, `FAR` or near lead (`prefetch::Lead`): constants, so
    /// the peeks are fixed offsets (a lead held in registers cost k = 32 7%).
    #[inline(always)]
    pub(super) fn run_prefetching<const FAR: bool>(&mut self, stop: Time, ports_cold: bool) {
        let lead = if FAR { FAR_LEAD } else { NEAR_LEAD };
        // A streaming run hands out its retired flows' rows when `retired.budget` are kept.
        while !self.retired.ready {
            let Some(ev) = self.sched.pop_until(stop) else { break };
            // Events not at hand yet are `Event::NONE`.
            self.prefetch(self.sched.peek_ready(lead.packet), ports_cold);
            if FAR {
                self.prefetch_host_flow(self.sched.peek_ready(HOST_FLOW_LEAD));
                self.prefetch_host_state(self.sched.peek_ready(HOST_STATE_LEAD));
            }
            if ports_cold {
                self.prefetch_egress(self.sched.peek_ready(lead.egress));
            }
            self.prefetch_queues(self.sched.peek_ready(lead.queues));
            self.dispatch(ev);
        }
    }

    /// How many packet slots the pool may hand out before they, the ports and the flows
    /// outgrow `prefetch_above_bytes`, whether the ports and flows do on their own, and how
    /// far ahead to prefetch for what has been handed out so far.
    pub(super) fn cold_working_set(&self) -> Prefetching {
        let fixed = self.ports.len() * std::mem::size_of::<PortState>()
            + self.flows.slots() * std::mem::size_of::<Flow>();
        let packet = std::mem::size_of::<crate::packet::Packet>();
        let far = fixed + self.pool.slots() * packet > self.far_lead_above_bytes;
        Prefetching {
            packets_above: self.prefetch_above_bytes.saturating_sub(fixed) / packet,
            ports_cold: fixed > self.prefetch_above_bytes,
            far,
        }
    }

    /// Touches the arrival's packet, and its port if ports are cold, so their cache misses
    /// overlap with the current event's work.
    ///
    /// The prefetches take no branch on the event's kind: that changes at every bucket's
    /// end, and a wasted hint costs less than a mispredicted branch. `Event::NONE` names
    /// port 0 and the scratch slot; a rare timer names some other port and slot.
    #[inline(always)]
    pub(super) fn prefetch(&self, ev: Event, ports_cold: bool) {
        prefetch(self.pool.slot_ptr(ev.index()));
        if ports_cold {
            // A hint: no bounds check needed, a wild address would not fault.
            let port = self.ports.as_ptr().wrapping_add(ev.port() as usize) as *const u8;
            prefetch(port);
            prefetch(port.wrapping_add(64));
        }
    }

    /// For an arrival whose packet was prefetched events ago: the port the switch it
    /// reaches will queue it on, chosen when it started (`route_ahead`).
    #[inline(always)]
    pub(super) fn prefetch_egress(&self, ev: Event) {
        // A host-bound packet holds a stale port: a harmless prefetch.
        let port = self.ports.as_ptr().wrapping_add(self.pool.hop(ev.index()) as usize) as *const u8;
        prefetch(port);
        prefetch(port.wrapping_add(64));
    }

    /// For an arrival a little ahead: the packets its own port (if that arrival empties its
    /// wire) and its egress port (if it finished a packet since it was last looked at) will
    /// start next. The first is often wasted, but a k = 16 fat-tree, whose packets live
    /// beyond L2, runs 6-14% faster with it.
    #[inline(always)]
    pub(super) fn prefetch_queues(&self, ev: Event) {
        self.prefetch_queue_head(ev.port());
        self.prefetch_queue_head(self.pool.hop(ev.index()));
    }

    /// The host an arrival reaches, if it is one (`ev` may be a timer or `Event::NONE`).
    #[inline(always)]
    fn host_reached(&self, ev: Event) -> Option<u32> {
        if !ev.is_arrival() {
            return None;
        }
        let node = self.ports.get(ev.port() as usize)?.to;
        let host = *self.node_host.get(node.idx())?;
        (host != NOT_A_HOST && host != REMOTE).then_some(host)
    }

    /// For a packet reaching a host, its line at hand: every line of its flow (sender,
    /// receiver, NIC ring and timers: an ACK reads lines all over the 1 KiB), its host's
    /// NIC port, and the SACK blocks beyond the first that an ACK may carry.
    #[inline(always)]
    fn prefetch_host_flow(&self, ev: Event) {
        let Some(host) = self.host_reached(ev) else { return };
        if let Some(flow) = self.flows.slot(self.pool.get(ev.index()).flow.idx()) {
            let flow = flow as *const Flow as *const u8;
            for line in (0..std::mem::size_of::<Flow>()).step_by(64) {
                prefetch(flow.wrapping_add(line));
            }
        }
        if let Some(nic) = self.host_nic.get(host as usize) {
            let port = self.ports.as_ptr().wrapping_add(nic.idx()) as *const u8;
            prefetch(port);
            prefetch(port.wrapping_add(64));
        }
        prefetch(self.sack_extra.as_ptr().wrapping_add(ev.index() as usize) as *const u8);
    }

    /// For a packet reaching a host, its flow's lines at hand: for an ACK, the scoreboard
    /// slot it releases, the one its new segments take and the NIC ring's next entry; for
    /// any, the tails of the host's NIC queue and wire, which the packets it sends join.
    #[inline(always)]
    fn prefetch_host_state(&self, ev: Event) {
        let Some(host) = self.host_reached(ev) else { return };
        let pkt = self.pool.get(ev.index());
        if pkt.kind == PacketKind::Ack {
            if let Some(flow) = self.flows.slot(pkt.flow.idx()) {
                let (oldest, next) = flow.sender.board_ends();
                prefetch(oldest);
                prefetch(next);
                prefetch(flow.nic.back_ptr());
            }
        }
        if let Some(nic) = self.host_nic.get(host as usize).and_then(|n| self.ports.get(n.idx())) {
            prefetch(self.pool.slot_ptr(nic.queue.tail_or_zero()));
            prefetch(self.pool.slot_ptr(nic.wire.tail));
        }
    }

    #[inline(always)]
    fn prefetch_queue_head(&self, port: u32) {
        if let Some(p) = self.ports.get(port as usize) {
            prefetch(self.pool.slot_ptr(p.queue.head_or_zero()));
        }
    }

}
