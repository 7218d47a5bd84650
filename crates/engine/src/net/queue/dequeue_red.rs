//! ECN marking at dequeue, as htsim's `CompositeQueue::decide_ECN` and the Uno spec: on the
//! instantaneous occupancy q with the departing packet excluded, no mark if q ≤ Kmin,
//! always if q > Kmax, else with probability (q − Kmin)/(Kmax − Kmin). q is the data queue
//! (bytes or packets, the thresholds' unit) or, when configured, the port's phantom queue.

use super::phantom::{Phantom, PhantomConfig};
use super::Backlog;
use crate::units::{Size, Time};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, Debug, PartialEq)]
pub struct DequeueRedConfig {
    pub min: Size,
    pub max: Size,
    /// Mark from this phantom queue's counter (bytes) instead of the data queue.
    pub phantom: Option<PhantomConfig>,
}

pub struct DequeueRed {
    min: Size,
    max: Size,
    phantom: Option<Phantom>,
    rng: Xoshiro256PlusPlus,
}

impl DequeueRed {
    pub fn new(cfg: &DequeueRedConfig, rate_bps: u64, packet_bytes: u64, rng: Xoshiro256PlusPlus) -> Self {
        let phantom = cfg.phantom.as_ref().map(|p| Phantom::new(p, rate_bps, packet_bytes));
        DequeueRed { min: cfg.min, max: cfg.max, phantom, rng }
    }

    /// A data packet of `bytes` arrives (whatever becomes of it).
    #[inline(never)]
    pub fn on_arrival(&mut self, bytes: u64, now: Time) {
        if let Some(p) = &mut self.phantom {
            p.on_arrival(bytes, now);
        }
    }

    /// Whether the packet leaving at `now` is marked; `backlog` excludes it.
    #[inline]
    pub fn on_departure(&mut self, backlog: Backlog, now: Time) -> bool {
        let q = match &mut self.phantom {
            Some(p) => p.level(now),
            None => backlog.in_unit_of(self.min),
        };
        let (lo, hi) = (scalar(self.min), scalar(self.max));
        if q > hi {
            true
        } else if q > lo {
            self.rng.gen::<f64>() * ((hi - lo) as f64) < (q - lo) as f64
        } else {
            false
        }
    }

    /// The phantom counter at `now`, if there is one.
    pub fn phantom_level(&mut self, now: Time) -> Option<u64> {
        self.phantom.as_mut().map(|p| p.level(now))
    }
}

fn scalar(s: Size) -> u64 {
    match s {
        Size::Bytes(b) => b,
        Size::Packets(p) => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn probability_is_linear_between_the_thresholds_and_one_above() {
        let cfg = DequeueRedConfig { min: Size::Packets(10), max: Size::Packets(30), phantom: None };
        let mut red = DequeueRed::new(&cfg, 100_000_000_000, 4160, Xoshiro256PlusPlus::seed_from_u64(5));
        let mut rate = |pkts: u64| {
            let n = 100_000;
            let b = Backlog { bytes: 0, pkts };
            (0..n).filter(|_| red.on_departure(b, 0)).count() as f64 / n as f64
        };
        assert_eq!(rate(10), 0.0, "q = Kmin never marks");
        assert_eq!(rate(31), 1.0, "q > Kmax always marks");
        assert_eq!(rate(30), 1.0, "(30 - 10) / 20: certain at Kmax");
        assert!((rate(15) - 0.25).abs() < 0.01);
        assert!((rate(20) - 0.5).abs() < 0.01);
    }
}
