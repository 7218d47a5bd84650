//! Incasts at fixed aggregators (Superways, Rezaei & Vamanan, WWW '21; spec §2): each
//! aggregator queries the same `degree` senders every time, drawn once from a pool. At an
//! event the first of them answers at once with `first_bytes` (the authors' code: 64 KiB),
//! the others each with one short size drawn for the event, after a fixed `delay` plus a
//! bounded exponential jitter of their own. Events come as one Poisson process over the
//! aggregators (the merge of one process per aggregator at equal rates), at the rate that
//! offers `load` x `capacity_bps` counting `degree` mean short responses per event (the
//! authors' normalization: the first sender's bytes are not counted).

use super::{Cdf, IncastEvent};
use crate::ids::HostId;
use crate::units::Time;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, Debug, PartialEq)]
pub struct AggregatorIncastSpec {
    pub aggregators: Vec<HostId>,
    /// Each aggregator's senders, in query order (the first answers with `first_bytes`).
    pub senders: Vec<Vec<HostId>>,
    /// The first sender's response; 0: it answers like the others.
    pub first_bytes: u64,
    /// The other responses' size, one draw per event.
    pub sizes: Cdf,
    /// When the other senders start after the event, before their jitter.
    pub delay: Time,
    /// Exponential jitter's mean, and its bound (a larger draw is drawn again, as ns-3's
    /// bounded `ExponentialRandomVariable`).
    pub jitter_mean: Time,
    pub jitter_max: Time,
    pub load: f64,
    pub capacity_bps: f64,
    pub start: Time,
    pub stop: Time,
}

impl AggregatorIncastSpec {
    /// Mean time between events (all aggregators), in picoseconds.
    pub fn mean_gap_ps(&self) -> f64 {
        let degree = self.senders.first().map_or(1, Vec::len) as f64;
        let bytes_per_sec = self.load * self.capacity_bps / 8.0;
        degree * self.sizes.mean() / bytes_per_sec * 1e12
    }

    pub fn draw_gap(&self, rng: &mut Xoshiro256PlusPlus) -> Time {
        super::exponential_gap(self.mean_gap_ps(), rng)
    }

    /// The event at `at`: an aggregator, its senders' bytes and starts.
    pub fn draw_event(&self, at: Time, rng: &mut Xoshiro256PlusPlus) -> IncastEvent {
        let a = rng.gen_range(0..self.aggregators.len());
        let senders = self.senders[a].clone();
        let short = self.sizes.sample(rng);
        let mut bytes = Vec::with_capacity(senders.len());
        let mut starts = Vec::with_capacity(senders.len());
        for i in 0..senders.len() {
            if i == 0 && self.first_bytes > 0 {
                bytes.push(self.first_bytes);
                starts.push(at);
            } else {
                bytes.push(short);
                starts.push(at + self.delay + self.jitter(rng));
            }
        }
        IncastEvent { receiver: self.aggregators[a], senders, bytes, starts }
    }

    fn jitter(&self, rng: &mut Xoshiro256PlusPlus) -> Time {
        if self.jitter_mean == 0 {
            return 0;
        }
        loop {
            let x = super::exponential_gap(self.jitter_mean as f64, rng);
            if x <= self.jitter_max {
                return x;
            }
        }
    }
}

/// Each aggregator's `degree` senders, distinct, drawn without replacement from `pool`
/// (never the aggregator itself), one aggregator after another.
pub fn assign_senders(aggregators: &[HostId], pool: &[HostId], degree: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<Vec<HostId>> {
    use rand::seq::SliceRandom;
    aggregators
        .iter()
        .map(|a| {
            let mut candidates: Vec<HostId> = pool.iter().copied().filter(|h| h != a).collect();
            candidates.shuffle(rng);
            candidates.truncate(degree);
            candidates
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;
    use rand::SeedableRng;

    fn spec() -> AggregatorIncastSpec {
        let aggregators = vec![HostId(19), HostId(39)];
        let pool: Vec<HostId> = (0..40).filter(|h| h % 20 < 8).map(HostId).collect();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        AggregatorIncastSpec {
            senders: assign_senders(&aggregators, &pool, 6, &mut rng),
            aggregators,
            first_bytes: 65_536,
            sizes: Cdf::constant(1024),
            delay: 80 * PS_PER_US,
            jitter_mean: 10 * PS_PER_US,
            jitter_max: 120 * PS_PER_US,
            load: 0.15,
            capacity_bps: 2e12,
            start: 0,
            stop: u64::MAX,
        }
    }

    #[test]
    fn each_aggregator_keeps_its_distinct_senders() {
        let s = spec();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        for _ in 0..50 {
            let e = s.draw_event(1_000, &mut rng);
            let a = s.aggregators.iter().position(|&x| x == e.receiver).unwrap();
            assert_eq!(e.senders, s.senders[a], "the same senders at every event");
        }
        for list in &s.senders {
            let mut sorted = list.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 6, "distinct senders");
            assert!(list.iter().all(|h| h.0 % 20 < 8), "from the pool");
        }
    }

    #[test]
    fn the_first_answers_at_once_the_others_after_the_delay_and_a_bounded_jitter() {
        let s = spec();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut jitters = Vec::new();
        for _ in 0..4000 {
            let e = s.draw_event(1_000, &mut rng);
            assert_eq!((e.bytes[0], e.starts[0]), (65_536, 1_000));
            for (&b, &t) in e.bytes[1..].iter().zip(&e.starts[1..]) {
                assert_eq!(b, 1024);
                let j = t - 1_000 - 80 * PS_PER_US;
                assert!(j <= 120 * PS_PER_US);
                jitters.push(j as f64);
            }
        }
        // A bounded Exp(10 us) below 120 us: mean 10 us x (1 - 13 e^-12) / (1 - e^-12) ~ 10 us.
        let mean = jitters.iter().sum::<f64>() / jitters.len() as f64 / PS_PER_US as f64;
        assert!((mean - 10.0).abs() < 0.3, "mean jitter {mean} us");
    }

    #[test]
    fn events_offer_the_load_counting_degree_short_responses() {
        // 0.15 x 2 Tb/s = 37.5 GB/s, 6 x 1024 B an event: 6,103,515.6 events/s, 163.84 ns apart.
        assert!((spec().mean_gap_ps() - 163_840.0).abs() < 1e-6, "{}", spec().mean_gap_ps());
    }
}
