//! Prefetching for the run loop: the packets, ports and queue heads the next events will
//! touch, requested while the current event runs (docs/performance.md, "What the hot path
//! looks like").

use super::flow::Flow;
use super::world::World;
use crate::des::Event;
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

impl World {
    /// How many packet slots the pool may hand out before they, the ports and the flows
    /// outgrow `prefetch_above_bytes`, and whether the ports and flows do on their own.
    pub(super) fn cold_working_set(&self) -> (usize, bool) {
        let fixed = self.ports.len() * std::mem::size_of::<PortState>()
            + self.flows.slots() * std::mem::size_of::<Flow>();
        let slots = self.prefetch_above_bytes.saturating_sub(fixed) / std::mem::size_of::<crate::packet::Packet>();
        (slots, fixed > self.prefetch_above_bytes)
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

    /// For the arrival after next (whose packet was prefetched events ago): the port the
    /// switch it reaches will queue it on, chosen when it started (`route_ahead`).
    #[inline(always)]
    pub(super) fn prefetch_egress(&self, ev: Event) {
        // A host-bound packet holds a stale port: a harmless prefetch.
        let port = self.ports.as_ptr().wrapping_add(self.pool.hop(ev.index()) as usize) as *const u8;
        prefetch(port);
        prefetch(port.wrapping_add(64));
    }

    /// For the next arrival: the packets its own port (if that arrival empties its wire)
    /// and its egress port (if it finished a packet since it was last looked at) will
    /// start next. The first is often wasted, but a k = 16 fat-tree, whose packets live
    /// beyond L2, runs 6-14% faster with it.
    #[inline(always)]
    pub(super) fn prefetch_queues(&self, ev: Event) {
        self.prefetch_queue_head(ev.port());
        self.prefetch_queue_head(self.pool.hop(ev.index()));
    }

    #[inline(always)]
    fn prefetch_queue_head(&self, port: u32) {
        if let Some(p) = self.ports.get(port as usize) {
            prefetch(self.pool.slot_ptr(p.queue.head_or_zero()));
        }
    }

}
