//! ICTCP (Wu et al., "ICTCP: Incast Congestion Control for TCP in Data Center Networks",
//! CoNEXT '10; spec `icon.md` §1.3): the receiver throttles its connections' advertised
//! windows so their sum fits what its interface can still take.
//!
//! Per receiving interface of capacity C, time runs in slots of 2T, each two sub-slots of
//! T, with T = Σ w_i·RTT_i over the interface's traffic of the last slot (w_i: connection
//! i's share of its bytes; without traffic, the mean base RTT of its open connections).
//! The first sub-slot measures the incoming throughput BW_T; then BW_A = max(0, α·C − BW_T)
//! is the quota the second sub-slot's window increases draw from.
//!
//! Per connection, every RTT_i: b_s = bytes received in the last RTT_i / RTT_i;
//! b_m ← max(b_s, β·b_m + (1 − β)·b_s); b_e = max(b_m, rwnd_i / RTT_i);
//! d = (b_e − b_m) / b_e. The window moves at most every second measurement (once per
//! 2·RTT_i: one RTT for a change to show, one to measure it):
//! - d ≤ γ1 or d ≤ MSS / rwnd_i: increase, in the second sub-slot only and only if the
//!   quota covers it (slow start doubles rwnd at a cost of rwnd / RTT_i; once the quota
//!   falls short or the window was once decreased, +1 MSS at MSS / RTT_i);
//! - d > γ2 for 3 RTT_i in a row: −1 MSS;
//! - fairness: while BW_A < 0.2·C, a window above the interface's mean loses 1 MSS
//!   (either decrease restarts the count of RTTs with d > γ2);
//!
//! never below `min_rwnd`. Rates are bytes per second (f64); time is integer picoseconds.
//!
//! The clocks run lazily: a sub-slot or an RTT_i ends at the first data arrival at or
//! after its end (arrivals come in time order), which is also the only moment the window
//! can matter (the next ACK carries it). A sample is the bytes of the arrivals in
//! [start, end) over its true length (at least RTT_i). When no data came through the
//! whole first sub-slot of the next slot, the interface starts a fresh slot at the arrival.

use super::ReceiverPolicy;
use crate::ids::{FlowId, HostId};
use crate::units::{Time, PS_PER_SEC};

/// While BW_A is below this share of C, windows above the mean are cut (the share of a
/// public ICTCP implementation; not a setting).
pub const FAIRNESS_SHARE: f64 = 0.2;
/// Measurements in a row with d > γ2 before a decrease.
pub const DECREASE_AFTER: u32 = 3;
/// The largest window an ACK can carry, in MSS (its 16-bit field).
pub const MAX_RWND_PKTS: u64 = u16::MAX as u64;

const NEVER: Time = Time::MAX;

/// ICTCP's settings (`[transport.ictcp]`); windows in whole MSS.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct IctcpConfig {
    /// Share of C the connections may fill: BW_A = max(0, α·C − BW_T).
    pub alpha: f64,
    /// Weight of the old value in b_m's moving average.
    pub beta: f64,
    /// d at or below which a window may grow.
    pub gamma1: f64,
    /// d above which (three RTTs in a row) a window shrinks.
    pub gamma2: f64,
    /// A connection's first window, in MSS.
    pub init_rwnd_pkts: u64,
    /// The smallest window, in MSS.
    pub min_rwnd_pkts: u64,
}

impl Default for IctcpConfig {
    /// The paper's values, with the spec's initial window of 10 MSS (ICTCP's own is 2).
    fn default() -> Self {
        IctcpConfig { alpha: 0.9, beta: 0.75, gamma1: 0.1, gamma2: 0.5, init_rwnd_pkts: 10, min_rwnd_pkts: 2 }
    }
}

/// b_m, b_e and d of one measurement (bytes/s; d in [0, 1]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Measured {
    pub b_m: f64,
    pub b_e: f64,
    pub d: f64,
}

/// One RTT_i's measurement: the old b_m and the sample b_s (bytes/s), the window (bytes)
/// and RTT_i (ps).
pub fn measure(b_m_old: f64, b_s: f64, beta: f64, rwnd: u64, rtt: Time) -> Measured {
    let b_m = b_s.max(beta * b_m_old + (1.0 - beta) * b_s);
    let b_e = b_m.max(rate(rwnd, rtt));
    let d = if b_e > 0.0 { (b_e - b_m) / b_e } else { 0.0 };
    Measured { b_m, b_e, d }
}

