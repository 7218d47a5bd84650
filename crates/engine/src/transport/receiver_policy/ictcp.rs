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
#[path = "ictcp_tests.rs"]
mod tests;
