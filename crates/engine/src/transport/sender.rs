//! The reliable sender shared by every congestion control: byte sequence numbers over fixed
//! MSS segments, cumulative ACKs with SACK, fast retransmit and recovery (NewReno recovery
//! point), RTO with backoff, ECN echo handling, NACKs of trimmed segments. It does no I/O:
//! the world asks it for the next segment to send and tells it about ACKs, NACKs and
//! timeouts.

use super::cc::{AckSignal, Cc, CongestionControl, Window};
use super::pacer::{PaceBy, Pacer};
use super::scoreboard::{Scoreboard, Seg};
use crate::reliability::{PacketRto, RttEstimator, SegState};
use crate::units::Time;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u64,
    pub init_cwnd: u64,
    pub min_cwnd: u64,
    pub sack: bool,
    pub dupthresh: u64,
    pub initial_rto: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    pub rto_granularity: Time,
    /// A static receive-window clamp in bytes (`u64::MAX` for none).
    pub rwnd: u64,
    /// Duplicate-ACK / SACK-gap loss detection. Off when packets are sprayed: reordering
    /// would fake losses, and trimming's NACKs (or the RTO) recover real ones.
    pub fast_retransmit: bool,
}

/// One segment the sender wants on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u64,
    pub retransmission: bool,
    pub cwr: bool,
}

/// What an ACK did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckEffect {
    /// The cumulative ACK moved forward (restart the RTO timer).
    pub advanced: bool,
    /// Every byte is acknowledged.
    pub finished: bool,
}

#[derive(Clone, Debug)]
pub struct Sender {
    pub size: u64,
    mss: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    board: Scoreboard,
    pub window: Window,
    pub cc: Cc,
    /// Bytes sent or retransmitted and neither acknowledged, SACKed nor deemed lost.
    pub in_flight: u64,
    in_recovery: bool,
    /// After a timeout, until everything then outstanding is acknowledged (the RFC 5681
    /// "loss" state; Linux's and ns-3's CA_Loss): the window grows, ECN echoes cut nothing.
    in_loss: bool,
    recover: u64,
    dupacks: u64,
    sack: bool,
    dupthresh: u64,
    rwnd: u64,
    pub rtt: RttEstimator,
    send_cwr: bool,
    pub retx_bytes: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// NACKs that marked a segment lost (stale ones are not counted).
    pub nacks: u64,
    fast_retransmit: bool,
    /// When the last RTO fired: a NACK echoing an older send time names a transmission the
    /// timeout already wrote off, so it is stale.
    last_timeout_at: Time,
    /// Bytes the sender may send so far (a relay can only forward what it has received);
    /// the flow size for an ordinary sender.
    pub available: u64,
    /// Pacer and per-packet RTO of Uno's window senders; boxed, so the others pay one
    /// pointer test per segment.
    pub parts: Option<Box<WindowParts>>,
}

/// What a window sender adds to the shared sender.
#[derive(Clone, Debug, Default)]
pub struct WindowParts {
    pub pacer: Option<Pacer>,
    /// When the pacer held back a segment the window allowed: the time it may go.
    pub pace_wait: Option<Time>,
    /// Per-packet deadlines instead of the RFC 6298 timer (loss is found by them alone).
    pub packet_rto: Option<PacketRto>,
    expired: Vec<u64>,
}

