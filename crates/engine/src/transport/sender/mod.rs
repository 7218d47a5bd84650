//! The reliable sender shared by every congestion control: byte sequence numbers over fixed
//! MSS segments, cumulative ACKs with SACK, loss recovery (one of three models, see
//! [`super::recovery`]), RTO with backoff, ECN echo handling, NACKs of trimmed segments. It
//! does no I/O: the world asks it for the next segment to send and tells it about ACKs,
//! NACKs and timers.
//!
//! This file holds the sender's state and sending; what every model shares on an ACK is in
//! `acks.rs`, NACKs, timeouts and per-packet deadlines in `timeouts.rs`. Each model's ACK
//! processing and timers live in their own file (`basic.rs`, `linux.rs`, `ns3.rs`).

mod acks;
mod basic;
mod linux;
mod ns3;
mod timeouts;
mod window_parts;

use acks::Newly;
pub use window_parts::WindowParts;

use super::cc::{Cc, CongestionControl, Window};
use super::icon::IconPacer;
use super::recovery::{CaState, Prr, Probe, Rack, Recovery};
use super::scoreboard::{Scoreboard, Seg};
use super::sub_packet::SubPacketPacer;
use crate::reliability::{PacketRto, RttEstimator};
use crate::units::Time;
use std::collections::VecDeque;

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
    pub recovery: Recovery,
    /// Swift-style pacing of a window below one segment (`transport.sub_packet_pacing`).
    pub sub_packet_pacing: bool,
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
    /// Restart the retransmission timer (new data was acknowledged, as the model counts it).
    pub restart_rto: bool,
    /// Every byte is acknowledged.
    pub finished: bool,
}

/// When the reordering timer or the tail loss probe is due.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AuxTimer {
    /// RACK's reordering window runs out for a segment sent before a delivered one.
    Reorder(Time),
    /// The tail loss probe.
    Probe(Time),
}

