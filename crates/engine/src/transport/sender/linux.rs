//! `recovery = "linux"`: loss recovery as a Linux sender runs it with its defaults
//! (`tcp_ack`, `tcp_fastretrans_alert`, `tcp_rack_mark_lost`, `tcp_cwnd_reduction`,
//! `tcp_send_loss_probe`, `tcp_enter_loss`).
//!
//! Per ACK: the scoreboard takes the cumulative ACK and up to three SACK blocks (a D-SACK
//! first block only ends a probe episode); RACK marks lost every transmission sent before
//! the most recent delivered one once RACK.rtt plus the reordering window has passed
//! (retransmissions included), and arms its timer for the rest; a loss starts fast
//! recovery (ssthresh from the algorithm, PRR from cwnd), an ECN echo in Open or Disorder
//! starts CWR (the same reduction, without the loss); during either the window is PRR's,
//! otherwise it grows on ACKs that advance snd.una while the flow is cwnd-limited. A tail
//! loss probe follows 2 SRTT (+2 ms) of silence in Open or CWR. Not modelled: F-RTO,
//! undo of spurious reductions, reordering detection (paths are FIFO), jiffies.

use super::{AckEffect, AuxTimer, Newly, Sender};
use crate::transport::cc::CongestionControl;
use crate::transport::recovery::{probe_timeout, CaState, ProbeOutcome, Rack, Reduction};
use crate::transport::sack::{blocks, is_dsack, SackList};
use crate::transport::scoreboard::Seg;
use crate::units::Time;

impl Sender {
    pub(super) fn linux_ack(&mut self, now: Time, ack: u64, sacks: &SackList, ece: bool, ts_echo: Time) -> AckEffect {
        let mut newly = Newly::default();
        let dsack = self.sack && is_dsack(sacks, ack);
        if ack > self.snd_una {
            self.dupacks = 0;
        } else if ack == self.snd_una && self.outstanding() {
            self.dupacks += 1;
        }
        self.take_cumulative(ack, &mut newly);
        if self.sack {
            for b in blocks(sacks).skip(dsack as usize) {
                self.take_sack(*b, &mut newly);
            }
        }
        if newly.delivered > 0 {
            self.rtt_sample(now, ts_echo);
        }
        if let Some((xmit, seg)) = newly.latest {
            self.repair.rack.advance(xmit, seg, now);
        }
        let news = newly.advanced || newly.sacked > 0;
        let repaired = self.repair.probe.on_ack(ack, dsack, news) == ProbeOutcome::RepairedLoss;
        if repaired && matches!(self.state, CaState::Open | CaState::Disorder | CaState::Cwr) {
            // The probe repaired a tail loss: one reduction, at once (tcp_process_tlp_ack).
            self.window.ssthresh = self.reduced_ssthresh(Reduction::Cwr);
            self.window.cwnd = self.window.ssthresh;
            self.send_cwr = self.cc.ecn_capable();
            self.state = CaState::Open;
        }
        self.linux_leave_states();
        let newly_lost = self.linux_mark_losses(now, newly.advanced);
        if self.board.lost > 0 && matches!(self.state, CaState::Open | CaState::Disorder | CaState::Cwr) {
            self.linux_enter_recovery();
        }
        let enter_cwr = ece && self.cc.ecn_capable() && matches!(self.state, CaState::Open | CaState::Disorder);
        if self.state == CaState::Open || self.state == CaState::Disorder {
            let disorder = self.board.sacked > 0 || self.board.lost > 0 || self.board.retransmitted > 0;
            self.state = if disorder { CaState::Disorder } else { CaState::Open };
        }
        let reducing = matches!(self.state, CaState::Cwr | CaState::Recovery);
        let may_grow = newly.advanced && !reducing && !enter_cwr && self.cwnd_limited();
        let signal = self.signal(now, newly.delivered, ece, ts_echo, may_grow, false);
        self.cc.on_ack(&mut self.window, &signal);
        if enter_cwr {
            self.linux_start_reduction(Reduction::Cwr);
            self.state = CaState::Cwr;
        }
        if matches!(self.state, CaState::Cwr | CaState::Recovery) {
            let safe = newly.advanced && !newly_lost;
            let (ssthresh, mss, pipe) = (self.window.ssthresh, self.mss, self.in_flight);
            if let Some(cwnd) = self.repair.prr.linux_cwnd(newly.delivered, pipe, ssthresh, mss, safe) {
                self.window.cwnd = cwnd.max(mss);
            }
        }
        self.linux_arm_aux(now);
        AckEffect { restart_rto: newly.advanced, finished: self.finished() }
    }

