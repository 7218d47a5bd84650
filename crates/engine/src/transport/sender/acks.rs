//! What an ACK does to the shared sender's bookkeeping, whatever the model: RTT samples,
//! the cumulative point and SACK blocks on the scoreboard, the signal the congestion
//! control sees, and ssthresh for a reduction. Each model's own ACK processing (`basic.rs`,
//! `linux.rs`, `ns3.rs`) is built on these.

use super::super::cc::{AckSignal, CongestionControl};
use super::super::recovery::{Recovery, Reduction};
use super::super::sack::{SackBlock, SackList};
use super::super::scoreboard::Seg;
use super::{AckEffect, Sender};
use crate::units::Time;

/// What one ACK changed on the scoreboard.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Newly {
    /// Bytes newly acknowledged cumulatively or SACKed (RFC 6937's DeliveredData).
    pub(super) delivered: u64,
    /// Bytes newly SACKed.
    pub(super) sacked: u64,
    /// A retransmission was among the newly cumulatively acknowledged segments.
    pub(super) retx_acked: bool,
    /// The cumulative ACK moved.
    pub(super) advanced: bool,
    /// The most recently sent of the newly delivered transmissions: (send time, segment).
    pub(super) latest: Option<(Time, u64)>,
}

impl Newly {
    pub(super) fn delivered_at(&mut self, xmit: Time, seg: u64) {
        if self.latest.is_none_or(|(t, s)| (xmit, seg) > (t, s)) {
            self.latest = Some((xmit, seg));
        }
    }
}

impl Sender {
    /// Processes one ACK: cumulative `ack`, its SACK blocks, the ECN echo and the echoed
    /// send timestamp.
    ///
    /// Which ACKs give an RTT sample (and so end an RTO backoff) differs: every ACK under
    /// `basic`; under `linux` one that delivers data (acknowledged or SACKed,
    /// `tcp_ack_update_rtt`); under `ns3` one that acknowledges the oldest outstanding
    /// segment (`EstimateRtt` with its RTT history).
    pub fn on_ack(&mut self, now: Time, ack: u64, sacks: &SackList, ece: bool, ts_echo: Time) -> AckEffect {
        let sample = match self.recovery {
            Recovery::Basic => true,
            Recovery::Ns3 => ack > self.snd_una,
            Recovery::Linux => false, // after the scoreboard: see `linux_ack`
        };
        if sample {
            self.rtt_sample(now, ts_echo);
        }
        match self.recovery {
            Recovery::Basic => self.basic_ack(now, ack, sacks[0], ece, ts_echo),
            Recovery::Linux => self.linux_ack(now, ack, sacks, ece, ts_echo),
            Recovery::Ns3 => self.ns3_ack(now, ack, sacks, ece, ts_echo),
        }
    }

    pub(super) fn rtt_sample(&mut self, now: Time, ts_echo: Time) {
        if now >= ts_echo {
            self.rtt.sample(now - ts_echo);
        }
    }

    /// The cumulative ACK moves to `ack`: the segments below it leave the board. Inlined:
    /// a call costs every ACK a dozen instructions (bench (a): 0.6 %).
    #[inline(always)]
    pub(super) fn take_cumulative(&mut self, ack: u64, newly: &mut Newly) {
        if ack <= self.snd_una {
            return;
        }
        let (mss, size) = (self.mss, self.size);
        let target = self.seg_of(ack);
        let in_flight = &mut self.in_flight;
        let (mut delivered, mut retx) = (0, false);
        self.board.advance_to(target, |seg, s, xmit| {
            let len = (size - seg * mss).min(mss);
            *in_flight -= len * s.copies_in_flight();
            retx |= matches!(s, Seg::Retx | Seg::RetxDup);
            if !s.is_sacked() {
                delivered += len;
                newly.delivered_at(xmit, seg);
            }
        });
        if ack > self.snd_nxt {
            self.skip_decoded(ack);
        }
        self.snd_una = ack.min(self.size);
        newly.delivered += delivered;
        newly.retx_acked |= retx;
        newly.advanced = true;
    }

    /// The cumulative ACK passed the last byte sent: the receiver decoded an erasure-coded
    /// block whose last packets had not gone yet (any `data` of a block complete it), so
    /// they never need to.
    #[cold]
    #[inline(never)]
    fn skip_decoded(&mut self, ack: u64) {
        let end = ack.min(self.size);
        self.board.skip_to(self.seg_of(end));
        self.snd_nxt = end;
        self.next_tx = self.next_tx.max(end);
    }

    /// One SACK block: the segments it covers become SACKed.
    pub(super) fn take_sack(&mut self, block: SackBlock, newly: &mut Newly) {
        if block.is_empty() {
            return;
        }
        let first = (block.start / self.mss).max(self.board.base());
        let last = self.seg_of(block.end.min(self.snd_nxt));
        if first >= last {
            return;
        }
        for (from, to) in self.board.unsacked_parts(first, last) {
            self.sack_segments(from, to, newly);
        }
        self.board.sacked_through(first, last.min(self.board.end()));
    }

    /// Marks SACKed the segments of `[first, last)` still in flight or lost.
    fn sack_segments(&mut self, first: u64, last: u64, newly: &mut Newly) {
        let ns3 = self.recovery == Recovery::Ns3;
        for seg in first..last {
            let len = self.seg_len(seg);
            let xmit = self.board.xmit_time(seg);
            let old = match self.board.state(seg) {
                Some(s @ (Seg::Sent | Seg::Retx | Seg::RetxDup | Seg::Lost)) => s,
                _ => continue,
            };
            // ns-3 keeps a SACKed retransmission in its pipe until it is acknowledged.
            let new = if ns3 && matches!(old, Seg::Retx | Seg::RetxDup) { Seg::SackedRetx } else { Seg::Sacked };
            self.board.set(seg, new);
            self.in_flight -= len * (old.copies_in_flight() - new.copies_in_flight());
            newly.delivered += len;
            newly.sacked += len;
            newly.delivered_at(xmit, seg);
        }
    }

    /// What the congestion control is told of an ACK.
    pub(super) fn signal(&self, now: Time, delivered: u64, ece: bool, ts_echo: Time, may_grow: bool, may_cut: bool) -> AckSignal {
        AckSignal {
            now,
            delivered,
            ece,
            snd_una: self.snd_una,
            snd_nxt: if self.recovery == Recovery::Ns3 { self.next_tx } else { self.snd_nxt },
            may_grow,
            may_cut,
            rtt: self.rtt.srtt(),
            rtt_sample: now.saturating_sub(ts_echo),
            sent_at: ts_echo,
            in_flight: self.in_flight,
        }
    }

    /// ssthresh for a reduction, as the model's reference sets it, never below the floor.
    pub(super) fn reduced_ssthresh(&self, why: Reduction) -> u64 {
        let raw = self.cc.ssthresh(&self.window, why, self.in_flight, self.recovery);
        // Linux keeps the window in whole packets.
        let raw = if self.recovery == Recovery::Linux { raw / self.mss * self.mss } else { raw };
        raw.max(self.window.min_cwnd)
    }
}
