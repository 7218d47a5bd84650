//! `recovery = "ns3"`: loss recovery as ns-3 3.44's `TcpSocketBase` runs it with its
//! defaults (SACK, `TcpPrrRecovery`, limited transmit), for cross-checks against ns-3.
//!
//! Per ACK (`ReceivedAck`, `ProcessAck`, `DupAck`): SACK blocks update the scoreboard and
//! every segment below the third-highest SACKed one becomes lost
//! (`TcpTxBuffer::UpdateLostCount`); the cumulative ACK discards; an echo on an ACK that
//! advances starts CWR in any state but CWR (ssthresh from the algorithm with the alpha
//! of before this ACK); an ACK that SACKs something new is a duplicate ACK, counted
//! outside recovery; recovery starts at exactly the third, or when the head is lost, and
//! retransmits the head at once; a partial ACK runs PRR and retransmits one more segment
//! (NextSeg rules 1-2, else the head) whatever the window, and restarts the RTO only the
//! first time; the window grows only in Open (and in Loss), by ns-3's per-ACK rules.
//! Sending follows NextSeg rules 1-3 while `cwnd - pipe` allows, never a sub-MSS segment
//! short of the flow's tail (the silly-window check), and with no exception for an empty
//! pipe. A lost retransmission is found only by the RTO.

use super::{AckEffect, Newly, Segment, Sender};
use crate::transport::cc::CongestionControl;
use crate::transport::recovery::{CaState, Reduction};
use crate::transport::sack::{blocks, SackList};
use crate::transport::scoreboard::Seg;
use crate::units::Time;

impl Sender {
    pub(super) fn ns3_ack(&mut self, now: Time, ack: u64, sacks: &SackList, ece: bool, ts_echo: Time) -> AckEffect {
        if ack < self.snd_una {
            return AckEffect { restart_rto: false, finished: self.finished() };
        }
        let old_una = self.snd_una;
        let mut newly = Newly::default();
        if self.sack {
            for b in blocks(sacks) {
                self.take_sack(*b, &mut newly);
            }
            if newly.sacked > 0 && self.fast_retransmit {
                self.ns3_mark_losses();
            }
        }
        let recovering_partial = self.state == CaState::Recovery && ack > old_una && ack < self.recover;
        self.take_cumulative(ack, &mut newly);
        // PRR's bound grows by a segment when a retransmission was cumulatively acknowledged.
        let safe = recovering_partial && newly.retx_acked;
        if self.state == CaState::Cwr && ack > self.recover {
            self.state = CaState::Open;
            self.window.cwnd = self.window.ssthresh;
        }
        if ack > old_una && ece && self.cc.ecn_capable() && self.repair.ecn_echo_seq < ack {
            self.repair.ecn_echo_seq = ack;
            if self.state != CaState::Cwr {
                self.ns3_enter_cwr(newly.delivered);
            }
        }
        let dupack = if self.sack { newly.sacked > 0 } else { ack == old_una && ack < self.snd_nxt };
        if dupack && self.fast_retransmit {
            self.ns3_dupack(now, newly.delivered);
        }
        let restart_rto = self.ns3_process_ack(now, ack, old_una, &newly, dupack, safe, ece, ts_echo);
        // `NewAck` moves m_nextTxSequence up to the ACK only after the algorithm has seen
        // the ACK (`PktsAcked`): a DCTCP window that ends on this ACK restarts from the old
        // value (after a retransmission, the hole's start), and ends again on the next ACK.
        self.next_tx = self.next_tx.max(ack);
        AckEffect { restart_rto, finished: self.finished() }
    }

    /// `TcpTxBuffer::UpdateLostCount`.
    fn ns3_mark_losses(&mut self) {
        let (mss, size) = (self.mss, self.size);
        let in_flight = &mut self.in_flight;
        self.board.mark_losses_by_count(self.dupthresh, |seg, old| {
            // Sent leaves the pipe; a rule-3 copy keeps its one copy in flight.
            let _ = old;
            *in_flight -= (size - seg * mss).min(mss);
        });
    }

    /// The head counts as lost: flagged lost, or retransmitted after being lost.
    fn ns3_head_lost(&self) -> bool {
        matches!(self.board.state(self.board.base()), Some(Seg::Lost | Seg::Retx))
    }