    /// CWR ends once snd.una is beyond the recovery point, recovery and loss once it
    /// reaches it (`tcp_fastretrans_alert` step D, `tcp_process_loss`).
    fn linux_leave_states(&mut self) {
        let (una, recover) = (self.snd_una, self.recover);
        match self.state {
            CaState::Cwr if una > recover => {
                self.window.cwnd = self.window.ssthresh;
                self.state = CaState::Open;
            }
            CaState::Recovery if una >= recover => {
                self.window.cwnd = self.window.ssthresh;
                self.state = CaState::Open;
            }
            CaState::Loss if una >= recover => self.state = CaState::Open,
            _ => {}
        }
    }

    /// RACK (with SACK), or the NewReno rules without it. True when something was marked.
    fn linux_mark_losses(&mut self, now: Time, advanced: bool) -> bool {
        if !self.fast_retransmit || self.state == CaState::Loss {
            return false;
        }
        if !self.sack {
            // tcp_newreno_mark_lost: the head, at the dupthresh-th duplicate ACK or on a
            // partial ACK in recovery.
            let partial = self.state == CaState::Recovery && advanced;
            let head = self.board.base();
            if (self.dupacks >= self.dupthresh || partial) && self.board.state(head) == Some(Seg::Sent) {
                self.board.set(head, Seg::Lost);
                self.in_flight -= self.seg_len(head);
                return true;
            }
            return false;
        }
        let (wait, marked) = self.rack_detect(now);
        self.repair.aux = wait.map(|w| AuxTimer::Reorder(now + w));
        marked
    }

    /// One RACK pass at `now`: the longest wait left and whether anything was marked.
    fn rack_detect(&mut self, now: Time) -> (Option<Time>, bool) {
        let rack = &self.repair.rack;
        if !rack.seen || self.board.rack_has_nothing_before(rack.xmit, rack.seg) {
            return (None, false);
        }
        let srtt = self.rtt.srtt().unwrap_or(self.repair.rack.rtt);
        let reo = Rack::reo_wnd(self.state == CaState::Recovery, self.board.sacked, self.dupthresh, self.rtt.min_rtt, srtt);
        let rack = &self.repair.rack;
        let (xmit, seg, timeout) = (rack.xmit, rack.seg, rack.rtt + reo);
        let (mss, size) = (self.mss, self.size);
        let in_flight = &mut self.in_flight;
        let mut marked = false;
        let wait = self.board.rack_mark_losses(xmit, seg, now, timeout, |s, old| {
            *in_flight -= (size - s * mss).min(mss) * old.copies_in_flight();
            marked = true;
        });
        (wait, marked)
    }

    /// Fast recovery starts (`tcp_enter_recovery`): a reduction unless CWR already began one.
    fn linux_enter_recovery(&mut self) {
        if self.state != CaState::Cwr {
            self.linux_start_reduction(Reduction::Recovery);
        }
        self.recover = self.snd_nxt;
        self.state = CaState::Recovery;
        self.fast_recoveries += 1;
    }

    /// `tcp_init_cwnd_reduction`: ssthresh from the algorithm, PRR from the current cwnd.
    fn linux_start_reduction(&mut self, why: Reduction) {
        self.window.ssthresh = self.reduced_ssthresh(why);
        self.repair.prr.enter(self.window.cwnd);
        self.repair.probe.high_seq = 0;
        self.recover = self.snd_nxt;
        self.send_cwr = self.cc.ecn_capable();
    }

