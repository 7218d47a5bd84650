//! UnoLB (Uno, SC '25, Alg. 2 as the artifact's `simple_subflow` runs it): each flow has
//! `subflows` subflows, each with a path entropy drawn uniformly from `[0, entropies)` at
//! flow start; data packets go round-robin over the subflows. Only a loss signal (a sender
//! RTO, or a parity NACK) moves paths, and only for the subflows that look stuck: subflow i
//! gets a fresh entropy when `now - last_reroute[i] > base RTT` **and**
//! `now - last_ack[i] > base RTT / 2`.
//!
//! A path entropy goes on the wire combined with the flow's own hash (`super::wire`). The
//! receiver echoes the data packet's entropy in its ACK, which tells the sender which
//! subflow the ACK came back for.

use super::{wire, AckSeen, FlowPaths, HostDraws, Loss, PathDraws, PathSelector};
use crate::ids::HostId;
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
pub struct UnoLb {
    flow_entropy: u32,
    /// Per subflow: its path entropy, that entropy on the wire, the last ACK that came
    /// back on it, its last reroute.
    path: Vec<u32>,
    wire: Vec<u32>,
    last_ack: Vec<Time>,
    last_reroute: Vec<Time>,
    next: usize,
    base_rtt: Time,
    draws: PathDraws,
    pub reroutes: u64,
}

impl UnoLb {
    /// Draws every subflow's entropy at the flow's start from its own stream.
    pub fn new(cfg: &UnoLbConfig, flow: &FlowPaths) -> UnoLb {
        let n = cfg.subflows as usize;
        let mut s = UnoLb {
            flow_entropy: flow.entropy,
            path: vec![0; n],
            wire: vec![0; n],
            last_ack: vec![flow.start; n],
            last_reroute: vec![flow.start; n],
            next: 0,
            base_rtt: flow.base_rtt,
            draws: PathDraws::new(flow.seed, cfg.entropies),
            reroutes: 0,
        };
        for i in 0..n {
            s.set_path(i);
        }
        s
    }

    /// Subflow `i` draws a fresh path.
    fn set_path(&mut self, i: usize) {
        self.path[i] = self.draws.draw();
        self.wire[i] = wire(self.flow_entropy, self.path[i]);
    }

    /// The path entropies, subflow by subflow.
    pub fn paths(&self) -> &[u32] {
        &self.path
    }

    /// A loss signal (RTO or parity NACK): moves the subflows that have neither been moved
    /// within a base RTT nor heard from within half of one. Returns how many moved.
    pub fn on_loss_signal(&mut self, now: Time) -> usize {
        let mut moved = 0;
        for i in 0..self.path.len() {
            let rerouted_long_ago = now.saturating_sub(self.last_reroute[i]) > self.base_rtt;
            let silent = now.saturating_sub(self.last_ack[i]) > self.base_rtt / 2;
            if rerouted_long_ago && silent {
                self.set_path(i);
                self.last_reroute[i] = now;
                moved += 1;
            }
        }
        self.reroutes += moved as u64;
        moved
    }
}

impl PathSelector for UnoLb {
    /// The subflows in turn.
    #[inline]
    fn on_send(&mut self, _draws: &mut HostDraws, _src: HostId) -> u32 {
        let i = self.next;
        self.next = if i + 1 == self.path.len() { 0 } else { i + 1 };
        self.wire[i]
    }

    /// Every subflow currently on the echoed path has been heard from (an ACK for a packet
    /// sent before a reroute matches no subflow).
    fn on_ack(&mut self, now: Time, ack: &AckSeen) {
        for i in 0..self.wire.len() {
            if self.wire[i] == ack.entropy {
                self.last_ack[i] = now;
            }
        }
    }

