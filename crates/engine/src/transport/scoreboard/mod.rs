//! The sender's per-segment scoreboard (RFC 6675): every segment between the cumulative ACK
//! and the highest sent byte is sent, SACKed, lost or retransmitted.
//!
//! Segments are fixed `mss`-sized slices of the byte stream (the last may be shorter), so a
//! segment is named by its index and the board is a ring of one slot per segment: it grows
//! to the largest window once and is never allocated again. RACK (Linux) also needs each
//! segment's last transmission time and the order of retransmissions; the times are kept
//! (and the order) only when [`Scoreboard::track_times`] is on. A segment's state and time
//! share its slot: an ACK reads both, and the oldest slot is cold by then (one cache miss
//! per ACK rather than one per ring). The slot is one word, the state in its top bits: no
//! time a run reaches needs them, and eight segments share a cache line, not four.

mod slot;

use crate::units::Time;
use slot::Slot;
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Seg {
    /// In flight, original transmission.
    Sent,
    /// Reported received by a SACK block.
    Sacked,
    /// Deemed lost, waiting for retransmission.
    Lost,
    /// Deemed lost and retransmitted; the retransmission is in flight.
    Retx,
    /// Retransmitted before it was deemed lost (RFC 6675 NextSeg rule 3, which ns-3 runs):
    /// the original still counts as in flight, and so does the copy.
    RetxDup,
    /// SACKed after it was retransmitted, as ns-3 counts it: SACKed for loss detection, yet
    /// still one segment in the pipe (ns-3 takes a retransmission out of its count only when
    /// it is cumulatively acknowledged or a timeout resets the count).
    SackedRetx,
}

impl Seg {
    /// How many copies of the segment the pipe counts.
    #[inline(always)]
    pub fn copies_in_flight(self) -> u64 {
        match self {
            Seg::Sent | Seg::Retx | Seg::SackedRetx => 1,
            Seg::RetxDup => 2,
            Seg::Sacked | Seg::Lost => 0,
        }
    }

    #[inline(always)]
    pub fn is_sacked(self) -> bool {
        matches!(self, Seg::Sacked | Seg::SackedRetx)
    }
}

#[derive(Default, Clone, Debug)]
pub struct Scoreboard {
    /// Index of the segment at the cumulative ACK point.
    base: u64,
    slots: VecDeque<Slot>,
    /// Segments in state Lost.
    pub lost: u64,
    /// Segments in state Sacked.
    pub sacked: u64,
    /// Segments whose retransmission is in flight (Retx or RetxDup).
    pub retransmitted: u64,
    /// Lowest index that may be Lost (the retransmission scan starts here).
    lost_scan: u64,
    /// Highest SACKed segment index + 1 (0 if none).
    pub high_sacked: u64,
    /// Lowest index not yet examined by SACK-based loss marking.
    loss_mark_scan: u64,
    /// Record transmission times (RACK).
    pub track_times: bool,
    /// Retransmissions in the order sent: (segment, its send time); entries whose segment
    /// was acknowledged, SACKed, lost or sent again since are stale and skipped.
    retx_order: VecDeque<(u64, Time)>,
    /// Lowest index that may be an original transmission RACK has not judged yet.
    rack_scan: u64,
    /// `[from, to)`: segments known to be SACKed (`Seg::is_sacked`), so that a SACK block
    /// reporting them again is not walked again (a receiver with a hole re-sends the block
    /// above it, one segment longer, with every ACK: quadratic in the window otherwise).
    /// `set` keeps it exact: a segment in it leaving the SACKed states empties it.
    sacked_run: (u64, u64),
}

impl Scoreboard {
    /// A board that records transmission times (for RACK) when `track_times`.
    pub fn new(track_times: bool) -> Self {
        Scoreboard { track_times, ..Default::default() }
    }

    /// Where the oldest segment's slot is and where the next one sent will go (for
    /// prefetching: an ACK releases the first and its new segments fill the second).
    pub fn ends(&self) -> (*const u8, *const u8) {
        super::ring_ends(&self.slots)
    }

    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the highest segment sent.
    pub fn end(&self) -> u64 {
        self.base + self.slots.len() as u64
    }