    /// After an ACK: the reordering timer if RACK is waiting, else a tail loss probe in
    /// Open or CWR with data out and no probe outstanding.
    fn linux_arm_aux(&mut self, now: Time) {
        if matches!(self.repair.aux, Some(AuxTimer::Reorder(_))) {
            return;
        }
        self.repair.aux = None;
        let probing = self.repair.probe.high_seq != 0;
        if self.sack && self.outstanding() && !probing && matches!(self.state, CaState::Open | CaState::Cwr) {
            let pto = probe_timeout(self.rtt.srtt(), self.segments_out(), self.rtt.min_rto);
            self.repair.aux = Some(AuxTimer::Probe(now + pto));
        }
    }

    /// Data went out (`tcp_write_xmit` schedules the probe too).
    pub(super) fn linux_after_send(&mut self, now: Time) {
        self.linux_arm_aux(now);
    }

    /// The reordering timer or the probe timer fired at `now`. True when a segment was
    /// made ready to send.
    pub fn on_aux_timer(&mut self, now: Time) -> bool {
        match self.repair.aux.take() {
            Some(AuxTimer::Reorder(_)) => {
                // tcp_rack_reo_timeout: mark what is due; a loss starts recovery.
                let (wait, marked) = self.rack_detect(now);
                self.repair.aux = wait.map(|w| AuxTimer::Reorder(now + w));
                if marked && self.state != CaState::Recovery && self.state != CaState::Loss {
                    self.linux_enter_recovery();
                    let (ssthresh, mss, pipe) = (self.window.ssthresh, self.mss, self.in_flight);
                    if let Some(cwnd) = self.repair.prr.linux_cwnd(mss, pipe, ssthresh, mss, false) {
                        self.window.cwnd = cwnd.max(mss);
                    }
                }
                marked
            }
            Some(AuxTimer::Probe(_)) => self.send_probe(now),
            None => false,
        }
    }

    /// The tail loss probe (`tcp_send_loss_probe`): one new segment if there is one,
    /// whatever the window, else the highest segment not SACKed again.
    fn send_probe(&mut self, now: Time) -> bool {
        if self.repair.probe.high_seq != 0 || !self.outstanding() {
            return false;
        }
        let new = self.snd_nxt < self.size && self.snd_nxt + self.seg_len(self.board.end()) <= self.send_limit();
        let segment = if new {
            let seg = self.board.end();
            let len = self.seg_len(seg);
            self.commit(seg, None, len, now)
        } else {
            let Some(seg) = (self.board.base()..self.board.end()).rev().find(|&s| !self.board.state(s).is_some_and(Seg::is_sacked)) else { return false };
            let old = self.board.state(seg).unwrap_or(Seg::Sent);
            let len = self.seg_len(seg);
            // A copy while the original (or an earlier copy) still counts as in flight; the
            // commit counts one more copy, and two is the most the pipe holds.
            let new_state = if old == Seg::Lost { Seg::Retx } else { Seg::RetxDup };
            if old == Seg::RetxDup {
                self.in_flight -= len;
            }
            self.commit(seg, Some(new_state), len, now)
        };
        self.repair.probe.high_seq = self.snd_nxt;
        self.repair.probe.retransmitted = segment.retransmission;
        self.repair.ready.push_back(segment);
        self.probes += 1;
        true
    }

