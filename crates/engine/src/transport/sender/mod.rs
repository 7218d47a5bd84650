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
    /// The scoreboard's oldest slot and its next free one (`Scoreboard::ends`).
    pub fn board_ends(&self) -> (*const u8, *const u8) {
        self.board.ends()
    }

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
pub(crate) mod tests;