    pub fn state(&self, seg: u64) -> Option<Seg> {
        self.slot(seg).map(|s| s.state())
    }

    /// When segment `seg` was last sent (RACK; 0 when times are not tracked).
    pub fn xmit_time(&self, seg: u64) -> Time {
        self.slot(seg).map_or(0, |s| s.sent_at())
    }

    #[inline(always)]
    fn slot(&self, seg: u64) -> Option<&Slot> {
        seg.checked_sub(self.base).and_then(|i| self.slots.get(i as usize))
    }

    #[inline(always)]
    fn slot_mut(&mut self, seg: u64) -> Option<&mut Slot> {
        seg.checked_sub(self.base).and_then(|i| self.slots.get_mut(i as usize))
    }

    #[inline(always)]
    fn stamp(&self, now: Time) -> Time {
        if self.track_times {
            now
        } else {
            0
        }
    }

    #[inline(always)]
    pub fn push_sent(&mut self, now: Time) {
        let sent_at = self.stamp(now);
        self.slots.push_back(Slot::new(sent_at, Seg::Sent));
    }

    /// Segment `seg` goes out again at `now`, as a retransmission in state `state`.
    pub fn retransmit(&mut self, seg: u64, state: Seg, now: Time) {
        self.set(seg, state);
        let sent_at = self.stamp(now);
        if let Some(slot) = self.slot_mut(seg) {
            *slot = Slot::new(sent_at, slot.state());
        }
        if self.track_times {
            self.retx_order.push_back((seg, now));
        }
    }

    /// Advances the cumulative point to `seg`, calling `f` with each leaving segment's
    /// state and send time (0 when times are not tracked).
    pub fn advance_to(&mut self, seg: u64, mut f: impl FnMut(u64, Seg, Time)) {
        while self.base < seg {
            let Some(slot) = self.slots.pop_front() else { break };
            let (sent_at, state) = (slot.sent_at(), slot.state());
            self.uncount(state);
            f(self.base, state, sent_at);
            self.base += 1;
        }
        self.lost_scan = self.lost_scan.max(self.base);
        self.loss_mark_scan = self.loss_mark_scan.max(self.base);
        self.rack_scan = self.rack_scan.max(self.base);
    }

    /// Moves an empty board (everything sent is acknowledged) to segment `seg`: the segments
    /// in between were acknowledged without being sent (an erasure-coded block the receiver
    /// decoded before its last packets left).
    pub fn skip_to(&mut self, seg: u64) {
        debug_assert!(self.slots.is_empty());
        if self.slots.is_empty() && seg > self.base {
            self.base = seg;
            self.lost_scan = self.lost_scan.max(seg);
            self.loss_mark_scan = self.loss_mark_scan.max(seg);
            self.rack_scan = self.rack_scan.max(seg);
        }
    }

    /// Sets a segment's state, keeping the counts; returns the old state.
    pub fn set(&mut self, seg: u64, new: Seg) -> Option<Seg> {
        let slot = self.slot_mut(seg)?;
        let old = slot.state();
        *slot = Slot::new(slot.sent_at(), new);
        if !new.is_sacked() && (self.sacked_run.0..self.sacked_run.1).contains(&seg) {
            self.sacked_run = (0, 0);
        }
        self.uncount(old);
        if matches!(new, Seg::Retx | Seg::RetxDup) {
            self.retransmitted += 1;
        }
        match new {
            Seg::Lost => {
                self.lost += 1;
                self.lost_scan = self.lost_scan.min(seg);
            }
            Seg::Sacked | Seg::SackedRetx => {
                self.sacked += 1;
                self.high_sacked = self.high_sacked.max(seg + 1);
            }
            _ => {}
        }
        Some(old)
    }

    /// The parts of `[first, last)` not known to be SACKed, in order (at most two).
    pub fn unsacked_parts(&self, first: u64, last: u64) -> [(u64, u64); 2] {
        let (from, to) = self.sacked_run;
        if to <= first || from >= last || from == to {
            return [(first, last), (last, last)];
        }
        [(first, from.max(first)), (to.min(last), last)]
    }

