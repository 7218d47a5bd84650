//! Output queues, composed from policies instead of one class per variant:
//! - admission: drop-tail against a byte limit and/or a packet limit;
//! - marking: none, a DCTCP step at K, or RED as ns-3 configures it, at arrival; or RED at
//!   dequeue on the instantaneous or a phantom queue ([`DequeueRed`], [`Phantom`]);
//! - a control queue for header-only packets, with trimming ([`ControlQueue`]);
//! - round robin among flows instead of one FIFO ([`PerFlow`], htsim's host queues).
//!
//! The queue stores packets in a [`Fifo`] threaded through the packet pool and keeps the
//! counters Millisampler-style analyses and the port table need.

mod control;
mod dequeue_red;
mod features;
mod marking;
mod per_flow;
mod phantom;
mod red;

pub use dequeue_red::{DequeueRed, DequeueRedConfig};
use features::Features;
pub use per_flow::PerFlow;
pub use phantom::{Phantom, PhantomConfig, PhantomDrain};
pub use control::{header_only, ControlConfig, ControlCounters, ControlQueue, Service};

pub use marking::{Marking, MarkingConfig, Verdict};
pub use red::{Red, RedConfig};

use crate::packet::{flags, Fifo, PacketPool, PacketRef, SCRATCH};
use crate::units::{Size, Time};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The instantaneous backlog of a queue.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub bytes: u64,
    pub pkts: u64,
}

impl Backlog {
    /// No bound in either unit (the room a queue outside a shared buffer is given).
    pub const UNBOUNDED: Backlog = Backlog { bytes: u64::MAX, pkts: u64::MAX };

    /// The backlog in the unit of `level`.
    #[inline(always)]
    pub fn in_unit_of(&self, level: Size) -> u64 {
        match level {
            Size::Bytes(_) => self.bytes,
            Size::Packets(_) => self.pkts,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct QueueConfig {
    /// Drop-tail limits; `u64::MAX` means unlimited.
    pub limit_bytes: u64,
    pub limit_pkts: u64,
    pub marking: MarkingConfig,
    /// A control queue for header-only packets (and trimming into it), if any.
    pub control: Option<ControlConfig>,
    /// Packets of the device FIFO under the queue (ns-3's PointToPoint DropTail queue
    /// beneath a queue disc); 0 for none. See [`Queue::disc_backlog`].
    pub device_pkts: u64,
    /// Data packets leave in round robin among flows, one per flow per turn ([`PerFlow`]).
    pub per_flow: bool,
}

impl QueueConfig {
    pub fn unlimited() -> Self {
        QueueConfig { limit_bytes: u64::MAX, limit_pkts: u64::MAX, marking: MarkingConfig::None, control: None, device_pkts: 0, per_flow: false }
    }
}

/// Per-port counters, all monotone. The ones every packet updates come first (see
/// `PortState`'s layout).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct QueueCounters {
    pub enqueued_bytes: u64,
    pub enqueued_pkts: u64,
    pub max_bytes: u64,
    pub max_pkts: u64,
    pub marked_bytes: u64,
    pub marked_pkts: u64,
    pub dropped_bytes: u64,
    pub dropped_pkts: u64,
}

#[repr(C)]
pub struct Queue {
    fifo: Fifo,
    pub backlog: Backlog,
    limit_bytes: u64,
    limit_pkts: u64,
    marking: Marking,
    /// The optional features (control queue and trimming, marking at dequeue, phantom
    /// queue, device FIFO) behind one pointer: off, each packet pays one predictable branch.
    features: Option<Box<Features>>,
    pub counters: QueueCounters,
}

/// What happened to an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    Queued,
    Dropped,
    /// Cut to a header and queued as a control packet (`last_trim_cut_bytes` says how
    /// many bytes were cut off).
    Trimmed,
}

impl Queue {
    /// `rate_bps` is the port's line rate (RED's idle-time estimate needs it).
    /// `rng` is this queue's own stream (RED draws from it).
    pub fn new(config: &QueueConfig, rate_bps: u64, mean_pkt_bytes: u64, rng: Xoshiro256PlusPlus) -> Self {
        Queue {
            fifo: Fifo::default(),
            backlog: Backlog::default(),
            limit_bytes: config.limit_bytes,
            // The disc's limit comes on top of the device FIFO it feeds.
            limit_pkts: config.limit_pkts.saturating_add(config.device_pkts),
            marking: Marking::new(&config.marking, rate_bps, mean_pkt_bytes, rng.clone()),
            features: Features::new(config, rate_bps, mean_pkt_bytes, rng),
            counters: QueueCounters::default(),
        }
    }