/// `bytes` over `ps` picoseconds, in bytes per second.
#[inline]
fn rate(bytes: u64, ps: Time) -> f64 {
    bytes as f64 * PS_PER_SEC as f64 / ps.max(1) as f64
}

/// One receiving interface's slot clock and quota.
#[derive(Clone, Debug)]
struct Interface {
    /// C, in bytes per second.
    capacity: f64,
    /// Start of the current slot (`NEVER`: no data yet).
    slot_start: Time,
    /// The sub-slot length T.
    t: Time,
    /// In the second sub-slot: BW_A of this slot is known.
    second: bool,
    /// Bytes of the first sub-slot so far.
    first_bytes: u64,
    /// The last BW_A measured (bytes/s; `None` before the first sub-slot ended).
    bw_a: Option<f64>,
    /// What is left of BW_A for increases in this second sub-slot (bytes/s; 0 in the
    /// first).
    quota: f64,
    /// This slot's bytes, and Σ bytes × RTT (ps): T of the next slot is their ratio.
    slot_bytes: u64,
    slot_byte_ps: f64,
    /// Open connections, the sum of their windows and of their base RTTs.
    conns: u64,
    rwnd_sum: u64,
    base_rtt_sum: u64,
}

impl Interface {
    fn new(capacity_bps: u64) -> Self {
        Interface {
            capacity: capacity_bps as f64 / 8.0,
            slot_start: NEVER,
            t: 1,
            second: false,
            first_bytes: 0,
            bw_a: None,
            quota: 0.0,
            slot_bytes: 0,
            slot_byte_ps: 0.0,
            conns: 0,
            rwnd_sum: 0,
            base_rtt_sum: 0,
        }
    }

    /// T without traffic: the mean base RTT of the open connections.
    fn idle_t(&self) -> Time {
        self.base_rtt_sum / self.conns.max(1)
    }

    /// T of the next slot: the traffic-weighted RTT of this one.
    fn next_t(&self) -> Time {
        if self.slot_bytes == 0 {
            return self.idle_t();
        }
        (self.slot_byte_ps / self.slot_bytes as f64).round() as Time
    }

    fn start_slot(&mut self, start: Time, t: Time) {
        self.slot_start = start;
        self.t = t.max(1);
        self.second = false;
        self.first_bytes = 0;
        self.quota = 0.0;
        self.slot_bytes = 0;
        self.slot_byte_ps = 0.0;
    }

    /// Brings the slot clock to `now`, ending the first sub-slot and the slot if their
    /// time has come.
    fn advance(&mut self, now: Time, alpha: f64) {
        if self.slot_start == NEVER {
            return self.start_slot(now, self.idle_t());
        }
        if !self.second && now >= self.slot_start + self.t {
            let bw_a = (alpha * self.capacity - rate(self.first_bytes, self.t)).max(0.0);
            self.bw_a = Some(bw_a);
            self.quota = bw_a;
            self.second = true;
        }
        let end = self.slot_start + 2 * self.t;
        if now >= end {
            let t = self.next_t();
            // The next slot follows on, unless the interface was silent through all of
            // its first sub-slot: then a fresh slot starts with this arrival.
            self.start_slot(if now < end + t { end } else { now }, t);
        }
    }

    fn count(&mut self, bytes: u64, rtt: Time) {
        if !self.second {
            self.first_bytes += bytes;
        }
        self.slot_bytes += bytes;
        self.slot_byte_ps += bytes as f64 * rtt as f64;
    }

    /// BW_A is below the fairness share of C.
    fn scarce(&self) -> bool {
        self.bw_a.is_some_and(|a| a < FAIRNESS_SHARE * self.capacity)
    }

    /// Takes `cost` (bytes/s) from the quota if it is there (it is zero until the first
    /// sub-slot ends: increases wait for the second).
    fn take(&mut self, cost: f64) -> bool {
        let ok = self.quota >= cost;
        if ok {
            self.quota -= cost;
        }
        ok
    }
}

