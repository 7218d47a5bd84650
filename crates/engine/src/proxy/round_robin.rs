//! The naive proxy's sending side (proxy_S) serves its per-flow queues in turn (spec
//! `proxy_hotnets25.md` section 1, an ASSUMPTION the paper's "sends a packet onto the wire
//! as long as the queue at proxy_R is non-empty and there is bandwidth available" leaves
//! open): a packet goes onto the proxy's NIC only when the NIC is free, taken from the next
//! connection in a fixed cyclic order that has bytes queued and room in its window. Without
//! this, every connection would push whatever its window allows into one NIC FIFO, and the
//! flows would leave in the order proxy_R received their bytes.

use crate::ids::{FlowId, PortId};
use crate::units::Time;

/// No pending turn event.
pub const NO_TURN: Time = Time::MAX;

/// The cyclic order over one proxy's onward connections.
#[derive(Clone, Debug)]
pub struct Turns {
    /// The proxy's NIC.
    pub nic: PortId,
    flows: Vec<FlowId>,
    /// Index into `flows` of the connection whose turn comes first.
    next: usize,
    /// When the pending turn event fires (`NO_TURN`: none is pending).
    pub wake_at: Time,
}

impl Turns {
    pub fn new(nic: PortId) -> Self {
        Turns { nic, flows: Vec::new(), next: 0, wake_at: NO_TURN }
    }

    pub fn add(&mut self, f: FlowId) {
        self.flows.push(f);
    }

    /// Offers the turn to each connection once, starting with the one whose turn it is;
    /// `send` puts one packet of a connection on the wire if it can. The turn then passes to
    /// the connection after the one that sent. Returns whether any connection sent.
    pub fn serve(&mut self, mut send: impl FnMut(FlowId) -> bool) -> bool {
        let n = self.flows.len();
        for k in 0..n {
            let i = (self.next + k) % n;
            if send(self.flows[i]) {
                self.next = (i + 1) % n;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backlogged_connections_take_turns_and_idle_ones_are_skipped() {
        let mut t = Turns::new(PortId(0));
        for f in 0..3 {
            t.add(FlowId(f));
        }
        // Connection 1 has nothing queued: the order is 0, 2, 0, 2, ...
        let mut order = Vec::new();
        for _ in 0..4 {
            assert!(t.serve(|f| {
                if f == FlowId(1) {
                    return false;
                }
                order.push(f.0);
                true
            }));
        }
        assert_eq!(order, vec![0, 2, 0, 2]);
        // Once 1 has data it takes its turn again, right after 0's.
        let mut sent = Vec::new();
        for _ in 0..3 {
            t.serve(|f| {
                sent.push(f.0);
                true
            });
        }
        assert_eq!(sent, vec![0, 1, 2]);
        assert!(!t.serve(|_| false), "nobody can send");
    }
}
