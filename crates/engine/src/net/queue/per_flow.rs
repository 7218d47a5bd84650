//! Round robin among flows, one packet per flow per turn: htsim's `FairPriorityQueue`
//! host queue (a `FairPullQueue` per priority), which the Uno artifact puts on every host
//! NIC. A flow that starts behind another flow's megabytes waits one packet per active
//! flow, not the whole backlog.
//!
//! The queue's own FIFO keeps the packet that leaves next; the others wait here, one FIFO
//! per flow (threaded through the pool, so no allocation per packet). A NIC serves a few
//! flows at a time, so finding a flow's FIFO is a short linear search, not a hash.

use crate::ids::FlowId;
use crate::packet::{Fifo, PacketPool, PacketRef};

#[derive(Default)]
pub struct PerFlow {
    /// Flows with packets waiting, in service order from `turn`.
    active: Vec<(FlowId, Fifo)>,
    turn: usize,
}

impl PerFlow {
    pub fn push(&mut self, pool: &mut PacketPool, r: PacketRef) {
        let flow = pool.get(r).flow;
        let i = match self.active.iter().position(|(f, _)| *f == flow) {
            Some(i) => i,
            None => {
                // A newly active flow is served last in the current round.
                let at = self.turn.min(self.active.len());
                self.active.insert(at, (flow, Fifo::default()));
                self.turn = (at + 1) % self.active.len().max(1);
                if self.active.len() == 1 {
                    self.turn = 0;
                }
                at
            }
        };
        self.active[i].1.push(pool, r);
    }

    /// The next flow's oldest packet.
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PacketRef> {
        if self.active.is_empty() {
            return None;
        }
        let i = self.turn % self.active.len();
        let r = self.active[i].1.pop(pool);
        if self.active[i].1.is_empty() {
            self.active.remove(i);
            self.turn = i;
        } else {
            self.turn = i + 1;
        }
        if self.turn >= self.active.len() {
            self.turn = 0;
        }
        r
    }

    pub fn packets<'a>(&self, pool: &'a PacketPool) -> impl Iterator<Item = PacketRef> + 'a {
        let fifos: Vec<Fifo> = self.active.iter().map(|(_, q)| *q).collect();
        fifos.into_iter().flat_map(move |q| q.iter(pool))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Packet;

    #[test]
    fn one_packet_per_flow_per_turn() {
        let mut pool = PacketPool::default();
        let mut q = PerFlow::default();
        // Flow 1 queues four packets, then flows 2 and 3 one each.
        for (flow, seq) in [(1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (3, 0)] {
            let r = pool.alloc(Packet { flow: FlowId(flow), seq, ..Default::default() });
            q.push(&mut pool, r);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.pop(&pool)).map(|r| (pool.get(r).flow.0, pool.get(r).seq)).collect();
        assert_eq!(order, [(1, 0), (2, 0), (3, 0), (1, 1), (1, 2), (1, 3)]);
    }
}