    /// `TcpSocketBase::DupAck`.
    fn ns3_dupack(&mut self, now: Time, delivered: u64) {
        match self.state {
            CaState::Loss => return,
            CaState::Recovery => {}
            _ => self.dupacks += 1,
        }
        if self.state == CaState::Open {
            self.state = CaState::Disorder;
        }
        match self.state {
            CaState::Recovery => self.ns3_prr(delivered, true, false),
            CaState::Disorder => {
                let third = self.dupacks == self.dupthresh && (self.snd_una >= self.recover || !self.repair.recover_active);
                if third || self.ns3_head_lost() {
                    self.ns3_enter_recovery(now, delivered);
                }
            }
            _ => {}
        }
    }

    /// `TcpSocketBase::EnterRecovery`: the head is lost, ssthresh from the flight, PRR from
    /// the pipe, and the head goes again at once.
    fn ns3_enter_recovery(&mut self, now: Time, delivered: u64) {
        if !self.ns3_head_lost() {
            let head = self.board.base();
            if let Some(old) = self.board.set(head, Seg::Lost) {
                self.in_flight -= self.seg_len(head) * old.copies_in_flight();
            }
        }
        self.recover = self.snd_nxt;
        self.repair.recover_active = true;
        self.state = CaState::Recovery;
        self.fast_recoveries += 1;
        self.window.ssthresh = self.reduced_ssthresh(Reduction::Recovery);
        self.repair.prr.enter(self.in_flight);
        self.ns3_prr(delivered, true, false);
        let head = self.board.base();
        self.ns3_force(now, head, true);
    }

    /// `TcpSocketBase::EnterCwr`.
    fn ns3_enter_cwr(&mut self, delivered: u64) {
        self.window.ssthresh = self.reduced_ssthresh(Reduction::Cwr);
        self.state = CaState::Cwr;
        self.recover = self.snd_nxt;
        self.repair.prr.enter(self.in_flight);
        self.ns3_prr(delivered, true, false);
        self.send_cwr = true;
    }

    fn ns3_prr(&mut self, delivered: u64, dupack: bool, safe: bool) {
        let (pipe, ssthresh, mss) = (self.in_flight, self.window.ssthresh, self.mss);
        if let Some(cwnd) = self.repair.prr.ns3_cwnd(delivered, dupack, pipe, ssthresh, mss, safe) {
            self.window.cwnd = cwnd;
        }
    }

    /// Sends segment `seg` now, whatever the window (the fast retransmit, a partial ACK's
    /// retransmission): it waits in the ready list for the world to take it.
    ///
    /// `m_nextTxSequence` (where DCTCP's alpha window ends) moves as ns-3 moves it: the
    /// fast retransmit (`EnterRecovery`) leaves it; a partial ACK's `DoRetransmit` sets
    /// it to the start of what it sends, not past it.
    fn ns3_force(&mut self, now: Time, seg: u64, fast_retransmit: bool) {
        let next_tx = if fast_retransmit { self.next_tx } else { seg * self.mss };
        self.ns3_force_send(now, seg);
        self.next_tx = next_tx;
    }

    fn ns3_force_send(&mut self, now: Time, seg: u64) {
        if seg >= self.board.end() {
            if self.snd_nxt >= self.size.min(self.send_limit()) {
                return;
            }
            let len = self.seg_len(seg);
            let s = self.commit(seg, None, len, now);
            self.repair.ready.push_back(s);
            return;
        }
        // ns-3 flags a segment `m_retrans` once: sending a retransmitted segment again
        // (the head at a new recovery, or after a partial ACK) leaves the pipe as it was.
        let (state, adds) = match self.board.state(seg) {
            Some(Seg::Lost) => (Seg::Retx, true),
            Some(Seg::Sent) => (Seg::RetxDup, true),
            Some(s @ (Seg::Retx | Seg::RetxDup)) => (s, false),
            _ => return,
        };
        let len = self.seg_len(seg);
        let s = self.commit(seg, Some(state), len, now);
        if !adds {
            self.in_flight -= len;
        }
        self.repair.ready.push_back(s);
    }