/// One connection's measurement and window.
#[derive(Clone, Debug)]
struct Conn {
    host: u32,
    open: bool,
    /// The advertised window (bytes, whole MSS).
    rwnd: u64,
    /// RTT until the connection has a measured one.
    base_rtt: Time,
    /// The current sample: its start (`NEVER`: no data yet) and bytes.
    sample_start: Time,
    sample_bytes: u64,
    b_m: f64,
    /// Measurements since the window last moved: it may move again after two, one RTT_i
    /// for the change to show and one to measure it (counting samples, each at least an
    /// RTT_i long, rather than comparing times keeps RTT jitter from skipping a turn).
    since_adjust: u32,
    /// Measurements in a row with d > γ2.
    high_d: u32,
    /// Growth by doubling, until the quota falls short or the window once shrinks.
    slow_start: bool,
    /// The largest window it advertised (for reports).
    largest: u64,
}

impl Default for Conn {
    fn default() -> Self {
        Conn {
            host: 0,
            open: false,
            rwnd: 0,
            base_rtt: 0,
            sample_start: NEVER,
            sample_bytes: 0,
            b_m: 0.0,
            since_adjust: 2,
            high_d: 0,
            slow_start: true,
            largest: 0,
        }
    }
}

/// ICTCP over every receiving host: connections by flow id, interfaces by host id.
#[derive(Clone, Debug)]
pub struct Ictcp {
    cfg: IctcpConfig,
    mss: u64,
    conns: Vec<Conn>,
    ifaces: Vec<Interface>,
}

impl Ictcp {
    pub fn new(cfg: IctcpConfig, host_capacity_bps: &[u64], mss: u64) -> Self {
        Ictcp { cfg, mss, conns: Vec::new(), ifaces: host_capacity_bps.iter().map(|&c| Interface::new(c)).collect() }
    }

    /// The window `conn` advertises now (bytes).
    pub fn rwnd(&self, conn: FlowId) -> u64 {
        self.conns.get(conn.idx()).map_or(0, |c| c.rwnd)
    }

    /// The largest window `conn` ever advertised (bytes).
    pub fn largest_rwnd(&self, conn: FlowId) -> u64 {
        self.conns.get(conn.idx()).map_or(0, |c| c.largest)
    }

    /// The last BW_A measured at `host`, in bits per second.
    pub fn available_bps(&self, host: HostId) -> Option<f64> {
        self.ifaces[host.idx()].bw_a.map(|a| a * 8.0)
    }

    fn min_rwnd(&self) -> u64 {
        self.cfg.min_rwnd_pkts * self.mss
    }

    /// The end of one RTT_i of connection `i`, its sample b_s: measures and moves the
    /// window.
    fn measured(&mut self, i: usize, b_s: f64, rtt: Time) {
        let (cfg, mss, floor) = (self.cfg, self.mss, self.min_rwnd());
        let c = &mut self.conns[i];
        let m = measure(c.b_m, b_s, cfg.beta, c.rwnd, rtt);
        c.b_m = m.b_m;
        c.high_d = if m.d > cfg.gamma2 { c.high_d + 1 } else { 0 };
        c.since_adjust = c.since_adjust.saturating_add(1);
        if c.since_adjust < 2 {
            return;
        }
        let iface = &self.ifaces[c.host as usize];
        // Above the mean: rwnd > rwnd_sum / conns, in integers.
        let unfair = iface.scarce() && c.rwnd * iface.conns > iface.rwnd_sum;
        let new = if c.high_d >= DECREASE_AFTER || unfair {
            c.high_d = 0;
            c.slow_start = false;
            c.rwnd.saturating_sub(mss).max(floor)
        } else if m.d <= cfg.gamma1 || m.d * c.rwnd as f64 <= mss as f64 {
            self.grown(i, rtt)
        } else {
            return;
        };
        self.set_rwnd(i, new);
    }

    /// The window after an increase the quota allows (the same if it allows none).
    fn grown(&mut self, i: usize, rtt: Time) -> u64 {
        let max = MAX_RWND_PKTS * self.mss;
        let c = &mut self.conns[i];
        let iface = &mut self.ifaces[c.host as usize];
        if c.slow_start {
            if c.rwnd < max && iface.take(rate(c.rwnd, rtt)) {
                return (2 * c.rwnd).min(max);
            }
            // Only in the second sub-slot does a short quota end slow start.
            c.slow_start = !iface.second;
        }
        if c.rwnd < max && iface.take(rate(self.mss, rtt)) {
            return c.rwnd + self.mss;
        }
        c.rwnd
    }