    /// No packet waits, in either queue. (A data FIFO that is empty while the control
    /// queue is not holds a marker, see `features.rs`, so this is one test.)
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// The backlog of the queue disc alone, with a device FIFO beneath it: the disc feeds
    /// the device whenever it has room, so one FIFO holds both and the disc's share is
    /// whatever waits beyond the device's `device_pkts`. Without a device FIFO it is the
    /// whole backlog. Only packet counts are split (a device queue needs packet units).
    #[inline(always)]
    pub fn disc_backlog(&self) -> Backlog {
        self.disc_backlog_of::<true>()
    }

    /// `disc_backlog` for a queue with (`FEATURED`) or without features: a device FIFO is
    /// one of them, so the plain path never reads its size (kept off the port's hot lines).
    #[inline(always)]
    fn disc_backlog_of<const FEATURED: bool>(&self) -> Backlog {
        Backlog { bytes: self.backlog.bytes, pkts: self.backlog.pkts.saturating_sub(self.device_pkts::<FEATURED>()) }
    }

    /// The packet that leaves next, if any (a hint for prefetching: with a control
    /// queue it may be the marker, whose address is never dereferenced).
    #[inline(always)]
    pub fn head(&self) -> Option<PacketRef> {
        (!self.fifo.is_empty()).then_some(self.fifo.head)
    }

    /// The newest queued packet, or the pool's scratch slot (for prefetching: a host's next
    /// packet is linked behind it).
    #[inline(always)]
    pub fn tail_or_zero(&self) -> PacketRef {
        if self.fifo.is_empty() { SCRATCH } else { self.fifo.tail }
    }

    /// The packet that leaves next, or the pool's scratch slot if none (a prefetch target
    /// chosen without a branch).
    #[inline(always)]
    pub fn head_or_zero(&self) -> PacketRef {
        self.fifo.head_or_zero()
    }

    /// Admits, marks or drops the packet `r`. A dropped packet is left for the caller to free.
    #[inline]
    pub fn enqueue(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time) -> Admission {
        self.enqueue_within(pool, r, now, Backlog::UNBOUNDED)
    }

    /// `enqueue` with an outside bound on the data backlog (a shared buffer's room for this
    /// port, [`crate::net::buffer`]): a packet that would take the backlog past `room` in
    /// either unit is refused as by the queue's own limit (dropped, or trimmed). With
    /// `Backlog::UNBOUNDED` (a constant once inlined) this is the plain `enqueue`.
    #[inline(always)]
    pub fn enqueue_within(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time, room: Backlog) -> Admission {
        if self.features.is_some() {
            return self.enqueue_featured(pool, r, now, room);
        }
        let admission = self.admit::<false>(pool, r, now, room);
        if admission == Admission::Queued {
            self.push_data(pool, r);
        }
        admission
    }

    /// Like `enqueue` followed at once by `dequeue`, for a packet that finds the queue
    /// empty and the transmitter idle: the same marks, drops and counters, no FIFO work.
    #[inline(always)]
    pub fn pass_through(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time) -> Admission {
        self.pass_through_within(pool, r, now, Backlog::UNBOUNDED)
    }

    /// `pass_through` under an outside bound, as `enqueue_within`.
    #[inline(always)]
    pub fn pass_through_within(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time, room: Backlog) -> Admission {
        debug_assert!(self.is_empty());
        if self.features.is_some() {
            return self.pass_through_featured(pool, r, now, room);
        }
        let admission = self.admit::<false>(pool, r, now, room);
        if admission == Admission::Queued {
            self.departed::<false>(now);
        }
        admission
    }

    /// RED's idle clock for a data packet starting transmission at `now`: the disc goes
    /// idle when its last packet moves down into the device FIFO.
    #[inline(always)]
    pub(super) fn departed<const FEATURED: bool>(&mut self, now: Time) {
        if self.backlog.pkts == self.device_pkts::<FEATURED>() {
            self.marking.on_idle(now);
        }
    }

    #[inline(always)]
    fn push_data(&mut self, pool: &mut PacketPool, r: PacketRef) {
        self.fifo.push(pool, r);
        let size = pool.get(r).wire_bytes as u64;
        self.backlog.bytes += size;
        self.backlog.pkts += 1;
    }

