//! MPRDMA's per-ACK window rule as the Uno artifact runs it for intra-datacenter flows
//! (spec section 1.5): an ECN-marked ACK takes `decrease` MSS off the window, an unmarked
//! one adds MSS^2 / cwnd. Paced, clamped to [1 MSS, BDP], no Quick Adapt, no timeout cut.

use super::path::{ClampedCwnd, FlowPath};
use super::{AckSignal, CongestionControl, Window};

#[derive(Clone, Debug, PartialEq)]
pub struct MprdmaConfig {
    /// MSS taken off per marked ACK: 0.5 (variant a, Figs 10-12) or 0.15 (b, Figs 3, 8, 9).
    pub decrease: f64,
}

#[derive(Clone, Debug)]
pub struct Mprdma {
    w: ClampedCwnd,
    mss: f64,
    decrease_bytes: f64,
}

impl Mprdma {
    pub fn new(cfg: &MprdmaConfig, path: &FlowPath, mss: u64) -> Self {
        Mprdma { w: ClampedCwnd::new(mss, path.bdp()), mss: mss as f64, decrease_bytes: cfg.decrease * mss as f64 }
    }

    pub fn initial_cwnd(&self) -> u64 {
        self.w.cwnd as u64
    }
}

impl CongestionControl for Mprdma {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        self.w.sync_from(w);
        if ack.ece {
            self.w.cwnd -= self.decrease_bytes;
        } else if ack.delivered > 0 {
            self.w.cwnd += self.mss * self.mss / self.w.cwnd;
        }
        self.w.store(w);
    }

    fn on_loss(&mut self, _w: &mut Window) {}

    fn on_timeout(&mut self, _w: &mut Window) {}

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_ack_rule_for_both_variants() {
        let path = FlowPath::intra(100_000_000_000, 14_027_520);
        for (decrease, cut) in [(0.5, 2048.0), (0.15, 614.4)] {
            let mut m = Mprdma::new(&MprdmaConfig { decrease }, &path, 4096);
            let mut w = Window::new(m.initial_cwnd(), 4096, 4096);
            let start = m.w.cwnd;
            m.on_ack(&mut w, &AckSignal { delivered: 4096, ece: true, ..Default::default() });
            assert!((start - m.w.cwnd - cut).abs() < 1e-9);
            let before = m.w.cwnd;
            m.on_ack(&mut w, &AckSignal { delivered: 4096, ..Default::default() });
            assert!((m.w.cwnd - before - 4096.0 * 4096.0 / before).abs() < 1e-9);
            assert_eq!(w.cwnd, m.w.cwnd as u64);
        }
    }
}
