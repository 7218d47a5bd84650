//! A streamed flows table (`[record] flows = "stream"`) in a run cut by pod.
//!
//! A whole run retires a finished flow the moment none of its packets is left in the network
//! (`World::retire_if_done`). Cut, no partition can tell alone: a flow's packets are
//! counted into the network where they are sent and out where they arrive, often in
//! another partition (`Flow::in_net` wraps), and its delayed ACK is armed in its
//! receiver's. So partitions only note the flows their senders finish, and retirement waits
//! for the end of an epoch (`pipeline.rs`), where every partition stands at the same window:
//! there the sum of the partitions' counts is the number of its packets anywhere, the
//! batches between partitions included. A flow with none and no delayed ACK due leaves
//! every partition at once, so each reuses the same slots in the same order, as the flows
//! they all add (the same Poisson arrivals) must.
//!
//! Epoch ends are window numbers, never the caller's steps, so the rows come in the same
//! order on any number of threads. That order (epoch by epoch, then partition by partition)
//! is the cut run's own; sorted by `flow_id` the rows are the cut run's kept table.

use super::flow_rows::FlowRow;
use super::partition::Partitioned;
use super::world::World;
use crate::ids::FlowId;

impl World {
    /// Flow `f`'s sender here has every byte acknowledged: in a partition of a streaming run,
    /// a flow to retire once its packets are gone.
    pub(super) fn note_finished(&mut self, f: FlowId) {
        if let Some(side) = self.partition.as_mut() {
            side.finished.push(f);
        }
    }
}

impl Partitioned {
    /// At an epoch's end: retires every finished flow with no packet left anywhere and no
    /// delayed ACK due, in the order they finished (partition by partition); the others
    /// wait for a later epoch.
    pub(super) fn retire_finished(&mut self) {
        let Some(mut stream) = self.stream.take() else { return };
        let mut waiting = std::mem::take(&mut stream.waiting);
        for w in &mut self.parts {
            waiting.append(&mut w.partition.as_mut().expect("a partition").finished);
        }
        for f in waiting {
            if self.gone(f) {
                stream.retired.push(self.row(f));
                self.parts.iter_mut().for_each(|w| w.flows.retire(f));
            } else {
                stream.waiting.push(f);
            }
        }
        self.stream = Some(stream);
    }

    /// Whether flow `f` can do nothing more: none of its packets in any partition or
    /// between two, and no delayed ACK due.
    fn gone(&self, f: FlowId) -> bool {
        let mut copies = self.parts.iter().map(|w| &w.flows[f.idx()]);
        let in_net = copies.clone().fold(0u32, |n, c| n.wrapping_add(c.in_net));
        in_net == 0 && !copies.any(|c| c.dack_armed)
    }

    /// Flow `f`'s row: its sender's half, with what its receiver's partition wrote (as
    /// `take_receiver` joins them at the end).
    fn row(&self, f: FlowId) -> FlowRow {
        let first = &self.parts[0].flows[f.idx()];
        let sender = &self.parts[self.plan.sender_part(&self.parts[0], first)];
        let receiver = &self.parts[self.plan.receiver_part(&self.parts[0], first)].flows[f.idx()];
        let flow = &sender.flows[f.idx()];
        let mut row = FlowRow::of(flow.id, flow, sender.measured(flow.start));
        row.recv_done = receiver.recv_done;
        row.nacks_sent = receiver.nacks_sent;
        row
    }

    /// Whether retired rows wait for the caller (`Simulation::hand_out_flows_every`).
    pub(super) fn rows_ready(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.retired.ready)
    }
}
