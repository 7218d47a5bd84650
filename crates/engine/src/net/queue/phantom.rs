//! The phantom queue of Uno (SC '25, §1.2 of the spec): a virtual byte counter per egress
//! port that grows by every arriving data packet (queued, trimmed or dropped), is capped at
//! `size`, and drains one `quantum` every `period` from the first arrival, slower than the
//! line. Marking from it signals congestion before the physical queue builds up.
//!
//! htsim drains with one event per port per period; here the drain is computed when the
//! counter is read. Ticks fall at `start + k·period` (k ≥ 1); a tick at the same instant as
//! an arrival is applied first. Between two reads nothing is added, so n ticks at once,
//! floored at 0 once, equal n ticks each floored at 0.

use crate::units::Time;

#[derive(Clone, Debug, PartialEq)]
pub struct PhantomConfig {
    /// The counter's cap (Psize), bytes.
    pub size_bytes: u64,
    /// How the drain rate is given.
    pub drain: PhantomDrain,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PhantomDrain {
    /// Uno's slowdown s: one full packet per `(1 + s/100)` packet times at line rate.
    SlowdownPercent(f64),
    /// An absolute rate, one full packet at a time.
    RateBps(u64),
}

#[derive(Clone, Debug)]
pub struct Phantom {
    size_bytes: u64,
    quantum_bytes: u64,
    period_ps: Time,
    bytes: u64,
    /// The first arrival (`None` before it): the drain's time origin.
    start: Option<Time>,
    ticks: u64,
}

impl Phantom {
    /// `quantum_bytes` is the full packet the drain removes per tick; `rate_bps` the port's.
    pub fn new(cfg: &PhantomConfig, rate_bps: u64, quantum_bytes: u64) -> Self {
        let at = |bps: u64| crate::units::serialization_ps(quantum_bytes, bps);
        let period_ps = match cfg.drain {
            PhantomDrain::SlowdownPercent(s) => (at(rate_bps) as f64 * (1.0 + s / 100.0)).round() as Time,
            PhantomDrain::RateBps(bps) => at(bps),
        };
        Phantom { size_bytes: cfg.size_bytes, quantum_bytes, period_ps: period_ps.max(1), bytes: 0, start: None, ticks: 0 }
    }

    pub fn period_ps(&self) -> Time {
        self.period_ps
    }

    /// Applies every tick up to `now`.
    #[inline]
    fn drain_to(&mut self, now: Time) {
        let Some(start) = self.start else { return };
        let ticks = (now - start) / self.period_ps;
        let n = ticks - self.ticks;
        if n > 0 {
            self.bytes = self.bytes.saturating_sub(n.saturating_mul(self.quantum_bytes));
            self.ticks = ticks;
        }
    }

    /// A data packet of `bytes` arrives at the port at `now`.
    #[inline]
    pub fn on_arrival(&mut self, bytes: u64, now: Time) {
        if self.start.is_none() {
            self.start = Some(now);
        }
        self.drain_to(now);
        self.bytes = (self.bytes + bytes).min(self.size_bytes);
    }

    /// The counter at `now`.
    #[inline]
    pub fn level(&mut self, now: Time) -> u64 {
        self.drain_to(now);
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    const RATE: u64 = 100_000_000_000;

    fn uno(slowdown: f64) -> Phantom {
        Phantom::new(&PhantomConfig { size_bytes: 20_000, drain: PhantomDrain::SlowdownPercent(slowdown) }, RATE, 4160)
    }

    #[test]
    fn drain_periods_are_unos() {
        // 4160 B at 100 Gb/s is 332.8 ns; s = 5 and s = 10 stretch it by 5% and 10%.
        assert_eq!(uno(0.0).period_ps(), 332_800);
        assert_eq!(uno(5.0).period_ps(), 349_440);
        assert_eq!(uno(10.0).period_ps(), 366_080);
        let by_rate = Phantom::new(&PhantomConfig { size_bytes: 1, drain: PhantomDrain::RateBps(RATE / 2) }, RATE, 4160);
        assert_eq!(by_rate.period_ps(), 665_600);
    }

    /// htsim's way: an event every period subtracts one quantum, floored at 0.
    fn explicit(period: Time, quantum: u64, cap: u64, trace: &[(Time, u64)], reads: &[Time]) -> Vec<u64> {
        let start = trace[0].0;
        let (mut bytes, mut tick, mut out) = (0u64, start + period, Vec::new());
        let (mut a, mut r) = (0, 0);
        while r < reads.len() {
            // Next thing in time order: a tick, an arrival, a read (ticks first on a tie).
            let next_in = if a < trace.len() { trace[a].0 } else { Time::MAX };
            if tick <= next_in.min(reads[r]) {
                bytes = bytes.saturating_sub(quantum);
                tick += period;
            } else if next_in <= reads[r] {
                bytes = (bytes + trace[a].1).min(cap);
                a += 1;
            } else {
                out.push(bytes);
                r += 1;
            }
        }
        out
    }

    #[test]
    fn lazy_drain_equals_an_explicit_per_tick_drain_on_a_trace() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        // Bursts of arrivals at line rate and idle gaps, some on exact tick instants.
        let mut trace = Vec::new();
        let mut t: Time = 1_000_000;
        for _ in 0..3000 {
            t += match rng.gen_range(0..8) {
                0 => 332_800,
                1 => 349_440 * rng.gen_range(1..4),
                2 => rng.gen_range(0..2_000_000),
                _ => 0,
            };
            trace.push((t, *[4160u64, 64, 1500].iter().nth(rng.gen_range(0..3)).unwrap()));
        }
        let mut reads: Vec<Time> = (0..2000).map(|_| rng.gen_range(1_000_000..t + 5_000_000)).collect();
        reads.sort();
        let mut p = uno(5.0);
        let expected = explicit(p.period_ps(), 4160, 20_000, &trace, &reads);
        let (mut a, mut got) = (0, Vec::new());
        for &at in &reads {
            while a < trace.len() && trace[a].0 <= at {
                p.on_arrival(trace[a].1, trace[a].0);
                a += 1;
            }
            got.push(p.level(at));
        }
        assert_eq!(got, expected);
        assert!(got.iter().any(|&b| b == 20_000), "the trace never reached the cap");
        assert!(got.iter().filter(|&&b| b == 0).count() > 10, "the trace never drained");
    }
}
