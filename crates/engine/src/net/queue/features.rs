//! The queue's optional features behind one pointer: the control queue (with trimming)
//! marking at dequeue (with the phantom queue), the device FIFO under the disc, and the
//! link's failures and drop models (`net::faults`, judged before anything else). The hot
//! path tests the pointer once and comes here only when some feature is on, so a queue
//! without them runs the same code as before they existed.
//!
//! So that `Queue::is_empty` stays one test, a data FIFO that is empty while the control
//! queue holds packets has `CONTROL_ONLY` as its head. Every entry point here removes the
//! marker first and restores it last; the data FIFO is touched nowhere else.

use super::control::{header_only, ControlCounters, ControlQueue};
use super::dequeue_red::DequeueRed;
use super::per_flow::PerFlow;
use super::marking::MarkingConfig;
use super::{Admission, Backlog, Queue, QueueConfig};
use crate::net::faults::{FaultCounters, LinkFaults};
use crate::packet::{flags, PacketKind, PacketPool, PacketRef, NIL};
use crate::units::Time;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The data FIFO's head while it is empty and the control queue is not (never a slot).
pub const CONTROL_ONLY: PacketRef = NIL - 1;

#[derive(Default)]
pub struct Features {
    pub control: Option<ControlQueue>,
    pub dequeue: Option<DequeueRed>,
    /// Packets of the device FIFO under the queue disc (0: none), see `Queue::disc_backlog`.
    pub device_pkts: u64,
    /// Round robin among flows: the data FIFO holds the packet that leaves next, the rest
    /// wait here.
    pub per_flow: Option<PerFlow>,
    /// The link's failures and drop models on their timeline (`[[event]]`).
    pub faults: Option<LinkFaults>,
}

impl Features {
    pub fn new(config: &QueueConfig, rate_bps: u64, mean_pkt_bytes: u64, rng: Xoshiro256PlusPlus) -> Option<Box<Features>> {
        let dequeue = match &config.marking {
            MarkingConfig::Dequeue(c) => Some(DequeueRed::new(c, rate_bps, mean_pkt_bytes, rng)),
            _ => None,
        };
        let control = config.control.as_ref().map(ControlQueue::new);
        let device_pkts = config.device_pkts;
        let per_flow = config.per_flow.then(PerFlow::default);
        (control.is_some() || dequeue.is_some() || device_pkts > 0 || per_flow.is_some())
            .then(|| Box::new(Features { control, dequeue, device_pkts, per_flow, faults: None }))
    }

    fn control_is_empty(&self) -> bool {
        self.control.as_ref().map_or(true, |c| c.is_empty())
    }
}

impl Queue {
    /// The device FIFO's size on the featured path; 0 on the plain one.
    #[inline(always)]
    pub(super) fn device_pkts<const FEATURED: bool>(&self) -> u64 {
        if FEATURED { self.features.as_ref().map_or(0, |f| f.device_pkts) } else { 0 }
    }

    fn features(&mut self) -> &mut Features {
        self.features.as_mut().expect("queue features")
    }

    /// Takes the control-only marker off the data FIFO.
    fn unmark(&mut self) {
        if self.fifo.head == CONTROL_ONLY {
            self.fifo.head = NIL;
        }
    }

    /// Puts the marker on an empty data FIFO while control packets wait.
    fn remark(&mut self) {
        if self.fifo.head == NIL && !self.features().control_is_empty() {
            self.fifo.head = CONTROL_ONLY;
        }
    }

    /// Gives the port a timeline of failures and drop models. The port then takes the
    /// featured path (the plain one never looks for faults).
    pub fn set_faults(&mut self, faults: LinkFaults) {
        self.features.get_or_insert_with(Box::default).faults = Some(faults);
    }

    /// What the port's faults dropped (`None`: it has none).
    pub fn fault_counters(&self) -> Option<FaultCounters> {
        self.features.as_ref().and_then(|f| f.faults.as_ref()).map(|l| l.counters)
    }

    /// Whether the port's faults drop packet `r`, offered at `now` (before the queue sees
    /// it: a lost packet feeds no phantom queue and is no buffer drop).
    #[inline]
    fn lost_to_faults(&mut self, pool: &PacketPool, r: PacketRef, now: Time) -> bool {
        match self.features.as_mut().and_then(|f| f.faults.as_mut()) {
            Some(faults) => faults.drops(now, pool.get(r).wire_bytes as u64),
            None => false,
        }
    }

    /// Header-only bytes and packets waiting in the control queue.
    pub fn control_backlog(&self) -> Backlog {
        self.features.as_ref().and_then(|f| f.control.as_ref()).map_or(Backlog::default(), |c| c.backlog)
    }

    pub fn control_counters(&self) -> ControlCounters {
        self.features.as_ref().and_then(|f| f.control.as_ref()).map_or(ControlCounters::default(), |c| c.counters)
    }

    /// Bytes the last trim cut off (for the world's byte accounting).
    pub fn last_trim_cut_bytes(&self) -> u64 {
        self.features.as_ref().and_then(|f| f.control.as_ref()).map_or(0, |c| c.last_cut_bytes)
    }