    fn set_rwnd(&mut self, i: usize, new: u64) {
        let c = &mut self.conns[i];
        if new == c.rwnd {
            return;
        }
        let iface = &mut self.ifaces[c.host as usize];
        iface.rwnd_sum = iface.rwnd_sum - c.rwnd + new;
        c.rwnd = new;
        c.largest = c.largest.max(new);
        c.since_adjust = 0;
    }
}

impl ReceiverPolicy for Ictcp {
    fn open(&mut self, conn: FlowId, host: HostId, base_rtt: Time, _now: Time) {
        let i = conn.idx();
        if i >= self.conns.len() {
            self.conns.resize(i + 1, Conn::default());
        }
        if self.conns[i].open {
            return;
        }
        let rwnd = self.cfg.init_rwnd_pkts * self.mss;
        self.conns[i] = Conn { host: host.0, open: true, rwnd, base_rtt, largest: rwnd, ..Conn::default() };
        let iface = &mut self.ifaces[host.idx()];
        iface.conns += 1;
        iface.rwnd_sum += rwnd;
        iface.base_rtt_sum += base_rtt;
    }

    fn on_data(&mut self, conn: FlowId, payload_bytes: u64, rtt: Option<Time>, now: Time) {
        let i = conn.idx();
        let Some(c) = self.conns.get(i).filter(|c| c.open) else { return };
        let rtt = rtt.unwrap_or(c.base_rtt).max(1);
        let iface = &mut self.ifaces[c.host as usize];
        iface.advance(now, self.cfg.alpha);
        iface.count(payload_bytes, rtt);
        let c = &mut self.conns[i];
        if c.sample_start == NEVER {
            c.sample_start = now;
        } else if now - c.sample_start >= rtt {
            let b_s = rate(c.sample_bytes, now - c.sample_start);
            c.sample_start = now;
            c.sample_bytes = 0;
            self.measured(i, b_s, rtt);
        }
        self.conns[i].sample_bytes += payload_bytes;
    }

    fn window(&self, conn: FlowId) -> u64 {
        self.rwnd(conn)
    }

