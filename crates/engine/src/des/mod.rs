//! Discrete-event core: a calendar queue on integer time and the closed set of events.
//!
//! Ordering guarantee: events pop in time order; events with equal time pop in the order
//! they were scheduled. Runs are therefore a pure function of the scenario and seed.

mod bucket_sort;
mod calendar;

pub use calendar::{Calendar, FAR_PAD};

/// How many ports a run can have: an arrival event names its port in 24 bits (checked when
/// the scenario is read, `scenario::net`).
pub const PORT_LIMIT: usize = 1 << 24;

use crate::units::Time;

/// What happens at an instant. Closed: the run loop dispatches with one `match`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// The oldest packet on a port's wire reaches the far node (last bit, store-and-forward).
    Arrive = 0,
    /// A flow's sender starts.
    FlowStart = 1,
    /// A flow's retransmission timer, valid if its generation still matches.
    Rto = 2,
    /// A receiver's delayed-ACK timer, valid if its generation still matches.
    DelayedAck = 3,
    /// A workload generates its next arrival (open-loop Poisson).
    Arrival = 4,
    /// Periodic queue-depth sampling.
    Sample = 5,
    /// A request/response incast starts its next burst (index: the rpc workload).
    Burst = 6,
    /// The receiver sends one request of the current burst (index: the connection's flow).
    Request = 7,
    /// A sender writes its response (index: the connection's flow).
    Respond = 8,
    /// Periodic sampling of the senders' windows.
    SampleWindows = 9,
    /// A paced flow may send its next packet.
    Pace = 10,
    /// A flow's per-packet retransmission deadline (the head of its deadline queue).
    PacketRto = 11,
    /// A naive proxy's NIC is free: its onward connections take their next turn (index:
    /// the proxy's turn order).
    ProxyTurn = 12,
    /// A flow held back by TCP Small Queues: one of its segments has left its NIC.
    Wake = 13,
    /// A shared buffer's periodic threshold recomputation (index: the buffer).
    BufferTick = 14,
    /// A receiver's erasure-coded block timer (`ec_wait`), valid if its generation still
    /// matches (index: the flow).
    EcWait = 15,
}

#[cfg(test)]
const KINDS: [EventKind; 16] = [
    EventKind::Arrive,
    EventKind::FlowStart,
    EventKind::Rto,
    EventKind::DelayedAck,
    EventKind::Arrival,
    EventKind::Sample,
    EventKind::Burst,
    EventKind::Request,
    EventKind::Respond,
    EventKind::SampleWindows,
    EventKind::Pace,
    EventKind::PacketRto,
    EventKind::ProxyTurn,
    EventKind::Wake,
    EventKind::BufferTick,
    EventKind::EcWait,
];

/// An event is packed into 8 bytes: kind (8 bits), a 24-bit field and a 32-bit index. The
/// index names the flow, workload or packet the event concerns; the 24-bit field holds a
/// timer's generation or, for an arrival, the port.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Event(u64);

impl Event {
    /// No event (what [`Schedule::peek_ready`] gives when it has none at hand): of no kind,
    /// so neither an arrival nor a timer the run loop would act on; its port and index are
    /// 0, so prefetching for it touches port 0 (as the arriving and the egress port).
    pub const NONE: Event = Event(0xFF << 56);

    #[inline(always)]
    pub fn new(kind: EventKind, index: u32) -> Self {
        Event(((kind as u64) << 56) | index as u64)
    }

    #[inline(always)]
    pub fn timer(kind: EventKind, index: u32, generation: u32) -> Self {
        Event(((kind as u64) << 56) | (((generation & 0xFF_FFFF) as u64) << 32) | index as u64)
    }

    /// An arrival of the head of `port`'s wire at its far end, which forwards it on port
    /// `hop` (a switch; a host ignores it). Ports are below 2^24.
    #[inline(always)]
    pub fn arrival(port: u32, hop: u32) -> Self {
        debug_assert!((port as usize) < PORT_LIMIT);
        Event(((EventKind::Arrive as u64) << 56) | ((port as u64) << 32) | hop as u64)
    }

    /// The 24-bit field: the port of an arrival.
    #[inline(always)]
    pub fn port(self) -> u32 {
        ((self.0 >> 32) & 0xFF_FFFF) as u32
    }

    #[inline(always)]
    pub fn kind(self) -> EventKind {
        match self.0 >> 56 {
            0 => EventKind::Arrive,
            1 => EventKind::FlowStart,
            2 => EventKind::Rto,
            3 => EventKind::DelayedAck,
            4 => EventKind::Arrival,
            5 => EventKind::Sample,
            6 => EventKind::Burst,
            7 => EventKind::Request,
            8 => EventKind::Respond,
            9 => EventKind::SampleWindows,
            10 => EventKind::Pace,
            11 => EventKind::PacketRto,
            12 => EventKind::ProxyTurn,
            13 => EventKind::Wake,
            14 => EventKind::BufferTick,
            _ => EventKind::EcWait,
        }
    }

