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

use crate::units::Time;
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

/// One segment's state and when it was last sent (0 when times are not tracked), in one word.
#[derive(Copy, Clone, Debug)]
struct Slot(u64);

/// The state's place in the word. Every time a run reaches, its end included, is at most
/// `MAX_TIME` (10^6 s, under 2^60 ps), so the low 60 bits hold any send time exactly.
const STATE_SHIFT: u32 = 60;
const TIME_MASK: u64 = (1 << STATE_SHIFT) - 1;
const _: () = assert!(crate::units::MAX_TIME <= TIME_MASK);

impl Slot {
    #[inline(always)]
    fn new(sent_at: Time, state: Seg) -> Slot {
        debug_assert!(sent_at <= TIME_MASK);
        Slot((state as u64) << STATE_SHIFT | (sent_at & TIME_MASK))
    }
    #[inline(always)]
    fn state(self) -> Seg {
        // By discriminant: the order `Seg` declares them in.
        const STATES: [Seg; 6] = [Seg::Sent, Seg::Sacked, Seg::Lost, Seg::Retx, Seg::RetxDup, Seg::SackedRetx];
        STATES[(self.0 >> STATE_SHIFT) as usize]
    }
    #[inline(always)]
    fn sent_at(self) -> Time {
        self.0 & TIME_MASK
    }
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
mod tests {
    use super::*;

    #[test]
    fn the_known_sacked_run_grows_and_is_dropped_when_a_segment_leaves_it() {
        let mut b = board(10);
        assert_eq!(b.unsacked_parts(0, 8), [(0, 8), (8, 8)]);
        for s in 2..5 {
            b.set(s, Seg::Sacked);
        }
        b.sacked_through(2, 5);
        assert_eq!(b.unsacked_parts(0, 8), [(0, 2), (5, 8)]);
        assert_eq!(b.unsacked_parts(3, 5), [(3, 3), (5, 5)]);
        // A block one segment longer, as a receiver with a hole sends: the run grows.
        b.set(5, Seg::Sacked);
        b.sacked_through(2, 6);
        assert_eq!(b.unsacked_parts(2, 7), [(2, 2), (6, 7)]);
        // A disjoint block replaces it; SackedRetx -> Sacked keeps it.
        b.set(8, Seg::SackedRetx);
        b.sacked_through(8, 9);
        b.set(8, Seg::Sacked);
        assert_eq!(b.unsacked_parts(0, 10), [(0, 8), (9, 10)]);
        // A segment of the run that stops being SACKed (any path) empties it.
        b.sacked_through(2, 6);
        b.set(4, Seg::Lost);
        assert_eq!(b.unsacked_parts(0, 10), [(0, 10), (10, 10)]);
    }

    #[test]
    fn a_slot_holds_every_state_beside_any_time_a_run_reaches() {
        use crate::units::MAX_TIME;
        for state in [Seg::Sent, Seg::Sacked, Seg::Lost, Seg::Retx, Seg::RetxDup, Seg::SackedRetx] {
            for t in [0, 1, MAX_TIME - 1, MAX_TIME] {
                let slot = Slot::new(t, state);
                assert_eq!((slot.state(), slot.sent_at()), (state, t));
            }
        }
        let mut b = board(100); // segment i sent at 10 i
        b.retransmit(50, Seg::Retx, MAX_TIME);
        assert_eq!((b.state(50), b.xmit_time(50)), (Some(Seg::Retx), MAX_TIME));
        assert_eq!((b.state(51), b.xmit_time(51)), (Some(Seg::Sent), 510));
        b.set(50, Seg::SackedRetx); // a new state keeps the time
        assert_eq!((b.state(50), b.xmit_time(50)), (Some(Seg::SackedRetx), MAX_TIME));
    }

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new(true);
        for i in 0..n {
            b.push_sent(i * 10);
        }
        b
    }

    #[test]
    fn sack_marks_holes_lost_after_dupthresh() {
        let mut b = board(10);
        // Segment 2 dropped; 3, 4, 5 SACKed.
        for s in 3..6 {
            b.set(s, Seg::Sacked);
        }
        let mut lost = Vec::new();
        b.mark_losses(3, |s| lost.push(s));
        assert_eq!(lost, vec![0, 1, 2]);
        // 0 and 1 were delivered (cumulative ACK to 2) before being retransmitted.
        b.advance_to(2, |_, _, _| {});
        assert_eq!(b.lost, 1);
        assert_eq!(b.first_lost(), Some(2));
        b.retransmit(2, Seg::Retx, 100);
        assert_eq!(b.first_lost(), None);
        b.mark_all_lost(|_, _| {});
        assert_eq!(b.lost, 5); // 2 (retx) and 6..10
    }

