//! TCP Small Queues (Linux `tcp_small_queue_check`): a host stack hands a flow's segments
//! to its NIC only while fewer than a small number of that flow's bytes wait there; the
//! rest stay in the socket, where the window does not grow for them (the flow is not
//! cwnd-limited). Without it, a host's NIC queue holds every flow's whole window.
//!
//! A flow's bytes count from when a segment is queued at the NIC until its last bit has
//! left (Linux: until the NIC reports the transmission done). The NIC is a FIFO, so each
//! segment's departure is known when it is queued, and the flow keeps them in a small
//! ring: one entry per segment in the NIC, never more than the limit allows.

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
#[derive(Clone, Debug)]
pub struct SmallQueues {
    /// (when the segment's last bit leaves the NIC, its wire bytes), in FIFO order.
    leaving: VecDeque<(Time, u32)>,
    /// Their bytes.
    pub bytes: u64,
    /// When the oldest leaves (`Time::MAX`: none): the common "nothing left yet" test
    /// reads the flow, not the deque's buffer (a cache miss per send otherwise).
    head_done: Time,
}

impl Default for SmallQueues {
    fn default() -> Self {
        SmallQueues { leaving: VecDeque::new(), bytes: 0, head_done: Time::MAX }
    }
}

impl SmallQueues {
    /// Forgets the segments that have left by `now`.
    #[inline(always)]
    pub fn drain(&mut self, now: Time) {
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

    pub fn push(&mut self, done: Time, bytes: u32) {
        if self.leaving.is_empty() {
            self.head_done = done;
        }
        self.leaving.push_back((done, bytes));
        self.bytes += bytes as u64;
    }

    /// When the oldest segment still in the NIC leaves.
    pub fn next_departure(&self) -> Option<Time> {
        (self.head_done != Time::MAX).then_some(self.head_done)
    }

    pub fn release(&mut self) {
        self.leaving = VecDeque::new();
        self.bytes = 0;
        self.head_done = Time::MAX;
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
        q.push(100, 1500);
        q.push(220, 1500);
        assert_eq!((q.bytes, q.next_departure()), (3000, Some(100)));
        q.drain(99);
        assert_eq!(q.bytes, 3000);
        q.drain(100);
        assert_eq!((q.bytes, q.next_departure()), (1500, Some(220)));
        q.drain(1000);
        assert_eq!((q.bytes, q.next_departure()), (0, None));
    }
}