    /// Cheaper than `kind() == Arrive` on the hot path (the arrival kind is 0).
    #[inline(always)]
    pub fn is_arrival(self) -> bool {
        self.0 >> 56 == 0
    }

    #[inline(always)]
    pub fn index(self) -> u32 {
        self.0 as u32
    }

    /// The timer generation, truncated to 24 bits; compare with [`Event::same_generation`].
    #[inline(always)]
    pub fn generation(self) -> u32 {
        ((self.0 >> 32) & 0xFF_FFFF) as u32
    }

    #[inline(always)]
    pub fn same_generation(self, generation: u32) -> bool {
        self.generation() == generation & 0xFF_FFFF
    }
}

/// The schedule: a calendar queue of `(time, event)` plus counters.
pub struct Schedule {
    heap: Calendar<Event>,
    now: Time,
    pub events: u64,
}

impl Default for Schedule {
    fn default() -> Self {
        Self::new(0)
    }
}

/// Calendar buckets of 2^13 ps (8 ns): a handful of events each at tens of millions of events per
/// simulated second.
const BUCKET_SHIFT: u32 = 13;

impl Schedule {
    /// `span_ps`: how far ahead most events are scheduled (a packet's serialization plus its
    /// link's delay); the wheel covers at least twice that, and later events wait in a heap.
    pub fn new(span_ps: u64) -> Self {
        let buckets = (2 * span_ps >> BUCKET_SHIFT).max(1).next_power_of_two();
        let slots_log2 = buckets.trailing_zeros().clamp(calendar::MIN_SLOTS_LOG2, calendar::MAX_SLOTS_LOG2);
        Schedule { heap: Calendar::new(BUCKET_SHIFT, slots_log2, Event::NONE), now: 0, events: 0 }
    }

    #[inline(always)]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `ev` at absolute time `at` (never in the past).
    #[inline(always)]
    pub fn at(&mut self, at: Time, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.heap.push(at, ev);
    }

    #[inline(always)]
    pub fn after(&mut self, delay: Time, ev: Event) {
        self.heap.push(self.now + delay, ev);
    }

    /// The next event if it is due no later than `limit`; advances the clock.
    #[inline(always)]
    pub fn pop_until(&mut self, limit: Time) -> Option<Event> {
        let (t, ev) = self.heap.pop_until(limit)?;
        self.now = t;
        self.events += 1;
        Some(ev)
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// When the next event is due, if any (a look for a partitioned run's next window).
    pub fn next_time(&self) -> Option<Time> {
        self.heap.peek_key()
    }

    /// Keeps only the events `keep` accepts, in their order.
    pub fn retain(&mut self, keep: impl FnMut(Time, &Event) -> bool) {
        self.heap.retain(keep);
    }

    /// Drops every pending event: the run is over before its schedule is.
    pub fn clear(&mut self) {
        self.heap.clear();
    }

    /// The event `k` places after the next one, when it is already at hand (for
    /// prefetching): `peek_ready(0)` is the next event. Else [`Event::NONE`].
    #[inline(always)]
    pub fn peek_ready(&self, k: usize) -> Event {
        self.heap.peek_ahead(k)
    }

    /// Keeps `FAR_PAD` entries of padding past the current bucket from now on (`far`), or
    /// 3, so that `peek_padded` reaches that far in one read.
    pub fn set_far_padding(&mut self, far: bool) {
        self.heap.set_far_padding(far);
    }

    /// `peek_ready` without its clamp.
    ///
    /// # Safety
    /// `k` is below `FAR_PAD` after `set_far_padding(true)`, else below 3.
    #[inline(always)]
    pub unsafe fn peek_padded(&self, k: usize) -> Event {
        // SAFETY: the caller's.
        unsafe { self.heap.peek_padded(k) }
    }


    /// Moves the clock forward to `t` when no event is due before it.
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
            self.heap.skip_to(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_packing_round_trips() {
        let e = Event::timer(EventKind::Rto, 123_456, 0x1234_5678);
        assert_eq!(e.kind(), EventKind::Rto);
        assert_eq!(e.index(), 123_456);
        assert!(e.same_generation(0x1234_5678));
        assert!(!e.same_generation(0x1234_5679));
        for k in KINDS {
            assert_eq!(Event::new(k, u32::MAX).kind(), k);
        }
        assert!(!Event::NONE.is_arrival());
        assert_eq!((Event::NONE.port(), Event::NONE.index()), (0, 0));
    }
}
