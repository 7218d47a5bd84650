//! Open-loop Poisson incast events (ICON's incast traffic): each event picks a sink uniformly
//! from a pool of hosts and `degree` distinct senders from the rest of the pool, each of
//! which sends its own response, sized independently, all at the event's instant. Events
//! arrive at the rate that offers `load` times `capacity_bps` on average.

use super::Cdf;
use crate::ids::HostId;
use crate::units::Time;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, Debug, PartialEq)]
pub struct PoissonIncastSpec {
    pub hosts: Vec<HostId>,
    /// Senders per event, fewer than the hosts.
    pub degree: usize,
    pub load: f64,
    /// Each response's size.
    pub sizes: Cdf,
    /// The load's reference, bits per second.
    pub capacity_bps: f64,
    pub start: Time,
    /// No event at or after this (`Time::MAX`: none).
    pub stop: Time,
}

/// One incast: every sender's response bytes and start, to one receiver.
#[derive(Clone, Debug, PartialEq)]
pub struct IncastEvent {
    pub receiver: HostId,
    pub senders: Vec<HostId>,
    pub bytes: Vec<u64>,
    pub starts: Vec<Time>,
}

impl PoissonIncastSpec {
    /// Mean time between events, in picoseconds: an event offers `degree` mean responses.
    pub fn mean_gap_ps(&self) -> f64 {
        let bytes_per_sec = self.load * self.capacity_bps / 8.0;
        self.degree as f64 * self.sizes.mean() / bytes_per_sec * 1e12
    }

    /// The gap to the next event (see `PoissonSpec::draw` on the clamp).
    pub fn draw_gap(&self, rng: &mut Xoshiro256PlusPlus) -> Time {
        super::exponential_gap(self.mean_gap_ps(), rng)
    }

    /// The event at `at`: its sink, its senders (distinct, never the sink) and their sizes.
    pub fn draw_event(&self, at: Time, rng: &mut Xoshiro256PlusPlus) -> IncastEvent {
        let m = self.hosts.len();
        let sink = rng.gen_range(0..m);
        // Positions among the m - 1 other hosts, shifted past the sink's.
        let senders: Vec<HostId> = distinct(m - 1, self.degree, rng).into_iter().map(|i| self.hosts[if i >= sink { i + 1 } else { i }]).collect();
        let bytes = senders.iter().map(|_| self.sizes.sample(rng)).collect();
        IncastEvent { receiver: self.hosts[sink], starts: vec![at; senders.len()], senders, bytes }
    }
}

/// `k` distinct numbers below `n` (k <= n), uniformly (Floyd's algorithm: k draws, no pool).
fn distinct(n: usize, k: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<usize> {
    let mut chosen: Vec<usize> = Vec::with_capacity(k);
    for j in n - k..n {
        let t = rng.gen_range(0..=j);
        chosen.push(if chosen.contains(&t) { j } else { t });
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn spec(hosts: u32, degree: usize) -> PoissonIncastSpec {
        PoissonIncastSpec {
            hosts: (0..hosts).map(HostId).collect(),
            degree,
            load: 0.5,
            sizes: Cdf::uniform(8_000, 32_000),
            capacity_bps: 2e12,
            start: 0,
            stop: Time::MAX,
        }
    }

    #[test]
    fn senders_are_distinct_never_the_sink_and_as_many_as_the_degree() {
        let s = spec(30, 26);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut sinks = [0u32; 30];
        let mut sent = [0u32; 30];
        for _ in 0..3_000 {
            let e = s.draw_event(7, &mut rng);
            assert_eq!(e.senders.len(), 26);
            assert_eq!((e.bytes.len(), e.starts.len()), (26, 26));
            assert!(e.starts.iter().all(|&t| t == 7), "every response starts at the event");
            assert!(e.bytes.iter().all(|b| (8_000..=32_000).contains(b)));
            assert!(!e.senders.contains(&e.receiver));
            let mut sorted = e.senders.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 26, "distinct senders");
            sinks[e.receiver.idx()] += 1;
            for h in &e.senders {
                sent[h.idx()] += 1;
            }
        }
        // Uniform: every host is a sink about 100 times and a sender about 2,600 times.
        assert!(sinks.iter().all(|&n| (50..160).contains(&n)), "{sinks:?}");
        assert!(sent.iter().all(|&n| (2_400..2_800).contains(&n)), "{sent:?}");
        // A degree of every other host takes them all.
        let e = spec(5, 4).draw_event(0, &mut rng);
        let mut all: Vec<u32> = e.senders.iter().chain([&e.receiver]).map(|h| h.0).collect();
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_event_rate_offers_the_load() {
        // ICON at rho = 0.5: 15% of 2 Tb/s in incasts of 26 responses of 20 KB on average.
        let s = PoissonIncastSpec { load: 0.075, ..spec(400, 26) };
        assert!((1e12 / s.mean_gap_ps() - 36_057.7).abs() < 0.1, "{} events/s", 1e12 / s.mean_gap_ps());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let (mut t, mut bytes) = (0u64, 0u64);
        for _ in 0..20_000 {
            t += s.draw_gap(&mut rng);
            bytes += s.draw_event(t, &mut rng).bytes.iter().sum::<u64>();
        }
        let offered = bytes as f64 * 8.0 / (t as f64 / 1e12) / 2e12;
        assert!((offered / 0.075 - 1.0).abs() < 0.03, "offered load {offered}");
    }
}
