//! ICON's sender pacing (Rezaei et al., COMSNETS '19; spec `icon.md` §1.1): a window is
//! spread over the round trip instead of leaving back to back, and an incast's senders
//! share the round trip by the incast degree n the receiver announced (Eq. 1: rate =
//! window / (RTT x n)).
//!
//! The rule, with cwnd counted in packets (what makes the paper's 10.8 us example come
//! out: 10 packets over 120 us is 12 us apart, 10.8 us of it idle after a 1.2 us frame):
//!
//! `t_next = t_last_start + max(n x RTT / (cwnd / MSS), frame time)`
//!
//! RTT is the smoothed RTT, or the path's base RTT before the first sample. Nothing is
//! cached: `t_next` is computed from the window and RTT of the moment it is asked, which
//! is the spec's "recomputed when an ACK changes cwnd or RTT". The first packet is not
//! delayed; the congestion control is untouched (ICON changes only when packets leave).

use crate::units::{Time, PS_PER_SEC};

/// How the pacing rate follows from the window and the degree.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IconRate {
    /// Eq. 1: the n senders together send one window per RTT.
    Eq1,
    /// The introduction's reading: each sender gets C / n, and never more than cwnd / RTT.
    FairShare,
}

/// Which flows ICON paces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PaceScope {
    /// Every flow (flows outside an incast with n = 1).
    All,
    /// Only the senders of an incast; other flows send as the window allows.
    IncastOnly,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IconConfig {
    /// IA-ICON: pace as ICON does but with n = 1 on every flow (no application knowledge).
    pub ignore_degree: bool,
    pub rate: IconRate,
    pub scope: PaceScope,
}

impl IconConfig {
    /// Whether a flow (part of an incast or not) is paced.
    pub fn paces(&self, in_incast: bool) -> bool {
        in_incast || self.scope == PaceScope::All
    }
}

/// One flow's ICON pacing state.
#[derive(Clone, Debug)]
pub struct IconPacer {
    rate: IconRate,
    /// The incast degree n (>= 1).
    degree: u32,
    /// Whether announced degrees are ignored (IA-ICON).
    ignore_degree: bool,
    /// RTT used before the first sample: the path's base RTT.
    base_rtt: Time,
    nic_bps: u64,
    /// Bytes a packet adds on the wire beyond its payload (headers, framing).
    overhead: u64,
    /// When the last packet was handed to the NIC, and its bytes on the wire (`None`: no
    /// packet yet, so the next is not delayed).
    last: Option<(Time, u64)>,
}

impl IconPacer {
    pub fn new(cfg: &IconConfig, base_rtt: Time, nic_bps: u64, overhead: u64) -> Self {
        IconPacer { rate: cfg.rate, degree: 1, ignore_degree: cfg.ignore_degree, base_rtt, nic_bps: nic_bps.max(1), overhead, last: None }
    }

    pub fn degree(&self) -> u32 {
        self.degree
    }

    /// The receiver announced incast degree `n` (at the handshake, or in an update on a
    /// persistent connection). IA-ICON keeps n = 1.
    pub fn set_degree(&mut self, n: u32) {
        if !self.ignore_degree {
            self.degree = n.max(1);
        }
    }

    /// Serialization of `wire` bytes at the NIC's rate.
    fn frame(&self, wire: u64) -> Time {
        (wire as u128 * 8 * PS_PER_SEC as u128 / self.nic_bps as u128) as Time
    }

    /// Start-to-start spacing after a packet of `wire` bytes, for window `cwnd` (bytes) of
    /// `mss`-byte packets and smoothed RTT `srtt`.
    pub fn spacing(&self, wire: u64, cwnd: u64, mss: u64, srtt: Option<Time>) -> Time {
        let rtt = srtt.unwrap_or(self.base_rtt) as u128;
        let n = self.degree as u128;
        let frame = self.frame(wire);
        let window_gap = |share: u128| (share * rtt * mss as u128 / cwnd.max(1) as u128) as Time;
        let gap = match self.rate {
            IconRate::Eq1 => window_gap(n),
            IconRate::FairShare => window_gap(1).max(frame * self.degree as Time),
        };
        gap.max(frame)
    }

