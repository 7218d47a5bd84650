//! Link failures and drop models on a timeline (`[[event]]` in a scenario), one per port.
//!
//! A port's faults are its list of changes `(at, state)`, sorted by time. A packet is judged
//! when it is offered to the port (its admission, where a full queue would drop it): the
//! state in force at that instant decides, so a change at `at` covers every packet offered
//! at or after `at` and none before. Packets already queued or on the wire when a link
//! fails still reach the far end; routes do not change (a failed link is black-holed, as
//! htsim's `is_failing` queues are). Changes are applied lazily by the first packet that
//! comes after them: no event, and a port without faults never looks here (the queue's
//! feature pointer, `net/queue/features.rs`).
//!
//! Drop models (Uno, SC '25: spec §2, Table 1):
//! - `Independent`: every packet is dropped with probability p;
//! - `Blocks`: arriving packets (ACKs too) are counted in consecutive blocks of `block`; at
//!   each block's first packet, k losses are drawn with P(k) = `losses[k-1]` (else none),
//!   and k distinct positions of the block are dropped. Table 1 measured these
//!   per-block rates on real inter-DC paths, in blocks of 10 (the (8, 2) code's block).
//!
//! Every draw comes from the port's own stream (`rng::Stream::Faults`, the port's id), so a
//! run is a function of its seed and adding a fault elsewhere shifts no other port's drops.

use crate::ids::PortId;
use crate::units::Time;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Blocks are at most this many packets (the drop positions are one `u64` mask).
pub const MAX_BLOCK: u32 = 64;

/// Uno's Table 1, setup 1 (≈65 ms RTT): per block of 10, P(1), P(2), P(3) losses. The
/// artifact's Fig 13 drop model.
pub const UNO_SETUP1: [f64; 3] = [3.0e-4, 7.5e-5, 1.6e-5];
/// Uno's Table 1, setup 2 (≈33 ms RTT).
pub const UNO_SETUP2: [f64; 3] = [4.0e-5, 2.3e-5, 4.9e-6];
/// The block of Table 1: 10 packets.
pub const UNO_BLOCK: u32 = 10;

/// What a link does to the packets offered to it, from a change on.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkState {
    Up,
    /// Black-holed: every packet is dropped (no routing update).
    Failed,
    Drop(DropModel),
}

#[derive(Clone, Debug, PartialEq)]
pub enum DropModel {
    /// Each packet is dropped with this probability, independently.
    Independent { probability: f64 },
    /// Correlated losses per block of packets.
    Blocks(BlockLoss),
}

/// `losses[k-1]` is the probability that a block loses exactly k packets (k ≥ 1); the
/// rest, 1 − Σ, is the probability it loses none.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockLoss {
    pub block: u32,
    pub losses: Vec<f64>,
}

/// One port's timeline, as the scenario gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct PortFaults {
    pub port: PortId,
    /// Sorted by time; at equal times the later entry wins.
    pub changes: Vec<(Time, LinkState)>,
}

/// What the faults did, apart from the queue's own (buffer) drops.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultCounters {
    /// Dropped while the link was failed.
    pub failed_bytes: u64,
    pub failed_pkts: u64,
    /// Dropped by a drop model.
    pub lost_bytes: u64,
    pub lost_pkts: u64,
    /// Blocks begun under a block model, and how many of them drew 1, 2, 3 and more losses.
    pub blocks: u64,
    pub blocks_by_losses: [u64; 4],
}

pub struct LinkFaults {
    changes: Vec<(Time, LinkState)>,
    /// The first change not applied yet.
    next: usize,
    /// The change in force (`None`: none yet, the link is up).
    current: Option<usize>,
    rng: Xoshiro256PlusPlus,
    /// The next packet's position in its block, and the positions the block drops.
    position: u32,
    doomed: u64,
    pub counters: FaultCounters,
}

impl LinkFaults {
    pub fn new(changes: Vec<(Time, LinkState)>, rng: Xoshiro256PlusPlus) -> Self {
        debug_assert!(changes.windows(2).all(|w| w[0].0 <= w[1].0), "changes out of order");
        LinkFaults { changes, next: 0, current: None, rng, position: 0, doomed: 0, counters: FaultCounters::default() }
    }