    /// `TcpSocketBase::ProcessAck` once duplicate ACKs are counted. True when the RTO
    /// restarts (`NewAck` with `resetRTO`).
    #[allow(clippy::too_many_arguments)]
    fn ns3_process_ack(&mut self, now: Time, ack: u64, old_una: u64, newly: &Newly, dupack: bool, safe: bool, ece: bool, ts_echo: Time) -> bool {
        let mss = self.mss;
        if ack == old_una {
            // A duplicate ACK: ns-3 still tells the algorithm one segment was acknowledged.
            if self.outstanding() {
                let signal = self.signal(now, mss, ece, ts_echo, false, false);
                self.cc.on_ack(&mut self.window, &signal);
            }
            return false;
        }
        // Bytes acknowledged count in whole segments, the remainder carried over.
        let mut segs = newly.delivered / mss;
        self.repair.acked_carry += newly.delivered % mss;
        if self.repair.acked_carry >= mss {
            segs += 1;
            self.repair.acked_carry -= mss;
        }
        if !dupack {
            self.dupacks = 0;
        }
        let grow = |s: &mut Sender, segs: u64, may_grow: bool| {
            let signal = s.signal(now, segs * mss, ece, ts_echo, may_grow, false);
            s.cc.on_ack(&mut s.window, &signal);
        };
        if ack < self.recover && self.state == CaState::Recovery {
            if segs >= 1 {
                self.ns3_prr(newly.delivered, false, safe);
            }
            // The new head goes again unless it already has.
            if !matches!(self.board.state(self.board.base()), Some(Seg::Retx | Seg::RetxDup)) {
                let seg = self.ns3_next_lost().unwrap_or_else(|| {
                    if self.snd_nxt < self.size.min(self.send_limit()) {
                        self.board.end()
                    } else {
                        self.board.base()
                    }
                });
                self.ns3_force(now, seg, false);
            }
            grow(self, 1, false);
            return std::mem::replace(&mut self.repair.first_partial, false);
        }
        if ack < self.recover && self.state == CaState::Loss {
            grow(self, segs, true);
            return true;
        }
        if self.state == CaState::Cwr {
            grow(self, segs, false);
            if segs >= 1 {
                self.ns3_prr(newly.delivered, false, false);
            }
            return true;
        }
        let mut exited = false;
        match self.state {
            CaState::Disorder if !dupack => self.state = CaState::Open,
            CaState::Recovery => {
                self.repair.first_partial = true;
                segs = (ack - old_una) / mss;
                self.state = CaState::Open;
                exited = true;
                self.dupacks = 0;
            }
            CaState::Loss => {
                self.repair.first_partial = true;
                segs = ack.saturating_sub(self.recover) / mss;
                self.state = CaState::Open;
            }
            _ => {}
        }
        if ack >= self.recover {
            self.repair.recover_active = false;
        }
        if exited {
            self.window.cwnd = self.window.ssthresh;
        }
        let open = self.state == CaState::Open;
        grow(self, segs, open);
        exited || open
    }

    /// NextSeg rule 1: the lowest lost segment not yet retransmitted, below the highest
    /// SACKed one while a SACK is on record.
    fn ns3_next_lost(&mut self) -> Option<u64> {
        let seg = self.board.first_lost()?;
        (!self.board.sack_seen() || seg < self.board.high_sacked).then_some(seg)
    }

    /// `SendPendingData` with NextSeg: rule 1, new data (rule 2), and in recovery an
    /// unSACKed segment below the highest SACK (rule 3).
    pub(super) fn ns3_next_segment(&mut self, now: Time) -> Option<Segment> {
        if let Some(s) = self.repair.ready.pop_front() {
            return Some(s);
        }
        let window = self.send_window(now);
        let avail = window.saturating_sub(self.in_flight);
        if avail == 0 {
            self.repair.window_full = true;
            return None;
        }
        let (seg, retx) = if let Some(seg) = self.ns3_next_lost() {
            (seg, Some(Seg::Retx))
        } else if self.snd_nxt < self.size && self.snd_nxt + self.seg_len(self.board.end()) <= self.send_limit() {
            (self.board.end(), None)
        } else if self.state == CaState::Recovery {
            (self.board.rule3_candidate()?, Some(Seg::RetxDup))
        } else {
            return None;
        };
        // The silly-window check: less than a segment of window sends only the last data.
        let remaining = self.send_limit().min(self.size) - seg * self.mss;
        if avail < self.mss && remaining > avail {
            self.repair.window_full = true;
            return None;
        }
        let len = self.seg_len(seg);
        let s = self.commit(seg, retx, len, now);
        if self.parts.is_some() {
            self.sub_packet_sent(now);
        }
        Some(s)
    }

