//! Prefetching for the run loop: the packets, ports and queue heads the next events will
//! touch, requested while the current event runs (docs/performance.md, "What the hot path
//! looks like").

use super::flow::Flow;
use super::world::World;
use crate::des::{Event, FAR_PAD};
use crate::packet::{PacketKind, PacketRef, NIL, SCRATCH};
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

/// How many events ahead the run loop asks for each line: the arriving port's and the
/// egress port's hot lines (`ports`, both named by the arrival event), then the arriving
/// packet (the arriving port's wire head) and the packets both ports start next (their
/// queue heads), which need the ports' lines (`packets`). The second step reads what the
/// first fetched, so the steps must be as far apart as a miss takes to come in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Lead {
    pub ports: usize,
    pub packets: usize,
}

/// While what the run touches fits the shared L3 cache: one event is about as long as an
/// L3 hit.
pub(super) const NEAR_LEAD: Lead = Lead { ports: 2, packets: 1 };
/// Beyond L3 a miss goes to memory, several events' time: at k = 32 (42 MB of packets,
/// 9.4 MB of ports, 8.6 MB of flows). The chain is two steps deep because the event names
/// the egress port: when the egress port came from the packet's line, the queue heads
/// were three steps from the event (packet, port, head) and the packet a port starts next
/// was the run loop's largest wait (docs/performance.md, "k = 32: the egress port in the
/// event").
pub(super) const FAR_LEAD: Lead = Lead { ports: 12, packets: 6 };
/// Beyond L3 only, a packet reaching a host has two steps more: its flow and its host's NIC
/// port (`HOST_FLOW_LEAD`, from the packet's line), then the scoreboard slots, NIC ring
/// entry and queue tails the host will touch (`HOST_STATE_LEAD`, from the flow's lines).
/// Within L3 they do not pay: the flows' lines come from L3 in less than a host's work
/// (at 1 and 0 events ahead, bench (c) ran 3% slower).
const HOST_FLOW_LEAD: usize = 3;
/// Beyond L3 only: the packet the egress port starts second, named in its queue head's
/// line (which `FAR_LEAD.packets` asked for three events before; at 2 and 4, (d) gained
/// less).
const SECOND_LEAD: usize = 3;
const HOST_STATE_LEAD: usize = 1;
/// Above how many bytes of ports, flows and handed-out packet slots the far lead is used
/// (`World::far_lead_above_bytes` starts here): half the L3 of these machines (32 MiB,
/// shared by the core's neighbours).
pub(super) const FAR_LEAD_ABOVE_BYTES: usize = 16 << 20;
const _: () = assert!(
    FAR_LEAD.ports < FAR_PAD
        && FAR_LEAD.packets < FAR_PAD
        && HOST_FLOW_LEAD < FAR_PAD
        && SECOND_LEAD < FAR_PAD
        && HOST_STATE_LEAD < FAR_PAD
);

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
            if ports_cold {
                self.prefetch_ports(self.ahead::<FAR>(lead.ports));
            }
            self.prefetch_packets(self.ahead::<FAR>(lead.packets));
            if FAR {
                // One peek for the two steps at the same lead (the compiler reads it twice).
                let host_flow = self.ahead::<FAR>(HOST_FLOW_LEAD);
                let second = if SECOND_LEAD == HOST_FLOW_LEAD { host_flow } else { self.ahead::<FAR>(SECOND_LEAD) };
                self.prefetch_host_flow(host_flow);
                self.prefetch_host_state(self.ahead::<FAR>(HOST_STATE_LEAD));
                self.prefetch_second(second);
            }
            self.dispatch(ev);
        }
    }

    /// The event `k` places ahead, or `Event::NONE` past the current bucket. The far loop
    /// reads it without clamping `k` to the calendar's padding, which `run_events` made
    /// `FAR_PAD` long for it (bench (d): 10 instructions a packet-hop fewer).
    #[inline(always)]
    fn ahead<const FAR: bool>(&self, k: usize) -> Event {
        if FAR {
            debug_assert!(k < FAR_PAD);
            // SAFETY: `run_events` sets the far padding before it runs the far loop, and
            // every far lead is below `FAR_PAD` (asserted with the leads).
            unsafe { self.sched.peek_padded(k) }
        } else {
            self.sched.peek_ready(k)
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

    /// The two hot lines of the arrival's port and of the egress port its event names, so
    /// their cache misses overlap with the current event's work.
    ///
    /// The prefetches take no branch on the event's kind: that changes at every bucket's
    /// end, and a wasted hint costs less than a mispredicted branch. `Event::NONE` names
    /// port 0 twice; a rare timer names some other ports (its generation and its flow); an
    /// arrival at a host names port 0 as its egress (its hop is no port, `HOST_HOP`).
    #[inline(always)]
    pub(super) fn prefetch_ports(&self, ev: Event) {
        let egress = std::hint::select_unpredictable(World::host_of(ev.index()).is_some(), 0, ev.index());
        for port in [ev.port(), egress] {
            // A hint: no bounds check needed, a wild address would not fault.
            let port = self.ports.as_ptr().wrapping_add(port as usize) as *const u8;
            prefetch(port);
            prefetch(port.wrapping_add(64));
        }
    }

    /// For an arrival whose ports were asked for events ago: the packet arriving (its
    /// port's wire head) and the packets both ports start next, the arriving one if the
    /// arrival empties its wire, the egress one if it finished a packet since it was last
    /// looked at. The first is often wasted, but a k = 16 fat-tree, whose packets live
    /// beyond L2, runs 6-14% faster with it.
    #[inline(always)]
    pub(super) fn prefetch_packets(&self, ev: Event) {
        if let Some(p) = self.ports.get(ev.port() as usize) {
            prefetch(self.pool.slot_ptr(p.wire.head_or_zero()));
            prefetch(self.pool.slot_ptr(p.queue.head_or_zero()));
        }
        if let Some(p) = self.ports.get(ev.index() as usize) {
            prefetch(self.pool.slot_ptr(p.queue.head_or_zero()));
        }
    }

    /// The packet the egress port would start after its queue head. A look at a port may
    /// start several packets, and the queue is linked through them, so without this the
    /// second was asked for only once the first left: a quarter of (d)'s starts. Only for
    /// a queue of two or more (else the pool's scratch slot, always at hand): the head's
    /// line is read, not hinted, and a wasted read costs the loop a wait.
    #[inline(always)]
    fn prefetch_second(&self, ev: Event) {
        if let Some(p) = self.ports.get(ev.index() as usize) {
            let q = &p.queue;
            let head = std::hint::select_unpredictable(q.backlog.pkts >= 2, q.head_or_zero(), SCRATCH);
            prefetch(self.pool.slot_ptr(self.pool.get(head).next));
        }
    }

    /// The host an arrival reaches, if it is one (its hop says so, `HOST_HOP`), and the
    /// packet arriving (`ev` may be a timer or `Event::NONE`).
    #[inline(always)]
    fn host_reached(&self, ev: Event) -> Option<(u32, PacketRef)> {
        let host = World::host_of(ev.index()).filter(|_| ev.is_arrival())?;
        let r = self.ports.get(ev.port() as usize)?.wire.head;
        (r != NIL).then_some((host, r))
    }

    /// For a packet reaching a host, its line at hand: every line of its flow (sender,
    /// receiver, NIC ring and timers: an ACK reads lines all over the 1 KiB), its host's
    /// NIC port, and the SACK blocks beyond the first that an ACK may carry.
    #[inline(always)]
    fn prefetch_host_flow(&self, ev: Event) {
        let Some((host, r)) = self.host_reached(ev) else { return };
        if let Some(flow) = self.flows.slot(self.pool.get(r).flow.idx()) {
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
        // Rows exist only up to the highest slot an ACK with two blocks took (most runs:
        // none), so ask only for a row that exists.
        if let Some(row) = self.sack_extra.get(r as usize) {
            prefetch(row as *const _ as *const u8);
        }
    }

    /// For a packet reaching a host, its flow's lines at hand: for an ACK, the scoreboard
    /// slot it releases, the one its new segments take and the NIC ring's next entry; for
    /// any, the tails of the host's NIC queue and wire, which the packets it sends join.
    #[inline(always)]
    fn prefetch_host_state(&self, ev: Event) {
        let Some((host, r)) = self.host_reached(ev) else { return };
        let pkt = self.pool.get(r);
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
}
