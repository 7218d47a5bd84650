//! Gemini (Zeng et al., 2019) as the Uno artifact configures it (spec section 1.5): ECN
//! from inside a datacenter and, for inter-datacenter flows, delay.
//!
//! - Once per base RTT: E = EWMA (gain 0.5) of the round's ECN-marked fraction, and the
//!   round's minimum RTT is checked against base RTT + T (inter flows only).
//! - At most once per base RTT, on an ECN-marked ACK or a delay-congested round:
//!   `cwnd *= 1 - max(ecn ? E F : 0, delay ? 0.1 : 0)`, F = 4K / (BDP + K).
//! - Unmarked ACKs: `cwnd += H BDP_inter acked / cwnd` for every flow, so both classes
//!   gain the same bytes per own RTT; slow start (below ssthresh) after a timeout.
//! - No Quick Adapt; a timeout restarts from one MSS with ssthresh = cwnd / 2.

use super::path::{ClampedCwnd, FlowPath};
use super::{AckSignal, CongestionControl, Window};
use crate::units::Time;

#[derive(Clone, Debug, PartialEq)]
pub struct GeminiConfig {
    /// Delay threshold above the base RTT (5 ms in Figs 10-12, 0.1 ms in Figs 3, 8, 9).
    pub t: Time,
    /// Additive-increase factor on the inter-datacenter BDP.
    pub h: f64,
}

const K_PACKETS: u64 = 6;
const EWMA_GAIN: f64 = 0.5;
const DELAY_MD: f64 = 0.1;

#[derive(Clone, Debug)]
pub struct Gemini {
    w: ClampedCwnd,
    /// Slow-start threshold after a timeout (0 until the first one: flows start at BDP).
    ssthresh: f64,
    f: f64,
    ai_bytes: f64,
    inter: bool,
    base_rtt: Time,
    delay_limit: Time,
    pub e: f64,
    round_end: Time,
    round_acked: u64,
    round_marked: u64,
    round_min_rtt: Time,
    last_cut: Option<Time>,
    pub cuts: u64,
}

impl Gemini {
    pub fn new(cfg: &GeminiConfig, path: &FlowPath, mss: u64) -> Self {
        let bdp = path.bdp().max(mss);
        let k = (K_PACKETS * 4096) as f64;
        Gemini {
            w: ClampedCwnd::new(mss, bdp),
            ssthresh: 0.0,
            f: 4.0 * k / (bdp as f64 + k),
            ai_bytes: cfg.h * path.bdp_inter() as f64,
            inter: path.inter,
            base_rtt: path.base_rtt(),
            delay_limit: path.base_rtt() + cfg.t,
            e: 0.0,
            round_end: path.base_rtt(),
            round_acked: 0,
            round_marked: 0,
            round_min_rtt: Time::MAX,
            last_cut: None,
            cuts: 0,
        }
    }

    pub fn initial_cwnd(&self) -> u64 {
        self.w.cwnd as u64
    }

    fn cut(&mut self, now: Time, ecn: bool, delay: bool) {
        if self.last_cut.is_some_and(|t| now < t + self.base_rtt) {
            return;
        }
        let ecn_md = if ecn { self.e * self.f } else { 0.0 };
        let delay_md = if delay { DELAY_MD } else { 0.0 };
        self.w.cwnd *= 1.0 - ecn_md.max(delay_md);
        self.last_cut = Some(now);
        self.cuts += 1;
    }

    fn end_round(&mut self, now: Time) {
        let f = if self.round_acked > 0 { self.round_marked as f64 / self.round_acked as f64 } else { 0.0 };
        self.e = (1.0 - EWMA_GAIN) * self.e + EWMA_GAIN * f;
        let delay = self.inter && self.round_min_rtt != Time::MAX && self.round_min_rtt > self.delay_limit;
        if delay {
            self.cut(now, false, true);
        }
        self.round_acked = 0;
        self.round_marked = 0;
        self.round_min_rtt = Time::MAX;
        self.round_end = now + self.base_rtt;
    }
}

impl CongestionControl for Gemini {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        self.w.sync_from(w);
        self.round_acked += ack.delivered;
        if ack.ece {
            self.round_marked += ack.delivered;
        }
        if ack.rtt_sample > 0 {
            self.round_min_rtt = self.round_min_rtt.min(ack.rtt_sample);
        }
        if ack.now >= self.round_end {
            self.end_round(ack.now);
        }
        if ack.ece {
            self.cut(ack.now, true, false);
        } else if self.w.cwnd < self.ssthresh {
            self.w.cwnd += ack.delivered as f64;
        } else {
            self.w.cwnd += self.ai_bytes * ack.delivered as f64 / self.w.cwnd;
        }
        self.w.store(w);
    }

    fn on_loss(&mut self, _w: &mut Window) {}

    fn on_timeout(&mut self, w: &mut Window) {
        self.ssthresh = (self.w.cwnd / 2.0).max(self.w.min);
        self.w.cwnd = self.w.min;
        self.w.store(w);
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{PS_PER_MS, PS_PER_US};

    fn path(inter: bool) -> FlowPath {
        FlowPath { inter, rate_bps: 100_000_000_000, base_rtt_intra: 14_027_520, base_rtt_inter: 1_792_041_280 }
    }

    #[test]
    fn both_classes_gain_the_same_bytes_per_rtt() {
        let cfg = GeminiConfig { t: 5 * PS_PER_MS, h: 0.00024 };
        for inter in [false, true] {
            let mut g = Gemini::new(&cfg, &path(inter), 4096);
            g.w.cwnd = 100_000.0;
            let mut w = Window::new(100_000, 4096, 4096);
            // A window of unmarked bytes adds H * BDP_inter = 5,376 B.
            g.on_ack(&mut w, &AckSignal { now: 1, delivered: 100_000, ..Default::default() });
            assert!((g.w.cwnd - 100_000.0 - 0.00024 * 22_400_516.0).abs() < 1e-6, "{}", g.w.cwnd);
        }
    }

    #[test]
    fn one_cut_per_base_rtt_and_delay_only_for_inter_flows() {
        let cfg = GeminiConfig { t: 100 * PS_PER_US, h: 0.00024 };
        let mut g = Gemini::new(&cfg, &path(false), 4096);
        let mut w = Window::new(g.initial_cwnd(), 4096, 4096);
        let marked = |now| AckSignal { now, delivered: 4096, ece: true, rtt_sample: 30 * PS_PER_US, ..Default::default() };
        g.on_ack(&mut w, &marked(20 * PS_PER_US));
        g.on_ack(&mut w, &marked(21 * PS_PER_US));
        assert_eq!(g.cuts, 1);
        // A round whose minimum RTT is far above base + T cuts an inter flow by 10%.
        let mut g = Gemini::new(&cfg, &path(true), 4096);
        let mut w = Window::new(g.initial_cwnd(), 4096, 4096);
        let late = AckSignal { now: 2 * PS_PER_MS, delivered: 4096, rtt_sample: 2 * PS_PER_MS, ..Default::default() };
        let before = g.w.cwnd;
        g.on_ack(&mut w, &late);
        assert_eq!(g.cuts, 1);
        // (then the ACK's own increase: about one byte)
        assert!((g.w.cwnd - (before * 0.9)).abs() < 2.0);
    }
}
