//! A BBRv1-like controller for inter-datacenter flows, as the Uno artifact specifies it
//! (spec section 1.5, `BBRSrc` in the artifact). Rounds are one base RTT long (RTprop is
//! the configured base RTT; there is no PROBE_RTT).
//!
//! - BW = the largest delivery-rate sample (see [`DeliveryRate`]) of the current round and
//!   the 9 before it, in wire bits per second.
//! - STARTUP: pacing and cwnd gain 2.89; leaves after 3 rounds without 25% BW growth.
//! - DRAIN: pacing gain 0.35 until in flight <= BW x base RTT.
//! - PROBE_BW: pacing gains [1.25, 0.75, 1 x 6], one phase per round; cwnd gain 2.
//! - Pacing: at the initial window per base RTT until a round ends with a sample, then at
//!   gain x the pacing bandwidth: BW as of the last round's end (the artifact resets its
//!   pacing delay once per base RTT, in `update_bw_model`), which STARTUP never lowers
//!   (BBRv1's rule while the pipe is not yet full; it starts at `initial_bw`), and never
//!   below `pacing_floor` (the artifact's `UpdatePacingRate`: 10 and 3 Gb/s).
//! - cwnd starts at the flow's BDP; an ACK adds one MSS while cwnd is below
//!   cwnd_gain x BW x base RTT + 1 MSS (without going past it; a larger window is left
//!   alone), always within [1 MSS, BDP] (`BBRSrc::processAck`, `check_limits_cwnd`).
//! - A timeout sets cwnd to one MSS (`BBRSrc::apply_timeout_penalty` without trimming);
//!   the pacing rate is untouched. ECN is ignored.

use super::delivery_rate::DeliveryRate;
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

/// `[transport.bbr]`.
#[derive(Clone, Debug, PartialEq)]
pub struct BbrConfig {
    /// The pacing bandwidth before STARTUP has seen more (bits/s).
    pub initial_bw: u64,
    /// The least bandwidth pacing assumes (bits/s).
    pub pacing_floor: u64,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig { initial_bw: 10_000_000_000, pacing_floor: 3_000_000_000 }
    }
}

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
    /// Wire bytes per segment beyond its payload.
    overhead: u64,
    base_rtt: Time,
    init_cwnd: u64,
    /// Per-round maxima of the delivery-rate samples (bits/s), the current round at `slot`.
    rates: [f64; BW_ROUNDS],
    slot: usize,
    round_start: Option<Time>,
    samples: DeliveryRate,
    /// The bandwidth pacing uses (bits/s), floored when used; None before the first sample.
    pacing_bw: Option<f64>,
    initial_bw: f64,
    pacing_floor: f64,
    full_bw: f64,
    full_bw_rounds: u32,
    cycle_index: usize,
    pacing_gain: f64,
    cwnd_gain: f64,
}