    /// RFC 6675 IsLost counts SACKed segments, FACK counts every segment above: with holes
    /// at 0, 1 and 2, FACK calls 0 lost at the first SACK (3), the count rule only at the
    /// third (5), and then all three at once.
    #[test]
    fn is_lost_counts_sacked_segments_not_distance() {
        let mut fack = board(10);
        let mut count = board(10);
        for s in 3..6 {
            fack.set(s, Seg::Sacked);
            count.set(s, Seg::Sacked);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            fack.mark_losses(3, |x| a.push(x));
            count.mark_losses_by_count(3, |x, _| b.push(x));
            match s {
                3 => assert_eq!((a, b), (vec![0], vec![])),
                4 => assert_eq!((a, b), (vec![1], vec![])),
                _ => assert_eq!((a, b), (vec![2], vec![0, 1, 2])),
            }
        }
        assert_eq!(count.sacked, 3);
        // A rule-3 copy below the bound becomes a lost segment whose copy is in flight.
        let mut b = board(10);
        b.retransmit(0, Seg::RetxDup, 200);
        for s in [1, 2, 3] {
            b.set(s, Seg::Sacked);
        }
        let mut seen = Vec::new();
        b.mark_losses_by_count(3, |x, old| seen.push((x, old)));
        assert_eq!(seen, vec![(0, Seg::RetxDup)]);
        assert_eq!(b.state(0), Some(Seg::Retx));
        assert_eq!(b.rule3_candidate(), None);
    }

    /// RFC 8985's reordering window: a segment sent before the delivered one is lost only
    /// once RACK.rtt + reo_wnd has passed since it was sent; until then RACK reports how
    /// long to wait.
    #[test]
    fn rack_waits_out_the_reordering_window() {
        let mut b = board(5); // sent at 0, 10, 20, 30, 40
        b.set(3, Seg::Sacked); // delivered: sent at 30, at now = 130 (RACK.rtt 100)
        let mut lost = Vec::new();
        let wait = b.rack_mark_losses(30, 3, 130, 100 + 25, |s, _| lost.push(s));
        // 0 is due at 125: lost. 1 at 135, 2 at 145: the timer must wait 15 ps.
        assert_eq!(lost, vec![0]);
        assert_eq!(wait, Some(15));
        // With no window (three SACKs seen, or in recovery) both go at once; 4 was sent
        // after the delivered segment and stays.
        let wait = b.rack_mark_losses(30, 3, 130, 100, |s, _| lost.push(s));
        assert_eq!((lost, wait), (vec![0, 1, 2], None));
        assert_eq!(b.state(4), Some(Seg::Sent));
    }

    /// The one-slot answer agrees with the full pass: on a clean board RACK has nothing to
    /// judge after an original's ACK, but after a retransmission's ACK (sent later than the
    /// originals still out) it does, and the quick answer must say so.
    #[test]
    fn rack_quick_answer_agrees_with_the_full_pass() {
        let mut b = board(6); // sent at 0, 10, .., 50
        b.advance_to(2, |_, _, _| {});
        // Delivered: segment 1, sent at 10. Segment 2 (sent at 20) is not before it.
        assert!(b.rack_has_nothing_before(10, 1));
        let mut lost = Vec::new();
        assert_eq!(b.rack_mark_losses(10, 1, 1000, 100, |s, _| lost.push(s)), None);
        assert!(lost.is_empty());
        // Delivered: a retransmission of segment 1 sent at 35: segments 2 and 3 were sent
        // before it.
        assert!(!b.rack_has_nothing_before(35, 1));
        b.rack_mark_losses(35, 1, 1000, 100, |s, _| lost.push(s));
        assert_eq!(lost, vec![2, 3]);
        // Equal times break by segment; a board with a SACK gets the full pass.
        let mut b = board(4);
        assert!(!b.rack_has_nothing_before(0, 1), "segment 0, sent at 0 too, is before segment 1");
        b.set(3, Seg::Sacked);
        assert!(!b.rack_has_nothing_before(0, 0));
    }

    /// A retransmission is judged like any transmission: once a segment sent after it is
    /// delivered, the lost retransmission is found without waiting for the RTO.
    #[test]
    fn rack_finds_a_lost_retransmission() {
        let mut b = board(4);
        b.set(0, Seg::Lost);
        b.retransmit(0, Seg::Retx, 50);
        b.push_sent(60); // segment 4, sent after the retransmission
        b.set(4, Seg::Sacked);
        let mut lost = Vec::new();
        let wait = b.rack_mark_losses(60, 4, 200, 100, |s, old| lost.push((s, old)));
        // 1..3 (sent at 10..30) and the retransmission of 0 (sent at 50) are all due.
        assert_eq!(lost, vec![(1, Seg::Sent), (2, Seg::Sent), (3, Seg::Sent), (0, Seg::Retx)]);
        assert_eq!(wait, None);
        assert_eq!(b.first_lost(), Some(0));
    }
}
