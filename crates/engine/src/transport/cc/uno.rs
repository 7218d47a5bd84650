//! UnoCC (Uno, SC '25), as the public artifact runs it (`aimd_phantom`; spec section 1.1).
//!
//! - Per ACK without ECN-Echo: `cwnd += alpha * acked / cwnd`, alpha = 0.001 BDP_flow.
//! - Epochs: enabled once a first window of bytes has been sent (T_ep = then). An ACK for
//!   a packet sent at or after T_ep ends the epoch: E = (1-g) E + g f with f the marked
//!   fraction of the epoch's bytes. If f > 0 the window shrinks by `E b`, b = 4K/(BDP+K),
//!   except that a falling E (and E_prev > 0, E <= 0.9) grants one more additive increase
//!   instead; b shrinks to 0.35 b when the RTT shows only phantom congestion (RTT <= 1.055
//!   base RTT). The next epoch starts at T_ep + RTT r, r = BDP_intra / BDP_flow, so inter
//!   flows react about once per intra-datacenter RTT.
//! - Quick Adapt: armed by an ACK for a packet sent after the last QA point, it closes on
//!   the first ACK after now + 1.05 base RTT; if fewer than half a window was acknowledged
//!   meanwhile, `cwnd = 0.96 acked`, epochs pause until a new window has been sent and QA
//!   waits for an ACK of a packet sent after the cut.
//! - No cut on a timeout; no fast increase; no RTT-based decrease.

use super::path::{ClampedCwnd, FlowPath};
use super::{AckSignal, CongestionControl, Window};
use crate::units::Time;

#[derive(Clone, Debug, PartialEq)]
pub struct UnoConfig {
    /// EWMA gain of the ECN fraction (0.5 in Figs 10-12, 0.65 in Figs 3, 4, 8, 9, 13).
    pub g: f64,
}

impl Default for UnoConfig {
    fn default() -> Self {
        UnoConfig { g: 0.5 }
    }
}

/// The artifact's K: six 4096-byte packets.
const K_PACKETS: u64 = 6;
const AI_BDP_FRACTION: f64 = 0.001;
const QA_THRESHOLD: f64 = 0.5;
const QA_CUT: f64 = 0.96;
const TARGET_RTT: f64 = 1.05;
const PHANTOM_ONLY_RTT: f64 = 1.055;
const PHANTOM_ONLY_SCALE: f64 = 0.35;
const E_SATURATED: f64 = 0.9;

#[derive(Clone, Debug)]
pub struct UnoCc {
    w: ClampedCwnd,
    alpha_bytes: f64,
    md_ecn: f64,
    g: f64,
    base_rtt: Time,
    target_rtt: Time,
    /// BDP_intra / BDP_flow: scales the epoch period.
    epoch_ratio: f64,
    /// EWMA of the per-epoch ECN fraction, and its value after the previous epoch.
    pub e: f64,
    e_prev: f64,
    epoch_enabled: bool,
    /// Bytes still to send before epochs (re)start.
    epoch_countdown: i64,
    epoch_end: Time,
    epoch_acked: u64,
    epoch_marked: u64,
    qa_enabled: bool,
    qa_end: Time,
    qa_acked: u64,
    /// Epochs ended so far, and the period the last one set (RTT sample x r).
    pub epochs: u64,
    pub last_epoch_period: Time,
    /// Quick Adapt cuts so far.
    pub qa_cuts: u64,
}

impl UnoCc {
    pub fn new(cfg: &UnoConfig, path: &FlowPath, mss: u64) -> Self {
        let bdp = path.bdp().max(mss);
        let k = (K_PACKETS * 4096) as f64;
        let w = ClampedCwnd::new(mss, bdp);
        UnoCc {
            epoch_countdown: w.cwnd as i64,
            w,
            alpha_bytes: AI_BDP_FRACTION * bdp as f64,
            md_ecn: 4.0 * k / (bdp as f64 + k),
            g: cfg.g,
            base_rtt: path.base_rtt(),
            target_rtt: (path.base_rtt() as f64 * TARGET_RTT) as Time,
            epoch_ratio: path.bdp_intra() as f64 / bdp as f64,
            e: 0.0,
            e_prev: 0.0,
            epoch_enabled: false,
            epoch_end: 0,
            epoch_acked: 0,
            epoch_marked: 0,
            qa_enabled: false,
            qa_end: 0,
            qa_acked: 0,
            epochs: 0,
            last_epoch_period: 0,
            qa_cuts: 0,
        }
    }