    /// Whether the packet of `bytes` offered to the port at `now` is dropped (and counted).
    #[inline]
    pub fn drops(&mut self, now: Time, bytes: u64) -> bool {
        if self.changes.get(self.next).is_some_and(|c| c.0 <= now) {
            self.apply_changes(now);
        }
        let Some(i) = self.current else { return false };
        let c = &mut self.counters;
        match &self.changes[i].1 {
            LinkState::Up => false,
            LinkState::Failed => {
                c.failed_bytes += bytes;
                c.failed_pkts += 1;
                true
            }
            LinkState::Drop(model) => {
                let lost = match model {
                    DropModel::Independent { probability } => self.rng.gen::<f64>() < *probability,
                    DropModel::Blocks(b) => next_in_block(b, &mut self.rng, &mut self.position, &mut self.doomed, c),
                };
                if lost {
                    c.lost_bytes += bytes;
                    c.lost_pkts += 1;
                }
                lost
            }
        }
    }

    /// Every change due by `now`; a new state starts its blocks afresh.
    #[cold]
    fn apply_changes(&mut self, now: Time) {
        while self.changes.get(self.next).is_some_and(|c| c.0 <= now) {
            self.current = Some(self.next);
            self.next += 1;
        }
        self.position = 0;
    }
}

/// Advances the block by one packet; true if that packet is one the block drops. At the
/// block's first packet, draws how many it loses and where.
#[inline]
fn next_in_block(b: &BlockLoss, rng: &mut Xoshiro256PlusPlus, position: &mut u32, doomed: &mut u64, c: &mut FaultCounters) -> bool {
    if *position == 0 {
        let k = draw_losses(&b.losses, rng);
        *doomed = 0;
        while (doomed.count_ones() as usize) < k {
            *doomed |= 1 << rng.gen_range(0..b.block);
        }
        c.blocks += 1;
        if k > 0 {
            c.blocks_by_losses[k.min(4) - 1] += 1;
        }
    }
    let lost = *doomed >> *position & 1 == 1;
    *position = (*position + 1) % b.block;
    lost
}