impl AuxTimer {
    pub fn at(self) -> Time {
        match self {
            AuxTimer::Reorder(t) | AuxTimer::Probe(t) => t,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Sender {
    pub size: u64,
    mss: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The byte after the last segment sent, or the cumulative ACK if beyond (ns-3's
    /// `m_nextTxSequence`, which its DCTCP ends an observation window at).
    next_tx: u64,
    board: Scoreboard,
    pub window: Window,
    pub cc: Cc,
    /// The RFC 6675 pipe: bytes sent or retransmitted and neither acknowledged, SACKed nor
    /// deemed lost (a segment retransmitted before it was deemed lost counts twice).
    pub in_flight: u64,
    recovery: Recovery,
    state: CaState,
    /// The recovery point (RFC 6582 `recover`, Linux `high_seq`, ns-3 `m_recover`).
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
    /// Tail loss probes sent (Linux model).
    pub probes: u64,
    /// NACKs that marked a segment lost (stale ones are not counted).
    pub nacks: u64,
    fast_retransmit: bool,
    /// When the last RTO fired: a NACK echoing an older send time names a transmission the
    /// timeout already wrote off, so it is stale.
    last_timeout_at: Time,
    /// Bytes the sender may send so far (a relay can only forward what it has received);
    /// the flow size for an ordinary sender.
    pub available: u64,
    /// The right edge of the receiver's advertised window (ack + window of the latest ACK
    /// that carried one, never moved back); `u64::MAX` when the receiver advertises none.
    rwnd_edge: u64,
    /// Pacer and per-packet RTO of Uno's window senders; boxed, so the others pay one
    /// pointer test per segment.
    pub parts: Option<Box<WindowParts>>,
    /// What the Linux and ns-3 models add.
    repair: Repair,
}

/// State of the Linux and ns-3 recovery models.
#[derive(Clone, Debug, Default)]
struct Repair {
    prr: Prr,
    rack: Rack,
    probe: Probe,
    aux: Option<AuxTimer>,
    /// Linux `tcp_cwnd_validate`: the window was fully used in the current window of data,
    /// or the most segments out in it.
    cwnd_limited: bool,
    max_packets_out: u64,
    cwnd_usage_seq: u64,
    /// The last `next_segment` found the window full.
    window_full: bool,
    /// Segments already taken out that the world must send next, whatever the window (a
    /// tail loss probe; ns-3's fast retransmit and partial-ACK retransmissions).
    ready: VecDeque<Segment>,
    /// ns-3: a recovery point is set (`m_recoverActive`); the next partial ACK is the
    /// first (`m_isFirstPartialAck`); bytes acknowledged short of a segment
    /// (`m_bytesAckedNotProcessed`); the highest ACK with an echo acted on (`m_ecnEchoSeq`).
    recover_active: bool,
    first_partial: bool,
    acked_carry: u64,
    ecn_echo_seq: u64,
}

impl Sender {
    pub fn new(size: u64, cfg: &SenderConfig, cc: Cc) -> Self {
        let mut window = Window::new(cc.initial_cwnd().unwrap_or(cfg.init_cwnd), cfg.mss, cfg.min_cwnd);
        window.set_growth(cfg.recovery, &cc);
        window.sub_packet = cfg.sub_packet_pacing;
        let board = Scoreboard::new(cfg.recovery == Recovery::Linux);
        Sender {
            size,
            mss: cfg.mss,
            snd_una: 0,
            snd_nxt: 0,
            next_tx: 0,
            board,
            window,
            cc,
            in_flight: 0,
            recovery: cfg.recovery,
            state: CaState::Open,
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
            probes: 0,
            nacks: 0,
            fast_retransmit: cfg.fast_retransmit,
            last_timeout_at: 0,
            available: size,
            rwnd_edge: u64::MAX,
            parts: None,
            repair: Repair { first_partial: true, ..Default::default() },
        }
    }

    /// Sets the window a flow starts with (a path's BDP is known only once the flow exists).
    pub fn set_initial_window(&mut self, bytes: u64) {
        let bytes = bytes.max(self.mss);
        self.window.cwnd = bytes;
        self.window.init_cwnd = bytes;
    }

    pub fn recovery(&self) -> Recovery {
        self.recovery
    }

    pub fn state(&self) -> CaState {
        self.state
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

    /// Segments sent and not cumulatively acknowledged (Linux's `packets_out`).
    fn segments_out(&self) -> u64 {
        self.board.end() - self.board.base()
    }

    /// A lost segment waits for retransmission.
    pub fn has_lost(&self) -> bool {
        self.board.lost > 0
    }

    /// The next segment the window (and the pacer) allows at `now`, if any.
    #[inline]
    pub fn next_segment(&mut self, now: Time) -> Option<Segment> {
        if self.recovery != Recovery::Basic {
            if !self.repair.ready.is_empty() {
                return self.next_ready(now);
            }
            if self.recovery == Recovery::Ns3 {
                return self.ns3_next_segment(now);
            }
        }
        let window = self.send_window(now);
        let (seg, retransmission) = match self.board.first_lost() {
            Some(seg) => (seg, true),
            None if self.snd_nxt < self.size => (self.board.end(), false),
            None => return None,
        };
        let len = self.seg_len(seg);
        if !retransmission && self.snd_nxt + len > self.send_limit() {
            return None;
        }
        // One segment may always go when nothing is in flight, so a window below one MSS
        // cannot stall the flow; a zero window (a receiver-driven scheduler holding the
        // flow back) lets nothing go.
        if self.in_flight + len > window && (self.in_flight > 0 || window == 0) {
            self.repair.window_full = true;
            return None;
        }
        if self.parts.is_some() {
            return self.next_window_segment(now, seg, retransmission, len);
        }
        Some(self.commit(seg, if retransmission { Some(Seg::Retx) } else { None }, len, now))
    }

    /// A segment already taken out (a probe, an ns-3 retransmission) goes first, when the
    /// pacers let it.
    #[inline(never)]
    fn next_ready(&mut self, now: Time) -> Option<Segment> {
        if let Some(parts) = &mut self.parts {
            if parts.holds(now, &self.window, self.rtt.srtt()) {
                return None;
            }
        }
        let s = self.repair.ready.pop_front()?;
        if let Some(parts) = &mut self.parts {
            parts.paced(now, s.len, &self.window, &self.cc);
        }
        Some(s)
    }

    /// Takes segment `seg` out: scoreboard, counters, the CWR flag. `retx`: the state a
    /// retransmission leaves it in (`None`: new data).
    #[inline(always)]
    fn commit(&mut self, seg: u64, retx: Option<Seg>, len: u64, now: Time) -> Segment {
        match retx {
            Some(state) => {
                self.board.retransmit(seg, state, now);
                self.retx_bytes += len;
            }
            None => {
                self.board.push_sent(now);
                self.snd_nxt += len;
            }
        }
        self.in_flight += len;
        self.next_tx = seg * self.mss + len;
        if matches!(self.state, CaState::Cwr | CaState::Recovery) {
            self.repair.prr.sent(len);
        }
        let cwr = std::mem::take(&mut self.send_cwr);
        Segment { seq: seg * self.mss, len, retransmission: retx.is_some(), cwr }
    }

    /// [`Sender::next_segment`] for window senders: the pacer may hold the segment back;
    /// once sent it gets its deadline and the algorithm counts it. Out of line, so the
    /// other senders' path stays one test longer than before.
    #[inline(never)]
    fn next_window_segment(&mut self, now: Time, seg: u64, retransmission: bool, len: u64) -> Option<Segment> {
        let parts = self.parts.as_mut().expect("window parts");
        if parts.holds(now, &self.window, self.rtt.srtt()) {
            return None;
        }
        let segment = self.commit(seg, if retransmission { Some(Seg::Retx) } else { None }, len, now);
        self.sub_packet_sent(now);
        let parts = self.parts.as_mut().expect("window parts");
        parts.paced(now, len, &self.window, &self.cc);
        if let Some(q) = &mut parts.packet_rto {
            q.on_transmit(seg, now);
        }
        self.cc.on_send(&mut self.window, now, len);
        Some(segment)
    }

    /// The window the send test uses: cwnd within the receive window, unless Swift's
    /// sub-packet pacer has the flow (then one segment when the pacer lets it go, else 0).
    #[inline(always)]
    fn send_window(&mut self, now: Time) -> u64 {
        let window = self.window.cwnd.min(self.rwnd);
        if self.parts.is_none() {
            return window;
        }
        self.sub_packet_window(now).unwrap_or(window)
    }

    /// The window Swift's pacer looks at: cwnd (an ns-3 PRR step may leave it below the
    /// floor) at least the floor, within the receive window.
    fn paced_window(&self) -> u64 {
        self.window.cwnd.max(self.window.min_cwnd).min(self.rwnd)
    }

    /// Under a window below one segment: `Some(MSS)` when the pacer lets one segment go at
    /// `now` (the send test then allows exactly one out), `Some(0)` while it holds the
    /// flow (remembering when it may go); `None` when the pacer does not apply.
    #[inline(never)]
    fn sub_packet_window(&mut self, now: Time) -> Option<u64> {
        let window = self.paced_window();
        let parts = self.parts.as_mut()?;
        let p = parts.sub_packet.as_ref()?;
        if !p.engaged(window) {
            return None;
        }
        if now < p.next_send {
            parts.pace_wait = Some(p.next_send);
            return Some(0);
        }
        Some(self.mss)
    }

    /// A segment left at `now`: Swift's pacer starts the next gap.
    #[inline]
    fn sub_packet_sent(&mut self, now: Time) {
        let window = self.paced_window();
        if let Some(p) = self.parts.as_mut().and_then(|p| p.sub_packet.as_mut()) {
            p.sent(now, window);
        }
    }

    /// Paces the flow's sub-packet windows the Swift way.
    pub fn pace_sub_packet(&mut self, pacer: SubPacketPacer) {
        self.parts.get_or_insert_with(Default::default).sub_packet = Some(pacer);
    }

    /// A burst of sending ended at `now` (`sent` segments). Linux's `tcp_cwnd_validate`:
    /// remember whether the window was the limit, or how much of it was used; and the tail
    /// loss probe is rescheduled.
    pub fn end_burst(&mut self, now: Time, sent: u32) {
        if self.recovery != Recovery::Linux {
            return;
        }
        if sent > 0 {
            self.linux_after_send(now);
        }
        let full = std::mem::take(&mut self.repair.window_full) || self.in_flight + self.mss > self.window.cwnd;
        if sent == 0 && !full {
            return;
        }
        let out = self.segments_out();
        let r = &mut self.repair;
        if self.snd_una >= r.cwnd_usage_seq || full || (!r.cwnd_limited && out > r.max_packets_out) {
            r.cwnd_limited = full;
            r.max_packets_out = out;
            r.cwnd_usage_seq = self.snd_nxt;
        }
    }

    /// Linux's `tcp_is_cwnd_limited`: the window may grow only while it is what limits the
    /// flow; in slow start, while it is under twice the most segments recently out.
    fn cwnd_limited(&self) -> bool {
        let r = &self.repair;
        r.cwnd_limited || (self.window.cwnd < self.window.ssthresh && self.window.cwnd < 2 * r.max_packets_out * self.mss)
    }

    pub fn release(&mut self) {
        self.board.release();
        self.repair.aux = None;
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

    /// The application wrote at `now` on an idle connection: a sub-packet window's first
    /// segment waits its connection's phase of the pacing gap.
    pub fn on_write(&mut self, now: Time) {
        let window = self.paced_window();
        if let Some(p) = self.parts.as_mut().and_then(|p| p.sub_packet.as_mut()) {
            p.on_write(now, window);
        }
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
        self.next_tx = seq;
    }

    /// The flow is erasure-coded (`reliability::erasure`): a block's parity repairs its
    /// losses and the receiver's parity NACK asks for the rest, so SACK gaps and duplicate
    /// ACKs are no loss signal (they would retransmit what parity rebuilds).
    pub fn recover_by_blocks(&mut self) {
        self.fast_retransmit = false;
    }

    /// Paces the flow with ICON.
    pub fn pace_icon(&mut self, pacer: IconPacer) {
        self.parts.get_or_insert_with(Default::default).icon = Some(pacer);
    }

    /// The incast degree the receiver announced (ICON; ignored by unpaced flows).
    pub fn set_incast_degree(&mut self, n: u32) {
        if let Some(p) = self.parts.as_mut().and_then(|p| p.icon.as_mut()) {
            p.set_degree(n);
        }
    }

    /// The incast degree ICON paces by (1 for a flow ICON does not pace).
    pub fn incast_degree(&self) -> u32 {
        self.parts.as_ref().and_then(|p| p.icon.as_ref()).map_or(1, IconPacer::degree)
    }

    /// The byte new data may not pass: what the application gave, within the receiver's
    /// advertised window.
    #[inline(always)]
    fn send_limit(&self) -> u64 {
        self.available.min(self.rwnd_edge)
    }

    /// An ACK for `ack` advertised `window` bytes (a receiver-driven policy such as ICTCP):
    /// new data may go up to `ack + window`. A smaller window never takes back what was
    /// already allowed (RFC 9293 forbids shrinking the right edge).
    pub fn advertised(&mut self, ack: u64, window: u64) {
        let edge = ack.saturating_add(window);
        self.rwnd_edge = if self.rwnd_edge == u64::MAX { edge } else { self.rwnd_edge.max(edge) };
    }

    /// The receive window the receiver advertises (a scheduler's grant or zero window).
    pub fn set_rwnd(&mut self, rwnd: u64) {
        self.rwnd = rwnd;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::transport::cc::{HotnetsDctcp, NackDecrease};
    use crate::transport::sack::{SackBlock, SackList, NO_SACKS};

    pub const MSS: u64 = 1000;

    pub fn config(init_cwnd: u64, fast_retransmit: bool, recovery: Recovery) -> SenderConfig {
        SenderConfig {
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
            recovery,
            sub_packet_pacing: false,
        }
    }

    fn sender(size: u64, init_cwnd: u64, fast_retransmit: bool) -> Sender {
        let cfg = config(init_cwnd, fast_retransmit, Recovery::Basic);
        Sender::new(size, &cfg, Cc::HotnetsDctcp(HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss)))
    }

    pub fn drain(s: &mut Sender, now: Time) -> Vec<Segment> {
        let out: Vec<Segment> = std::iter::from_fn(|| s.next_segment(now)).collect();
        s.end_burst(now, out.len() as u32);
        out
    }

    /// A SACK list of one block.
    pub fn one(start: u64, end: u64) -> SackList {
        let mut l = NO_SACKS;
        l[0] = SackBlock::new(start, end);
        l
    }

    #[test]
    fn a_nacked_segment_leaves_flight_and_goes_first() {
        let mut s = sender(10 * MSS, 4 * MSS, false);
        assert_eq!(drain(&mut s, 0).len(), 4);
        assert!(s.on_nack(10, MSS, 0));
        assert_eq!(s.nacks, 1);
        assert_eq!(s.in_flight, 3 * MSS);
        assert_eq!(s.window.cwnd, 3 * MSS, "cwnd -= 1 MSS");
        // The window (3 MSS) is full again with 3 in flight: nothing leaves...
        assert!(s.next_segment(0).is_none());
        // ...until an ACK frees room; then the NACKed segment goes before new data.
        s.on_ack(20, MSS, &NO_SACKS, false, 0);
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
        drain(&mut s, 0);
        s.on_timeout(500);
        let retx = drain(&mut s, 500);
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
            drain(&mut s, 0);
            for k in 1..6 {
                s.on_ack(10, 0, &one(k * MSS, (k + 1) * MSS), false, 0);
            }
            assert_eq!(s.fast_recoveries > 0, lost, "fast_retransmit = {fr}");
        }
    }

    #[test]
    fn the_advertised_right_edge_limits_new_data_and_never_moves_back() {
        let mut s = sender(20 * MSS, 10 * MSS, false);
        s.advertised(0, 3 * MSS);
        assert_eq!(drain(&mut s, 0).len(), 3, "the window, not cwnd (10), limits");
        // A smaller window on the next ACK: the edge stays at 3 MSS, nothing new goes.
        s.on_ack(10, MSS, &NO_SACKS, false, 0);
        s.advertised(MSS, MSS);
        assert!(drain(&mut s, 10).is_empty());
        // A larger one opens room up to ack + window.
        s.on_ack(20, 2 * MSS, &NO_SACKS, false, 0);
        s.advertised(2 * MSS, 4 * MSS);
        assert_eq!(drain(&mut s, 20).len(), 3);
        assert_eq!(s.snd_nxt, 6 * MSS);
    }

    #[test]
    fn a_sub_packet_window_sends_one_segment_every_mss_over_window_base_rtts() {
        // A receive window of 375 B (BDP / N for 37.5 kB and 100 flows) under MSS 1000:
        // gap = base RTT 32.61408 us x 1000 / 375 = 86.97088 us.
        let mut cfg = config(10 * MSS, false, Recovery::Basic);
        (cfg.sub_packet_pacing, cfg.min_cwnd, cfg.rwnd) = (true, 1, 375);
        let mut s = Sender::new(3 * MSS, &cfg, Cc::HotnetsDctcp(HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss)));
        s.pace_sub_packet(SubPacketPacer::new(32_614_080, MSS, 0));
        s.on_write(0);
        assert_eq!(drain(&mut s, 0).len(), 1, "one segment, not 10 (cwnd) nor 0 (375 B < MSS)");
        assert!(drain(&mut s, 1).is_empty(), "at most one out");
        s.on_ack(50_000_000, MSS, &NO_SACKS, false, 0);
        assert!(drain(&mut s, 50_000_000).is_empty(), "acknowledged, but the gap has not passed");
        assert_eq!(s.take_pace_wait(), Some(86_970_880));
        assert!(drain(&mut s, 86_970_879).is_empty());
        assert_eq!(drain(&mut s, 86_970_880).len(), 1);
        // Without the pacer a window below one MSS still sends one segment whenever
        // nothing is out (the basic model's rule), with no gap.
        cfg.sub_packet_pacing = false;
        let mut u = Sender::new(3 * MSS, &cfg, Cc::HotnetsDctcp(HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss)));
        drain(&mut u, 0);
        u.on_ack(50_000_000, MSS, &NO_SACKS, false, 0);
        assert_eq!(drain(&mut u, 50_000_000).len(), 1);
    }

    #[test]
    fn a_sub_packet_window_grows_by_the_bytes_acknowledged() {
        // Swift's ai x num_acked with ai = one segment: 300 B + 1000 B acked = 1300 B, where
        // ns-3's NewReno would add MSS^2 / cwnd = 3333 B for the one segment.
        let mut w = Window::new(300, MSS, 1);
        w.ssthresh = 300;
        w.sub_packet = true;
        w.increase(MSS);
        assert_eq!(w.cwnd, 1300);
        let mut reno = Window::new(300, MSS, 1);
        (reno.ssthresh, reno.growth) = (300, crate::transport::cc::Growth::Ns3NewReno);
        reno.increase(MSS);
        assert_eq!(reno.cwnd, 300 + 3333);
    }

    #[test]
    fn a_relay_sends_only_what_it_has() {
        let mut s = sender(10 * MSS, 8 * MSS, false);
        s.available = 0;
        assert!(s.next_segment(0).is_none());
        s.available = 2 * MSS;
        assert_eq!(drain(&mut s, 0).len(), 2);
        s.available = 10 * MSS;
        assert_eq!(drain(&mut s, 0).len(), 6);
    }
}