    fn close(&mut self, conn: FlowId) {
        let Some(c) = self.conns.get_mut(conn.idx()).filter(|c| c.open) else { return };
        c.open = false;
        let iface = &mut self.ifaces[c.host as usize];
        iface.conns -= 1;
        iface.rwnd_sum -= c.rwnd;
        iface.base_rtt_sum -= c.base_rtt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    const MSS: u64 = 1460;
    const TEN_G: u64 = 10_000_000_000;
    const RTT: Time = 100 * PS_PER_US;

    fn ictcp(cfg: IctcpConfig, conns: u32) -> Ictcp {
        let mut p = Ictcp::new(cfg, &[TEN_G], MSS);
        for c in 0..conns {
            p.open(FlowId(c), HostId(0), RTT, 0);
        }
        p
    }

    /// `bytes` reach connection `c` at `us` microseconds, its RTT `rtt_us`.
    fn data(p: &mut Ictcp, c: u32, us: u64, bytes: u64, rtt_us: u64) {
        p.on_data(FlowId(c), bytes, Some(rtt_us * PS_PER_US), us * PS_PER_US);
    }

    fn close_to(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn available_bandwidth_is_alpha_c_minus_the_first_sub_slots_throughput() {
        // T = the base RTT, 100 us. 93,750 B in the first sub-slot: BW_T = 7.5 Gb/s, so
        // BW_A = 0.9 x 10 - 7.5 = 1.5 Gb/s, known from the first arrival at or after T.
        let mut p = ictcp(IctcpConfig::default(), 1);
        data(&mut p, 0, 0, 50_000, 100);
        data(&mut p, 0, 99, 43_750, 100);
        assert_eq!(p.available_bps(HostId(0)), None, "still in the first sub-slot");
        data(&mut p, 0, 100, 1, 100);
        assert!(close_to(p.available_bps(HostId(0)).unwrap(), 1.5e9));
        // A first sub-slot above 0.9 C leaves nothing: 120,000 B in 100 us is 9.6 Gb/s.
        let mut p = ictcp(IctcpConfig::default(), 1);
        data(&mut p, 0, 0, 120_000, 100);
        data(&mut p, 0, 100, 1, 100);
        assert_eq!(p.available_bps(HostId(0)), Some(0.0));
    }

    #[test]
    fn measured_expected_and_difference() {
        // rwnd 10 MSS over RTT 100 us: 146 MB/s expected at most.
        let rwnd = 10 * MSS;
        // 7,300 B in the RTT: b_s = 73 MB/s = b_m (the first), b_e = 146 MB/s, d = 0.5.
        let m = measure(0.0, 73e6, 0.75, rwnd, RTT);
        assert!(close_to(m.b_m, 73e6) && close_to(m.b_e, 146e6) && close_to(m.d, 0.5), "{m:?}");
        // Then 3,650 B: b_s = 36.5 MB/s, b_m = max(36.5, 0.75 x 73 + 0.25 x 36.5 = 63.875),
        // d = (146 - 63.875) / 146 = 0.5625.
        let m = measure(m.b_m, 36.5e6, 0.75, rwnd, RTT);
        assert!(close_to(m.b_m, 63.875e6) && close_to(m.d, 0.5625), "{m:?}");
        // A sample above the average takes over at once: b_m = b_s = 200 MB/s = b_e, d = 0.
        let m = measure(m.b_m, 200e6, 0.75, rwnd, RTT);
        assert!(close_to(m.b_m, 200e6) && close_to(m.b_e, 200e6) && m.d == 0.0, "{m:?}");
    }

    #[test]
    fn the_policy_keeps_b_m_from_its_samples() {
        // The same two samples through the policy: 7,300 B in [0, 100 us), 3,650 B in
        // [100, 200 us); d = 0.5 then 0.5625, neither above gamma2 nor at most gamma1.
        let mut p = ictcp(IctcpConfig::default(), 1);
        data(&mut p, 0, 0, 7_300, 100);
        data(&mut p, 0, 100, 3_650, 100);
        assert!(close_to(p.conns[0].b_m, 73e6));
        data(&mut p, 0, 200, 1, 100);
        assert!(close_to(p.conns[0].b_m, 63.875e6));
        assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (10 * MSS, 1));
    }

    #[test]
    fn increases_wait_for_the_second_sub_slot_and_double_while_the_quota_allows() {
        // Base RTT 100 us (T = 100 us), measured RTT 50 us: a measurement every 50 us.
        let mut p = ictcp(IctcpConfig::default(), 1);
        data(&mut p, 0, 0, 14_600, 50);
        data(&mut p, 0, 50, 14_600, 50);
        // d = 0 at 50 us (292 MB/s both measured and expected), but in the first sub-slot.
        assert_eq!(p.rwnd(FlowId(0)), 10 * MSS);
        // At 100 us: BW_T = 29,200 B / 100 us = 292 MB/s, BW_A = 1,125 - 292 = 833 MB/s;
        // doubling costs rwnd / RTT = 14,600 B / 50 us = 292 MB/s: 20 MSS, 541 MB/s left.
        data(&mut p, 0, 100, 29_200, 50);
        assert_eq!(p.rwnd(FlowId(0)), 20 * MSS);
        assert!(close_to(p.ifaces[0].quota, 541e6));
        // At 150 us d = 0 again (29,200 B in 50 us = 20 MSS / RTT), but the last change was
        // one measurement ago: no change, slow start goes on.
        data(&mut p, 0, 150, 29_200, 50);
        assert_eq!(p.rwnd(FlowId(0)), 20 * MSS);
        assert!(p.conns[0].slow_start);
        // At 200 us, d = 0 and two measurements since: but a new slot begins (T = 50 us,
        // the traffic's RTT), its first sub-slot has no quota, whatever the last one left.
        data(&mut p, 0, 200, 1, 50);
        assert_eq!((p.ifaces[0].slot_start, p.ifaces[0].t), (200 * PS_PER_US, 50 * PS_PER_US));
        assert_eq!(p.rwnd(FlowId(0)), 20 * MSS);
        assert!(p.conns[0].slow_start);
    }

    #[test]
    fn a_short_quota_switches_to_one_mss_and_none_holds() {
        // 100,000 B in the first sub-slot: BW_T = 1,000 MB/s, BW_A = 125 MB/s. Doubling
        // 10 MSS over 100 us costs 146 MB/s: too much; +1 MSS costs 14.6 MB/s.
        let mut p = ictcp(IctcpConfig::default(), 1);
        data(&mut p, 0, 0, 100_000, 100);
        data(&mut p, 0, 100, 1, 100);
        assert_eq!(p.rwnd(FlowId(0)), 11 * MSS);
        assert!(close_to(p.ifaces[0].quota, 125e6 - 14.6e6));
        assert!(!p.conns[0].slow_start, "slow start is over for good");
        // BW_T above 0.9 C: no quota at all, not even for 1 MSS.
        let mut p = ictcp(IctcpConfig::default(), 1);
        data(&mut p, 0, 0, 120_000, 100);
        data(&mut p, 0, 100, 1, 100);
        assert_eq!(p.rwnd(FlowId(0)), 10 * MSS);
    }

    #[test]
    fn three_measurements_with_d_above_gamma2_shrink_the_window_two_do_not() {
        // 1,460 B per RTT against 10 MSS: d = 0.9 every time.
        let mut p = ictcp(IctcpConfig::default(), 1);
        for t in 0..3 {
            data(&mut p, 0, 100 * t, MSS, 100);
        }
        assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (10 * MSS, 2));
        data(&mut p, 0, 300, MSS, 100);
        assert_eq!(p.rwnd(FlowId(0)), 9 * MSS);
        assert!(!p.conns[0].slow_start, "a decrease ends slow start");
    }

