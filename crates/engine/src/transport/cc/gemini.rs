//! Gemini (Zeng et al., 2019) as the Uno artifact configures it (spec section 1.5): ECN
//! from inside a datacenter and, for inter-datacenter flows, delay.
//!
//! - Rounds and cuts start once the flow has sent its first window (the artifact arms them
//!   in `GeminiSrc::send_packets` when `epoch_enabled` turns on): before that the window
//!   only grows, so a flow smaller than its BDP is never cut.
//! - Once per base RTT: E = EWMA (gain 0.5) of the round's ECN-marked fraction.
//! - At most once per base RTT (counted from the arming or the last cut), on an ECN-marked
//!   ACK or when the round's running minimum RTT exceeds base RTT + T (inter flows only):
//!   `cwnd *= 1 - max(ecn ? E F : 0, delay ? 0.1 : 0)`, F = 4K / (BDP + K); a cut also
//!   restarts the round's clock.
//! - Unmarked ACKs: `cwnd += H BDP_inter acked / cwnd` for every flow, so both classes
//!   gain the same bytes per own RTT; slow start after a timeout, until cwnd first reaches
//!   ssthresh (a cut below it later does not restart it).
//! - No Quick Adapt. A timeout restarts from one MSS with ssthresh = cwnd / 2, at most
//!   once per RTO (`GeminiSrc::retransmit_packet`'s `most_recent_rto_reduction` gate):
//!   the other packets of the same loss burst time out without cutting again. It also
//!   restarts the round and the cut clock, arming them if the first window was not out.

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
    /// Bytes still to send before rounds and cuts start (the first window).
    unarmed_bytes: u64,
    round_end: Time,
    round_acked: u64,
    round_marked: u64,
    round_min_rtt: Time,
    last_cut: Time,
    /// The timeout reaction's gate: one per `rto` at most.
    rto: Time,
    last_timeout_cut: Option<Time>,
    pub cuts: u64,
    pub timeout_cuts: u64,
}