    /// The marking and admission decision, and the counters, for one arriving packet.
    /// `FEATURED` (the path of a queue with features): a packet drop-tail rejects is
    /// offered to the control queue's trimming, and marking sees the disc above the device.
    /// `room`: the outside bound of `enqueue_within`.
    #[inline(always)]
    fn admit<const FEATURED: bool>(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time, room: Backlog) -> Admission {
        let pkt = pool.get_mut(r);
        let size = pkt.wire_bytes as u64;
        // Marking (and RED's average) sees the queue disc, as in ns-3.
        let mut verdict = self.marking.on_arrival(self.disc_backlog_of::<FEATURED>(), size, now);
        if verdict == Verdict::Mark && !pkt.has(flags::ECT) {
            // A marking queue drops what it cannot mark (RFC 3168, ns-3's RED).
            verdict = if self.marking.drops_non_ect() { Verdict::Drop } else { Verdict::Pass };
        }
        let full = self.backlog.bytes + size > self.limit_bytes.min(room.bytes)
            || self.backlog.pkts + 1 > self.limit_pkts.min(room.pkts);
        if verdict == Verdict::Drop || full {
            if FEATURED && verdict != Verdict::Drop && self.trim(pool, r) {
                return Admission::Trimmed;
            }
            self.counters.dropped_bytes += size;
            self.counters.dropped_pkts += 1;
            return Admission::Dropped;
        }
        if verdict == Verdict::Mark && !pkt.has(flags::CE) {
            pkt.flags |= flags::CE;
            self.counters.marked_bytes += size;
            self.counters.marked_pkts += 1;
        }
        let c = &mut self.counters;
        c.enqueued_bytes += size;
        c.enqueued_pkts += 1;
        c.max_bytes = c.max_bytes.max(self.backlog.bytes + size);
        c.max_pkts = c.max_pkts.max(self.backlog.pkts + 1);
        Admission::Queued
    }

    #[inline(always)]
    pub fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketRef> {
        if self.features.is_some() {
            return self.dequeue_featured(pool, now);
        }
        self.pop_data::<false>(pool, now)
    }

    #[inline(always)]
    fn pop_data<const FEATURED: bool>(&mut self, pool: &PacketPool, now: Time) -> Option<PacketRef> {
        let r = self.fifo.pop(pool)?;
        self.backlog.bytes -= pool.get(r).wire_bytes as u64;
        self.backlog.pkts -= 1;
        self.departed::<FEATURED>(now);
        Some(r)
    }

