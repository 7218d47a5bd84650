//! Transport: one reliable sender and receiver shared by every congestion control.

pub mod cc;
pub mod icon;
pub mod pacer;
pub mod receiver;
pub mod receiver_policy;
pub mod recovery;
pub mod sack;
mod scoreboard;
pub mod sender;
pub mod small_queues;
pub mod sub_packet;

pub use icon::{IconConfig, IconPacer, IconRate, PaceScope};
pub use pacer::{PaceBy, Pacer};
pub use receiver::{AckToSend, EcnEcho, Receiver, ReceiverConfig, SackReport};
pub use receiver_policy::{IctcpConfig, Policy, PolicyConfig, ReceiverPolicy};
pub use recovery::Recovery;
pub use sack::{ExtraSacks, SackBlock, SackList, MAX_SACK_BLOCKS, NO_SACKS};
pub use sender::{AckEffect, AuxTimer, Segment, Sender, SenderConfig, WindowParts};
pub use small_queues::{SmallQueues, TsqConfig};
pub use sub_packet::SubPacketPacer;

use crate::units::Time;
use std::collections::VecDeque;
use cc::{BbrConfig, DctcpConfig, FlowPath, GeminiConfig, MprdmaConfig, NackDecrease, UnoConfig};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CcKind {
    NewReno,
    Dctcp,
    /// The proxy paper's DCTCP-like sender (`cc = "hotnets_dctcp"`).
    HotnetsDctcp,
    Uno,
    Gemini,
    Mprdma,
    Bbr,
}

impl CcKind {
    /// The window senders of Uno's evaluation: paced, per-packet RTO, cwnd0 = BDP.
    pub fn is_window_sender(&self) -> bool {
        matches!(self, CcKind::Uno | CcKind::Gemini | CcKind::Mprdma | CcKind::Bbr)
    }
}

/// The retransmission timer a flow runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RtoMode {
    /// RFC 6298: one timer per flow from the smoothed RTT, with backoff.
    Adaptive,
    /// One deadline per transmission, `base RTT + margin` (+ `margin_inter` for flows that
    /// cross datacenters); loss is found by these timeouts, not by duplicate ACKs.
    PerPacket { margin: Time, margin_inter: Time },
}

/// Quantities a scenario may give in multiples of each flow's own base RTT or BDP; they
/// are resolved when the flow is created, from its path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathScaled {
    /// Initial window in BDPs of the flow's path (`init_cwnd = "1bdp"`).
    pub init_cwnd_bdp: Option<f64>,
    /// RTO floor in base RTTs (`min_rto = "2rtt"`).
    pub min_rto_rtts: Option<f64>,
    /// RTO before the first RTT sample, in base RTTs (`initial_rto = "3rtt"`).
    pub initial_rto_rtts: Option<f64>,
}

/// Everything about the transport a scenario sets, resolved to bytes and picoseconds.
#[derive(Clone, Debug)]
pub struct TransportConfig {
    /// The algorithm of flows inside one datacenter, and of flows that cross datacenters.
    pub cc: CcKind,
    pub cc_inter: CcKind,
    pub dctcp: DctcpConfig,
    pub uno: UnoConfig,
    pub gemini: GeminiConfig,
    pub mprdma: MprdmaConfig,
    pub bbr: BbrConfig,
    /// What a NACK does to a `hotnets_dctcp` window.
    pub nack_decrease: NackDecrease,
    pub path_scaled: PathScaled,
    /// IP packet size; MSS = mtu - header.
    pub mtu: u64,
    /// IP + TCP header bytes per packet (an ACK is this many bytes).
    pub header: u64,
    /// Bytes each frame adds on the wire beyond the IP packet (Ethernet, PPP).
    pub framing: u64,
    /// Bytes of an ACK or NACK on the wire (header + framing unless set).
    pub ack_bytes: u64,
    /// Bytes the SACK option adds to an ACK that carries `n > 0` blocks: `fixed + n ·
    /// per_block` (the option's kind and length, padding, 8 B a block); 0 under `basic`.
    pub sack_option: (u64, u64),
    /// ECN-capable data; on by default for DCTCP, off for NewReno.
    pub ecn: bool,
    /// Pace data at cwnd / base RTT (or the algorithm's rate).
    pub pacing: bool,
    /// ICON's pacing by incast degree (`None`: off).
    pub icon: Option<IconConfig>,
    /// A receiver-side policy setting the windows ACKs advertise (ICTCP; `None`: off).
    pub receiver_policy: Option<PolicyConfig>,
    /// UnoRC's erasure-coded blocks (`[transport.erasure]`; `None`: off).
    pub erasure: Option<crate::reliability::ErasureConfig>,
    /// Data packets are re-stamped when their host NIC starts sending them (Uno's
    /// artifact, at the first switch), so host queueing stays out of RTT samples.
    pub stamp_at_first_switch: bool,
    /// Flow sizes round up to whole MSS segments, so every data packet is full-size
    /// (htsim's convention: flows are counted in packets).
    pub whole_segments: bool,
    pub rto: RtoMode,
    /// Base RTT of each class when the scenario sets it (else computed from the topology).
    pub base_rtt: Option<Time>,
    pub base_rtt_inter: Option<Time>,
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    /// Delayed-ACK timeout when `receiver.delayed_ack > 1`.
    pub delayed_ack_timeout: Time,
}