    /// The phantom queue's counter at `now` (0 without one).
    pub fn phantom_bytes(&mut self, now: Time) -> u64 {
        self.features.as_mut().and_then(|f| f.dequeue.as_mut()).and_then(|d| d.phantom_level(now)).unwrap_or(0)
    }

    /// Routes header-only packets to the control queue and feeds the phantom queue; the
    /// rest is the ordinary admission, with trimming.
    #[inline(never)]
    pub(super) fn enqueue_featured(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time, room: Backlog) -> Admission {
        if self.lost_to_faults(pool, r, now) {
            return Admission::Dropped;
        }
        self.unmark();
        let admission = self.enqueue_unmarked(pool, r, now, room);
        self.remark();
        admission
    }

    fn enqueue_unmarked(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time, room: Backlog) -> Admission {
        if let Some(a) = self.arrive_featured(pool, r, now) {
            return a;
        }
        let admission = self.admit::<true>(pool, r, now, room);
        if admission == Admission::Queued {
            match self.features.as_mut().and_then(|f| f.per_flow.as_mut()) {
                Some(q) if !self.fifo.is_empty() => {
                    q.push(pool, r);
                    self.backlog.bytes += pool.get(r).wire_bytes as u64;
                    self.backlog.pkts += 1;
                }
                _ => self.push_data(pool, r),
            }
        }
        admission
    }

    #[inline(never)]
    pub(super) fn pass_through_featured(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time, room: Backlog) -> Admission {
        debug_assert!(self.fifo.head == NIL, "pass-through with packets waiting");
        if self.lost_to_faults(pool, r, now) {
            return Admission::Dropped;
        }
        if let Some(a) = self.arrive_featured(pool, r, now) {
            if a == Admission::Queued {
                let left = self.features().control.as_mut().and_then(|c| c.pop(pool));
                debug_assert_eq!(left, Some(r));
            }
            return a;
        }
        let admission = self.admit::<true>(pool, r, now, room);
        if admission == Admission::Queued {
            self.departed::<true>(now);
            self.mark_at_dequeue(pool, r, now);
        }
        admission
    }

    /// A header-only packet's admission to the control queue (`Some`), or `None` for a
    /// data packet (which the phantom queue counts whatever becomes of it).
    fn arrive_featured(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time) -> Option<Admission> {
        let pkt = pool.get(r);
        let size = pkt.wire_bytes as u64;
        let f = self.features.as_mut().expect("queue features");
        if let (Some(c), true) = (&mut f.control, header_only(pkt)) {
            if c.push(pool, r) {
                self.counters.enqueued_bytes += size;
                self.counters.enqueued_pkts += 1;
                return Some(Admission::Queued);
            }
            self.counters.dropped_bytes += size;
            self.counters.dropped_pkts += 1;
            return Some(Admission::Dropped);
        }
        if let (Some(d), PacketKind::Data) = (&mut f.dequeue, pkt.kind) {
            d.on_arrival(size, now);
        }
        None
    }

    /// Cuts data packet `r` into the control queue; false if it cannot be (then dropped).
    #[cold]
    pub(super) fn trim(&mut self, pool: &mut PacketPool, r: PacketRef) -> bool {
        let Some(c) = self.features().control.as_mut() else { return false };
        let Some(header) = c.trim(pool, r) else { return false };
        self.counters.enqueued_bytes += header as u64;
        self.counters.enqueued_pkts += 1;
        true
    }

    #[inline(never)]
    pub(super) fn dequeue_featured(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketRef> {
        self.unmark();
        let r = self.dequeue_unmarked(pool, now);
        self.remark();
        r
    }

    fn dequeue_unmarked(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketRef> {
        let data_waiting = !self.fifo.is_empty();
        let from_control = self.features().control.as_mut().is_some_and(|c| c.serve_next(data_waiting));
        if from_control {
            let r = self.features().control.as_mut()?.pop(pool)?;
            // htsim marks a trimmed header too, from the data queue's state.
            if pool.get(r).has(flags::TRIMMED) {
                self.mark_at_dequeue(pool, r, now);
            }
            return Some(r);
        }
        let r = self.pop_data::<true>(pool, now)?;
        if self.fifo.is_empty() {
            // The next flow's packet becomes the head (already counted in the backlog).
            if let Some(next) = self.features().per_flow.as_mut().and_then(|q| q.pop(pool)) {
                self.fifo.push(pool, next);
            }
        }
        self.mark_at_dequeue(pool, r, now);
        Some(r)
    }

    /// Marks ECN-capable packet `r`, leaving at `now`, if the dequeue marker says so.
    fn mark_at_dequeue(&mut self, pool: &mut PacketPool, r: PacketRef, now: Time) {
        let backlog = self.backlog;
        let Some(d) = self.features().dequeue.as_mut() else { return };
        let pkt = pool.get_mut(r);
        if pkt.kind != PacketKind::Data || !pkt.has(flags::ECT) {
            return;
        }
        if d.on_departure(backlog, now) && !pkt.has(flags::CE) {
            pkt.flags |= flags::CE;
            self.counters.marked_bytes += pkt.wire_bytes as u64;
            self.counters.marked_pkts += 1;
        }
    }
}
