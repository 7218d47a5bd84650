//! BBR's delivery-rate samples without per-packet state. A sample is the bytes delivered
//! between a packet's departure and its ACK over that interval (the packet's RTT sample);
//! the bytes delivered when the packet left come from a short history of the flow's
//! delivered count, checkpointed at ACKs, instead of a field carried by every packet.
//!
//! As the Uno artifact's `BBRSrc::processAck` counts it: the ACK's own bytes are left out
//! (it subtracts one packet), and bytes are counted on the wire (payload plus headers), so
//! the rate paces wire bytes. Checkpoints are at least base RTT / 64 apart; a packet that
//! left between two of them is credited with the count interpolated between them (exact
//! when ACKs are evenly spaced; never off by more than one step's deliveries, 1/64 of a
//! base RTT's worth). The history keeps 512 checkpoints (8 base RTTs when ACKs are dense);
//! a packet older than all of them is credited with the oldest, which can only lower its
//! sample.

use crate::units::{Time, PS_PER_SEC};
use std::collections::VecDeque;

const STEPS_PER_RTT: Time = 64;
const CHECKPOINTS: usize = 512;

/// The ACKs of one step: the first and the last, each with the bytes delivered after it.
#[derive(Copy, Clone, Debug)]
struct Checkpoint {
    first: Time,
    after_first: u64,
    last: Time,
    after_last: u64,
}

#[derive(Clone, Debug)]
pub struct DeliveryRate {
    step: Time,
    /// Wire bytes delivered so far.
    delivered: u64,
    history: VecDeque<Checkpoint>,
}

impl DeliveryRate {
    pub fn new(base_rtt: Time) -> Self {
        DeliveryRate { step: (base_rtt / STEPS_PER_RTT).max(1), delivered: 0, history: VecDeque::new() }
    }

    /// An ACK at `now` delivered `wire_bytes` for a packet sent at `now - rtt`: the rate, in
    /// bits per second, at which the other ACKs since its departure delivered bytes (None
    /// without an RTT sample).
    pub fn on_ack(&mut self, now: Time, rtt: Time, wire_bytes: u64) -> Option<f64> {
        // A sample reaching before time 0 (only in hand-made tests) starts there.
        let before = (rtt > 0).then(|| self.delivered_at(now.saturating_sub(rtt)));
        self.delivered += wire_bytes;
        self.checkpoint(now);
        let others = self.delivered - wire_bytes - before?;
        Some(others as f64 * 8.0 * PS_PER_SEC as f64 / rtt as f64)
    }

    /// Bytes delivered by `t`: exact outside a step's first and last ACK, interpolated
    /// between them inside.
    fn delivered_at(&self, t: Time) -> u64 {
        let i = self.history.partition_point(|c| c.first <= t);
        let Some(c) = i.checked_sub(1).map(|i| self.history[i]) else {
            return self.history.front().map_or(0, |c| self.oldest_credit(c.after_first));
        };
        if t >= c.last {
            return c.after_last;
        }
        let share = (c.after_last - c.after_first) as u128 * (t - c.first) as u128 / (c.last - c.first) as u128;
        c.after_first + share as u64
    }

    /// A packet older than the history is credited with its oldest count, unless nothing
    /// was ever dropped from it (then nothing had been delivered before the first ACK).
    fn oldest_credit(&self, oldest: u64) -> u64 {
        if self.history.len() < CHECKPOINTS {
            0
        } else {
            oldest
        }
    }

    fn checkpoint(&mut self, now: Time) {
        let delivered = self.delivered;
        match self.history.back_mut() {
            Some(c) if now < c.first + self.step => (c.last, c.after_last) = (now, delivered),
            _ => {
                if self.history.len() == CHECKPOINTS {
                    self.history.pop_front();
                }
                self.history.push_back(Checkpoint { first: now, after_first: delivered, last: now, after_last: delivered });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    #[test]
    fn a_sample_counts_the_other_acks_since_the_packet_left() {
        // 64 us base RTT: checkpoints 1 us apart. ACKs of 1,000 B every 2 us from t = 10 us.
        let mut r = DeliveryRate::new(64 * PS_PER_US);
        let mut samples = vec![];
        for k in 0..20u64 {
            let now = (10 + 2 * k) * PS_PER_US;
            // Each ACK answers a packet sent 20 us earlier (before t = 10 us: nothing delivered).
            samples.push(r.on_ack(now, 20 * PS_PER_US, 1_000).unwrap());
        }
        // The first ACK: nothing else delivered since its packet left.
        assert_eq!(samples[0], 0.0);
        // At k = 15 (t = 40 us), its packet left at 20 us, after the ACKs at 10..=20 us
        // (6 of them): ACKs at 22..=38 us (9) delivered 9,000 B in 20 us = 3.6 Gb/s.
        assert!((samples[15] - 3.6e9).abs() < 1.0, "{}", samples[15]);
        assert_eq!(r.on_ack(100 * PS_PER_US, 0, 1_000), None, "no RTT, no sample");
    }

    #[test]
    fn dense_acks_share_a_checkpoint_and_interpolate_to_within_one_ack() {
        // 6.4 us base RTT: 100 ns steps. ACKs of 100 B every 10 ns: ten per step.
        let mut r = DeliveryRate::new(6_400_000);
        for k in 1..=1_000u64 {
            r.on_ack(k * 10_000, 0, 100);
        }
        assert!(r.history.len() <= 101, "{}", r.history.len());
        // A packet sent at 5,045 ns (after 504 ACKs, 50,400 B) and ACKed at 10,010 ns: the
        // 496 ACKs at 5,050..=10,000 ns delivered 49,600 B in 4,965 ns. Its step holds the
        // ACKs at 5,010..=5,100 ns, and evenly spaced ACKs interpolate to within one ACK.
        let exact = 49_600.0 * 8.0 * 1e12 / 4_965_000.0;
        let s = r.on_ack(10_010_000, 4_965_000, 100).unwrap();
        let one_ack = 100.0 * 8.0 * 1e12 / 4_965_000.0;
        assert!((s - exact).abs() <= one_ack, "{s} vs {exact}");
    }

    #[test]
    fn the_history_is_bounded() {
        let mut r = DeliveryRate::new(64 * PS_PER_US);
        for k in 1..=10_000u64 {
            r.on_ack(k * PS_PER_US, 0, 1_000);
        }
        assert_eq!(r.history.len(), CHECKPOINTS);
        // Older than the history: credited with the oldest count (9,489,000 B at 9,489 us),
        // so the sample is no larger than the true one.
        let s = r.on_ack(10_001 * PS_PER_US, 10_000 * PS_PER_US, 1_000).unwrap();
        let oldest = (10_000 - CHECKPOINTS as u64 + 1) * 1_000;
        assert_eq!(s, (10_000_000 - oldest) as f64 * 8.0 * 1e12 / (10_000.0 * PS_PER_US as f64));
    }
}
