//! The runtime state of one direction of a link.

use super::queue::Queue;
use crate::ids::NodeId;
use crate::packet::{Fifo, PacketRef, NIL};
use crate::units::Time;

pub struct PortState {
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay_ps: Time,
    pub queue: Queue,
    /// The packet being serialized, or `NIL` when the transmitter is idle.
    pub serializing: PacketRef,
    /// Packets propagating on the wire, oldest first.
    pub wire: Fifo,
    pub wire_bytes: u64,
    pub tx_bytes: u64,
    pub tx_pkts: u64,
}

impl PortState {
    pub fn new(to: NodeId, rate_bps: u64, delay_ps: Time, queue: Queue) -> Self {
        PortState {
            to,
            rate_bps,
            delay_ps,
            queue,
            serializing: NIL,
            wire: Fifo::default(),
            wire_bytes: 0,
            tx_bytes: 0,
            tx_pkts: 0,
        }
    }

    #[inline(always)]
    pub fn busy(&self) -> bool {
        self.serializing != NIL
    }
}