    /// Packets currently queued, front to back (data first, then control).
    pub fn packets<'a>(&self, pool: &'a PacketPool) -> impl Iterator<Item = PacketRef> + 'a {
        let control = self.features.as_ref().and_then(|f| f.control.as_ref()).map(|c| c.packets(pool));
        let data = if self.fifo.head == features::CONTROL_ONLY { Fifo::default() } else { self.fifo };
        let per_flow = self.features.as_ref().and_then(|f| f.per_flow.as_ref()).map(|q| q.packets(pool));
        data.iter(pool).chain(per_flow.into_iter().flatten()).chain(control.into_iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;
    use rand::SeedableRng;

    fn pkt(pool: &mut PacketPool, ect: bool) -> PacketRef {
        pool.alloc(Packet { wire_bytes: 1500, flags: if ect { flags::ECT } else { 0 }, ..Default::default() })
    }

    #[test]
    fn droptail_counts_and_conserves() {
        let mut pool = PacketPool::default();
        let cfg = QueueConfig { limit_pkts: 3, ..QueueConfig::unlimited() };
        let mut q = Queue::new(&cfg, 10_000_000_000, 1500, Xoshiro256PlusPlus::seed_from_u64(1));
        let admitted: Vec<_> = (0..5)
            .map(|_| {
                let r = pkt(&mut pool, true);
                q.enqueue(&mut pool, r, 0)
            })
            .collect();
        assert_eq!(admitted.iter().filter(|a| **a == Admission::Queued).count(), 3);
        assert_eq!(q.counters.dropped_pkts, 2);
        assert_eq!(q.backlog, Backlog { bytes: 4500, pkts: 3 });
        assert_eq!(q.counters.enqueued_bytes, q.backlog.bytes);
        while q.dequeue(&mut pool, 0).is_some() {}
        assert_eq!(q.backlog, Backlog::default());
    }

    fn control_queue(service: Service, data_limit_pkts: u64) -> Queue {
        let control = ControlConfig { limit: Size::Packets(4), service, trim_header_bytes: Some(64) };
        let cfg = QueueConfig { limit_pkts: data_limit_pkts, control: Some(control), ..QueueConfig::unlimited() };
        Queue::new(&cfg, 10_000_000_000, 1500, Xoshiro256PlusPlus::seed_from_u64(1))
    }

    fn ack(pool: &mut PacketPool, seq: u64) -> PacketRef {
        pool.alloc(Packet { wire_bytes: 64, kind: crate::packet::PacketKind::Ack, seq, ..Default::default() })
    }

    #[test]
    fn overflow_is_trimmed_into_the_control_queue_until_it_is_full() {
        let mut pool = PacketPool::default();
        let mut q = control_queue(Service::Strict, 2);
        let verdicts: Vec<_> = (0..8)
            .map(|_| {
                let r = pkt(&mut pool, true);
                q.enqueue(&mut pool, r, 0)
            })
            .collect();
        use Admission::*;
                assert_eq!(verdicts, [Queued, Queued, Trimmed, Trimmed, Trimmed, Trimmed, Dropped, Dropped]);
        assert_eq!(q.backlog, Backlog { bytes: 3000, pkts: 2 });
        assert_eq!(q.control_backlog(), Backlog { bytes: 256, pkts: 4 });
        assert_eq!(q.control_counters(), ControlCounters { trimmed_pkts: 4, trimmed_bytes: 6000 });
        assert_eq!(q.counters.dropped_pkts, 2);
        assert_eq!(q.counters.enqueued_bytes, 3000 + 256);
        // Strict priority: the four headers leave first, then the data.
        let left: Vec<_> = std::iter::from_fn(|| q.dequeue(&mut pool, 0)).collect();
        let order: Vec<_> = left.iter().map(|&r| pool.get(r).has(flags::TRIMMED)).collect();
        assert_eq!(order, [true, true, true, true, false, false]);
        assert!(q.is_empty());
    }

    #[test]
    fn wrr_serves_control_and_data_twenty_to_one_as_htsims_turn_counter() {
        let mut pool = PacketPool::default();
        let control = ControlConfig { limit: Size::Packets(1000), service: Service::Wrr { high: 20 }, trim_header_bytes: None };
        let cfg = QueueConfig { control: Some(control), ..QueueConfig::unlimited() };
        let mut q = Queue::new(&cfg, 10_000_000_000, 1500, Xoshiro256PlusPlus::seed_from_u64(1));
        for i in 0..50 {
            let r = ack(&mut pool, i);
            assert_eq!(q.enqueue(&mut pool, r, 0), Admission::Queued);
        }
        // Control packets alone make the queue non-empty (the data FIFO's marker).
        assert!(!q.is_empty());
        assert_eq!(q.packets(&pool).count(), 50);
        for _ in 0..3 {
            let r = pkt(&mut pool, true);
            q.enqueue(&mut pool, r, 0);
        }
        let left: Vec<_> = std::iter::from_fn(|| q.dequeue(&mut pool, 0)).collect();
        let order: String = left.iter().map(|&r| if pool.get(r).kind == crate::packet::PacketKind::Ack { 'a' } else { 'D' }).collect();
        // The turn counter starts at 0 and advances before each choice: 19 ACKs, a data
        // packet, then 20 ACKs per data packet while both wait; the rest drains alone.
        let expected = format!("{}D{}D{}D{}", "a".repeat(19), "a".repeat(20), "a".repeat(11), "");
        assert_eq!(order, expected);
    }

    #[test]
    fn step_marks_at_threshold_k() {
        let mut pool = PacketPool::default();
        let cfg = QueueConfig {
            marking: MarkingConfig::Step { threshold: Size::Packets(3) },
            ..QueueConfig::unlimited()
        };
        let mut q = Queue::new(&cfg, 10_000_000_000, 1500, Xoshiro256PlusPlus::seed_from_u64(1));
        let mut marked = Vec::new();
        for _ in 0..6 {
            let r = pkt(&mut pool, true);
            q.enqueue(&mut pool, r, 0);
            marked.push(pool.get(r).has(flags::CE));
        }
        // The 4th packet finds 3 ahead of it: the backlog has reached K.
        assert_eq!(marked, vec![false, false, false, true, true, true]);
        assert_eq!(q.counters.marked_pkts, 3);
        // Non-ECT traffic passes a step marker unmarked.
        let r = pkt(&mut pool, false);
        assert_eq!(q.enqueue(&mut pool, r, 0), Admission::Queued);
        assert!(!pool.get(r).has(flags::CE));
    }

    #[test]
    fn device_fifo_under_the_disc() {
        // A 3-packet device FIFO under a disc that marks at 2 and holds 4: the first three
        // waiting packets fill the device unmarked, marking counts the disc alone, and the
        // port holds 3 + 4 packets.
        let mut pool = PacketPool::default();
        let cfg = QueueConfig {
            limit_pkts: 4,
            marking: MarkingConfig::Step { threshold: Size::Packets(2) },
            device_pkts: 3,
            ..QueueConfig::unlimited()
        };
        let mut q = Queue::new(&cfg, 10_000_000_000, 1500, Xoshiro256PlusPlus::seed_from_u64(1));
        let mut fate = Vec::new();
        for _ in 0..9 {
            let r = pkt(&mut pool, true);
            let a = q.enqueue(&mut pool, r, 0);
            fate.push(if a == Admission::Dropped { 'D' } else if pool.get(r).has(flags::CE) { 'M' } else { '.' });
        }
        assert_eq!(fate.iter().collect::<String>(), ".....MMDD");
        assert_eq!((q.backlog.pkts, q.disc_backlog().pkts), (7, 4));
        while q.backlog.pkts > 2 {
            q.dequeue(&mut pool, 0);
        }
        assert_eq!(q.disc_backlog().pkts, 0);
    }
}
