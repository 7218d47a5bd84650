//! Byte accounting over every packet (data and ACKs) at one instant: what was injected is
//! delivered, dropped or still in flight (the tests' conservation checks).

use super::world::World;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

impl World {
    pub fn conservation(&self) -> Conservation {
        Conservation {
            injected: self.injected_bytes,
            delivered: self.delivered_bytes,
            dropped: self.dropped_bytes,
            in_flight: (0..self.ports.len()).map(|p| self.port_in_flight(p)).sum(),
        }
    }

    /// Bytes port `p` holds: queued (control queue included) or on its wire.
    fn port_in_flight(&self, p: usize) -> u64 {
        self.port_queued(p) + self.ports[p].wire_bytes(&self.pool)
    }

    /// Bytes queued at port `p` (control queue included).
    pub(super) fn port_queued(&self, p: usize) -> u64 {
        let port = &self.ports[p];
        port.queue.backlog.bytes + port.queue.control_backlog().bytes
    }
}
