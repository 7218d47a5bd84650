//! The runtime state of one direction of a link.
//!
//! A port needs no "transmission done" event: departures are computed when the port is
//! next looked at ([`crate::sim::World`]'s catch-up). Each packet's serialization start is
//! the later of its arrival and the previous packet's end; once started it joins `wire`
//! with its arrival time at the far end. The only event a port has pending is the arrival
//! of its oldest packet on `wire`, and each arrival is also when the port catches up, so a
//! packet-hop costs one event.

use super::queue::Queue;
use crate::ids::NodeId;
use crate::packet::Fifo;
use crate::units::{serialization_ps, Time, PS_PER_SEC};

pub struct PortState {
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay_ps: Time,
    /// Picoseconds per byte when the rate divides 8e12 exactly (every common rate), else 0.
    ps_per_byte: u64,
    pub queue: Queue,
    /// When the transmitter finishes the last packet it has started.
    pub busy_until: Time,
    /// Packets started (serializing or propagating) and not yet arrived, oldest first.
    pub wire: Fifo,
    pub wire_bytes: u64,
}

impl PortState {
    pub fn new(to: NodeId, rate_bps: u64, delay_ps: Time, queue: Queue) -> Self {
        let exact = (8 * PS_PER_SEC) % rate_bps == 0;
        PortState {
            to,
            rate_bps,
            delay_ps,
            ps_per_byte: if exact { 8 * PS_PER_SEC / rate_bps } else { 0 },
            queue,
            busy_until: 0,
            wire: Fifo::default(),
            wire_bytes: 0,
        }
    }

    /// Bytes that have started transmission: everything admitted but what still waits.
    pub fn tx_bytes(&self) -> u64 {
        self.queue.counters.enqueued_bytes - self.queue.backlog.bytes
    }

    pub fn tx_pkts(&self) -> u64 {
        self.queue.counters.enqueued_pkts - self.queue.backlog.pkts
    }

    /// Serialization time of `bytes` at this port's rate.
    #[inline(always)]
    pub fn ser_time(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            bytes * self.ps_per_byte
        } else {
            serialization_ps(bytes, self.rate_bps)
        }
    }
}