    /// `TcpSocketBase::ReTxTimeout`: ssthresh from the flight before the timeout, cwnd one
    /// segment, everything not SACKed lost and no longer counted as retransmitted.
    pub(super) fn ns3_timeout(&mut self) {
        self.window.ssthresh = self.reduced_ssthresh(Reduction::Timeout);
        self.window.cwnd = self.mss;
        self.lose_all();
        self.state = CaState::Loss;
        self.repair.recover_active = true;
        self.repair.ready.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{config, drain, MSS};
    use super::super::Sender;
    use crate::transport::cc::{Cc, NewReno};
    use crate::transport::recovery::{CaState, Recovery};
    use crate::transport::sack::{SackBlock, SackList, NO_SACKS};
    use crate::transport::scoreboard::Seg;

    fn reno(size_segs: u64, cwnd_segs: u64) -> Sender {
        Sender::new(size_segs * MSS, &config(cwnd_segs * MSS, true, Recovery::Ns3), Cc::NewReno(NewReno::new(false)))
    }

    /// SACK blocks given in segments.
    fn sacks(blocks: &[(u64, u64)]) -> SackList {
        let mut l = NO_SACKS;
        for (i, &(a, b)) in blocks.iter().enumerate() {
            l[i] = SackBlock::new(a * MSS, b * MSS);
        }
        l
    }

    fn segs(s: &mut Sender, now: u64) -> Vec<(u64, bool)> {
        drain(s, now).iter().map(|g| (g.seq / MSS, g.retransmission)).collect()
    }

    #[test]
    fn sending_a_retransmitted_segment_again_leaves_the_pipe_and_moves_next_tx_as_ns3() {
        let mut s = reno(30, 10);
        assert_eq!(segs(&mut s, 0).len(), 10);
        for (t, hi) in [(100, 2), (101, 3), (102, 4)] {
            s.on_ack(t, 0, &sacks(&[(1, hi)]), false, 0);
        }
        assert_eq!(s.state(), CaState::Recovery);
        let _ = segs(&mut s, 102);
        assert_eq!(s.board.state(0), Some(Seg::Retx));
        let (pipe, next_tx) = (s.in_flight, s.next_tx);
        // The fast retransmit of a new recovery (`EnterRecovery`): same pipe, same next_tx.
        s.ns3_force(103, 0, true);
        assert_eq!((s.in_flight, s.next_tx), (pipe, next_tx));
        // A partial ACK's `DoRetransmit`: same pipe; m_nextTxSequence = the segment's start.
        s.ns3_force(104, 0, false);
        assert_eq!((s.in_flight, s.next_tx), (pipe, 0));
        assert_eq!(segs(&mut s, 104), vec![(0, true), (0, true)]);
        // A segment never retransmitted counts twice once sent again (original + copy).
        s.ns3_force(105, 5, false);
        assert_eq!(s.in_flight, pipe + MSS);
        assert_eq!(s.board.state(5), Some(Seg::RetxDup));
    }

    #[test]
    fn the_third_duplicate_ack_enters_recovery_and_resends_the_head_at_once() {
        let mut s = reno(30, 10);
        assert_eq!(segs(&mut s, 0).len(), 10);
        // Segment 0 lost. Each SACK of a new segment is a duplicate ACK; before the third,
        // the pipe lets a new segment out for each (limited transmit).
        s.on_ack(100, 0, &sacks(&[(1, 2)]), false, 0);
        assert_eq!((s.state(), s.dupacks), (CaState::Disorder, 1));
        assert_eq!(segs(&mut s, 100), vec![(10, false)]);
        s.on_ack(101, 0, &sacks(&[(1, 3)]), false, 0);
        assert_eq!(segs(&mut s, 101), vec![(11, false)]);
        s.on_ack(102, 0, &sacks(&[(1, 4)]), false, 0);
        assert_eq!((s.state(), s.fast_recoveries), (CaState::Recovery, 1));
        // ssthresh is half the flight (12 out, 3 SACKed, the head lost: 8), not of cwnd.
        assert_eq!(s.window.ssthresh, 4 * MSS);
        // The head goes first, whatever the window; PRR then holds the rest back.
        assert_eq!(segs(&mut s, 102), vec![(0, true)]);
    }

    #[test]
    fn next_seg_rules() {
        let mut s = reno(10, 10);
        segs(&mut s, 0);
        // Holes at 0 and 7. The first ACK SACKs 1-3: three SACKed segments above 0 make it
        // lost (IsLost), so recovery starts there, with ssthresh half the pipe (6 of 10 out).
        s.on_ack(100, 0, &sacks(&[(1, 4)]), false, 0);
        assert_eq!((s.state(), s.window.ssthresh), (CaState::Recovery, 3 * MSS));
        s.on_ack(101, 0, &sacks(&[(4, 7), (1, 4)]), false, 0);
        s.on_ack(102, 0, &sacks(&[(8, 10), (1, 7)]), false, 0);
        // Only 8 and 9 lie SACKed above 7: not lost. The head went at recovery (rule 1,
        // whatever the window); with no lost segment and no new data left, rule 3 offers
        // 7 as a copy while its original still counts: the pipe holds 0's copy and 7 twice.
        assert_eq!(segs(&mut s, 102), vec![(0, true), (7, true)]);
        assert_eq!(s.in_flight, 3 * MSS);
        // Rule 3 takes each segment once.
        s.window.cwnd = 10 * MSS;
        assert_eq!(segs(&mut s, 103), vec![]);
    }

    #[test]
    fn a_partial_ack_resends_the_next_hole_and_restarts_the_rto_only_the_first_time() {
        let mut s = reno(20, 14);
        segs(&mut s, 0);
        // Holes at 0, 4 and 8, each with three SACKed segments above it.
        s.on_ack(100, 0, &sacks(&[(1, 4)]), false, 0);
        s.on_ack(101, 0, &sacks(&[(5, 8), (1, 4)]), false, 0);
        s.on_ack(102, 0, &sacks(&[(9, 12), (5, 8), (1, 4)]), false, 0);
        assert_eq!(s.next_segment(102).map(|g| g.seq), Some(0), "the fast retransmit");
        // The head's retransmission arrives: a partial ACK up to 4. The new head goes at once.
        let e = s.on_ack(200, 4 * MSS, &sacks(&[(9, 12), (5, 8)]), false, 102);
        assert!(e.restart_rto, "the first partial ACK restarts the RTO");
        assert_eq!(s.next_segment(200).map(|g| (g.seq / MSS, g.retransmission)), Some((4, true)));
        let e = s.on_ack(300, 8 * MSS, &sacks(&[(9, 12)]), false, 200);
        assert!(!e.restart_rto, "later partial ACKs do not");
        assert_eq!(s.next_segment(300).map(|g| (g.seq / MSS, g.retransmission)), Some((8, true)));
    }

    #[test]
    fn a_sacked_retransmission_stays_in_the_pipe_until_acknowledged() {
        // After a timeout segments 0-3 go again; the copy of 2 is SACKed while 1 is still
        // missing. ns-3 takes a retransmission out of its pipe only when it is acknowledged.
        let mut s = reno(10, 4);
        segs(&mut s, 0);
        s.on_timeout(1000);
        s.window.cwnd = 4 * MSS;
        assert_eq!(segs(&mut s, 1000).len(), 4, "0-3 again");
        assert_eq!(s.in_flight, 4 * MSS);
        s.on_ack(1100, MSS, &sacks(&[(2, 3)]), false, 1000);
        assert_eq!(s.in_flight, 3 * MSS, "0 acknowledged; 1 and 3 in flight, and 2, SACKed, still counted");
        // The next cumulative ACK past it takes it out.
        s.on_ack(1200, 3 * MSS, &NO_SACKS, false, 1000);
        assert_eq!(s.in_flight, MSS);
    }

    #[test]
    fn less_than_a_segment_of_window_sends_only_the_tail() {
        let mut s = reno(10, 3);
        segs(&mut s, 0);
        (s.window.cwnd, s.window.ssthresh) = (3 * MSS + MSS / 2, 0);
        s.on_ack(100, MSS, &NO_SACKS, false, 0);
        // Congestion avoidance adds MSS²/cwnd: cwnd - pipe is 1.79 MSS, one segment; then
        // 0.79 MSS is not enough for a middle segment (ns-3's silly-window check).
        let cwnd = s.window.cwnd;
        assert!(cwnd - s.in_flight >= MSS && cwnd - s.in_flight < 2 * MSS);
        assert_eq!(segs(&mut s, 100).len(), 1);
        assert!(s.window.cwnd - s.in_flight < MSS);
        assert_eq!(segs(&mut s, 101).len(), 0);
    }
}
