//! The sender's per-segment scoreboard (RFC 6675 in spirit): every segment between the
//! cumulative ACK and the highest sent byte is sent, SACKed, lost or retransmitted.
//!
//! Segments are fixed `mss`-sized slices of the byte stream (the last may be shorter), so a
//! segment is named by its index and the board is a ring of one byte per segment: it grows
//! to the largest window once and is never allocated again.

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
    /// Retransmitted and in flight.
    Retx,
}

#[derive(Default, Clone, Debug)]
pub struct Scoreboard {
    /// Index of the segment at the cumulative ACK point.
    base: u64,
    states: VecDeque<Seg>,
    /// Segments in state Lost.
    pub lost: u64,
    /// Lowest index that may be Lost (the retransmission scan starts here).
    lost_scan: u64,
    /// Highest SACKed segment index + 1 (0 if none).
    pub high_sacked: u64,
    /// Lowest index not yet examined by SACK-based loss marking.
    loss_mark_scan: u64,
}

impl Scoreboard {
    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the highest segment sent.
    pub fn end(&self) -> u64 {
        self.base + self.states.len() as u64
    }

    pub fn state(&self, seg: u64) -> Option<Seg> {
        seg.checked_sub(self.base).and_then(|i| self.states.get(i as usize).copied())
    }

    pub fn push_sent(&mut self) {
        self.states.push_back(Seg::Sent);
    }

    /// Advances the cumulative point to `seg`, calling `f` with each leaving segment's state.
    pub fn advance_to(&mut self, seg: u64, mut f: impl FnMut(u64, Seg)) {
        while self.base < seg {
            let Some(s) = self.states.pop_front() else { break };
            if s == Seg::Lost {
                self.lost -= 1;
            }
            f(self.base, s);
            self.base += 1;
        }
        self.lost_scan = self.lost_scan.max(self.base);
        self.loss_mark_scan = self.loss_mark_scan.max(self.base);
    }

    /// Sets a segment's state, keeping the Lost count; returns the old state.
    pub fn set(&mut self, seg: u64, new: Seg) -> Option<Seg> {
        let i = seg.checked_sub(self.base)? as usize;
        let slot = self.states.get_mut(i)?;
        let old = *slot;
        *slot = new;
        if old == Seg::Lost {
            self.lost -= 1;
        }
        if new == Seg::Lost {
            self.lost += 1;
            self.lost_scan = self.lost_scan.min(seg);
        }
        if new == Seg::Sacked {
            self.high_sacked = self.high_sacked.max(seg + 1);
        }
        Some(old)
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

    /// Original transmissions with at least `dupthresh` later segments SACKed are lost: on a
    /// FIFO path a later segment arriving first means the earlier one was dropped.
    /// Calls `f` for each newly lost segment.
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

    /// After a timeout every segment not SACKed is lost.
    pub fn mark_all_lost(&mut self, mut f: impl FnMut(u64, Seg)) {
        for seg in self.base..self.end() {
            let s = self.state(seg).unwrap();
            if s == Seg::Sent || s == Seg::Retx {
                self.set(seg, Seg::Lost);
                f(seg, s);
            }
        }
        self.lost_scan = self.base;
    }

    /// Frees the ring once the flow is over.
    pub fn release(&mut self) {
        self.states = VecDeque::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_marks_holes_lost_after_dupthresh() {
        let mut b = Scoreboard::default();
        for _ in 0..10 {
            b.push_sent();
        }
        // Segment 2 dropped; 3, 4, 5 SACKed.
        for s in 3..6 {
            b.set(s, Seg::Sacked);
        }
        let mut lost = Vec::new();
        b.mark_losses(3, |s| lost.push(s));
        assert_eq!(lost, vec![0, 1, 2]);
        // 0 and 1 were delivered (cumulative ACK to 2) before being retransmitted.
        b.advance_to(2, |_, _| {});
        assert_eq!(b.lost, 1);
        assert_eq!(b.first_lost(), Some(2));
        b.set(2, Seg::Retx);
        assert_eq!(b.first_lost(), None);
        b.mark_all_lost(|_, _| {});
        assert_eq!(b.lost, 5); // 2 (retx) and 6..10
    }
}
