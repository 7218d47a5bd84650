//! NACKs and timeouts in the shared sender: a NACKed segment goes first, a timeout marks
//! everything outstanding lost (each model then sets its window), and window senders'
//! per-packet deadlines.

use super::super::cc::{AckSignal, CongestionControl};
use super::super::recovery::Recovery;
use super::super::scoreboard::Seg;
use super::{AuxTimer, Sender};
use crate::reliability::SegState;
use crate::units::Time;

impl Sender {
    /// A NACK for the segment at `seq` whose transmission was sent at `ts_echo`: the
    /// segment leaves the in-flight count and is retransmitted first when the window
    /// allows. Stale NACKs (for data already acknowledged or SACKed, already deemed lost,
    /// or for a transmission an RTO superseded) change nothing. True when it acted.
    pub fn on_nack(&mut self, now: Time, seq: u64, ts_echo: Time) -> bool {
        if ts_echo < self.last_timeout_at {
            return false;
        }
        let seg = seq / self.mss;
        let old = match self.board.state(seg) {
            Some(s @ (Seg::Sent | Seg::Retx | Seg::RetxDup)) => s,
            _ => return false,
        };
        self.board.set(seg, Seg::Lost);
        self.in_flight -= self.seg_len(seg) * old.copies_in_flight();
        self.nacks += 1;
        let signal = self.signal(now, 0, false, ts_echo, true, true);
        let signal = AckSignal { rtt_sample: 0, ..signal };
        self.cc.on_nack(&mut self.window, &signal);
        true
    }

    /// A parity NACK for the erasure-coded block `[start, end)` (`reliability::erasure`):
    /// unless the block is complete (every segment of it acknowledged or SACKed: the
    /// receiver decoded it), each of its segments in flight is lost, leaves the in-flight
    /// count and is retransmitted before new data when the window allows; segments already
    /// lost wait as they were. The window is left alone (UnoRC's `processParityNack`). True
    /// when it acted.
    pub fn on_parity_nack(&mut self, start: u64, end: u64) -> bool {
        let (first, last) = ((start / self.mss).max(self.board.base()), end.min(self.size).div_ceil(self.mss));
        let delivered = |s: Option<Seg>| s.is_some_and(Seg::is_sacked);
        if self.snd_una >= end.min(self.size) || (first..last).all(|seg| delivered(self.board.state(seg))) {
            return false;
        }
        for seg in first..last.min(self.board.end()) {
            if let Some(old @ (Seg::Sent | Seg::Retx | Seg::RetxDup)) = self.board.state(seg) {
                self.board.set(seg, Seg::Lost);
                self.in_flight -= self.seg_len(seg) * old.copies_in_flight();
            }
        }
        true
    }

    /// Every segment not SACKed is lost (a retransmission timeout).
    pub(super) fn lose_all(&mut self) {
        let (mss, size) = (self.mss, self.size);
        let in_flight = &mut self.in_flight;
        self.board.mark_all_lost(|seg, s| *in_flight -= (size - seg * mss).min(mss) * s.copies_in_flight());
        debug_assert_eq!(self.in_flight, 0);
    }

    /// The retransmission timer fired with data outstanding.
    pub fn on_timeout(&mut self, now: Time) {
        if !self.outstanding() {
            return;
        }
        self.timeouts += 1;
        self.last_timeout_at = now;
        match self.recovery {
            Recovery::Basic => self.basic_timeout(),
            Recovery::Linux => self.linux_timeout(),
            Recovery::Ns3 => self.ns3_timeout(),
        }
        self.recover = self.snd_nxt;
        self.dupacks = 0;
        self.rtt.back_off();
    }

    /// The reordering timer or the tail loss probe, when one is due (Linux model).
    pub fn aux_timer(&self) -> Option<AuxTimer> {
        self.repair.aux
    }

    /// The per-packet timer fired: every transmission whose deadline passed and whose
    /// segment is still in flight is lost. Returns how many timed out.
    pub fn on_packet_timeouts(&mut self, now: Time) -> u64 {
        let Some(parts) = &mut self.parts else { return 0 };
        let Some(q) = &mut parts.packet_rto else { return 0 };
        let board = &self.board;
        let expired = &mut parts.expired;
        q.expire(
            now,
            board.base(),
            |seg| match board.state(seg) {
                Some(Seg::Sent) | Some(Seg::Retx) => SegState::InFlight,
                _ => SegState::Settled,
            },
            |seg| expired.push(seg),
        );
        let mut expired = std::mem::take(&mut parts.expired);
        let count = expired.len() as u64;
        for &seg in &expired {
            self.board.set(seg, Seg::Lost);
            self.in_flight -= self.seg_len(seg);
        }
        expired.clear();
        if let Some(parts) = &mut self.parts {
            parts.expired = expired;
        }
        if count > 0 {
            self.timeouts += count;
            self.cc.on_packet_timeout(&mut self.window, now);
        }
        count
    }

    /// Timeouts scaled to the flow's own base RTT: a floor and the value before the first
    /// RTT sample.
    pub fn set_rto_bounds(&mut self, min_rto: Time, initial_rto: Time) {
        self.rtt.min_rto = min_rto;
        self.rtt.set_initial_rto(initial_rto);
    }

    pub fn rto(&self) -> Time {
        self.rtt.rto()
    }

    /// The retransmission timeout in force: the per-packet one when the sender keeps
    /// per-packet deadlines, else the timer's.
    pub fn rto_in_force(&self) -> Time {
        self.packet_rto().map_or_else(|| self.rto(), |q| q.rto)
    }
}
