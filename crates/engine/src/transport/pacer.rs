//! The window sender's pacer (Uno spec section 0): consecutive data packets leave at least
//! `gap = wire bytes x base RTT / cwnd` apart, or `wire bytes x 8 / rate` when the
//! congestion control sets a rate (BBR). The window or rate the gap uses is refreshed at
//! most every base RTT / 20. Integer picoseconds throughout.

use crate::units::{Time, PS_PER_SEC};

/// How often (as a fraction of the base RTT) the pacer picks up a new window or rate.
const REFRESH_PER_RTT: u64 = 20;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PaceBy {
    /// Bytes per base RTT.
    Window(u64),
    Rate(u64),
}

#[derive(Clone, Debug)]
pub struct Pacer {
    base_rtt: Time,
    refresh: Time,
    next_refresh: Time,
    by: PaceBy,
    /// Bytes each packet adds on the wire beyond its payload (headers, framing).
    overhead: u64,
    /// The earliest time the next packet may leave.
    pub next_send: Time,
}

impl Pacer {
    pub fn new(base_rtt: Time, overhead: u64) -> Self {
        Pacer { base_rtt, refresh: base_rtt / REFRESH_PER_RTT, next_refresh: 0, by: PaceBy::Window(u64::MAX), overhead, next_send: 0 }
    }

    #[inline]
    pub fn ready(&self, now: Time) -> bool {
        now >= self.next_send
    }

    /// The gap after a packet of `wire` bytes.
    pub fn gap(&self, wire: u64) -> Time {
        match self.by {
            PaceBy::Window(cwnd) => (wire as u128 * self.base_rtt as u128 / cwnd.max(1) as u128) as Time,
            PaceBy::Rate(bps) => (wire as u128 * 8 * PS_PER_SEC as u128 / bps.max(1) as u128) as Time,
        }
    }

    /// A packet of `payload` bytes leaves now; `by` gives the current window or rate,
    /// used only when a refresh is due.
    #[inline]
    pub fn sent(&mut self, now: Time, payload: u64, by: impl FnOnce() -> PaceBy) {
        if now >= self.next_refresh {
            self.by = by();
            self.next_refresh = now + self.refresh;
        }
        self.next_send = now + self.gap(payload + self.overhead);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    #[test]
    fn gaps_are_exact_and_refresh_at_most_every_twentieth_rtt() {
        // 4160-byte packets, 14.02752 us base RTT, cwnd = BDP at 100 Gbps: 332.8 ns apart.
        let mut p = Pacer::new(14_027_520, 64);
        p.sent(0, 4096, || PaceBy::Window(175_344));
        assert_eq!(p.next_send, 332_800);
        assert!(!p.ready(332_799) && p.ready(332_800));
        // Half the window: twice the gap, but only after the refresh interval (701,376 ps).
        p.sent(332_800, 4096, || PaceBy::Window(87_672));
        assert_eq!(p.next_send, 332_800 + 332_800);
        p.sent(701_376, 4096, || PaceBy::Window(87_672));
        assert_eq!(p.next_send, 701_376 + 665_600);
        // A rate: 4160 B at 10 Gbps = 3.328 us.
        let mut r = Pacer::new(10 * PS_PER_US, 64);
        r.sent(5, 4096, || PaceBy::Rate(10_000_000_000));
        assert_eq!(r.next_send, 5 + 3_328_000);
    }
}