impl Gemini {
    /// `rto` is the flow's per-packet timeout (the gate between two timeout reactions).
    pub fn new(cfg: &GeminiConfig, path: &FlowPath, mss: u64, rto: Time) -> Self {
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
            unarmed_bytes: bdp,
            round_end: Time::MAX,
            round_acked: 0,
            round_marked: 0,
            round_min_rtt: Time::MAX,
            last_cut: Time::MAX,
            rto,
            last_timeout_cut: None,
            cuts: 0,
            timeout_cuts: 0,
        }
    }

    pub fn initial_cwnd(&self) -> u64 {
        self.w.cwnd as u64
    }

    fn armed(&self) -> bool {
        self.unarmed_bytes == 0
    }

    fn cut(&mut self, now: Time, ecn: bool, delay: bool) {
        if now < self.last_cut.saturating_add(self.base_rtt) {
            return;
        }
        let ecn_md = if ecn { self.e * self.f } else { 0.0 };
        let delay_md = if delay { DELAY_MD } else { 0.0 };
        self.w.cwnd *= 1.0 - ecn_md.max(delay_md);
        self.last_cut = now;
        self.round_end = now + self.base_rtt;
        self.cuts += 1;
    }

    fn end_round(&mut self, now: Time) {
        let f = if self.round_acked > 0 { self.round_marked as f64 / self.round_acked as f64 } else { 0.0 };
        self.e = (1.0 - EWMA_GAIN) * self.e + EWMA_GAIN * f;
        self.start_round(now);
    }

    fn start_round(&mut self, now: Time) {
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
        if ack.now > self.round_end {
            self.end_round(ack.now);
        }
        if ack.rtt_sample > 0 {
            self.round_min_rtt = self.round_min_rtt.min(ack.rtt_sample);
        }
        let delay = self.inter && self.round_min_rtt != Time::MAX && self.round_min_rtt > self.delay_limit;
        // Slow start ends for good at ssthresh (the artifact's phase flag): a later cut
        // below it does not bring it back.
        if self.w.cwnd >= self.ssthresh {
            self.ssthresh = 0.0;
        }
        if ack.ece || delay {
            if self.armed() {
                self.cut(ack.now, ack.ece, delay);
            }
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
        self.timeout_cuts += 1;
    }

    fn on_packet_timeout(&mut self, w: &mut Window, now: Time) {
        if self.last_timeout_cut.is_some_and(|t| now <= t + self.rto) {
            return;
        }
        self.w.sync_from(w);
        self.on_timeout(w);
        self.last_timeout_cut = Some(now);
        // The artifact also restarts the round and the cut clock here, which arms them.
        self.unarmed_bytes = 0;
        self.last_cut = now;
        self.start_round(now);
    }

    fn on_send(&mut self, _w: &mut Window, now: Time, bytes: u64) {
        if self.unarmed_bytes > 0 {
            self.unarmed_bytes = self.unarmed_bytes.saturating_sub(bytes);
            if self.armed() {
                self.last_cut = now;
                self.start_round(now);
            }
        }
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{PS_PER_MS, PS_PER_US};

    const RTO_INTER: Time = 2_432_041_280;

    fn path(inter: bool) -> FlowPath {
        FlowPath { inter, rate_bps: 100_000_000_000, base_rtt_intra: 14_027_520, base_rtt_inter: 1_792_041_280 }
    }

    /// A Gemini flow that has sent its first window at `now` (rounds and cuts armed).
    fn armed(cfg: &GeminiConfig, inter: bool, now: Time) -> (Gemini, Window) {
        let mut g = Gemini::new(cfg, &path(inter), 4096, RTO_INTER);
        let mut w = Window::new(g.initial_cwnd(), 4096, 4096);
        g.on_send(&mut w, now, g.initial_cwnd());
        (g, w)
    }

    #[test]
    fn both_classes_gain_the_same_bytes_per_rtt() {
        let cfg = GeminiConfig { t: 5 * PS_PER_MS, h: 0.00024 };
        for inter in [false, true] {
            let mut g = Gemini::new(&cfg, &path(inter), 4096, RTO_INTER);
            g.w.cwnd = 100_000.0;
            let mut w = Window::new(100_000, 4096, 4096);
            // A window of unmarked bytes adds H * BDP_inter = 5,376 B.
            g.on_ack(&mut w, &AckSignal { now: 1, delivered: 100_000, ..Default::default() });
            assert!((g.w.cwnd - 100_000.0 - 0.00024 * 22_400_516.0).abs() < 1e-6, "{}", g.w.cwnd);
        }
    }

    #[test]
    fn no_cut_before_the_first_window_is_out() {
        let cfg = GeminiConfig { t: 100 * PS_PER_US, h: 0.00024 };
        let mut g = Gemini::new(&cfg, &path(false), 4096, RTO_INTER);
        let mut w = Window::new(g.initial_cwnd(), 4096, 4096);
        let marked = |now| AckSignal { now, delivered: 4096, ece: true, rtt_sample: 30 * PS_PER_US, ..Default::default() };
        // Half the first window sent: a marked ACK neither cuts nor grows the window.
        g.on_send(&mut w, 0, g.initial_cwnd() / 2);
        let before = g.w.cwnd;
        g.on_ack(&mut w, &marked(20 * PS_PER_US));
        assert_eq!((g.cuts, g.w.cwnd), (0, before));
        // The rest goes out at 30 us: cuts start one base RTT later.
        g.on_send(&mut w, 30 * PS_PER_US, g.initial_cwnd());
        g.on_ack(&mut w, &marked(40 * PS_PER_US));
        assert_eq!(g.cuts, 0);
        g.on_ack(&mut w, &marked(45 * PS_PER_US));
        assert_eq!(g.cuts, 1);
    }

    #[test]
    fn one_cut_per_base_rtt_and_delay_only_for_inter_flows() {
        let cfg = GeminiConfig { t: 100 * PS_PER_US, h: 0.00024 };
        let (mut g, mut w) = armed(&cfg, false, 0);
        let marked = |now| AckSignal { now, delivered: 4096, ece: true, rtt_sample: 30 * PS_PER_US, ..Default::default() };
        g.on_ack(&mut w, &marked(20 * PS_PER_US));
        g.on_ack(&mut w, &marked(21 * PS_PER_US));
        assert_eq!(g.cuts, 1);
        // A late RTT sample on an intra flow cuts nothing (the delay signal is inter-only).
        let late = |now| AckSignal { now, delivered: 4096, rtt_sample: 2 * PS_PER_MS, ..Default::default() };
        g.on_ack(&mut w, &late(100 * PS_PER_US));
        assert_eq!(g.cuts, 1);
        // A round whose minimum RTT is above base + T cuts an inter flow by 10%, once.
        let (mut g, mut w) = armed(&cfg, true, 0);
        let before = g.w.cwnd;
        g.on_ack(&mut w, &late(2 * PS_PER_MS));
        g.on_ack(&mut w, &late(2 * PS_PER_MS + 1));
        assert_eq!(g.cuts, 1);
        assert!((g.w.cwnd - before * 0.9).abs() < 1.0, "{} vs {}", g.w.cwnd, before * 0.9);
    }

    #[test]
    fn a_burst_of_timeouts_restarts_slow_start_once_per_rto() {
        let cfg = GeminiConfig { t: 5 * PS_PER_MS, h: 0.00024 };
        let (mut g, mut w) = armed(&cfg, true, 0);
        let bdp = g.w.cwnd;
        // Packets of one window expire one after the other: only the first one cuts, so
        // ssthresh keeps half the window the flow had (not half of one MSS).
        for k in 0..100 {
            g.on_packet_timeout(&mut w, 3 * PS_PER_MS + k * 333_000);
        }
        assert_eq!(g.timeout_cuts, 1);
        assert_eq!(w.cwnd, 4096);
        assert!((g.ssthresh - bdp / 2.0).abs() < 1.0);
        // Slow start: every ACKed byte adds one.
        g.on_ack(&mut w, &AckSignal { now: 4 * PS_PER_MS, delivered: 4096, rtt_sample: 1_800 * PS_PER_US, ..Default::default() });
        assert_eq!(w.cwnd, 8192);
        // Slow start ends at ssthresh and a cut below it does not restart it.
        w.cwnd = (bdp / 2.0) as u64 + 1;
        g.on_ack(&mut w, &AckSignal { now: 5 * PS_PER_MS, delivered: 4096, rtt_sample: 1_800 * PS_PER_US, ..Default::default() });
        assert_eq!(g.ssthresh, 0.0);
        w.cwnd = 100_000;
        g.on_ack(&mut w, &AckSignal { now: 5 * PS_PER_MS + 1, delivered: 4096, rtt_sample: 1_800 * PS_PER_US, ..Default::default() });
        assert!(g.w.cwnd - 100_000.0 < 300.0, "additive increase, not slow start: {}", g.w.cwnd);
        // One RTO after the first cut the gate opens again.
        g.on_packet_timeout(&mut w, 3 * PS_PER_MS + RTO_INTER + 1);
        assert_eq!(g.timeout_cuts, 2);
    }
}