    #[test]
    fn a_measurement_with_d_at_most_gamma2_starts_the_count_again() {
        // [0, 100 us): 1,460 B, d = 0.9 (count 1); [100, 200 us): 10 MSS, d = 0 (count 0).
        // Then 1 B per RTT: b_m decays by beta, 146 -> 109.5 -> 82.1 -> 61.6 -> 46.2 MB/s,
        // d = 0.25, 0.44, then 0.58, 0.68, 0.74 (above 0.5 from 500 us): the third in a
        // row is at 700 us, not at 400 us.
        let mut p = ictcp(IctcpConfig::default(), 1);
        data(&mut p, 0, 0, MSS, 100);
        data(&mut p, 0, 100, 10 * MSS, 100);
        for t in 2..=6 {
            data(&mut p, 0, 100 * t, 1, 100);
        }
        assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (10 * MSS, 2));
        data(&mut p, 0, 700, 1, 100);
        assert_eq!(p.rwnd(FlowId(0)), 9 * MSS);
    }

    #[test]
    fn the_window_never_falls_below_min_rwnd() {
        let cfg = IctcpConfig { init_rwnd_pkts: 3, ..Default::default() };
        let mut p = ictcp(cfg, 1);
        for t in 0..=6 {
            data(&mut p, 0, 100 * t, 1, 100);
        }
        // Three slow measurements (100-300 us): 3 -> 2 MSS; three more (400-600 us): 2 MSS.
        assert_eq!(p.rwnd(FlowId(0)), 2 * MSS);
        assert_eq!(p.conns[0].since_adjust, 3, "the floor is no change: the last was at 300 us");
    }

    /// Two connections; A (0) doubles to 20 MSS at 100 us, B (1) stays at 10. Then B
    /// brings `b_bytes` in the next slot's first sub-slot [200, 300 us), A 1,460 B.
    fn fairness_run(b_bytes: u64) -> Ictcp {
        let mut p = ictcp(IctcpConfig::default(), 2);
        data(&mut p, 0, 0, 14_600, 100);
        data(&mut p, 1, 0, MSS, 100);
        data(&mut p, 0, 100, MSS, 100);
        assert_eq!((p.rwnd(FlowId(0)), p.rwnd(FlowId(1))), (20 * MSS, 10 * MSS));
        data(&mut p, 0, 200, MSS, 100);
        data(&mut p, 1, 200, b_bytes, 100);
        // At 300 us A takes its second measurement since it grew, 1,460 B against 20 MSS
        // (d = 0.70, the second such in a row: no decrease of its own).
        data(&mut p, 0, 300, MSS, 100);
        p
    }

    #[test]
    fn below_a_fifth_of_c_windows_above_the_mean_lose_one_mss() {
        // 93,750 B in 100 us: BW_T = 937.5 MB/s, BW_A = 187.5 MB/s = 0.15 C < 0.2 C.
        // A (20 MSS) is above the mean (15): 19 MSS. B (10) is not.
        let p = fairness_run(93_750 - MSS);
        assert!(close_to(p.available_bps(HostId(0)).unwrap(), 1.5e9));
        assert_eq!((p.rwnd(FlowId(0)), p.rwnd(FlowId(1))), (19 * MSS, 10 * MSS));
        // With 10,000 B from B instead, BW_A = 1,010.4 MB/s: A keeps its 20 MSS.
        let p = fairness_run(10_000);
        assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (20 * MSS, 2), "two slow RTTs alone cut nothing");
    }

    #[test]
    fn closed_connections_leave_the_mean_and_the_slot_length() {
        let mut p = ictcp(IctcpConfig::default(), 2);
        p.open(FlowId(2), HostId(0), 400 * PS_PER_US, 0);
        assert_eq!(p.ifaces[0].idle_t(), 200 * PS_PER_US, "mean of 100, 100, 400 us");
        p.close(FlowId(2));
        p.close(FlowId(2));
        assert_eq!((p.ifaces[0].conns, p.ifaces[0].rwnd_sum, p.ifaces[0].idle_t()), (2, 20 * MSS, RTT));
        // A closed connection's data changes nothing.
        data(&mut p, 2, 0, 1_000_000, 100);
        assert_eq!(p.ifaces[0].slot_start, NEVER);
    }

    #[test]
    fn the_slot_length_follows_the_traffic_weighted_rtt() {
        // Slot [0, 200 us): A brings 3,000 B at RTT 100 us, B 1,000 B at 500 us: the next
        // T = (3,000 x 100 + 1,000 x 500) / 4,000 = 200 us.
        let mut p = ictcp(IctcpConfig::default(), 2);
        data(&mut p, 0, 0, 3_000, 100);
        data(&mut p, 1, 150, 1_000, 500);
        data(&mut p, 0, 200, 1, 100);
        assert_eq!((p.ifaces[0].slot_start, p.ifaces[0].t), (200 * PS_PER_US, 200 * PS_PER_US));
        // Silent through the next slot's first sub-slot: a fresh slot at the arrival.
        data(&mut p, 0, 900, 1, 100);
        assert_eq!(p.ifaces[0].slot_start, 900 * PS_PER_US);
    }

    #[test]
    fn the_senders_right_edge_never_moves_back_when_ictcp_shrinks() {
        use crate::transport::cc::{Cc, NewReno};
        use crate::transport::recovery::Recovery;
        use crate::transport::sender::tests::{config, drain, MSS as SMSS};
        use crate::transport::sender::Sender;
        use crate::transport::NO_SACKS;
        // ICTCP's window in the sender's MSS: 10, then 9 after three slow measurements.
        let mut p = Ictcp::new(IctcpConfig::default(), &[TEN_G], SMSS);
        p.open(FlowId(0), HostId(0), RTT, 0);
        let mut s = Sender::new(40 * SMSS, &config(30 * SMSS, false, Recovery::Basic), Cc::NewReno(NewReno::new(false)));
        s.advertised(0, p.window(FlowId(0)));
        assert_eq!(drain(&mut s, 0).len(), 10, "the first flight is the initial window");
        for t in 0..4 {
            p.on_data(FlowId(0), 1, Some(RTT), t * RTT);
        }
        assert_eq!(p.window(FlowId(0)), 9 * SMSS);
        // The ACK of the first segment advertises 9: edge 1 + 9 = 10 MSS, not behind the
        // 10 already allowed; one more segment only when the ACK of the second comes.
        s.on_ack(RTT, SMSS, &NO_SACKS, false, 0);
        s.advertised(SMSS, p.window(FlowId(0)));
        assert!(drain(&mut s, RTT).is_empty());
        s.on_ack(RTT, 2 * SMSS, &NO_SACKS, false, 0);
        s.advertised(2 * SMSS, p.window(FlowId(0)));
        assert_eq!(drain(&mut s, RTT).len(), 1);
        assert_eq!(s.snd_nxt, 11 * SMSS);
    }
}