impl TransportConfig {
    pub fn mss(&self) -> u64 {
        self.mtu - self.header
    }

    /// Bytes on the wire for a segment carrying `payload` bytes.
    pub fn wire_bytes(&self, payload: u64) -> u64 {
        payload + self.header + self.framing
    }

    /// The bytes a flow asked to send `size` bytes carries (`whole_segments`: whole MSS).
    pub fn flow_bytes(&self, size: u64) -> u64 {
        if self.whole_segments && size != u64::MAX {
            size.div_ceil(self.mss()) * self.mss()
        } else {
            size
        }
    }

    /// Bytes on the wire of an ACK carrying `blocks` SACK blocks.
    #[inline(always)]
    pub fn ack_wire_bytes(&self, blocks: usize) -> u64 {
        if blocks == 0 {
            self.ack_bytes
        } else {
            self.ack_bytes + self.sack_option.0 + self.sack_option.1 * blocks as u64
        }
    }

    /// Every byte of a `size`-byte flow on the wire, headers and framing included.
    pub fn flow_wire_bytes(&self, size: u64) -> u64 {
        size + size.div_ceil(self.mss()) * (self.header + self.framing)
    }

    /// The algorithm a flow on `path` runs.
    pub fn kind_for(&self, path: &FlowPath) -> &CcKind {
        if path.inter {
            &self.cc_inter
        } else {
            &self.cc
        }
    }

    pub fn new_cc(&self, path: &FlowPath) -> cc::Cc {
        let mss = self.mss();
        match self.kind_for(path) {
            CcKind::NewReno => cc::Cc::NewReno(cc::NewReno::new(self.ecn)),
            CcKind::Dctcp => {
                let defer_first_update = self.sender.recovery == Recovery::Ns3;
                cc::Cc::Dctcp(cc::Dctcp::new(&DctcpConfig { defer_first_update, ..self.dctcp.clone() }))
            }
            CcKind::HotnetsDctcp => cc::Cc::HotnetsDctcp(cc::HotnetsDctcp::new(self.dctcp.g, self.dctcp.alpha_init, self.nack_decrease)),
            CcKind::Uno => cc::Cc::Uno(Box::new(cc::UnoCc::new(&self.uno, path, mss))),
            CcKind::Gemini => {
                let rto = self.packet_rto(path).unwrap_or(0);
                cc::Cc::Gemini(Box::new(cc::Gemini::new(&self.gemini, path, mss, rto)))
            }
            CcKind::Mprdma => cc::Cc::Mprdma(Box::new(cc::Mprdma::new(&self.mprdma, path, mss))),
            CcKind::Bbr => cc::Cc::Bbr(Box::new(cc::Bbr::new(&self.bbr, path, mss, self.header + self.framing))),
        }
    }

    /// The per-packet timeout of a flow on `path` (None with the adaptive RTO).
    pub fn packet_rto(&self, path: &FlowPath) -> Option<Time> {
        match self.rto {
            RtoMode::PerPacket { margin, margin_inter } => {
                Some(path.base_rtt() + margin + if path.inter { margin_inter } else { 0 })
            }
            RtoMode::Adaptive => None,
        }
    }

    /// The sender of a `size`-byte flow on `path`, with its pacer and timer.
    pub fn new_sender(&self, size: u64, path: &FlowPath) -> Sender {
        let mut s = Sender::new(size, &self.sender, self.new_cc(path));
        let window_sender = self.kind_for(path).is_window_sender();
        if window_sender || self.pacing || self.rto != RtoMode::Adaptive {
            let mut parts = WindowParts::default();
            if self.pacing {
                parts.pacer = Some(Pacer::new(path.base_rtt(), self.header + self.framing));
            }
            parts.packet_rto = self.packet_rto(path).map(crate::reliability::PacketRto::new);
            s.parts = Some(Box::new(parts));
        }
        s
    }
}

/// Where a ring's oldest entry is and where its next one goes (for prefetching: hints, so
/// an empty ring's dangling address is harmless).
pub(crate) fn ring_ends<T>(ring: &VecDeque<T>) -> (*const u8, *const u8) {
    let (a, b) = ring.as_slices();
    let back = if b.is_empty() { a.as_ptr_range().end } else { b.as_ptr_range().end };
    (a.as_ptr() as *const u8, back as *const u8)
}
