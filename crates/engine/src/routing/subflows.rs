//! Load balancing at the sender: which entropy each data packet carries (switches then hash
//! it with their own id, as for ECMP).
//!
//! UnoLB (`LoadBalancing::UnoLb`) is Uno's subflows (SC '25, Alg. 2 as the artifact's
//! `simple_subflow` runs it): each flow has `subflows` subflows, each with a path entropy
//! drawn uniformly from `[0, entropies)` at flow start; data packets go round-robin over the
//! subflows. Only a loss signal (a sender RTO, or a parity NACK) moves paths, and only for
//! the subflows that look stuck: subflow i gets a fresh entropy when
//! `now - last_reroute[i] > base RTT` **and** `now - last_ack[i] > base RTT / 2`.
//!
//! A path entropy is combined with the flow's own entropy before it goes on the wire, so the
//! switch hash sees (flow, entropy) and two flows drawing the same small entropy still take
//! independent paths. The receiver echoes the data packet's entropy in its ACK, which tells
//! the sender which subflow the ACK came back for.

use crate::units::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UnoLbConfig {
    /// Subflows per flow (10 in the artifact).
    pub subflows: u8,
    /// Path entropies are drawn from `[0, entropies)` (250 in the artifact).
    pub entropies: u32,
}

/// One flow's subflows.
#[derive(Clone, Debug)]
pub struct Subflows {
    flow_entropy: u32,
    entropies: u32,
    /// Per subflow: its path entropy, the last ACK that came back on it, its last reroute.
    path: Vec<u32>,
    last_ack: Vec<Time>,
    last_reroute: Vec<Time>,
    next: usize,
    base_rtt: Time,
    rng: u64,
    pub reroutes: u64,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Subflows {
    /// Draws every subflow's entropy at `start`. `seed` is the flow's own random stream;
    /// `base_rtt` gates the reroutes.
    pub fn new(cfg: &UnoLbConfig, flow_entropy: u32, seed: u64, start: Time, base_rtt: Time) -> Subflows {
        let n = cfg.subflows as usize;
        let mut s = Subflows {
            flow_entropy,
            entropies: cfg.entropies,
            path: vec![0; n],
            last_ack: vec![start; n],
            last_reroute: vec![start; n],
            next: 0,
            base_rtt,
            rng: seed,
            reroutes: 0,
        };
        for i in 0..n {
            s.path[i] = s.draw();
        }
        s
    }

    /// A path entropy, uniform in `[0, entropies)` (multiply-shift, no division).
    fn draw(&mut self) -> u32 {
        ((splitmix64(&mut self.rng) >> 32) * self.entropies as u64 >> 32) as u32
    }

    /// The value on the wire for path entropy `e` of this flow.
    #[inline]
    fn wire(&self, e: u32) -> u32 {
        let mut x = (self.flow_entropy as u64) << 32 | e as u64;
        (splitmix64(&mut x) >> 32) as u32
    }

    /// The path entropies, subflow by subflow.
    pub fn paths(&self) -> &[u32] {
        &self.path
    }

    /// The entropy for the next data packet: the subflows in turn.
    #[inline]
    pub fn next_entropy(&mut self) -> u32 {
        let i = self.next;
        self.next = if i + 1 == self.path.len() { 0 } else { i + 1 };
        self.wire(self.path[i])
    }

    /// An ACK came back echoing `wire_entropy`: every subflow currently on that path has
    /// been heard from (an ACK for a packet sent before a reroute matches no subflow).
    pub fn on_ack(&mut self, wire_entropy: u32, now: Time) {
        for i in 0..self.path.len() {
            if self.wire(self.path[i]) == wire_entropy {
                self.last_ack[i] = now;
            }
        }
    }

    /// A loss signal (RTO or parity NACK): moves the subflows that have neither been moved
    /// within a base RTT nor heard from within half of one. Returns how many moved.
    pub fn on_loss_signal(&mut self, now: Time) -> usize {
        let mut moved = 0;
        for i in 0..self.path.len() {
            let rerouted_long_ago = now.saturating_sub(self.last_reroute[i]) > self.base_rtt;
            let silent = now.saturating_sub(self.last_ack[i]) > self.base_rtt / 2;
            if rerouted_long_ago && silent {
                self.path[i] = self.draw();
                self.last_reroute[i] = now;
                moved += 1;
            }
        }
        self.reroutes += moved as u64;
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: UnoLbConfig = UnoLbConfig { subflows: 10, entropies: 250 };

    #[test]
    fn entropies_are_deterministic_and_in_range() {
        let a = Subflows::new(&CFG, 7, 42, 0, 1000);
        let b = Subflows::new(&CFG, 7, 42, 0, 1000);
        assert_eq!(a.paths(), b.paths());
        assert_ne!(a.paths(), Subflows::new(&CFG, 7, 43, 0, 1000).paths());
        assert!(a.paths().iter().all(|&e| e < 250));
        // Over many flows every value of [0, 250) turns up, roughly evenly.
        let mut hist = [0u32; 250];
        for seed in 0..2_000 {
            for &e in Subflows::new(&CFG, 1, seed, 0, 1).paths() {
                hist[e as usize] += 1;
            }
        }
        assert!(hist.iter().all(|&c| (40..=120).contains(&c)), "{:?}", hist.iter().min());
    }

    #[test]
    fn packets_round_robin_over_the_subflows() {
        let mut s = Subflows::new(&CFG, 9, 5, 0, 1000);
        let first: Vec<u32> = (0..10).map(|_| s.next_entropy()).collect();
        let second: Vec<u32> = (0..10).map(|_| s.next_entropy()).collect();
        assert_eq!(first, second);
        let expected: Vec<u32> = s.paths().iter().map(|&e| s.wire(e)).collect();
        assert_eq!(first, expected);
        // The same small entropy in two flows is two different wire values.
        assert_ne!(Subflows::new(&CFG, 1, 5, 0, 1).wire(3), Subflows::new(&CFG, 2, 5, 0, 1).wire(3));
    }

    #[test]
    fn only_stale_silent_subflows_move_on_a_loss_signal() {
        let rtt = 1000;
        // A flow whose ten subflows drew ten different entropies, so an ACK names one.
        let seed = (0..).find(|&k| {
            let mut p = Subflows::new(&CFG, 3, k, 0, rtt).paths().to_vec();
            p.sort_unstable();
            p.windows(2).all(|w| w[0] != w[1])
        });
        let mut s = Subflows::new(&CFG, 3, seed.unwrap(), 0, rtt);
        let before = s.paths().to_vec();
        // Within one base RTT of the flow's start nothing may move.
        assert_eq!(s.on_loss_signal(rtt), 0);
        // Subflow 2 was heard from within half a base RTT; the rest are silent.
        s.on_ack(s.wire(before[2]), 2 * rtt);
        assert_eq!(s.on_loss_signal(2 * rtt + rtt / 4), 9);
        assert_eq!(s.paths()[2], before[2]);
        assert_eq!(s.reroutes, 9);
        // The nine were just moved and stay put for a base RTT, though silent; subflow 2 has
        // been silent for over half a base RTT by then and moves.
        assert_eq!(s.on_loss_signal(3 * rtt), 1);
        assert_eq!(s.on_loss_signal(3 * rtt + rtt / 2), 9);
        assert_eq!(s.on_loss_signal(4 * rtt), 0);
        assert_eq!(s.on_loss_signal(4 * rtt + 1), 1);
    }
}