    pub fn initial_cwnd(&self) -> u64 {
        self.w.cwnd as u64
    }

    pub fn md_ecn(&self) -> f64 {
        self.md_ecn
    }

    fn additive_increase(&mut self, acked: u64) {
        self.w.cwnd += self.alpha_bytes * acked as f64 / self.w.cwnd;
    }

    fn reset_epoch(&mut self, now: Time) {
        self.epoch_acked = 0;
        self.epoch_marked = 0;
        self.epoch_end = now;
    }

    fn end_epoch(&mut self, now: Time, rtt: Time) {
        // An epoch that acknowledged nothing new has no fraction: count it unmarked.
        let f = if self.epoch_acked > 0 { self.epoch_marked as f64 / self.epoch_acked as f64 } else { 0.0 };
        self.e = (1.0 - self.g) * self.e + self.g * f;
        if f > 0.0 {
            if self.e_prev != 0.0 && self.e <= E_SATURATED && self.e < self.e_prev {
                self.additive_increase(self.epoch_acked);
            } else {
                let mut b = self.md_ecn;
                if rtt as f64 <= self.base_rtt as f64 * PHANTOM_ONLY_RTT {
                    b *= PHANTOM_ONLY_SCALE;
                }
                self.w.cwnd *= 1.0 - self.e * b;
            }
        }
        self.w.cwnd = self.w.cwnd.clamp(self.w.min, self.w.max);
        self.e_prev = self.e;
        let previous = self.epoch_end;
        self.reset_epoch(now);
        self.last_epoch_period = (rtt as f64 * self.epoch_ratio) as Time;
        self.epoch_end = previous + self.last_epoch_period;
        self.epochs += 1;
    }

    fn close_quick_adapt(&mut self, now: Time) {
        if (self.qa_acked as f64) < self.w.cwnd * QA_THRESHOLD {
            self.w.cwnd = QA_CUT * self.qa_acked as f64;
            self.w.cwnd = self.w.cwnd.clamp(self.w.min, self.w.max);
            self.reset_epoch(now);
            self.epoch_enabled = false;
            self.epoch_countdown = self.w.cwnd as i64;
            self.qa_enabled = false;
            self.qa_end = now;
            self.qa_cuts += 1;
        } else {
            self.qa_end = now + self.target_rtt;
        }
        self.qa_acked = 0;
    }
}

