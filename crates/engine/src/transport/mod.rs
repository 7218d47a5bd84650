//! Transport: one reliable sender and receiver shared by every congestion control.

pub mod cc;
pub mod receiver;
mod scoreboard;
pub mod sender;

pub use receiver::{AckToSend, EcnEcho, Receiver, ReceiverConfig};
pub use sender::{AckEffect, Segment, Sender, SenderConfig};

use crate::units::Time;
use cc::DctcpConfig;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CcKind {
    NewReno,
    Dctcp,
}

/// Everything about the transport a scenario sets, resolved to bytes and picoseconds.
#[derive(Clone, Debug)]
pub struct TransportConfig {
    pub cc: CcKind,
    pub dctcp: DctcpConfig,
    /// IP packet size; MSS = mtu - header.
    pub mtu: u64,
    /// IP + TCP header bytes per packet (an ACK is this many bytes).
    pub header: u64,
    /// Bytes each frame adds on the wire beyond the IP packet (Ethernet, PPP).
    pub framing: u64,
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
        }
    }
}