    /// The earliest time the next packet may leave.
    #[inline]
    pub fn next_send(&self, cwnd: u64, mss: u64, srtt: Option<Time>) -> Time {
        match self.last {
            None => 0,
            Some((at, wire)) => at + self.spacing(wire, cwnd, mss, srtt),
        }
    }

    /// A packet of `payload` bytes leaves at `now`.
    #[inline]
    pub fn sent(&mut self, now: Time, payload: u64) {
        self.last = Some((now, payload + self.overhead));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    const MSS: u64 = 1460;
    const TEN_G: u64 = 10_000_000_000;

    fn pacer(rate: IconRate, ignore_degree: bool) -> IconPacer {
        IconPacer::new(&IconConfig { ignore_degree, rate, scope: PaceScope::All }, 80 * PS_PER_US, TEN_G, 40)
    }

    #[test]
    fn the_papers_example_leaves_a_10_8_us_gap() {
        // W = 10 packets, RTT = 120 us, n = 1, 10 Gb/s, 1500 B frames: 12 us start to
        // start, of which 1.2 us is the frame and 10.8 us idle.
        let mut p = pacer(IconRate::Eq1, false);
        assert_eq!(p.next_send(10 * MSS, MSS, Some(120 * PS_PER_US)), 0, "the first packet is not delayed");
        p.sent(5 * PS_PER_US, MSS);
        let next = p.next_send(10 * MSS, MSS, Some(120 * PS_PER_US));
        assert_eq!(next - 5 * PS_PER_US, 12 * PS_PER_US);
        assert_eq!(next - 5 * PS_PER_US - p.frame(1500), 10_800_000, "idle gap 10.8 us");
    }

    #[test]
    fn eq1_divides_the_round_trip_among_the_incast() {
        // 26 senders, cwnd 10, RTT 80 us: each waits 26 x 8 us = 208 us between packets,
        // so together they send about one window per RTT (26 x 1500 B / 208 us = 1.5 Gb/s).
        let mut p = pacer(IconRate::Eq1, false);
        p.set_degree(26);
        p.sent(0, MSS);
        assert_eq!(p.next_send(10 * MSS, MSS, None), 208 * PS_PER_US, "base RTT before the first sample");
        // A grown window or a longer RTT moves the next send at once.
        assert_eq!(p.next_send(20 * MSS, MSS, None), 104 * PS_PER_US);
        assert_eq!(p.next_send(20 * MSS, MSS, Some(160 * PS_PER_US)), 208 * PS_PER_US);
        // A window so large that the spacing would be below a frame: back to back.
        assert_eq!(p.next_send(10_000 * MSS, MSS, None), p.frame(1500));
    }

    #[test]
    fn fair_share_gives_each_sender_c_over_n() {
        // n = 26 at 10 Gb/s: a 1500 B frame every 26 x 1.2 us = 31.2 us (C/n), unless the
        // window is slower: cwnd 10 over 80 us is one every 8 us, so C/n binds.
        let mut p = pacer(IconRate::FairShare, false);
        p.set_degree(26);
        p.sent(0, MSS);
        assert_eq!(p.next_send(10 * MSS, MSS, None), 31_200_000);
        // A window of 2 packets over 80 us (40 us apart) is slower than C/n: it binds.
        assert_eq!(p.next_send(2 * MSS, MSS, None), 40 * PS_PER_US);
    }

    #[test]
    fn ia_icon_ignores_the_announced_degree() {
        let mut p = pacer(IconRate::Eq1, true);
        p.set_degree(26);
        assert_eq!(p.degree(), 1);
        p.sent(0, MSS);
        assert_eq!(p.next_send(10 * MSS, MSS, None), 8 * PS_PER_US);
    }

    #[test]
    fn scope_picks_the_paced_flows() {
        let cfg = |scope| IconConfig { ignore_degree: false, rate: IconRate::Eq1, scope };
        assert!(cfg(PaceScope::All).paces(false) && cfg(PaceScope::All).paces(true));
        assert!(!cfg(PaceScope::IncastOnly).paces(false) && cfg(PaceScope::IncastOnly).paces(true));
    }
}
