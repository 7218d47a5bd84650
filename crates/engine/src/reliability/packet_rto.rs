//! A per-packet retransmission timeout (Uno spec section 0) whose cost does not grow with
//! the packets in flight.
//!
//! Every transmission gets the deadline `sent + rto` with one fixed `rto` per flow, so the
//! deadlines are monotone in send order and a FIFO holds them sorted: a transmission
//! appends one entry, and the flow keeps a single timer at the head's deadline. When the
//! timer fires, the head entries that expired, or that can no longer expire (their
//! segment was acknowledged or sent again since), leave the queue; the rest wait. A
//! per-segment "latest deadline" tells a stale entry from the live one.

use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct PacketRto {
    pub rto: Time,
    /// (segment, deadline) in send order.
    queue: VecDeque<(u64, Time)>,
    /// Latest deadline of each segment from `base` on.
    latest: VecDeque<Time>,
    base: u64,
    /// Timer schedulings (the world counts them here: the cost a test bounds).
    pub timer_ops: u64,
    pub transmissions: u64,
}

/// What the sender says about a segment whose entry reaches the head.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SegState {
    /// Still in flight: it times out if its deadline passed.
    InFlight,
    /// Acknowledged, SACKed or already deemed lost: the entry is dead.
    Settled,
}

impl PacketRto {
    pub fn new(rto: Time) -> Self {
        PacketRto { rto, ..Default::default() }
    }

    /// Segment `seg` (new or retransmitted) leaves at `now`.
    #[inline]
    pub fn on_transmit(&mut self, seg: u64, now: Time) {
        let deadline = now + self.rto;
        self.queue.push_back((seg, deadline));
        self.transmissions += 1;
        let i = (seg - self.base) as usize;
        if i < self.latest.len() {
            self.latest[i] = deadline;
        } else {
            // Segments skipped without being sent (an erasure-coded block decoded before
            // its last packets left) have no deadline.
            self.latest.resize(i, 0);
            self.latest.push_back(deadline);
        }
    }

    /// The transmission just recorded leaves the host `wait` later than it was handed
    /// over (it queues at the NIC): its deadline counts from then, as the artifact's
    /// `timer = now + service_time + rto`. The wait is estimated from the NIC's backlog
    /// (exact for a FIFO, an upper bound under a per-flow round robin), so a later packet
    /// could get an earlier deadline; the max() keeps the deadline queue in send order.
    pub fn delay_last(&mut self, wait: Time) {
        let n = self.queue.len();
        if n == 0 || wait == 0 {
            return;
        }
        let floor = if n >= 2 { self.queue[n - 2].1 } else { 0 };
        let (seg, deadline) = &mut self.queue[n - 1];
        *deadline = (*deadline + wait).max(floor);
        self.latest[(*seg - self.base) as usize] = *deadline;
    }

    /// When the timer should fire next.
    pub fn next_deadline(&self) -> Option<Time> {
        self.queue.front().map(|&(_, d)| d)
    }

    /// Removes dead and expired head entries; calls `timed_out` for each live expired one.
    /// `una` is the first segment not cumulatively acknowledged.
    pub fn expire(&mut self, now: Time, una: u64, state: impl Fn(u64) -> SegState, mut timed_out: impl FnMut(u64)) {
        while self.base < una && !self.latest.is_empty() {
            self.latest.pop_front();
            self.base += 1;
        }
        self.base = self.base.max(una);
        while let Some(&(seg, deadline)) = self.queue.front() {
            let dead = seg < self.base || self.latest[(seg - self.base) as usize] != deadline || state(seg) == SegState::Settled;
            if !dead && deadline > now {
                break;
            }
            self.queue.pop_front();
            if !dead {
                timed_out(seg);
            }
        }
    }

    pub fn release(&mut self) {
        self.queue = VecDeque::new();
        self.latest = VecDeque::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_latest_live_transmission_times_out() {
        let mut q = PacketRto::new(100);
        for seg in 0..4 {
            q.on_transmit(seg, seg * 10);
        }
        // Segment 1 is retransmitted at 50: its first entry (deadline 110) is stale.
        q.on_transmit(1, 50);
        assert_eq!(q.next_deadline(), Some(100));
        let mut out = Vec::new();
        // At 125: 0 was acknowledged (una = 1), 1's first copy is stale, 2 expired.
        q.expire(125, 1, |_| SegState::InFlight, |s| out.push(s));
        assert_eq!(out, vec![2]);
        assert_eq!(q.next_deadline(), Some(130));
        // Segment 3 SACKed: its entry goes without firing; 1's retransmission then expires.
        q.expire(200, 1, |s| if s == 3 { SegState::Settled } else { SegState::InFlight }, |s| out.push(s));
        assert_eq!(out, vec![2, 1]);
        assert_eq!(q.next_deadline(), None);
    }

    #[test]
    fn a_deadline_counts_from_the_nic_departure() {
        let mut q = PacketRto::new(100);
        q.on_transmit(0, 0);
        q.delay_last(50); // waited 50 at the NIC: deadline 150
        q.on_transmit(1, 10);
        q.delay_last(45); // 155
        let mut out = Vec::new();
        q.expire(149, 0, |_| SegState::InFlight, |s| out.push(s));
        assert!(out.is_empty());
        assert_eq!(q.next_deadline(), Some(150));
        q.expire(155, 0, |_| SegState::InFlight, |s| out.push(s));
        assert_eq!(out, vec![0, 1]);
    }
}
