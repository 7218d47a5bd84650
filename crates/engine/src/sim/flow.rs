//! A flow: its sender and receiver state machines, timers and the facts recorded about it;
//! and an incast's, over its flows.

use crate::ids::{FlowId, HostId};
use crate::reliability::BlockReceiver;
use crate::routing::Selector;
use crate::transport::{Receiver, Sender, SmallQueues};
use crate::units::Time;

pub const NEVER: Time = Time::MAX;
pub const NO_INCAST: u32 = u32::MAX;
/// `Flow::rpc` of a flow that is not a request/response connection.
pub const NO_RPC: u32 = u32::MAX;
/// No relay on the path / no connection fed by this one.
pub const NO_HOST: HostId = HostId(u32::MAX);
pub const NO_FLOW: FlowId = FlowId(u32::MAX);
/// A connection that sends on its own, not in a naive proxy's turn order.
pub const NO_TURNS: u32 = u32::MAX;

pub struct Flow {
    /// Its stable id (what packets, events and its result row name).
    pub id: FlowId,
    /// Retired: finished, its row taken, its slot free for another flow.
    pub retired: bool,
    pub src: HostId,
    pub dst: HostId,
    /// Bytes to send; `u64::MAX` for a flow that never ends.
    pub size: u64,
    pub start: Time,
    /// The flow's own 32-bit hash: its ECMP entropy, and the seed of its other paths.
    pub entropy: u32,
    /// Which entropy each of its packets carries (`routing/select`).
    pub selector: Selector,
    pub incast: u32,
    pub sender: Sender,
    pub receiver: Receiver,
    /// RTO: the deadline the timer stands for, and when its pending event fires.
    pub rto_deadline: Time,
    pub rto_event_at: Time,
    pub rto_gen: u32,
    pub dack_gen: u32,
    /// Pending pacing and per-packet RTO events (at most one each), `NEVER` if none.
    pub pace_at: Time,
    pub packet_rto_at: Time,
    pub dack_armed: bool,
    /// Send timestamp of the first segment a pending delayed ACK covers.
    pub dack_ts: Time,
    /// The receiver has every byte.
    pub recv_done: Time,
    /// The sender has every byte acknowledged: the flow is over.
    pub finish: Time,
    pub ideal_fct: Time,
    /// Last Millisampler bin in which this connection was counted at its source / destination.
    pub last_bin_src: u32,
    pub last_bin_dst: u32,
    /// A request/response connection: its rpc workload run and its sender's slot there.
    pub rpc: u32,
    pub rpc_slot: u32,
    /// A streamlined proxy this connection is routed through (`NO_HOST`: none).
    pub via: HostId,
    /// What its data packets and its ACKs are addressed to (`Packet::dst`): the receiver
    /// and the sender, the relay, or a static route's destination column (`Routes::pin`).
    pub route_dst: HostId,
    pub ack_dst: HostId,
    /// The connection that forwards what this one delivers (a naive proxy's split
    /// connection: proxy_R's receiver feeds proxy_S's sender).
    pub feeds: FlowId,
    /// NACKs sent for this flow's trimmed segments, by its receiver or its relay.
    pub nacks_sent: u64,
    /// The naive proxy's turn order this onward connection sends in (`World::proxy_turns`),
    /// or `NO_TURNS`.
    pub turns: u32,
    /// Its segments in its host's NIC (TCP Small Queues), and the pending wake-up of a
    /// throttled flow (`NEVER`: none).
    pub nic: SmallQueues,
    pub wake_at: Time,
    /// An erasure-coded flow's blocks at its receiver (`None`: not coded). Its sender and
    /// receiver then carry the padded stream; `size` stays the application's.
    pub erasure: Option<Box<BlockReceiver>>,
    /// Its packets (data, ACKs, NACKs, messages) in the network: injected and not yet
    /// delivered or dropped. A finished flow with none left and no delayed ACK due can do
    /// nothing more, so a streaming run may retire it (`World::retire_if_done`). Counted
    /// wrapping: a partitioned run (which never retires) counts a crossing packet's
    /// departure in one world and its arrival in another.
    pub in_net: u32,
}

impl Flow {
    /// One more of its packets entered the network (`in_net`).
    #[inline(always)]
    pub fn packet_in(&mut self) {
        self.in_net = self.in_net.wrapping_add(1);
    }

    /// One of its packets reached a host or was dropped (`in_net`).
    #[inline(always)]
    pub fn packet_out(&mut self) {
        self.in_net = self.in_net.wrapping_sub(1);
    }

    pub fn finished(&self) -> bool {
        self.finish != NEVER
    }

    /// Frees what its sender, NIC queue and blocks hold (a retired flow's slot waits for
    /// reuse).
    pub fn release_buffers(&mut self) {
        self.sender.release();
        self.nic.release();
        self.erasure = None;
    }
}

/// An incast's bookkeeping (a burst of an incast workload, or a Poisson incast event).
#[derive(Clone, Debug)]
pub struct IncastRecord {
    pub workload: u32,
    pub burst: u32,
    pub receiver: HostId,
    pub degree: u32,
    pub bytes_per_sender: u64,
    pub first_start: Time,
    pub last_finish: Time,
    /// When the last byte of the last flow reached the receiver.
    pub last_delivery: Time,
    pub finished_flows: u32,
    pub ideal: Time,
}
