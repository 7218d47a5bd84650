//! `recovery = "basic"`: fanin's first loss recovery, unchanged so that the entries that
//! model htsim keep their numbers. One SACK block per ACK; a segment is lost once one
//! `dupthresh` segments above it is SACKed (FACK), or at the `dupthresh`-th duplicate ACK,
//! or by a partial ACK in recovery (NewReno); the congestion control cuts the window at
//! once; a lost retransmission waits for the RTO.

use super::{AckEffect, Newly, Sender};
use crate::transport::cc::CongestionControl;
use crate::transport::recovery::CaState;
use crate::transport::sack::SackBlock;
use crate::transport::scoreboard::Seg;
use crate::units::Time;

impl Sender {
    pub(super) fn basic_ack(&mut self, now: Time, ack: u64, block: SackBlock, ece: bool, ts_echo: Time) -> AckEffect {
        let mut newly = Newly::default();
        let advanced = ack > self.snd_una;
        if advanced {
            self.take_cumulative(ack, &mut newly);
            self.dupacks = 0;
        } else if ack == self.snd_una && self.outstanding() {
            self.dupacks += 1;
        }
        if self.sack {
            self.take_sack(block, &mut newly);
        }
        if self.packet_rto().is_none() {
            self.basic_detect_loss(advanced);
        }
        if self.snd_una >= self.recover {
            match self.state {
                CaState::Recovery => {
                    self.state = CaState::Open;
                    self.window.cwnd = self.window.ssthresh.max(self.window.min_cwnd);
                }
                CaState::Loss => self.state = CaState::Open,
                _ => {}
            }
        }
        let recovering = self.state == CaState::Recovery;
        let signal = self.signal(now, newly.delivered, ece, ts_echo, !recovering, !recovering && self.state != CaState::Loss);
        self.cc.on_ack(&mut self.window, &signal);
        if std::mem::take(&mut self.window.ecn_reacted) {
            self.send_cwr = true;
        }
        AckEffect { restart_rto: advanced, finished: self.finished() }
    }

    /// Marks lost segments and enters fast recovery on the first loss of a window.
    fn basic_detect_loss(&mut self, advanced: bool) {
        if !self.fast_retransmit {
            return;
        }
        let mut newly_lost = 0;
        if self.sack {
            let (mss, size) = (self.mss, self.size);
            let in_flight = &mut self.in_flight;
            self.board.mark_losses(self.dupthresh, |seg| {
                *in_flight -= (size - seg * mss).min(mss);
                newly_lost += 1;
            });
        }
        // Without SACK information: three duplicate ACKs, or a partial ACK in recovery
        // (NewReno), say the segment at the cumulative point is lost.
        let dup_loss = self.dupacks == self.dupthresh;
        let partial = self.state == CaState::Recovery && advanced && self.snd_una < self.recover;
        if (dup_loss || partial) && self.board.state(self.board.base()) == Some(Seg::Sent) {
            let seg = self.board.base();
            self.board.set(seg, Seg::Lost);
            self.in_flight -= self.seg_len(seg);
            newly_lost += 1;
        }
        if newly_lost > 0 && self.state != CaState::Recovery && self.snd_una >= self.recover {
            self.state = CaState::Recovery;
            self.recover = self.snd_nxt;
            self.fast_recoveries += 1;
            self.cc.on_loss(&mut self.window);
        }
    }

    pub(super) fn basic_timeout(&mut self) {
        self.cc.on_timeout(&mut self.window);
        self.lose_all();
        self.state = CaState::Loss;
    }
}
