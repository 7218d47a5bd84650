//! A cut run's outcome as one world (`Partitioned::merge`): each port from the partition
//! that ran it, each flow's halves joined, the counters summed.

use super::flow::Flow;
use super::partition::Partitioned;
use super::world::World;
use crate::ids::PortId;

impl Partitioned {
    /// One world holding the run's outcome: each port from the partition that ran it, each
    /// flow's sender half from its source's and receiver half from its destination's, the
    /// counters summed. Only for results: its packets are not its own.
    pub fn merge(self) -> World {
        let Partitioned { mut parts, plan, stream, .. } = self;
        // Copies: Poisson arrivals drawn by all.
        let replicas: u64 = parts.iter().map(|w| w.partition.as_ref().map_or(0, |s| s.replicas)).sum();
        let mut rest = parts.split_off(1);
        let mut w = parts.pop().expect("a first partition");
        for i in 0..w.ports.len() {
            let from = plan.part(w.topo.port(PortId::from(i)).from);
            if from != 0 {
                std::mem::swap(&mut w.ports[i], &mut rest[from - 1].ports[i]);
            }
        }
        // By slot: a streaming run's retired flows (the same slots in every partition) are
        // rows already.
        for f in 0..w.flows.slots() {
            if w.flows[f].retired {
                continue;
            }
            let (s, d) = (plan.sender_part(&w, &w.flows[f]), plan.receiver_part(&w, &w.flows[f]));
            if s != 0 {
                std::mem::swap(&mut w.flows[f], &mut rest[s - 1].flows[f]);
            }
            if d != s {
                // Partition 0's own copy went to `rest[s - 1]` in the swap above.
                let other = if d == 0 { &mut rest[s - 1].flows[f] } else { &mut rest[d - 1].flows[f] };
                take_receiver(&mut w.flows[f], other);
            }
        }
        let mut events = w.sched.events;
        let mut now = w.sched.now();
        let mut any_done = w.done;
        for o in &rest {
            events += o.sched.events;
            now = now.max(o.sched.now());
            any_done |= o.done;
            w.packet_hops += o.packet_hops;
            w.injected_bytes += o.injected_bytes;
            w.delivered_bytes += o.delivered_bytes;
            w.dropped_bytes += o.dropped_bytes;
            w.active_flows += o.active_flows;
            w.pending_starts += o.pending_starts;
            // `pending_arrivals`: every partition draws the same arrivals (not summed).
            w.last_activity = w.last_activity.max(o.last_activity);
            for (mine, theirs) in w.incasts.iter_mut().zip(&o.incasts) {
                mine.finished_flows += theirs.finished_flows;
                mine.last_finish = mine.last_finish.max(theirs.last_finish);
                mine.last_delivery = mine.last_delivery.max(theirs.last_delivery);
            }
        }
        w.sched.events = events - replicas;
        w.sched.advance_to(now);
        // As a whole run's flag: set when a flow finished with nothing left to do.
        w.done = any_done && !w.has_work();
        w.partition = None;
        if let Some(stream) = stream {
            w.retired = stream.retired;
        }
        w
    }
}

/// Moves a flow's receiver half (what its destination's partition wrote) into `into`. An
/// erasure-coded flow's blocks are the receiver's, but for the parity NACKs its sender
/// acted on.
fn take_receiver(into: &mut Flow, from: &mut Flow) {
    std::mem::swap(&mut into.receiver, &mut from.receiver);
    let acted = into.erasure.as_ref().map(|e| e.nacks_acted);
    std::mem::swap(&mut into.erasure, &mut from.erasure);
    if let (Some(e), Some(acted)) = (into.erasure.as_mut(), acted) {
        e.nacks_acted = acted;
    }
    into.recv_done = from.recv_done;
    into.nacks_sent = from.nacks_sent;
    into.last_bin_dst = from.last_bin_dst;
    into.dack_armed = from.dack_armed;
    into.dack_gen = from.dack_gen;
    into.dack_ts = from.dack_ts;
}
