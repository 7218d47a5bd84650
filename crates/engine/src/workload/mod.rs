//! Workloads: what flows exist and when they start. Incasts, repeated incast bursts and
//! permutations are expanded into flows when the world is built; open-loop Poisson
//! arrivals, of flows or of incast events, are drawn one at a time as the run goes (one
//! pending event per workload).

mod aggregator_incast;
pub mod cdf;
pub mod matrix;
pub mod mixed;
mod poisson_incast;
mod proxy_incast;
mod rpc;

pub use aggregator_incast::{assign_senders, AggregatorIncastSpec};
pub use cdf::{Cdf, Sampling};
pub use mixed::MixedPoissonSpec;
pub use poisson_incast::{IncastEvent, PoissonIncastSpec};
pub use proxy_incast::{ProxyIncastSpec, ProxyScheme, PROXY_ORDERS, SCHEMES};
pub use rpc::{p99, Remember, RpcIncastSpec, RwndStrategy, REMEMBER_RULES, RWND_STRATEGIES};

use crate::ids::HostId;
use crate::rng::{stream, Stream};
use crate::units::Time;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// An incast: `senders` each send `bytes_per_sender` to `receiver`, `count` times, `period`
/// apart; each sender's start is offset by U[0, jitter).
#[derive(Clone, Debug, PartialEq)]
pub struct IncastSpec {
    pub receiver: HostId,
    pub senders: Vec<HostId>,
    pub bytes_per_sender: u64,
    pub start: Time,
    pub jitter: Time,
    pub period: Time,
    pub count: u32,
}

impl IncastSpec {
    /// Burst number `burst`: every sender's bytes and start (the burst's instant plus its
    /// own jitter, drawn in sender order).
    pub fn burst(&self, burst: u32, rng: &mut Xoshiro256PlusPlus) -> IncastEvent {
        let at = self.start + burst as Time * self.period;
        let starts = self.senders.iter().map(|_| at + if self.jitter > 0 { rng.gen_range(0..self.jitter) } else { 0 }).collect();
        IncastEvent { receiver: self.receiver, senders: self.senders.clone(), bytes: vec![self.bytes_per_sender; self.senders.len()], starts }
    }
}

/// Open-loop Poisson flow arrivals between random distinct hosts, sizes from a CDF, at a
/// `load` fraction of a capacity.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonSpec {
    pub hosts: Vec<HostId>,
    pub load: f64,
    pub sizes: Cdf,
    pub start: Time,
    /// No arrival at or after this (`Time::MAX`: none).
    pub stop: Time,
    /// The load's reference (by default the sum of the hosts' NIC rates), bits per second.
    pub capacity_bps: f64,
}

impl PoissonSpec {
    /// Mean time between arrivals, in picoseconds (as a float: it is an exponential mean).
    pub fn mean_gap_ps(&self) -> f64 {
        let bytes_per_sec = self.load * self.capacity_bps / 8.0;
        self.sizes.mean() / bytes_per_sec * 1e12
    }

    /// Draws the next gap, source, destination and size.
    pub fn draw(&self, rng: &mut Xoshiro256PlusPlus) -> (Time, HostId, HostId, u64) {
        let gap = exponential_gap(self.mean_gap_ps(), rng);
        let n = self.hosts.len();
        let s = rng.gen_range(0..n);
        let mut d = rng.gen_range(0..n - 1);
        if d >= s {
            d += 1;
        }
        (gap, self.hosts[s], self.hosts[d], self.sizes.sample(rng))
    }
}

/// Every host sends to another, the mapping a random derangement (one cycle).
#[derive(Clone, Debug, PartialEq)]
pub struct PermutationSpec {
    pub hosts: Vec<HostId>,
    /// `None`: long-running flows that never finish.
    pub bytes: Option<u64>,
    pub start: Time,
}

impl PermutationSpec {
    /// Sattolo's shuffle: a uniformly random single cycle, so no host sends to itself.
    pub fn pairs(&self, rng: &mut Xoshiro256PlusPlus) -> Vec<(HostId, HostId)> {
        let n = self.hosts.len();
        let mut target: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = rng.gen_range(0..i);
            target.swap(i, j);
        }
        (0..n).map(|i| (self.hosts[i], self.hosts[target[i]])).collect()
    }
}

/// One explicit flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub src: HostId,
    pub dst: HostId,
    pub bytes: u64,
    pub start: Time,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Workload {
    Incast(IncastSpec),
    Poisson(PoissonSpec),
    Permutation(PermutationSpec),
    Flows(Vec<FlowSpec>),
    /// Drawn in full when the world is built (only the first flows by start are kept).
    MixedPoisson(MixedPoissonSpec),
    RpcIncast(RpcIncastSpec),
    ProxyIncast(ProxyIncastSpec),
    PoissonIncast(PoissonIncastSpec),
    AggregatorIncast(AggregatorIncastSpec),
}

/// An exponential gap of mean `mean_ps` (a Poisson process's next arrival). A load so small
/// that the mean gap is beyond any run is clamped to the scenario's time limit, so
/// `now + gap` stays representable (the cast alone saturates at u64::MAX and the addition
/// would wrap into the past).
pub fn exponential_gap(mean_ps: f64, rng: &mut Xoshiro256PlusPlus) -> Time {
    let u: f64 = rng.gen::<f64>();
    (-(1.0 - u).ln() * mean_ps).round().min(crate::units::MAX_TIME as f64) as Time
}

/// Picks `degree` distinct hosts from `pool` (excluding `receiver`): the first ones in order,
/// or a random choice.
pub fn pick_senders(pool: &[HostId], receiver: HostId, degree: usize, random: bool, rng: &mut Xoshiro256PlusPlus) -> Vec<HostId> {
    let mut candidates: Vec<HostId> = pool.iter().copied().filter(|h| *h != receiver).collect();
    if random {
        candidates.shuffle(rng);
    }
    candidates.truncate(degree);
    candidates
}

/// An incast's senders as the scenario resolves them: `pick_senders` on the workload's own
/// stream (`w`: its index in the scenario), so the choice does not depend on the run.
pub fn choose_senders(pool: &[HostId], receiver: HostId, degree: usize, random: bool, seed: u64, w: usize) -> Vec<HostId> {
    let mut rng = stream(seed, Stream::Workload, 1_000_000 + w as u64);
    pick_senders(pool, receiver, degree, random, &mut rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn permutation_is_a_derangement() {
        let spec = PermutationSpec { hosts: (0..50).map(HostId).collect(), bytes: None, start: 0 };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let pairs = spec.pairs(&mut rng);
        let mut seen = vec![false; 50];
        for (s, d) in &pairs {
            assert_ne!(s, d);
            assert!(!seen[d.idx()]);
            seen[d.idx()] = true;
        }
        assert!(seen.iter().all(|x| *x));
    }
}
