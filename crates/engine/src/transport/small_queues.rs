//! TCP Small Queues (Linux `tcp_small_queue_check`): a host stack hands a flow's segments
//! to its NIC only while fewer than a small number of that flow's bytes wait there; the
//! rest stay in the socket, where the window does not grow for them (the flow is not
//! cwnd-limited). Without it, a host's NIC queue holds every flow's whole window.
//!
//! A flow's bytes count from when a segment is queued at the NIC until its last bit has
//! left (Linux: until the NIC reports the transmission done). The NIC is a FIFO, so each
//! segment's departure is known when it is queued, and the flow keeps them in a small
//! ring: one entry per segment that may still be in the NIC.

use crate::units::{Time, PS_PER_SEC};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct TsqConfig {
    /// `tcp_limit_output_bytes`: the most a flow may have in its NIC.
    pub limit_output: u64,
    /// Wire bytes of one full segment: the limit is never below two.
    pub packet: u64,
}

impl TsqConfig {
    /// The flow's limit (`tcp_small_queue_check`): about 1 ms at its pacing rate (`rate >>
    /// 10`), at least two packets, at most `limit_output`. An unpaced Linux flow's pacing
    /// rate is 2 cwnd / srtt in slow start (below half ssthresh), 1.2 cwnd / srtt after.
    pub fn limit(&self, cwnd: u64, ssthresh: u64, srtt: Time) -> u64 {
        // 1/1024 s at percent x cwnd / srtt: cwnd x percent x 1e12 / (100 x 1024 x srtt). The
        // constant percent x 1e10 / 1024 is an exact integer for both rates, so one u64
        // multiply and divide on every send (a u128 division cost 5% of a fat-tree run).
        const SLOW_START: u64 = 200 * (PS_PER_SEC / 100) / 1024;
        const AVOIDANCE: u64 = 120 * (PS_PER_SEC / 100) / 1024;
        const _: () = assert!(200 * (PS_PER_SEC / 100) % 1024 == 0 && 120 * (PS_PER_SEC / 100) % 1024 == 0);
        let k = if cwnd < ssthresh / 2 { SLOW_START } else { AVOIDANCE };
        let burst = match cwnd.checked_mul(k) {
            Some(x) => x / srtt.max(1),
            None => u64::try_from(cwnd as u128 * k as u128 / srtt.max(1) as u128).unwrap_or(u64::MAX),
        };
        burst.max(2 * self.packet).min(self.limit_output.max(2 * self.packet))
    }
}

/// One flow's segments waiting in, or leaving, its host's NIC.
///
/// The ring is read as little as possible: its oldest entries were written an ACK earlier
/// and are cold by the next send (reading them on every send cost 5% of a fat-tree run).
/// When the newest segment has left, so have all (the NIC is a FIFO) and the ring is
/// emptied unread, which is the common case of a flow its NIC keeps up with. Otherwise
/// `bytes` may still count segments that have left: an upper bound, made exact only when
/// it exceeds the flow's limit or the ring holds `DRAIN_BATCH` segments.
#[derive(Clone, Debug)]
pub struct SmallQueues {
    /// (when the segment's last bit leaves the NIC, its wire bytes), in FIFO order.
    leaving: VecDeque<(Time, u32)>,
    /// Their bytes, some perhaps gone already (see the type's comment).
    bytes: u64,
    /// When the oldest in the ring leaves (`Time::MAX`: none): the common "nothing left
    /// yet" test reads the flow, not the ring's buffer.
    head_done: Time,
    /// When the newest in the ring leaves (0: none).
    tail_done: Time,
}

/// Segments the ring holds before it is drained even though no decision needs it: keeps a
/// long flow's ring small whatever its limit.
const DRAIN_BATCH: usize = 32;

impl Default for SmallQueues {
    fn default() -> Self {
        SmallQueues { leaving: VecDeque::new(), bytes: 0, head_done: Time::MAX, tail_done: 0 }
    }
}

impl SmallQueues {
    /// Where the ring's next entry goes (for prefetching).
    pub fn back_ptr(&self) -> *const u8 {
        super::ring_ends(&self.leaving).1
    }

    /// At least the flow's bytes in the NIC at `now`: cheap, with no look at the ring.
    #[inline(always)]
    pub fn bytes_upper(&mut self, now: Time) -> u64 {
        self.forget_if_all_left(now);
        self.bytes
    }

