//! Mixed intra/inter-datacenter Poisson traffic, the kind of the Uno artifact's generator
//! (`traffic_gen.py`): every host starts flows as its own Poisson process at `load` times
//! its NIC rate; a flow stays in the source's datacenter with probability `intra_fraction`
//! (destination uniform there, not the source) and otherwise goes to a uniform host of
//! another datacenter; sizes come from one CDF per class. The arrival rate uses the mixed
//! mean size `p * mean_intra + (1 - p) * mean_inter`, so the offered load holds on average.
//! Only the first `flows` flows by start time are kept.

use super::{Cdf, FlowSpec};
use crate::ids::HostId;
use crate::units::Time;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug, PartialEq)]
pub struct MixedPoissonSpec {
    /// The sending hosts and, for each, its datacenter index.
    pub hosts: Vec<HostId>,
    pub dc_of: Vec<u32>,
    /// Each host's NIC rate, bits per second (the load's reference).
    pub nic_bps: Vec<u64>,
    pub load: f64,
    pub intra_fraction: f64,
    pub intra_sizes: Cdf,
    pub inter_sizes: Cdf,
    pub flows: usize,
    pub start: Time,
}

impl MixedPoissonSpec {
    /// The mean flow size in bytes over both classes.
    pub fn mean_size(&self) -> f64 {
        self.intra_fraction * self.intra_sizes.mean() + (1.0 - self.intra_fraction) * self.inter_sizes.mean()
    }

    /// Mean gap between one host's flow starts, picoseconds.
    fn mean_gap_ps(&self, nic_bps: u64) -> f64 {
        self.mean_size() * 8.0 / (self.load * nic_bps as f64) * 1e12
    }

    /// Datacenters with their hosts (positions in `hosts`), ascending.
    fn members(&self) -> Vec<Vec<usize>> {
        let n_dc = self.dc_of.iter().max().map_or(0, |m| *m as usize + 1);
        let mut members = vec![Vec::new(); n_dc];
        for (i, &dc) in self.dc_of.iter().enumerate() {
            members[dc as usize].push(i);
        }
        members
    }

    /// The flows of `[[workload]]` number `index` in a run with this seed (what
    /// `fanin.workloads` writes out, so a `.cm` from it equals the scenario's own draw).
    pub fn flows_for(&self, seed: u64, index: usize) -> Vec<FlowSpec> {
        self.generate(&mut crate::rng::stream(seed, crate::rng::Stream::Workload, index as u64))
    }

    /// Draws the flows, sorted by start time (ties by host order). The per-host arrival
    /// streams are merged in time order from one generator, so the first `k` flows are the
    /// same for any `flows >= k`.
    pub fn generate(&self, rng: &mut Xoshiro256PlusPlus) -> Vec<FlowSpec> {
        let members = self.members();
        let gaps: Vec<f64> = self.nic_bps.iter().map(|&r| self.mean_gap_ps(r)).collect();
        let draw_gap = |rng: &mut Xoshiro256PlusPlus, h: usize| -> Time { (-(1.0 - rng.gen::<f64>()).ln() * gaps[h]).round() as Time };
        let mut next: BinaryHeap<Reverse<(Time, usize)>> = (0..self.hosts.len()).map(|h| Reverse((self.start + draw_gap(rng, h), h))).collect();
        let mut out = Vec::with_capacity(self.flows);
        while out.len() < self.flows {
            let Reverse((at, h)) = next.pop().expect("at least one host");
            let (dst, sizes) = self.destination(h, &members, rng);
            out.push(FlowSpec { src: self.hosts[h], dst: self.hosts[dst], bytes: sizes.sample(rng), start: at });
            next.push(Reverse((at + draw_gap(rng, h), h)));
        }
        out
    }

    /// A destination for a flow from host position `h`, and the class's size distribution.
    fn destination(&self, h: usize, members: &[Vec<usize>], rng: &mut Xoshiro256PlusPlus) -> (usize, &Cdf) {
        let own = self.dc_of[h] as usize;
        let intra = rng.gen::<f64>() < self.intra_fraction;
        if intra {
            let pool = &members[own];
            // One of the others: pool is ascending and holds h, so shifting the indices at
            // and past h's skips exactly the source.
            let mut i = rng.gen_range(0..pool.len() - 1);
            if pool[i] >= h {
                i += 1;
            }
            (pool[i], &self.intra_sizes)
        } else {
            let others = members.len() - 1;
            let mut dc = rng.gen_range(0..others);
            if dc >= own {
                dc += 1;
            }
            let pool = &members[dc];
            (pool[rng.gen_range(0..pool.len())], &self.inter_sizes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn spec(load: f64, flows: usize) -> MixedPoissonSpec {
        let uniform = |max: u64| Cdf::parse(&format!("0 0\n{max} 1\n"), None).unwrap();
        MixedPoissonSpec {
            hosts: (0..8).map(HostId).collect(),
            dc_of: vec![0, 0, 0, 0, 1, 1, 1, 1],
            nic_bps: vec![100_000_000_000; 8],
            load,
            intra_fraction: 0.75,
            intra_sizes: uniform(2_000),
            inter_sizes: uniform(200_000),
            flows,
            start: 5,
        }
    }

    #[test]
    fn classes_load_and_prefix() {
        let s = spec(0.5, 40_000);
        let flows = s.generate(&mut Xoshiro256PlusPlus::seed_from_u64(3));
        assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
        assert!(flows.iter().all(|f| f.src != f.dst && f.start >= 5));
        let dc = |h: HostId| h.0 / 4;
        let intra: Vec<_> = flows.iter().filter(|f| dc(f.src) == dc(f.dst)).collect();
        let p = intra.len() as f64 / flows.len() as f64;
        assert!((p - 0.75).abs() < 0.01, "intra share {p}");
        assert!(intra.iter().all(|f| f.bytes <= 2_000));
        assert!(flows.iter().filter(|f| dc(f.src) != dc(f.dst)).any(|f| f.bytes > 2_000));
        // Offered load: bytes over the span, against 8 NICs at 50%.
        let span_ps = (flows.last().unwrap().start - 5) as f64;
        let bytes: u64 = flows.iter().map(|f| f.bytes).sum();
        let load = bytes as f64 * 8.0 / (span_ps / 1e12) / 8e11;
        assert!((load - 0.5).abs() < 0.03, "offered load {load}");
        // The first flows do not depend on how many are kept.
        let fewer = spec(0.5, 100).generate(&mut Xoshiro256PlusPlus::seed_from_u64(3));
        assert_eq!(fewer[..], flows[..100]);
    }

    #[test]
    fn span_scales_inversely_with_load() {
        let span = |load| spec(load, 5_000).generate(&mut Xoshiro256PlusPlus::seed_from_u64(1)).last().unwrap().start as f64;
        let r = span(0.2) / span(0.8);
        assert!((r - 4.0).abs() < 0.2, "span ratio {r}");
    }
}