    /// `tcp_enter_loss`: ssthresh falls unless this window was already reduced; cwnd is one
    /// segment; everything not SACKed is lost.
    pub(super) fn linux_timeout(&mut self) {
        if matches!(self.state, CaState::Open | CaState::Disorder) || self.snd_una >= self.recover {
            self.window.ssthresh = self.reduced_ssthresh(Reduction::Timeout);
        }
        self.window.cwnd = self.mss;
        self.lose_all();
        self.state = CaState::Loss;
        self.repair.aux = None;
        self.repair.probe.high_seq = 0;
        self.repair.ready.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{config, drain, one, MSS};
    use super::super::{AuxTimer, Sender};
    use crate::transport::cc::{Cc, Dctcp, DctcpConfig, NewReno};
    use crate::transport::recovery::{CaState, Recovery};
    use crate::transport::sack::NO_SACKS;

    fn reno(size_segs: u64, cwnd_segs: u64) -> Sender {
        Sender::new(size_segs * MSS, &config(cwnd_segs * MSS, true, Recovery::Linux), Cc::NewReno(NewReno::new(false)))
    }

    /// Ten segments out at t = 0, segment 0 dropped; the ACKs of 1, 2, 3 arrive at 100,
    /// 101, 102 ps, SACKing [1, k]. `delivered` counts the first SACKs.
    fn hole_at_zero(s: &mut Sender, sacks: u64) {
        assert_eq!(drain(s, 0).len(), 10);
        for k in 1..=sacks {
            s.on_ack(99 + k, 0, &one(MSS, (k + 1) * MSS), false, 0);
        }
    }

    #[test]
    fn rack_waits_a_quarter_rtt_for_one_sack_and_marks_at_three() {
        let mut s = reno(20, 10);
        hole_at_zero(&mut s, 1);
        // One SACK: segment 0 (sent at the same time, lower sequence) is judged after
        // RACK.rtt (100) + min_rtt / 4 (25).
        assert_eq!(s.state(), CaState::Disorder);
        assert_eq!(s.aux_timer(), Some(AuxTimer::Reorder(125)));
        // Limited transmit: the SACKed segment left the pipe, one new segment goes.
        assert_eq!(drain(&mut s, 100).len(), 1);
        assert!(s.on_aux_timer(125), "the reordering timer marks it");
        assert_eq!((s.state(), s.fast_recoveries), (CaState::Recovery, 1));
        let seg = s.next_segment(125).unwrap();
        assert_eq!((seg.seq, seg.retransmission), (0, true));

        // Three SACKs: no wait at all.
        let mut s = reno(20, 10);
        hole_at_zero(&mut s, 3);
        assert_eq!((s.state(), s.aux_timer()), (CaState::Recovery, None));
        assert_eq!(s.window.ssthresh, 5 * MSS, "Reno: half of cwnd");
    }

    #[test]
    fn prr_brings_the_flight_down_to_ssthresh_a_segment_at_a_time() {
        let mut s = reno(40, 10);
        hole_at_zero(&mut s, 3);
        // Pipe 6 (10 out, 3 SACKed, 1 lost) > ssthresh 5: one segment per two delivered,
        // the retransmission first.
        let sent: Vec<_> = drain(&mut s, 102).iter().map(|g| (g.seq / MSS, g.retransmission)).collect();
        assert_eq!(sent, vec![(0, true)]);
        let mut per_ack = Vec::new();
        for k in 4..10 {
            s.on_ack(100 + k, 0, &one(MSS, (k + 1) * MSS), false, 0);
            per_ack.push(drain(&mut s, 100 + k).len());
        }
        assert_eq!(per_ack, vec![0, 0, 1, 1, 1, 1], "the flight falls to ssthresh, then holds");
        assert_eq!(s.in_flight, 5 * MSS);
        // The retransmission's ACK covers everything up to the new data: recovery ends.
        s.on_ack(300, 10 * MSS, &NO_SACKS, false, 102);
        assert_eq!((s.state(), s.window.cwnd), (CaState::Open, 5 * MSS));
    }

    #[test]
    fn a_lost_retransmission_is_found_without_the_rto() {
        let mut s = reno(40, 10);
        hole_at_zero(&mut s, 3);
        drain(&mut s, 102); // retransmits 0 at 102
        // The retransmission is lost too; the new data sent after it gets through.
        for k in 4..10 {
            s.on_ack(100 + k, 0, &one(MSS, (k + 1) * MSS), false, 0);
            drain(&mut s, 100 + k);
        }
        // Segment 10, sent at 106 (after the retransmission), is SACKed at 300.
        s.on_ack(300, 0, &one(MSS, 11 * MSS), false, 106);
        assert!(s.has_lost(), "RACK marks the retransmission lost");
        let seg = s.next_segment(300).unwrap();
        assert_eq!((seg.seq, seg.retransmission), (0, true));
        assert_eq!(s.timeouts, 0);
    }

    #[test]
    fn a_tail_loss_probe_repairs_the_last_segment() {
        let mut s = reno(5, 10);
        assert_eq!(drain(&mut s, 0).len(), 5);
        // Segments 0-3 arrive; 4 is lost: nothing SACKs it, no duplicate ACK comes.
        for k in 1..=4 {
            s.on_ack(1000 + k, k * MSS, &NO_SACKS, false, 0);
        }
        // One segment out: the probe waits 2 SRTT + the minimum RTO (1000 here).
        let Some(AuxTimer::Probe(at)) = s.aux_timer() else { panic!("no probe armed: {:?}", s.aux_timer()) };
        assert_eq!(at, 1004 + 2 * s.rtt.srtt().unwrap() + 1000);
        assert!(s.on_aux_timer(at));
        let seg = s.next_segment(at).unwrap();
        assert_eq!((seg.seq, seg.retransmission), (4 * MSS, true));
        assert_eq!(s.probes, 1);
        let cwnd = s.window.cwnd;
        // The probe's ACK ends the flow with no timeout. It acknowledges exactly up to the
        // probe's mark, which Linux does not count as proof of a loss (only an ACK beyond
        // it is): the window stays.
        let e = s.on_ack(at + 1000, 5 * MSS, &NO_SACKS, false, at);
        assert!(e.finished);
        assert_eq!((s.window.cwnd, s.timeouts), (cwnd, 0));
    }

    #[test]
    fn the_window_grows_only_while_it_limits_the_flow() {
        // A relay with 2 segments to send at a time and a window of 10: after slow start's
        // allowance (twice the most segments out) the window stays.
        let mut s = reno(100, 10);
        for round in 0..6 {
            s.available = s.snd_una + 2 * MSS;
            let sent = drain(&mut s, round * 100);
            assert_eq!(sent.len(), 2);
            s.on_ack(round * 100 + 50, s.snd_nxt, &NO_SACKS, false, round * 100);
        }
        assert_eq!(s.window.cwnd, 10 * MSS, "not cwnd-limited: no growth");
        // With data to spare the window fills and grows again.
        s.available = 100 * MSS;
        drain(&mut s, 700);
        s.on_ack(750, s.snd_una + MSS, &NO_SACKS, false, 700);
        assert_eq!(s.window.cwnd, 11 * MSS);
    }

    #[test]
    fn an_echo_enters_cwr_and_the_window_falls_over_a_round_trip() {
        let cfg = config(10 * MSS, true, Recovery::Linux);
        let mut s = Sender::new(100 * MSS, &cfg, Cc::Dctcp(Dctcp::new(&DctcpConfig { g: 1.0 / 16.0, alpha_init: 1.0, ..Default::default() })));
        drain(&mut s, 0);
        let e = s.on_ack(100, MSS, &NO_SACKS, true, 0);
        assert!(e.restart_rto);
        assert_eq!(s.state(), CaState::Cwr);
        // alpha = 1: ssthresh = cwnd / 2, but cwnd only follows PRR (not cut at once).
        assert_eq!(s.window.ssthresh, 5 * MSS);
        assert!(s.window.cwnd > 5 * MSS);
        let first = drain(&mut s, 100);
        assert!(first[0].cwr, "the next segment carries CWR");
        // ACKs of the rest of the window: no growth; CWR ends past the recovery point.
        for k in 2..=11 {
            s.on_ack(100 + k, k * MSS, &NO_SACKS, false, 0);
            drain(&mut s, 100 + k);
            assert!(s.window.cwnd <= 10 * MSS);
        }
        assert_eq!((s.state(), s.window.cwnd), (CaState::Open, 5 * MSS));
    }
}