impl CongestionControl for UnoCc {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        self.w.sync_from(w);
        let now = ack.now;
        if self.epoch_enabled {
            self.epoch_acked += ack.delivered;
            if ack.ece {
                self.epoch_marked += ack.delivered;
            }
        }
        if self.qa_enabled {
            self.qa_acked += ack.delivered;
        }
        if !self.qa_enabled && ack.sent_at >= self.qa_end {
            self.qa_enabled = true;
            self.qa_end = now + self.target_rtt;
        } else if self.qa_enabled && now >= self.qa_end {
            self.close_quick_adapt(now);
        }
        if !ack.ece {
            self.additive_increase(ack.delivered);
        }
        if self.epoch_enabled && ack.sent_at >= self.epoch_end {
            self.end_epoch(now, ack.rtt_sample);
        }
        self.w.store(w);
    }

    fn on_send(&mut self, _w: &mut Window, now: Time, bytes: u64) {
        if self.epoch_countdown > 0 {
            self.epoch_countdown -= bytes as i64;
            if self.epoch_countdown <= 0 {
                self.reset_epoch(now);
                self.epoch_enabled = true;
            }
        }
    }

    /// Loss recovery is by per-packet timeout; the artifact never cuts on loss.
    fn on_loss(&mut self, _w: &mut Window) {}

    fn on_timeout(&mut self, _w: &mut Window) {}

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    const MSS: u64 = 4096;

    fn intra() -> FlowPath {
        FlowPath { inter: false, rate_bps: 100_000_000_000, base_rtt_intra: 14_027_520, base_rtt_inter: 1_792_041_280 }
    }

    fn ack(now: Time, delivered: u64, ece: bool, sent_at: Time, rtt: Time) -> AckSignal {
        AckSignal { now, delivered, ece, sent_at, rtt_sample: rtt, ..Default::default() }
    }

    #[test]
    fn artifact_constants() {
        let u = UnoCc::new(&UnoConfig::default(), &intra(), MSS);
        assert_eq!(u.initial_cwnd(), 175_344);
        assert!((u.md_ecn - 0.491717).abs() < 1e-6, "{}", u.md_ecn);
        assert!((u.alpha_bytes - 175.344).abs() < 1e-9);
        let inter = UnoCc::new(&UnoConfig::default(), &FlowPath { inter: true, ..intra() }, MSS);
        assert!((inter.md_ecn - 0.00438366).abs() < 1e-8, "{}", inter.md_ecn);
        assert!((inter.epoch_ratio - 175_344.0 / 22_400_516.0).abs() < 1e-12);
    }

    #[test]
    fn quick_adapt_cuts_an_overshooting_window_to_096_of_acked() {
        let mut u = UnoCc::new(&UnoConfig::default(), &intra(), MSS);
        let mut w = Window::new(u.initial_cwnd(), MSS, MSS);
        let rtt = 14 * PS_PER_US;
        // The first ACK arms QA; the window closes 1.05 base RTT later.
        u.on_ack(&mut w, &ack(rtt, MSS, false, 0, rtt));
        assert!(u.qa_enabled);
        // Only 10 packets come back within the QA window: far below half the window.
        for i in 1..=10 {
            u.on_ack(&mut w, &ack(rtt + i * PS_PER_US, MSS, false, i, rtt));
        }
        // The ACK that closes the window counts in it; the cut comes before its increase.
        u.on_ack(&mut w, &ack(rtt + 15 * PS_PER_US, MSS, false, 11, rtt));
        assert_eq!(u.qa_cuts, 1);
        let cut = 0.96 * (11 * MSS) as f64;
        assert_eq!(w.cwnd, (cut + 175.344 * MSS as f64 / cut) as u64);
        assert!(!u.qa_enabled && !u.epoch_enabled);
    }

    #[test]
    fn phantom_only_congestion_cuts_gently() {
        let cut = |rtt: Time| {
            let mut u = UnoCc::new(&UnoConfig::default(), &intra(), MSS);
            let mut w = Window::new(u.initial_cwnd(), MSS, MSS);
            u.on_send(&mut w, 0, u.initial_cwnd());
            assert!(u.epoch_enabled);
            // Disarm QA for this test: its first window opens now and never closes.
            u.qa_enabled = true;
            u.qa_end = Time::MAX;
            let before = u.w.cwnd;
            u.on_ack(&mut w, &ack(rtt, MSS, true, 0, rtt));
            assert_eq!(u.epochs, 1);
            assert!((u.e - 0.5).abs() < 1e-12);
            1.0 - u.w.cwnd / before
        };
        let base = 14_027_520;
        let full = cut(2 * base);
        let gentle = cut(base);
        assert!((full - 0.5 * 0.491717).abs() < 1e-5, "{full}");
        assert!((gentle - 0.35 * full).abs() < 1e-9, "{gentle}");
    }

    #[test]
    fn a_falling_ecn_average_grants_an_increase_instead_of_a_cut() {
        let mut u = UnoCc::new(&UnoConfig::default(), &intra(), MSS);
        let mut w = Window::new(u.initial_cwnd(), MSS, MSS);
        u.on_send(&mut w, 0, u.initial_cwnd());
        u.qa_enabled = true;
        u.qa_end = Time::MAX;
        u.w.cwnd = 100_000.0;
        w.cwnd = 100_000;
        u.e = 0.8;
        u.e_prev = 0.8;
        // One unmarked packet already counted in this epoch; a marked one ends it: f = 1/2,
        // E = 0.65 < E_prev, so the epoch adds alpha * acked / cwnd instead of cutting.
        u.epoch_acked = MSS;
        u.on_ack(&mut w, &ack(1, MSS, true, 0, 20 * PS_PER_US));
        let expected = 100_000.0 + 175.344 * (2 * MSS) as f64 / 100_000.0;
        assert!((u.e - 0.65).abs() < 1e-12);
        assert!((u.w.cwnd - expected).abs() < 1e-9, "{}", u.w.cwnd);
    }
}
