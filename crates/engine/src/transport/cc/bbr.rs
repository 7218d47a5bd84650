//! A BBRv1-like controller for inter-datacenter flows, as the Uno artifact specifies it
//! (spec section 1.5). Rounds are one base RTT long (RTprop is the configured base RTT;
//! there is no PROBE_RTT).
//!
//! - BW = the largest per-round delivery rate of the last 10 rounds.
//! - STARTUP: pacing and cwnd gain 2.89; leaves after 3 rounds without 25% BW growth.
//! - DRAIN: pacing gain 0.35 until in flight <= BW x base RTT.
//! - PROBE_BW: pacing gains [1.25, 0.75, 1 x 6], one phase per round; cwnd gain 2.
//! - cwnd starts at the flow's BDP; an ACK adds one MSS while cwnd is below
//!   cwnd_gain x BW x base RTT + 1 MSS (without going past it; a larger window is left
//!   alone), always within [1 MSS, BDP] (`BBRSrc::processAck`, `check_limits_cwnd`).
//! - A timeout sets cwnd to one MSS (`BBRSrc::apply_timeout_penalty` without trimming);
//!   the pacing rate is untouched. ECN is ignored.

use super::path::FlowPath;
use super::{AckSignal, CongestionControl, Window};
use crate::units::{Time, PS_PER_SEC};

const HIGH_GAIN: f64 = 2.89;
const DRAIN_GAIN: f64 = 0.35;
const PROBE_CWND_GAIN: f64 = 2.0;
const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const BW_ROUNDS: usize = 10;
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BbrMode {
    Startup,
    Drain,
    ProbeBw,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    pub mode: BbrMode,
    mss: u64,
    base_rtt: Time,
    init_cwnd: u64,
    /// Per-round delivery rates (bits/s), newest at `slot`.
    rates: [f64; BW_ROUNDS],
    slot: usize,
    round_start: Option<Time>,
    round_delivered: u64,
    full_bw: f64,
    full_bw_rounds: u32,
    cycle_index: usize,
    pacing_gain: f64,
    cwnd_gain: f64,
}

impl Bbr {
    pub fn new(path: &FlowPath, mss: u64) -> Self {
        Bbr {
            mode: BbrMode::Startup,
            mss,
            base_rtt: path.base_rtt(),
            init_cwnd: path.bdp().max(mss),
            rates: [0.0; BW_ROUNDS],
            slot: 0,
            round_start: None,
            round_delivered: 0,
            full_bw: 0.0,
            full_bw_rounds: 0,
            cycle_index: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
        }
    }

    pub fn initial_cwnd(&self) -> u64 {
        self.init_cwnd
    }

    /// The bottleneck bandwidth estimate in bits per second (0 before the first round).
    pub fn bw_bps(&self) -> f64 {
        self.rates.iter().copied().fold(0.0, f64::max)
    }

    fn bdp_estimate(&self) -> f64 {
        self.bw_bps() * self.base_rtt as f64 / (8 * PS_PER_SEC) as f64
    }

    fn end_round(&mut self, now: Time, start: Time) {
        let elapsed = (now - start).max(1) as f64;
        self.slot = (self.slot + 1) % BW_ROUNDS;
        self.rates[self.slot] = self.round_delivered as f64 * 8.0 * PS_PER_SEC as f64 / elapsed;
        self.round_delivered = 0;
        self.round_start = Some(now);
        let bw = self.bw_bps();
        match self.mode {
            BbrMode::Startup => {
                if bw >= self.full_bw * FULL_BW_GROWTH {
                    self.full_bw = bw;
                    self.full_bw_rounds = 0;
                } else {
                    self.full_bw_rounds += 1;
                    if self.full_bw_rounds >= FULL_BW_ROUNDS {
                        self.mode = BbrMode::Drain;
                        self.pacing_gain = DRAIN_GAIN;
                    }
                }
            }
            BbrMode::Drain => {}
            BbrMode::ProbeBw => {
                self.cycle_index = (self.cycle_index + 1) % CYCLE.len();
                self.pacing_gain = CYCLE[self.cycle_index];
            }
        }
    }
}

impl CongestionControl for Bbr {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        self.round_delivered += ack.delivered;
        let start = *self.round_start.get_or_insert(ack.now);
        if ack.now >= start + self.base_rtt {
            self.end_round(ack.now, start);
        }
        if self.mode == BbrMode::Drain && (ack.in_flight as f64) <= self.bdp_estimate() {
            self.mode = BbrMode::ProbeBw;
            self.cycle_index = 0;
            self.pacing_gain = CYCLE[0];
            self.cwnd_gain = PROBE_CWND_GAIN;
        }
        let target = if self.bw_bps() > 0.0 { (self.cwnd_gain * self.bdp_estimate()) as u64 + self.mss } else { u64::MAX };
        if w.cwnd < target {
            w.cwnd = (w.cwnd + self.mss).min(target);
        }
        w.cwnd = w.cwnd.clamp(w.min_cwnd, self.init_cwnd);
    }

    fn on_loss(&mut self, _w: &mut Window) {}

    fn on_timeout(&mut self, w: &mut Window) {
        w.cwnd = self.mss.max(w.min_cwnd);
    }

    fn ecn_capable(&self) -> bool {
        true
    }

    fn pacing_rate_bps(&self) -> Option<u64> {
        let bw = self.bw_bps();
        let base = if bw > 0.0 { bw } else { self.init_cwnd as f64 * 8.0 * PS_PER_SEC as f64 / self.base_rtt as f64 };
        Some(((self.pacing_gain * base) as u64).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    #[test]
    fn startup_then_drain_then_probe_bw() {
        let path = FlowPath::intra(100_000_000_000, 10 * PS_PER_US);
        let mut b = Bbr::new(&path, 4096);
        let mut w = Window::new(b.initial_cwnd(), 4096, 4096);
        // 50 Gbps delivered steadily: 62,500 B per 10 us round, as 25 ACKs of 2,500 B.
        let mut now = 0;
        for _round in 0..5 {
            for _ in 0..25 {
                now += 400_000;
                b.on_ack(&mut w, &AckSignal { now, delivered: 2500, in_flight: 1_000_000, ..Default::default() });
            }
        }
        assert_eq!(b.mode, BbrMode::Drain);
        assert!((b.bw_bps() - 50e9).abs() < 3e9, "{}", b.bw_bps());
        assert_eq!(b.pacing_rate_bps(), Some((0.35 * b.bw_bps()) as u64));
        b.on_ack(&mut w, &AckSignal { now: now + 1, delivered: 2500, in_flight: 10_000, ..Default::default() });
        assert_eq!(b.mode, BbrMode::ProbeBw);
        // A timeout leaves one MSS; each ACK adds one until 2 BW x RTT + MSS (129,096 B
        // here), and the window never exceeds the BDP (125,000 B).
        b.on_timeout(&mut w);
        assert_eq!(w.cwnd, 4096);
        let ack = |i| AckSignal { now: now + 2 + i, delivered: 2500, in_flight: 10_000, ..Default::default() };
        for i in 0..5 {
            b.on_ack(&mut w, &ack(i));
        }
        assert_eq!(w.cwnd, 6 * 4096);
        for i in 5..100 {
            b.on_ack(&mut w, &ack(i));
        }
        assert!((2.0 * b.bdp_estimate()) as u64 + 4096 > 125_000);
        assert_eq!(w.cwnd, 125_000);
        assert_eq!(b.pacing_rate_bps(), Some((CYCLE[b.cycle_index] * b.bw_bps()) as u64), "pacing untouched");
    }
}
