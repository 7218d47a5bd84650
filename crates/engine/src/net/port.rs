//! The runtime state of one direction of a link.
//!
//! A port needs no "transmission done" event: departures are computed when the port is
//! next looked at ([`crate::sim::World`]'s catch-up). Each packet's serialization start is
//! the later of its arrival and the previous packet's end; once started it joins `wire`
//! with its arrival time at the far end. The only event a port has pending is the arrival
//! of its oldest packet on `wire`, and the arrival that empties the wire is also when the
//! port catches up (to schedule the next), so a packet-hop costs one event. While the wire
//! is busy, packets due to start wait for the next look: nothing can see the difference,
//! as every look (an enqueue, a sample, the end of a run) catches up first.

use super::queue::Queue;
use crate::ids::NodeId;
use crate::packet::{Fifo, PacketPool};
use crate::units::{serialization_ps, Time, PS_PER_SEC};

/// Laid out so that what every packet touches (transmitter, wire, queue, admission and the
/// per-packet counters) fills the first two cache lines; the run loop prefetches both.
#[repr(C, align(64))]
pub struct PortState {
    /// When the transmitter finishes the last packet it has started.
    pub busy_until: Time,
    /// Packets started (serializing or propagating) and not yet arrived, oldest first.
    pub wire: Fifo,
    /// Picoseconds per byte when the rate divides 8e12 exactly (every common rate) and the
    /// result fits 32 bits, else 0. 32 bits beside `to` leave room for the queue's
    /// feature pointers in the two hot cache lines.
    ps_per_byte: u32,
    pub to: NodeId,
    pub delay_ps: Time,
    pub queue: Queue,
    pub rate_bps: u64,
}

// What every packet touches (up to the queue's per-packet counters) must fit the two cache
// lines the run loop prefetches: a hot field past them costs bench_b about one more D1
// miss per packet-hop.
const _: () = assert!(
    std::mem::offset_of!(PortState, queue)
        + std::mem::offset_of!(super::queue::Queue, counters)
        + std::mem::offset_of!(super::queue::QueueCounters, marked_bytes)
        <= 128
);
// And nothing follows the counters inside `Queue` (it would sit on the third, cold line).
const _: () = assert!(
    std::mem::offset_of!(super::queue::Queue, counters) + std::mem::size_of::<super::queue::QueueCounters>()
        == std::mem::size_of::<super::queue::Queue>()
);

impl PortState {
    pub fn new(to: NodeId, rate_bps: u64, delay_ps: Time, queue: Queue) -> Self {
        let exact = (8 * PS_PER_SEC) % rate_bps == 0;
        let ps_per_byte = if exact { u32::try_from(8 * PS_PER_SEC / rate_bps).unwrap_or(0) } else { 0 };
        PortState {
            busy_until: 0,
            wire: Fifo::default(),
            ps_per_byte,
            delay_ps,
            to,
            queue,
            rate_bps,
        }
    }

    /// Bytes on the wire (serializing or propagating); walks the wire, so not for the hot path.
    pub fn wire_bytes(&self, pool: &PacketPool) -> u64 {
        self.wire.iter(pool).map(|r| pool.get(r).wire_bytes as u64).sum()
    }

    /// Bytes that have started transmission: everything admitted but what still waits.
    pub fn tx_bytes(&self) -> u64 {
        self.queue.counters.enqueued_bytes - self.queue.backlog.bytes - self.queue.control_backlog().bytes
    }

    pub fn tx_pkts(&self) -> u64 {
        self.queue.counters.enqueued_pkts - self.queue.backlog.pkts - self.queue.control_backlog().pkts
    }

    /// Serialization time of `bytes` at this port's rate.
    #[inline(always)]
    pub fn ser_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            bytes * self.ps_per_byte as u64
        } else {
            serialization_ps(bytes, self.rate_bps)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hot_fields_fill_two_cache_lines() {
        use super::PortState;
        let p = std::mem::MaybeUninit::<PortState>::uninit();
        let base = p.as_ptr() as usize;
        // SAFETY: only field addresses are taken, nothing is read.
        let counters = unsafe { std::ptr::addr_of!((*p.as_ptr()).queue.counters.max_pkts) } as usize;
        assert!(counters + 8 - base <= 128, "per-packet fields end at byte {}", counters + 8 - base);
    }
}
