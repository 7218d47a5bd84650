//! RACK-TLP (RFC 8985) as Linux runs it by default: time-based loss detection, which also
//! finds lost retransmissions, and the tail loss probe.

use crate::units::{Time, PS_PER_MS};

/// RACK's record of the most recently sent transmission known delivered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    /// Its send time and segment (the segment breaks ties between equal times).
    pub xmit: Time,
    pub seg: u64,
    /// Its RTT (RACK.rtt): now minus its send time, when it was delivered.
    pub rtt: Time,
    /// Something has been delivered since the connection started.
    pub seen: bool,
}

impl Rack {
    /// A transmission of segment `seg` sent at `xmit` is known delivered at `now` (RFC 8985
    /// 6.2 step 2). The ACK echoes the send time of the very transmission that triggered
    /// it, so there is no retransmission ambiguity to guard against.
    pub fn advance(&mut self, xmit: Time, seg: u64, now: Time) {
        self.rtt = now.saturating_sub(xmit);
        if !self.seen || xmit > self.xmit || (xmit == self.xmit && seg > self.seg) {
            self.xmit = xmit;
            self.seg = seg;
        }
        self.seen = true;
    }

    /// The reordering window (Linux's `tcp_rack_reo_wnd`, no reordering seen on these FIFO
    /// paths): none in recovery or once `dupthresh` segments are SACKed, else a quarter of
    /// the minimum RTT, at most the smoothed RTT.
    pub fn reo_wnd(in_recovery: bool, sacked_segments: u64, dupthresh: u64, min_rtt: Time, srtt: Time) -> Time {
        if in_recovery || sacked_segments >= dupthresh {
            0
        } else {
            (min_rtt / 4).min(srtt)
        }
    }
}

/// Linux's floor added to the tail loss probe's 2 SRTT when more than one segment is out
/// (`TCP_TIMEOUT_MIN_US`).
pub const TLP_MIN: Time = 2 * PS_PER_MS;

/// The probe timeout (RFC 8985 7.2, `tcp_schedule_loss_probe`): 2 SRTT, plus the minimum
/// RTO when a single segment is out (its ACK may be delayed), else plus 2 ms; 1 s before
/// any RTT sample.
pub fn probe_timeout(srtt: Option<Time>, segments_out: u64, min_rto: Time) -> Time {
    match srtt {
        Some(srtt) => 2 * srtt + if segments_out == 1 { min_rto } else { TLP_MIN },
        None => 1000 * PS_PER_MS,
    }
}

/// An outstanding tail loss probe (Linux's `tlp_high_seq`, `tlp_retrans`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// snd.nxt when the probe went out; 0: no probe outstanding.
    pub high_seq: u64,
    /// The probe retransmitted the last segment (rather than sending new data).
    pub retransmitted: bool,
}

/// What an ACK says of an outstanding probe (RFC 8985 7.4, `tcp_process_tlp_ack`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// Nothing yet, or no probe.
    Pending,
    /// The episode is over and nothing was lost.
    NoLoss,
    /// The probe repaired a loss: the window must be reduced once.
    RepairedLoss,
}

impl Probe {
    /// `ack`: the cumulative ACK; `dsack`: it reports a duplicate; `news`: it advanced
    /// snd.una or SACKed something.
    pub fn on_ack(&mut self, ack: u64, dsack: bool, news: bool) -> ProbeOutcome {
        if self.high_seq == 0 || ack < self.high_seq {
            return ProbeOutcome::Pending;
        }
        let outcome = if !self.retransmitted || dsack {
            ProbeOutcome::NoLoss
        } else if ack > self.high_seq {
            ProbeOutcome::RepairedLoss
        } else if !news {
            // A pure duplicate ACK: both the original and the probe arrived.
            ProbeOutcome::NoLoss
        } else {
            return ProbeOutcome::Pending;
        };
        self.high_seq = 0;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    #[test]
    fn reordering_window_is_a_quarter_of_min_rtt_until_three_sacks() {
        let (min_rtt, srtt) = (20 * PS_PER_US, 30 * PS_PER_US);
        assert_eq!(Rack::reo_wnd(false, 1, 3, min_rtt, srtt), 5 * PS_PER_US);
        assert_eq!(Rack::reo_wnd(false, 3, 3, min_rtt, srtt), 0);
        assert_eq!(Rack::reo_wnd(true, 0, 3, min_rtt, srtt), 0);
        assert_eq!(Rack::reo_wnd(false, 0, 3, min_rtt, PS_PER_US), PS_PER_US, "capped at srtt");
    }

    #[test]
    fn rack_keeps_the_latest_transmission() {
        let mut r = Rack::default();
        r.advance(100, 5, 300);
        r.advance(50, 9, 320); // an older transmission delivered later: RTT moves, not the record
        assert_eq!((r.xmit, r.seg, r.rtt), (100, 5, 270));
        r.advance(100, 6, 330);
        assert_eq!((r.xmit, r.seg), (100, 6));
    }

    #[test]
    fn probe_timeout_adds_the_delayed_ack_allowance_for_one_segment() {
        let srtt = Some(10 * PS_PER_US);
        assert_eq!(probe_timeout(srtt, 5, 200 * PS_PER_MS), 20 * PS_PER_US + 2 * PS_PER_MS);
        assert_eq!(probe_timeout(srtt, 1, 10 * PS_PER_MS), 20 * PS_PER_US + 10 * PS_PER_MS);
        assert_eq!(probe_timeout(None, 5, 10 * PS_PER_MS), 1000 * PS_PER_MS);
    }

    #[test]
    fn a_retransmitted_probe_acked_past_its_mark_repaired_a_loss() {
        let mut p = Probe { high_seq: 10_000, retransmitted: true };
        assert_eq!(p.on_ack(9_000, false, true), ProbeOutcome::Pending);
        assert_eq!(p.on_ack(11_000, false, true), ProbeOutcome::RepairedLoss);
        assert_eq!(p.high_seq, 0);
        let mut p = Probe { high_seq: 10_000, retransmitted: true };
        assert_eq!(p.on_ack(10_000, true, false), ProbeOutcome::NoLoss, "D-SACK: both copies arrived");
        let mut p = Probe { high_seq: 10_000, retransmitted: false };
        assert_eq!(p.on_ack(10_000, false, true), ProbeOutcome::NoLoss, "new data probed");
    }
}