impl Sender {
    pub fn new(size: u64, cfg: &SenderConfig, cc: Cc) -> Self {
        Sender {
            size,
            mss: cfg.mss,
            snd_una: 0,
            snd_nxt: 0,
            board: Scoreboard::default(),
            window: Window::new(cc.initial_cwnd().unwrap_or(cfg.init_cwnd), cfg.mss, cfg.min_cwnd),
            cc,
            in_flight: 0,
            in_recovery: false,
            in_loss: false,
            recover: 0,
            dupacks: 0,
            sack: cfg.sack,
            dupthresh: cfg.dupthresh,
            rwnd: cfg.rwnd,
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.rto_granularity),
            send_cwr: false,
            retx_bytes: 0,
            timeouts: 0,
            fast_recoveries: 0,
            nacks: 0,
            fast_retransmit: cfg.fast_retransmit,
            last_timeout_at: 0,
            available: size,
            parts: None,
        }
    }

    /// Sets the window a flow starts with (a path's BDP is known only once the flow exists).
    pub fn set_initial_window(&mut self, bytes: u64) {
        let bytes = bytes.max(self.mss);
        self.window.cwnd = bytes;
        self.window.init_cwnd = bytes;
    }

    pub fn packet_rto(&self) -> Option<&PacketRto> {
        self.parts.as_ref().and_then(|p| p.packet_rto.as_ref())
    }

    pub fn packet_rto_mut(&mut self) -> Option<&mut PacketRto> {
        self.parts.as_mut().and_then(|p| p.packet_rto.as_mut())
    }

    /// The segment just taken out waits `wait` at the host NIC: its per-packet deadline
    /// counts from its departure.
    #[inline]
    pub fn nic_wait(&mut self, wait: Time) {
        if let Some(q) = self.packet_rto_mut() {
            q.delay_last(wait);
        }
    }

    /// When the pacer last held back a segment, the time it may go (once).
    #[inline]
    pub fn take_pace_wait(&mut self) -> Option<Time> {
        self.parts.as_mut().and_then(|p| p.pace_wait.take())
    }

    #[inline(always)]
    fn seg_len(&self, seg: u64) -> u64 {
        let start = seg * self.mss;
        (self.size - start).min(self.mss)
    }

    #[inline(always)]
    fn seg_of(&self, byte: u64) -> u64 {
        byte.div_ceil(self.mss)
    }

    pub fn finished(&self) -> bool {
        self.snd_una >= self.size
    }

    /// Data sent and not yet cumulatively acknowledged.
    pub fn outstanding(&self) -> bool {
        self.snd_una < self.snd_nxt
    }


    /// The next segment the window (and the pacer) allows at `now`, if any. One segment may
    /// always go when nothing is in flight, so a window below one MSS cannot stall the flow.
    #[inline]
    pub fn next_segment(&mut self, now: Time) -> Option<Segment> {
        let window = self.window.cwnd.min(self.rwnd);
        let (seg, retransmission) = match self.board.first_lost() {
            Some(seg) => (seg, true),
            None if self.snd_nxt < self.size => (self.board.end(), false),
            None => return None,
        };
        let len = self.seg_len(seg);
        if !retransmission && self.snd_nxt + len > self.available {
            return None;
        }
        // A zero window (a receiver-driven scheduler holding the flow back) lets nothing go.
        if self.in_flight + len > window && (self.in_flight > 0 || window == 0) {
            return None;
        }
        if self.parts.is_some() {
            return self.next_window_segment(now, seg, retransmission, len);
        }
        Some(self.commit(seg, retransmission, len))
    }

    /// Takes segment `seg` out: scoreboard, counters, the CWR flag.
    #[inline(always)]
    fn commit(&mut self, seg: u64, retransmission: bool, len: u64) -> Segment {
        if retransmission {
            self.board.set(seg, Seg::Retx);
            self.retx_bytes += len;
        } else {
            self.board.push_sent();
            self.snd_nxt += len;
        }
        self.in_flight += len;
        let cwr = std::mem::take(&mut self.send_cwr);
        Segment { seq: seg * self.mss, len, retransmission, cwr }
    }

    /// [`Sender::next_segment`] for window senders: the pacer may hold the segment back;
    /// once sent it gets its deadline and the algorithm counts it. Out of line, so the
    /// other senders' path stays one test longer than before.
    #[inline(never)]
    fn next_window_segment(&mut self, now: Time, seg: u64, retransmission: bool, len: u64) -> Option<Segment> {
        let parts = self.parts.as_mut().expect("window parts");
        if let Some(p) = &parts.pacer {
            if !p.ready(now) {
                parts.pace_wait = Some(p.next_send);
                return None;
            }
        }
        let segment = self.commit(seg, retransmission, len);
        let parts = self.parts.as_mut().expect("window parts");
        if let Some(p) = &mut parts.pacer {
            let (w, cc) = (&self.window, &self.cc);
            p.sent(now, len, || cc.pacing_rate_bps().map_or(PaceBy::Window(w.cwnd), PaceBy::Rate));
        }
        if let Some(q) = &mut parts.packet_rto {
            q.on_transmit(seg, now);
        }
        self.cc.on_send(&mut self.window, now, len);
        Some(segment)
    }

    /// Processes one ACK: cumulative `ack`, one SACK block `[sack_start, sack_end)`, the
    /// ECN echo and the echoed send timestamp.
    pub fn on_ack(&mut self, now: Time, ack: u64, sack_start: u64, sack_end: u64, ece: bool, ts_echo: Time) -> AckEffect {
        let rtt_sample = now.saturating_sub(ts_echo);
        if now >= ts_echo {
            self.rtt.sample(rtt_sample);
        }
        let mut delivered = 0;
        let advanced = ack > self.snd_una;
        if advanced {
            let mss = self.mss;
            let size = self.size;
            let target = self.seg_of(ack);
            let in_flight = &mut self.in_flight;
            self.board.advance_to(target, |seg, s| {
                let len = (size - seg * mss).min(mss);
                match s {
                    Seg::Sent | Seg::Retx => {
                        *in_flight -= len;
                        delivered += len;
                    }
                    Seg::Lost => delivered += len,
                    Seg::Sacked => {}
                }
            });
            self.snd_una = ack.min(self.size);
            self.dupacks = 0;
        } else if ack == self.snd_una && self.outstanding() {
            self.dupacks += 1;
        }
        if self.sack && sack_end > sack_start {
            delivered += self.apply_sack(sack_start, sack_end);
        }
        if self.packet_rto().is_none() {
            self.detect_loss(advanced);
        }
        if self.in_recovery && self.snd_una >= self.recover {
            self.in_recovery = false;
            self.window.cwnd = self.window.ssthresh.max(self.window.min_cwnd);
        }
        if self.in_loss && self.snd_una >= self.recover {
            self.in_loss = false;
        }
        let signal = AckSignal {
            now,
            delivered,
            ece,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            in_recovery: self.in_recovery,
            in_loss: self.in_loss,
            rtt: self.rtt.srtt(),
            rtt_sample,
            sent_at: ts_echo,
            in_flight: self.in_flight,
        };
        self.cc.on_ack(&mut self.window, &signal);
        if std::mem::take(&mut self.window.ecn_reacted) {
            self.send_cwr = true;
        }
        AckEffect { advanced, finished: self.finished() }
    }

    fn apply_sack(&mut self, start: u64, end: u64) -> u64 {
        let mut delivered = 0;
        let first = (start / self.mss).max(self.board.base());
        let last = self.seg_of(end.min(self.snd_nxt));
        for seg in first..last {
            let len = self.seg_len(seg);
            match self.board.set(seg, Seg::Sacked) {
                Some(Seg::Sent) | Some(Seg::Retx) => {
                    self.in_flight -= len;
                    delivered += len;
                }
                Some(Seg::Lost) => delivered += len,
                _ => {}
            }
        }
        delivered
    }

    /// A NACK for the segment at `seq` whose transmission was sent at `ts_echo`: the
    /// segment leaves the in-flight count and is retransmitted first when the window
    /// allows. Stale NACKs (for data already acknowledged or SACKed, already deemed lost,
    /// or for a transmission an RTO superseded) change nothing. True when it acted.
    pub fn on_nack(&mut self, now: Time, seq: u64, ts_echo: Time) -> bool {
        if ts_echo < self.last_timeout_at {
            return false;
        }
        let seg = seq / self.mss;
        if !matches!(self.board.state(seg), Some(Seg::Sent | Seg::Retx)) {
            return false;
        }
        self.board.set(seg, Seg::Lost);
        self.in_flight -= self.seg_len(seg);
        self.nacks += 1;
        let signal = AckSignal {
            now,
            delivered: 0,
            ece: false,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            in_recovery: self.in_recovery,
            in_loss: self.in_loss,
            rtt: self.rtt.srtt(),
            rtt_sample: 0,
            sent_at: ts_echo,
            in_flight: self.in_flight,
        };
        self.cc.on_nack(&mut self.window, &signal);
        true
    }

    /// Marks lost segments and enters fast recovery on the first loss of a window.
    fn detect_loss(&mut self, advanced: bool) {
        if !self.fast_retransmit {
            return;
        }
        let mut newly_lost = 0;
        if self.sack {
            let mss = self.mss;
            let size = self.size;
            let in_flight = &mut self.in_flight;
            self.board.mark_losses(self.dupthresh, |seg| {
                *in_flight -= (size - seg * mss).min(mss);
                newly_lost += 1;
            });
        }
        // Without SACK information: three duplicate ACKs, or a partial ACK in recovery
        // (NewReno), say the segment at the cumulative point is lost.
        let dup_loss = self.dupacks == self.dupthresh;
        let partial = self.in_recovery && advanced && self.snd_una < self.recover;
        if (dup_loss || partial) && self.board.state(self.board.base()) == Some(Seg::Sent) {
            let seg = self.board.base();
            self.board.set(seg, Seg::Lost);
            self.in_flight -= self.seg_len(seg);
            newly_lost += 1;
        }
        if newly_lost > 0 && !self.in_recovery && self.snd_una >= self.recover {
            self.in_recovery = true;
            self.recover = self.snd_nxt;
            self.fast_recoveries += 1;
            self.cc.on_loss(&mut self.window);
        }
    }

    /// The retransmission timer fired with data outstanding.
    pub fn on_timeout(&mut self, now: Time) {
        if !self.outstanding() {
            return;
        }
        self.timeouts += 1;
        self.last_timeout_at = now;
        self.cc.on_timeout(&mut self.window);
        let mss = self.mss;
        let size = self.size;
        let in_flight = &mut self.in_flight;
        self.board.mark_all_lost(|seg, _| *in_flight -= (size - seg * mss).min(mss));
        self.in_recovery = false;
        self.in_loss = true;
        self.recover = self.snd_nxt;
        self.dupacks = 0;
        self.rtt.back_off();
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

    pub fn release(&mut self) {
        self.board.release();
        if let Some(q) = self.packet_rto_mut() {
            q.release();
        }
    }

    /// A persistent connection's application writes `bytes` more: the stream grows and
    /// every window, timer estimate and congestion state carries over (no slow-start
    /// restart after idle).
    pub fn append(&mut self, bytes: u64) {
        self.size += bytes;
        self.available += bytes;
    }

    /// Moves an idle, fully acknowledged stream to byte `seq` (a segment boundary), so the
    /// next write starts a fresh segment.
    pub fn skip_to(&mut self, seq: u64) {
        debug_assert!(self.finished() && self.snd_nxt == self.size && seq >= self.size && seq % self.mss == 0);
        debug_assert_eq!(self.board.end(), seq / self.mss);
        self.size = seq;
        self.available = seq;
        self.snd_una = seq;
        self.snd_nxt = seq;
    }

    /// The receive window the receiver advertises (a scheduler's grant or zero window).
    pub fn set_rwnd(&mut self, rwnd: u64) {
        self.rwnd = rwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::{HotnetsDctcp, NackDecrease};

    const MSS: u64 = 1000;

    fn sender(size: u64, init_cwnd: u64, fast_retransmit: bool) -> Sender {
        let cfg = SenderConfig {
            mss: MSS,
            init_cwnd,
            min_cwnd: MSS,
            sack: true,
            dupthresh: 3,
            initial_rto: 1_000_000,
            min_rto: 1_000,
            max_rto: u64::MAX / 4,
            rto_granularity: 0,
            rwnd: u64::MAX,
            fast_retransmit,
        };
        Sender::new(size, &cfg, Cc::HotnetsDctcp(HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss)))
    }

    fn drain(s: &mut Sender) -> Vec<Segment> {
        std::iter::from_fn(|| s.next_segment(0)).collect()
    }

    #[test]
    fn a_nacked_segment_leaves_flight_and_goes_first() {
        let mut s = sender(10 * MSS, 4 * MSS, false);
        assert_eq!(drain(&mut s).len(), 4);
        assert!(s.on_nack(10, MSS, 0));
        assert_eq!(s.nacks, 1);
        assert_eq!(s.in_flight, 3 * MSS);
        assert_eq!(s.window.cwnd, 3 * MSS, "cwnd -= 1 MSS");
        // The window (3 MSS) is full again with 3 in flight: nothing leaves...
        assert!(s.next_segment(0).is_none());
        // ...until an ACK frees room; then the NACKed segment goes before new data.
        s.on_ack(20, MSS, 0, 0, false, 0);
        let seg = s.next_segment(0).unwrap();
        assert_eq!((seg.seq, seg.retransmission), (MSS, true));
        // The same segment NACKed again (its retransmission trimmed) is NACKed anew.
        assert!(s.on_nack(30, MSS, 25));
        // A NACK for data already acknowledged, or already marked lost, is stale.
        assert!(!s.on_nack(31, 0, 0));
        assert!(!s.on_nack(32, MSS, 25));
        assert_eq!(s.nacks, 2);
    }

    #[test]
    fn a_nack_older_than_the_last_timeout_is_stale() {
        let mut s = sender(10 * MSS, 4 * MSS, false);
        drain(&mut s);
        s.on_timeout(500);
        let retx = drain(&mut s);
        assert_eq!(retx.len(), 1, "one segment after a timeout");
        // The NACK of the original transmission (sent at 0) arrives late: ignored.
        assert!(!s.on_nack(600, 0, 0));
        // The NACK of the retransmission (sent at 500) acts.
        assert!(s.on_nack(700, 0, 500));
    }

    #[test]
    fn without_fast_retransmit_sack_gaps_are_not_losses() {
        // Sprayed packets arrive out of order: SACKs above a hole are not a loss signal.
        for (fr, lost) in [(true, true), (false, false)] {
            let mut s = sender(10 * MSS, 8 * MSS, fr);
            drain(&mut s);
            for k in 1..6 {
                s.on_ack(10, 0, k * MSS, (k + 1) * MSS, false, 0);
            }
            assert_eq!(s.fast_recoveries > 0, lost, "fast_retransmit = {fr}");
        }
    }

    #[test]
    fn a_relay_sends_only_what_it_has() {
        let mut s = sender(10 * MSS, 8 * MSS, false);
        s.available = 0;
        assert!(s.next_segment(0).is_none());
        s.available = 2 * MSS;
        assert_eq!(drain(&mut s).len(), 2);
        s.available = 10 * MSS;
        assert_eq!(drain(&mut s).len(), 6);
    }
}