    /// Timeouts and parity NACKs move stuck subflows; a trimmed packet's NACK says a queue
    /// is full, not that a path is broken, and moves none (Uno has no trimming).
    fn on_loss(&mut self, now: Time, _rto: Time, loss: Loss) {
        match loss {
            Loss::Timeout | Loss::ParityNack => {
                self.on_loss_signal(now);
            }
            Loss::TrimNack => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: UnoLbConfig = UnoLbConfig { subflows: 10, entropies: 250 };

    fn lb(entropy: u32, seed: u64, base_rtt: Time) -> UnoLb {
        UnoLb::new(&CFG, &FlowPaths { entropy, seed, start: 0, base_rtt })
    }

    fn send(s: &mut UnoLb) -> u32 {
        s.on_send(&mut HostDraws::default(), HostId(0))
    }

    fn ack(s: &mut UnoLb, entropy: u32, now: Time) {
        s.on_ack(now, &AckSeen { entropy, acked: 1000, ece: false });
    }

    #[test]
    fn entropies_are_deterministic_and_in_range() {
        let a = lb(7, 42, 1000);
        assert_eq!(a.paths(), lb(7, 42, 1000).paths());
        assert_ne!(a.paths(), lb(7, 43, 1000).paths());
        assert!(a.paths().iter().all(|&e| e < 250));
        // Over many flows every value of [0, 250) turns up, roughly evenly.
        let mut hist = [0u32; 250];
        for seed in 0..2_000 {
            for &e in lb(1, seed, 1).paths() {
                hist[e as usize] += 1;
            }
        }
        assert!(hist.iter().all(|&c| (40..=120).contains(&c)), "{:?}", hist.iter().min());
    }

    #[test]
    fn packets_round_robin_over_the_subflows() {
        let mut s = lb(9, 5, 1000);
        let first: Vec<u32> = (0..10).map(|_| send(&mut s)).collect();
        let second: Vec<u32> = (0..10).map(|_| send(&mut s)).collect();
        assert_eq!(first, second);
        let expected: Vec<u32> = s.paths().iter().map(|&e| wire(9, e)).collect();
        assert_eq!(first, expected);
        // The same small entropy in two flows is two different wire values.
        assert_ne!(wire(1, 3), wire(2, 3));
    }

    /// A flow whose ten subflows drew ten different entropies, so an ACK names one.
    fn distinct_subflows(rtt: Time) -> UnoLb {
        let seed = (0..).find(|&k| {
            let mut p = lb(3, k, rtt).paths().to_vec();
            p.sort_unstable();
            p.windows(2).all(|w| w[0] != w[1])
        });
        lb(3, seed.unwrap(), rtt)
    }

    #[test]
    fn only_stale_silent_subflows_move_on_a_loss_signal() {
        let rtt = 1000;
        let mut s = distinct_subflows(rtt);
        let before = s.paths().to_vec();
        // Within one base RTT of the flow's start nothing may move.
        assert_eq!(s.on_loss_signal(rtt), 0);
        // Subflow 2 was heard from within half a base RTT; the rest are silent.
        ack(&mut s, wire(3, before[2]), 2 * rtt);
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

    #[test]
    fn timeouts_and_parity_nacks_reroute_trim_nacks_do_not() {
        let rtt = 1000;
        let mut s = distinct_subflows(rtt);
        let before = s.paths().to_vec();
        s.on_loss(2 * rtt, rtt, Loss::TrimNack);
        assert_eq!((s.paths(), s.reroutes), (before.as_slice(), 0));
        s.on_loss(2 * rtt, rtt, Loss::ParityNack);
        assert_eq!(s.reroutes, 10);
        // The new paths are on the wire from the next packet on.
        let sent: Vec<u32> = (0..10).map(|_| send(&mut s)).collect();
        assert_eq!(sent, s.paths().iter().map(|&e| wire(3, e)).collect::<Vec<_>>());
        s.on_loss(3 * rtt + 1, rtt, Loss::Timeout);
        assert_eq!(s.reroutes, 20);
    }
}