    /// Empties the ring unread once its newest segment has left by `now`.
    #[inline(always)]
    fn forget_if_all_left(&mut self, now: Time) {
        if self.tail_done <= now {
            // O(1) for entries without destructors; the next push reuses the first slot.
            self.leaving.clear();
            self.bytes = 0;
            self.head_done = Time::MAX;
        }
    }

    /// Whether more than `limit` of the flow's bytes are still in the NIC at `now`.
    #[inline(always)]
    pub fn exceeds(&mut self, now: Time, limit: u64) -> bool {
        self.bytes > limit && {
            self.drain(now);
            self.bytes > limit
        }
    }

    /// The flow's bytes still in the NIC at `now` (what the decisions above rest on).
    #[cfg(test)]
    pub fn bytes_at(&mut self, now: Time) -> u64 {
        self.drain(now);
        self.bytes
    }

    /// Forgets the segments that have left by `now`.
    fn drain(&mut self, now: Time) {
        if self.head_done > now {
            return;
        }
        while let Some(&(done, bytes)) = self.leaving.front() {
            if done > now {
                break;
            }
            self.bytes -= bytes as u64;
            self.leaving.pop_front();
        }
        self.head_done = self.leaving.front().map_or(Time::MAX, |&(t, _)| t);
    }

    /// A segment of `bytes` queued at `now` whose last bit leaves the NIC at `done`.
    #[inline(always)]
    pub fn push(&mut self, now: Time, done: Time, bytes: u32) {
        self.forget_if_all_left(now);
        if self.leaving.len() >= DRAIN_BATCH {
            self.drain(now);
        }
        if self.leaving.is_empty() {
            self.head_done = done;
        }
        self.leaving.push_back((done, bytes));
        self.bytes += bytes as u64;
        self.tail_done = done;
    }

    /// When the oldest segment still in the NIC leaves, as of the last exact count.
    pub fn next_departure(&self) -> Option<Time> {
        (self.head_done != Time::MAX).then_some(self.head_done)
    }

    pub fn release(&mut self) {
        self.leaving = VecDeque::new();
        self.bytes = 0;
        self.head_done = Time::MAX;
        self.tail_done = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{PS_PER_MS, PS_PER_US};

    #[test]
    fn limit_is_a_millisecond_at_the_pacing_rate_within_its_bounds() {
        let cfg = TsqConfig { limit_output: 1 << 20, packet: 1500 };
        // 10 packets over 100 us in slow start: 2 x 150 MB/s = 300 MB/s; 1/1024 s of it.
        let l = cfg.limit(15_000, u64::MAX, 100 * PS_PER_US);
        assert_eq!(l, 300_000_000 >> 10);
        // After slow start the rate is 1.2 cwnd/srtt.
        assert_eq!(cfg.limit(15_000, 20_000, 100 * PS_PER_US), 180_000_000 >> 10);
        // Never below two packets, never above tcp_limit_output_bytes.
        assert_eq!(cfg.limit(1500, u64::MAX, 100 * PS_PER_MS), 3000);
        assert_eq!(cfg.limit(10_000_000, u64::MAX, 10 * PS_PER_US), 1 << 20);
    }

    #[test]
    fn bytes_leave_when_their_last_bit_does() {
        let mut q = SmallQueues::default();
        q.push(0, 100, 1500);
        q.push(0, 220, 1500);
        assert_eq!((q.bytes_at(0), q.next_departure()), (3000, Some(100)));
        assert_eq!(q.bytes_at(99), 3000);
        assert_eq!((q.bytes_at(100), q.next_departure()), (1500, Some(220)));
        assert_eq!((q.bytes_at(1000), q.next_departure()), (0, None));
    }

    #[test]
    fn the_limit_is_judged_on_the_exact_count() {
        let mut q = SmallQueues::default();
        q.push(0, 100, 1500);
        q.push(0, 220, 1500);
        // Unread, both still count; judged at 150, only the second does.
        assert_eq!(q.bytes_upper(50), 3000);
        assert!(q.exceeds(50, 2000));
        assert!(!q.exceeds(150, 2000));
        assert_eq!(q.bytes_upper(150), 1500);
        // Once the newest has left, so has everything.
        assert_eq!(q.bytes_upper(220), 0);
        assert_eq!(q.next_departure(), None);
    }

    #[test]
    fn a_long_flow_keeps_a_small_ring() {
        let mut q = SmallQueues::default();
        for i in 0..10_000u64 {
            q.push(i * 10, i * 10 + 5, 1500);
            assert!(q.leaving.len() <= DRAIN_BATCH + 1);
        }
        assert_eq!(q.bytes_at(100_000), 0);
    }
}
