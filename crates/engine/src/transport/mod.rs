//! Transport: one reliable sender and receiver shared by every congestion control.

pub mod cc;
pub mod receiver;
mod scoreboard;
pub mod sender;

pub use receiver::{AckToSend, EcnEcho, Receiver, ReceiverConfig};
pub use sender::{AckEffect, Segment, Sender, SenderConfig};

use crate::units::Time;
use cc::{DctcpConfig, NackDecrease};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CcKind {
    NewReno,
    Dctcp,
    /// The proxy paper's DCTCP-like sender (`cc = "hotnets_dctcp"`).
    HotnetsDctcp,
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
    pub cc: CcKind,
    pub dctcp: DctcpConfig,
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
    /// ECN-capable data; on by default for DCTCP, off for NewReno.
    pub ecn: bool,
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

    /// Every byte of a `size`-byte flow on the wire, headers and framing included.
    pub fn flow_wire_bytes(&self, size: u64) -> u64 {
        size + size.div_ceil(self.mss()) * (self.header + self.framing)
    }

    pub fn new_cc(&self) -> cc::Cc {
        match self.cc {
            CcKind::NewReno => cc::Cc::NewReno(cc::NewReno::new(self.ecn)),
            CcKind::Dctcp => cc::Cc::Dctcp(cc::Dctcp::new(&self.dctcp)),
            CcKind::HotnetsDctcp => cc::Cc::HotnetsDctcp(cc::HotnetsDctcp::new(self.dctcp.g, self.dctcp.alpha_init, self.nack_decrease)),
        }
    }
}
