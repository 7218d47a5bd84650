//! RED as ns-3's `RedQueueDisc` runs it: an EWMA of the backlog (decayed over idle time),
//! a linear drop/mark probability between `min` and `max` (and up to `2 max` when gentle),
//! the "wait" spacing by the count of packets since the last mark, no early action on the
//! first arrival after the average crosses `min`, and a forced action above `max` (or
//! `2 max` when gentle). With `weight = 1` and `min = max` it is the step marker the IMC
//! '24 artifact configures, including the unmarked first arrival after each crossing.

use super::{Backlog, Verdict};
use crate::units::{Size, Time, PS_PER_SEC};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    /// Thresholds in bytes or packets; the unit also sets the unit of the average.
    pub min: Size,
    pub max: Size,
    /// Probability at `max` (ns-3: 1 / LInterm).
    pub p_max: f64,
    /// EWMA weight (ns-3: QW).
    pub weight: f64,
    pub gentle: bool,
    pub wait: bool,
}

pub struct Red {
    cfg: RedConfig,
    min: f64,
    max: f64,
    /// Line rate in packets per second, for the idle-time decay.
    pkts_per_sec: f64,
    mean_pkt_bytes: f64,
    avg: f64,
    count: u64,
    count_bytes: u64,
    /// 1 once the average is above `min` and the crossing arrival has passed.
    old: bool,
    idle_since: Option<Time>,
    rng: Xoshiro256PlusPlus,
}

impl Red {
    pub fn new(cfg: RedConfig, rate_bps: u64, mean_pkt_bytes: u64, rng: Xoshiro256PlusPlus) -> Self {
        let scalar = |s: Size| match s {
            Size::Bytes(b) => b as f64,
            Size::Packets(p) => p as f64,
        };
        Red {
            min: scalar(cfg.min),
            max: scalar(cfg.max),
            pkts_per_sec: rate_bps as f64 / (8.0 * mean_pkt_bytes as f64),
            mean_pkt_bytes: mean_pkt_bytes as f64,
            cfg,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_since: Some(0),
            rng,
        }
    }

    pub fn on_idle(&mut self, now: Time) {
        self.idle_since = Some(now);
    }

    pub fn on_arrival(&mut self, backlog: Backlog, size: u64, now: Time) -> Verdict {
        let queued = backlog.in_unit_of(self.cfg.min) as f64;
        let w = self.cfg.weight;
        // Packets that could have left while idle decay the average as if the queue was empty.
        let m = match self.idle_since.take() {
            Some(t) => ((now - t) as f64 / PS_PER_SEC as f64 * self.pkts_per_sec) as i32 + 1,
            None => 1,
        };
        self.avg = self.avg * (1.0 - w).powi(m) + w * queued;
        self.count += 1;
        self.count_bytes += size;
        if !(self.avg >= self.min && queued > 1.0) {
            self.old = false;
            return Verdict::Pass;
        }
        let forced_at = if self.cfg.gentle { 2.0 * self.max } else { self.max };
        if self.avg >= forced_at {
            return Verdict::Mark;
        }
        if !self.old {
            self.count = 1;
            self.count_bytes = size;
            self.old = true;
            return Verdict::Pass;
        }
        let p = self.modify(self.base_probability(), size);
        if self.rng.gen::<f64>() <= p {
            self.count = 0;
            self.count_bytes = 0;
            return Verdict::Mark;
        }
        Verdict::Pass
    }

    fn base_probability(&self) -> f64 {
        let p_max = self.cfg.p_max;
        let p = if self.cfg.gentle && self.avg >= self.max {
            (1.0 - p_max) / self.max * self.avg + (2.0 * p_max - 1.0)
        } else if self.avg >= self.max {
            1.0
        } else {
            // ns-3 treats equal thresholds as a spread of one unit.
            let spread = if self.max > self.min { self.max - self.min } else { 1.0 };
            p_max * (self.avg - self.min) / spread
        };
        p.min(1.0)
    }

    /// Spreads marks out by the number of arrivals since the last one.
    fn modify(&self, p: f64, size: u64) -> f64 {
        let bytes_mode = matches!(self.cfg.min, Size::Bytes(_));
        let count = if bytes_mode { (self.count_bytes as f64 / self.mean_pkt_bytes).floor() } else { self.count as f64 };
        let cp = count * p;
        let mut p = if self.cfg.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p / (1.0 - cp)
        } else {
            1.0
        };
        if bytes_mode && p < 1.0 {
            p = p * size as f64 / self.mean_pkt_bytes;
        }
        p.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn step_red() -> Red {
        let cfg = RedConfig {
            min: Size::Packets(65),
            max: Size::Packets(65),
            p_max: 1.0,
            weight: 1.0,
            gentle: true,
            wait: true,
        };
        Red::new(cfg, 10_000_000_000, 1500, Xoshiro256PlusPlus::seed_from_u64(3))
    }

    #[test]
    fn imc_step_configuration_skips_only_the_crossing_arrival() {
        let mut red = step_red();
        let mut verdicts = Vec::new();
        for q in 60..70u64 {
            verdicts.push(red.on_arrival(Backlog { bytes: q * 1500, pkts: q }, 1500, 0));
        }
        use Verdict::*;
        assert_eq!(verdicts, vec![Pass, Pass, Pass, Pass, Pass, Pass, Mark, Mark, Mark, Mark]);
        // Dropping below min and crossing again skips one arrival again.
        assert_eq!(red.on_arrival(Backlog { bytes: 0, pkts: 10 }, 1500, 0), Pass);
        assert_eq!(red.on_arrival(Backlog { bytes: 0, pkts: 66 }, 1500, 0), Pass);
        assert_eq!(red.on_arrival(Backlog { bytes: 0, pkts: 66 }, 1500, 0), Mark);
        // Forced region (>= 2 max when gentle).
        assert_eq!(red.on_arrival(Backlog { bytes: 0, pkts: 130 }, 1500, 0), Mark);
    }

    #[test]
    fn linear_region_marks_about_p() {
        let cfg = RedConfig {
            min: Size::Packets(10),
            max: Size::Packets(30),
            p_max: 0.1,
            weight: 1.0,
            gentle: true,
            wait: false,
        };
        let mut red = Red::new(cfg, 10_000_000_000, 1500, Xoshiro256PlusPlus::seed_from_u64(3));
        let n = 200_000;
        let marks = (0..n)
            .filter(|_| red.on_arrival(Backlog { bytes: 0, pkts: 20 }, 1500, 0) == Verdict::Mark)
            .count();
        // p_b = 0.05 at the midpoint. With p_a = p_b / (1 - count p_b) (Floyd & Jacobson
        // 1993, section 7; ns-3 `ModifyP` without wait) the gap between marks is uniform on
        // 1..=19 arrivals: P(gap = n) = prod_{i<n} (1 - p_b / (1 - i p_b)) * p_b / (1 - n p_b)
        // = p_b / (1 - p_b) for every n < 1 / p_b. Mean gap 10, so the rate is 0.1 ~ 2 p_b.
        let rate = marks as f64 / n as f64;
        assert!((0.095..0.105).contains(&rate), "rate {rate}");
    }
}