    /// Every segment of `[first, last)` is SACKed now: the known run grows to cover it
    /// when the two touch, else it becomes the run.
    pub fn sacked_through(&mut self, first: u64, last: u64) {
        let (from, to) = self.sacked_run;
        self.sacked_run = if from < to && first <= to && last >= from { (from.min(first), to.max(last)) } else { (first, last) };
    }

    fn uncount(&mut self, s: Seg) {
        match s {
            Seg::Lost => self.lost -= 1,
            Seg::Sacked | Seg::SackedRetx => self.sacked -= 1,
            Seg::Retx | Seg::RetxDup => self.retransmitted -= 1,
            Seg::Sent => {}
        }
    }

    /// The lowest Lost segment, if any.
    pub fn first_lost(&mut self) -> Option<u64> {
        if self.lost == 0 {
            return None;
        }
        while self.lost_scan < self.end() {
            if self.state(self.lost_scan) == Some(Seg::Lost) {
                return Some(self.lost_scan);
            }
            self.lost_scan += 1;
        }
        None
    }

    /// A SACK has been seen above the cumulative point (ns-3 forgets it once the ACK passes).
    pub fn sack_seen(&self) -> bool {
        self.high_sacked > self.base
    }

    /// RFC 6675 NextSeg rule 3: the lowest segment below the highest SACKed one that is
    /// neither SACKed, lost nor retransmitted.
    pub fn rule3_candidate(&self) -> Option<u64> {
        (self.base..self.high_sacked).find(|&s| self.state(s) == Some(Seg::Sent))
    }

    /// Original transmissions with at least `dupthresh` later segments SACKed are lost: on a
    /// FIFO path a later segment arriving first means the earlier one was dropped (the FACK
    /// rule of fanin's first model). Calls `f` for each newly lost segment.
    pub fn mark_losses(&mut self, dupthresh: u64, mut f: impl FnMut(u64)) {
        let Some(limit) = self.high_sacked.checked_sub(dupthresh) else { return };
        while self.loss_mark_scan < limit {
            let seg = self.loss_mark_scan;
            if self.state(seg) == Some(Seg::Sent) {
                self.set(seg, Seg::Lost);
                f(seg);
            }
            self.loss_mark_scan += 1;
        }
    }

    /// RFC 6675's IsLost as ns-3 keeps it (`TcpTxBuffer::UpdateLostCount`): every segment
    /// below the `dupthresh`-th highest SACKed one that is neither SACKed nor already lost
    /// becomes lost. Calls `f(seg, old state)` for each (Sent, or RetxDup, which becomes
    /// Retx: lost, with its copy in flight).
    pub fn mark_losses_by_count(&mut self, dupthresh: u64, mut f: impl FnMut(u64, Seg)) {
        let mut count = 0;
        let mut bound = None;
        let mut s = self.high_sacked;
        while s > self.loss_mark_scan {
            s -= 1;
            if self.state(s).is_some_and(Seg::is_sacked) {
                count += 1;
                if count >= dupthresh {
                    bound = Some(s);
                    break;
                }
            }
        }
        let Some(bound) = bound else { return };
        while self.loss_mark_scan < bound {
            let seg = self.loss_mark_scan;
            match self.state(seg) {
                Some(Seg::Sent) => {
                    self.set(seg, Seg::Lost);
                    f(seg, Seg::Sent);
                }
                Some(Seg::RetxDup) => {
                    self.set(seg, Seg::Retx);
                    f(seg, Seg::RetxDup);
                }
                _ => {}
            }
            self.loss_mark_scan += 1;
        }
    }

