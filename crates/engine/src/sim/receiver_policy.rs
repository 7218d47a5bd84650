//! A receiver-side policy (ICTCP) at the endpoints: a connection opens at its receiver when
//! it starts (the handshake advertises the first window), every data arrival is shown to
//! the policy, every ACK carries its window in the `payload` field (whole MSS), and the
//! sender takes it as a right edge. Out of line: runs without a policy pay one test of
//! `receiver_policy` per data packet and per ACK sent, and one of the ACK's field per ACK
//! received.
//!
//! RTT_i is the sender's smoothed RTT (`None` before its first sample: the policy then
//! uses the path's base RTT, given at open). A receiver would estimate the same round trip
//! from timestamp echoes (spec ASSUMPTION); the engine keeps no receiver-side estimate, so
//! the policy reads the sender's.

use super::world::World;
use crate::ids::FlowId;
use crate::transport::receiver_policy::{field_window, window_field};
use crate::transport::ReceiverPolicy;

impl World {
    /// Each host's receive capacity C: the rates of the links into it.
    pub(super) fn receive_capacities(&self) -> Vec<u64> {
        let mut c = vec![0; self.host_nic.len()];
        for p in &self.ports {
            let h = self.node_host[p.to.idx()];
            if h != super::world::NOT_A_HOST {
                c[h as usize] += p.rate_bps;
            }
        }
        c
    }

    /// Opens connection `f` at its receiver and gives its sender the first window, as the
    /// handshake's SYN-ACK would; a connection already open (a persistent one) stays as is.
    pub(super) fn open_at_receiver(&mut self, f: FlowId) {
        let now = self.sched.now();
        let flow = &self.flows[f.idx()];
        let (rtt, _) = self.path_rtt(flow.src, flow.dst, flow.via, flow.entropy);
        let dst = flow.dst;
        let Some(p) = &mut self.receiver_policy else { return };
        p.open(f, dst, rtt, now);
        let window = p.window(f);
        let s = &mut self.flows[f.idx()].sender;
        s.advertised(s.snd_una, window);
    }

    /// A data packet of `payload` bytes of connection `f` reached its receiver.
    #[inline(never)]
    pub(super) fn receiver_saw_data(&mut self, f: FlowId, payload: u64) {
        let now = self.sched.now();
        let rtt = self.flows[f.idx()].sender.rtt.srtt();
        if let Some(p) = &mut self.receiver_policy {
            p.on_data(f, payload, rtt, now);
        }
    }

    /// The `payload` field of an ACK of connection `f`: its window, or 0 without a policy.
    #[inline(always)]
    pub(super) fn ack_window_field(&self, f: FlowId) -> u16 {
        match &self.receiver_policy {
            None => 0,
            Some(p) => window_field(p.window(f), self.transport.mss()),
        }
    }

    /// An ACK of `ack` advertising `field` (whole MSS) reached the sender of `f`.
    #[inline(never)]
    pub(super) fn take_advertised(&mut self, f: FlowId, ack: u64, field: u16) {
        let window = field_window(field, self.transport.mss());
        self.flows[f.idx()].sender.advertised(ack, window);
    }

    /// Connection `f` is over at its receiver (a persistent one stays open for its next
    /// response).
    pub(super) fn close_at_receiver(&mut self, f: FlowId) {
        if let Some(p) = &mut self.receiver_policy {
            p.close(f);
        }
    }
}