impl Bbr {
    /// A flow on `path` whose segments carry `mss` payload and `overhead` more bytes on the wire.
    pub fn new(cfg: &BbrConfig, path: &FlowPath, mss: u64, overhead: u64) -> Self {
        Bbr {
            mode: BbrMode::Startup,
            mss,
            overhead,
            base_rtt: path.base_rtt(),
            init_cwnd: path.bdp().max(mss),
            rates: [0.0; BW_ROUNDS],
            slot: 0,
            round_start: None,
            samples: DeliveryRate::new(path.base_rtt()),
            pacing_bw: None,
            initial_bw: cfg.initial_bw as f64,
            pacing_floor: cfg.pacing_floor as f64,
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

    /// Wire bytes of `payload` bytes of whole segments (a short last one counts as one).
    fn wire_bytes(&self, payload: u64) -> u64 {
        payload + payload.div_ceil(self.mss) * self.overhead
    }

    /// At a round's end: the artifact sets its pacing delay once per base RTT (`update_bw_model`).
    fn update_pacing_bw(&mut self, bw: f64) {
        self.pacing_bw = match self.pacing_bw {
            None if bw > 0.0 => Some(self.initial_bw.max(bw)),
            Some(p) if self.mode == BbrMode::Startup => Some(p.max(bw)),
            Some(_) => Some(bw),
            None => None,
        };
    }

    fn end_round(&mut self, now: Time) {
        let bw = self.bw_bps();
        self.slot = (self.slot + 1) % BW_ROUNDS;
        self.rates[self.slot] = 0.0;
        self.round_start = Some(now);
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
        self.update_pacing_bw(bw);
    }
}

impl CongestionControl for Bbr {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        let start = *self.round_start.get_or_insert(ack.now);
        if ack.now >= start + self.base_rtt {
            self.end_round(ack.now);
        }
        if let Some(sample) = self.samples.on_ack(ack.now, ack.rtt_sample, self.wire_bytes(ack.delivered)) {
            let slot = &mut self.rates[self.slot];
            *slot = slot.max(sample);
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
        let base = match self.pacing_bw {
            Some(bw) => self.pacing_gain * bw.max(self.pacing_floor),
            None => self.wire_bytes(self.init_cwnd) as f64 * 8.0 * PS_PER_SEC as f64 / self.base_rtt as f64,
        };
        Some((base as u64).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    /// A 100 Gb/s path with a 10 us base RTT (BDP 125,000 B), 4,096-B segments of 4,160 B.
    fn flow() -> (Bbr, Window) {
        let path = FlowPath::intra(100_000_000_000, 10 * PS_PER_US);
        let b = Bbr::new(&BbrConfig::default(), &path, 4096, 64);
        let w = Window::new(b.initial_cwnd(), 4096, 4096);
        (b, w)
    }

    fn ack(now: Time, in_flight: u64) -> AckSignal {
        AckSignal { now, delivered: 4096, rtt_sample: 10 * PS_PER_US, in_flight, ..Default::default() }
    }

    #[test]
    fn startup_then_drain_then_probe_bw() {
        let (mut b, mut w) = flow();
        // Before any sample: the initial window's 31 segments (126,984 wire bytes) per base RTT.
        assert_eq!(b.pacing_rate_bps(), Some(101_587_200_000));
        // An ACK every 665.6 ns, each for a packet sent 10 us before: 15 other ACKs of 4,160
        // wire bytes in those 10 us, a 49.92 Gb/s sample. Rounds of 16 ACKs: BW stops growing
        // after the first, so the fourth round's end leaves STARTUP.
        let mut now = 0;
        for _ in 0..80 {
            now += 665_600;
            b.on_ack(&mut w, &ack(now, 1_000_000));
        }
        assert_eq!(b.mode, BbrMode::Drain);
        assert!((b.bw_bps() - 49.92e9).abs() < 1.0, "{}", b.bw_bps());
        assert_eq!(b.pacing_rate_bps(), Some((0.35 * b.bw_bps()) as u64));
        // In flight within BW x base RTT (62,400 B): PROBE_BW, pacing at the gain x the BW of
        // the last round's end (this ACK's sample counts from the next).
        let round_bw = b.bw_bps();
        b.on_ack(&mut w, &ack(now + 1, 10_000));
        assert_eq!(b.mode, BbrMode::ProbeBw);
        assert_eq!(b.pacing_rate_bps(), Some((1.25 * round_bw) as u64));
        // A timeout leaves one MSS; each ACK adds one until 2 BW x RTT + MSS (128,896 B
        // here), and the window never exceeds the BDP (125,000 B).
        b.on_timeout(&mut w);
        assert_eq!(w.cwnd, 4096);
        for i in 0..5 {
            b.on_ack(&mut w, &ack(now + 2 + i, 10_000));
        }
        assert_eq!(w.cwnd, 6 * 4096);
        for i in 5..100 {
            b.on_ack(&mut w, &ack(now + 2 + i, 10_000));
        }
        assert_eq!(w.cwnd, 125_000);
        assert_eq!(b.pacing_rate_bps(), Some((CYCLE[b.cycle_index] * round_bw) as u64), "pacing untouched");
    }

    #[test]
    fn startup_paces_at_no_less_than_it_has_seen_and_never_below_the_floor() {
        let (mut b, mut w) = flow();
        let near = |rate: Option<u64>, want: f64| (rate.unwrap() as f64 - want).abs() <= 1.0;
        // An ACK every 5 us, each for a packet sent 10 us before: one other ACK of 4,160 B
        // in 10 us, a 3.328 Gb/s sample (the first ACK's is 0).
        let mut now = 10 * PS_PER_US;
        for k in 0..3 {
            now += 5 * PS_PER_US;
            b.on_ack(&mut w, &ack(now, 1_000_000));
            assert_eq!(b.mode, BbrMode::Startup, "ACK {k}");
        }
        assert!((b.bw_bps() - 3.328e9).abs() < 1.0, "{}", b.bw_bps());
        // STARTUP paces at its initial 10 Gb/s, which a lower BW does not lower.
        assert!(near(b.pacing_rate_bps(), HIGH_GAIN * 10e9), "{:?}", b.pacing_rate_bps());
        // Sparse ACKs (one per 20 us): samples of 0, BW the 3.328 Gb/s of the last 10 rounds,
        // until STARTUP ends; then pacing follows BW, floored at 3 Gb/s.
        while b.mode == BbrMode::Startup {
            now += 20 * PS_PER_US;
            b.on_ack(&mut w, &ack(now, 1_000_000));
        }
        assert!(near(b.pacing_rate_bps(), DRAIN_GAIN * 3.328e9), "{:?}", b.pacing_rate_bps());
        for _ in 0..10 {
            now += 20 * PS_PER_US;
            b.on_ack(&mut w, &ack(now, 1_000_000));
        }
        assert_eq!(b.bw_bps(), 0.0, "ten empty rounds");
        // Pacing picks that up at the next round's end.
        now += 20 * PS_PER_US;
        b.on_ack(&mut w, &ack(now, 1_000_000));
        assert!(near(b.pacing_rate_bps(), DRAIN_GAIN * 3e9), "the floor: {:?}", b.pacing_rate_bps());
    }
}