    /// RACK (RFC 8985 6.2, as Linux's `tcp_rack_detect_loss`): a segment in flight that was
    /// sent before the most recently delivered one (`rack_xmit`, ties broken by sequence:
    /// `rack_seg`) is lost once `timeout` (RACK.rtt + reordering window) has passed since
    /// its transmission. Calls `f(seg, old state)` for each newly lost segment and returns
    /// the longest wait of those not yet due (Linux arms its reordering timer with it).
    pub fn rack_mark_losses(&mut self, rack_xmit: Time, rack_seg: u64, now: Time, timeout: Time, mut f: impl FnMut(u64, Seg)) -> Option<Time> {
        let before = |t: Time, seg: u64| t < rack_xmit || (t == rack_xmit && seg < rack_seg);
        let mut wait: Option<Time> = None;
        let mut note = |remaining: Time| wait = Some(wait.map_or(remaining, |w: Time| w.max(remaining)));
        // Originals: sent in sequence order, so their times rise with the index.
        let mut seg = self.rack_scan;
        let mut judged_all_below = true;
        while seg < self.end() {
            if self.state(seg) != Some(Seg::Sent) {
                if judged_all_below {
                    self.rack_scan = seg + 1;
                }
                seg += 1;
                continue;
            }
            let t = self.xmit_time(seg);
            if !before(t, seg) {
                break;
            }
            let due = t.saturating_add(timeout);
            if due <= now {
                self.set(seg, Seg::Lost);
                f(seg, Seg::Sent);
                if judged_all_below {
                    self.rack_scan = seg + 1;
                }
            } else {
                judged_all_below = false;
                note(due - now);
            }
            seg += 1;
        }
        // Retransmissions, in the order sent.
        let mut i = 0;
        while i < self.retx_order.len() {
            let (seg, t) = self.retx_order[i];
            let state = self.state(seg);
            let current = matches!(state, Some(Seg::Retx | Seg::RetxDup)) && self.xmit_time(seg) == t;
            if !current {
                if i == 0 {
                    self.retx_order.pop_front();
                } else {
                    i += 1;
                }
                continue;
            }
            if !before(t, seg) {
                break;
            }
            let due = t.saturating_add(timeout);
            if due <= now {
                self.set(seg, Seg::Lost);
                f(seg, state.unwrap_or(Seg::Retx));
                if i == 0 {
                    self.retx_order.pop_front();
                    continue;
                }
            } else {
                note(due - now);
            }
            i += 1;
        }
        wait
    }

    /// Whether [`Scoreboard::rack_mark_losses`] would find nothing sent before the delivered
    /// transmission (`rack_xmit`, `rack_seg`): answered from one slot on a board with no
    /// retransmission in flight and nothing SACKed or lost, where every segment out is an
    /// original sent in order, so the oldest is the only one to look at. Most ACKs come
    /// to such a board; the full pass costs them a fifth of their processing.
    pub fn rack_has_nothing_before(&self, rack_xmit: Time, rack_seg: u64) -> bool {
        if self.retransmitted != 0 || self.sacked != 0 || self.lost != 0 {
            return false;
        }
        let seg = self.rack_scan;
        self.slot(seg).is_none_or(|s| s.state() == Seg::Sent && (s.sent_at() > rack_xmit || (s.sent_at() == rack_xmit && seg >= rack_seg)))
    }

    /// After a timeout every segment not SACKed is lost, and no retransmission counts in
    /// the pipe any more. Calls `f(seg, old state)` for each segment it changes.
    pub fn mark_all_lost(&mut self, mut f: impl FnMut(u64, Seg)) {
        for seg in self.base..self.end() {
            let s = self.state(seg).unwrap();
            match s {
                Seg::Sent | Seg::Retx | Seg::RetxDup => {
                    self.set(seg, Seg::Lost);
                    f(seg, s);
                }
                Seg::SackedRetx => {
                    self.set(seg, Seg::Sacked);
                    f(seg, s);
                }
                Seg::Sacked | Seg::Lost => {}
            }
        }
        self.lost_scan = self.base;
        self.rack_scan = self.base;
        self.retx_order.clear();
    }

    /// Frees the rings once the flow is over.
    pub fn release(&mut self) {
        self.slots = VecDeque::new();
        self.retx_order = VecDeque::new();
    }
}

#[cfg(test)]
mod tests;