/// k with probability `losses[k-1]`, else 0.
fn draw_losses(losses: &[f64], rng: &mut Xoshiro256PlusPlus) -> usize {
    let u = rng.gen::<f64>();
    let mut below = 0.0;
    for (i, p) in losses.iter().enumerate() {
        below += p;
        if u < below {
            return i + 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    const PKT: u64 = 4160;

    fn faults(changes: Vec<(Time, LinkState)>, seed: u64) -> LinkFaults {
        LinkFaults::new(changes, stream(seed, Stream::Faults, 7))
    }

    fn blocks(losses: &[f64]) -> LinkState {
        LinkState::Drop(DropModel::Blocks(BlockLoss { block: 10, losses: losses.to_vec() }))
    }

    /// |measured − n·p| within 5 standard deviations of a binomial(n, p) count.
    fn assert_binomial(count: u64, n: u64, p: f64, what: &str) {
        let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
        assert!((count as f64 - mean).abs() <= 5.0 * sd, "{what}: {count} against {mean:.1} ± {:.1}", 5.0 * sd);
    }

    #[test]
    fn table1_block_losses_come_at_the_configured_rates() {
        // Setup 1 over 2 M blocks: 600, 150 and 32 blocks expected with 1, 2, 3 losses.
        // Swapping P(1) and P(2), or drawing per packet instead of per block, would put the
        // counts 10+ standard deviations off.
        let mut f = faults(vec![(0, blocks(&UNO_SETUP1))], 1);
        let n_blocks = 2_000_000u64;
        let mut per_block = [0u64; 4];
        for b in 0..n_blocks {
            let lost = (0..10).filter(|i| f.drops(b * 10 + i, PKT)).count();
            per_block[lost.min(3)] += 1;
        }
        let c = f.counters;
        assert_eq!(c.blocks, n_blocks);
        for k in 1..=3 {
            // The losses a block drew are exactly the packets it dropped (distinct positions).
            assert_eq!(per_block[k], c.blocks_by_losses[k - 1], "k = {k}");
            assert_binomial(per_block[k], n_blocks, UNO_SETUP1[k - 1], &format!("{k}-loss blocks"));
        }
        assert_eq!(c.blocks_by_losses[3], 0);
        assert_eq!(c.lost_pkts, per_block[1] + 2 * per_block[2] + 3 * per_block[3]);
        assert_eq!(c.lost_bytes, c.lost_pkts * PKT);
        assert_eq!((c.failed_pkts, c.failed_bytes), (0, 0));
    }

    #[test]
    fn heavy_block_losses_match_tightly_and_spread_over_positions() {
        // P(1) = 0.2, P(2) = 0.1, P(3) = 0.05 over 100,000 blocks: tolerances of ±0.6%.
        let losses = [0.2, 0.1, 0.05];
        let mut f = faults(vec![(0, blocks(&losses))], 2);
        let mut by_position = [0u64; 10];
        for b in 0..100_000u64 {
            for (i, at) in by_position.iter_mut().enumerate() {
                *at += f.drops(b * 10 + i as u64, PKT) as u64;
            }
        }
        for (k, &p) in losses.iter().enumerate() {
            assert_binomial(f.counters.blocks_by_losses[k], 100_000, p, &format!("{}-loss blocks", k + 1));
        }
        // Each position loses (0.2·1 + 0.1·2 + 0.05·3)/10 = 5.5% of its packets.
        for (i, &n) in by_position.iter().enumerate() {
            assert_binomial(n, 100_000, 0.055, &format!("position {i}"));
        }
    }

    #[test]
    fn independent_drops_come_at_their_probability() {
        let mut f = faults(vec![(0, LinkState::Drop(DropModel::Independent { probability: 0.01 }))], 3);
        let lost = (0..1_000_000).filter(|&t| f.drops(t, 64)).count() as u64;
        assert_binomial(lost, 1_000_000, 0.01, "independent drops");
        assert_eq!(f.counters.lost_pkts, lost);
        assert_eq!(f.counters.blocks, 0);
    }

    #[test]
    fn a_failed_link_drops_everything_from_its_instant_until_it_recovers() {
        let mut f = faults(vec![(100, LinkState::Failed), (200, LinkState::Up)], 4);
        let dropped: Vec<Time> = (0..300).filter(|&t| f.drops(t, 1000)).collect();
        assert_eq!(dropped, (100..200).collect::<Vec<_>>());
        assert_eq!((f.counters.failed_pkts, f.counters.failed_bytes), (100, 100_000));
        assert_eq!(f.counters.lost_pkts, 0);
    }

    #[test]
    fn changes_skipped_between_two_packets_still_leave_the_last_in_force() {
        // Nothing offered between 10 and 50: the fail at 20 and the recovery at 30 pass
        // unseen, and the failure at 40 holds when the next packet comes.
        let mut f = faults(vec![(20, LinkState::Failed), (30, LinkState::Up), (40, LinkState::Failed)], 5);
        assert!(!f.drops(10, 1));
        assert!(f.drops(50, 1));
        // At equal times the later change wins.
        let mut g = faults(vec![(5, LinkState::Failed), (5, LinkState::Up)], 5);
        assert!(!g.drops(5, 1));
    }

    #[test]
    fn a_new_drop_model_starts_a_fresh_block() {
        // Every block loses all 10 of its packets: from the switch at t = 3, the first 10
        // packets (not 7, as a block carried over would give) are lost, then 10 more.
        let mut f = faults(vec![(0, blocks(&[0.0; 9])), (3, blocks(&[0., 0., 0., 0., 0., 0., 0., 0., 0., 1.0]))], 6);
        let lost: Vec<bool> = (0..23).map(|t| f.drops(t, 1)).collect();
        assert!(lost[..3].iter().all(|&l| !l) && lost[3..].iter().all(|&l| l));
        assert_eq!((f.counters.blocks, f.counters.blocks_by_losses), (3, [0, 0, 0, 2]));
    }

    #[test]
    fn same_seed_same_drops_other_seed_other_drops() {
        let pattern = |seed| {
            let mut f = faults(vec![(0, blocks(&[0.05, 0.02]))], seed);
            (0..100_000u64).filter(|&t| f.drops(t, 1)).collect::<Vec<_>>()
        };
        let a = pattern(11);
        assert!(a.len() > 300, "{} drops", a.len());
        assert_eq!(a, pattern(11));
        assert_ne!(a, pattern(12));
    }
}
