//! Event traces for the IMC '24 study: a queue's length at every change, and the senders'
//! windows on a time grid. Both are opt-in; when off the run loop only tests an `Option`.

use super::table::{Column, Table};
use crate::ids::{FlowId, PortId};
use crate::units::Time;

/// The queue-disc length of chosen ports, one row each time it changes; and per port, how
/// many packets each arriving packet found ahead of it (the queue as arrivals see it, which
/// the changes alone cannot give: an arrival at an idle port changes nothing).
pub struct QueueEvents {
    /// Per port: its slot in `last`, or `u32::MAX` when the port is not traced.
    slot: Vec<u32>,
    /// Per traced port: the length last recorded.
    last: Vec<u64>,
    time: Vec<u64>,
    port: Vec<u32>,
    pkts: Vec<u64>,
    /// Per traced port: arrivals by the packets they found queued (index = packets).
    seen: Vec<Vec<u64>>,
    ports: Vec<u32>,
}

impl QueueEvents {
    pub fn new(port_count: usize, ports: &[PortId]) -> Self {
        let mut slot = vec![u32::MAX; port_count];
        let mut last = Vec::new();
        let mut traced = Vec::new();
        for p in ports {
            if slot[p.idx()] == u32::MAX {
                slot[p.idx()] = last.len() as u32;
                last.push(0);
                traced.push(p.0);
            }
        }
        let seen = vec![Vec::new(); last.len()];
        QueueEvents { slot, last, time: Vec::new(), port: Vec::new(), pkts: Vec::new(), seen, ports: traced }
    }

    /// A packet arrived at `port` and found `ahead` packets queued (a dropped one included).
    #[inline(always)]
    pub fn arrival(&mut self, port: PortId, ahead: u64) {
        let s = self.slot[port.idx()];
        if s == u32::MAX {
            return;
        }
        let h = &mut self.seen[s as usize];
        if h.len() <= ahead as usize {
            h.resize(ahead as usize + 1, 0);
        }
        h[ahead as usize] += 1;
    }

    /// The arrivals' histogram: one row per traced port and queue length found.
    pub fn arrivals_table(&self, port_name: impl Fn(PortId) -> String) -> Table {
        let (mut port, mut names, mut ahead, mut count) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, h) in self.seen.iter().enumerate() {
            for (k, &n) in h.iter().enumerate().filter(|(_, n)| **n > 0) {
                port.push(self.ports[i]);
                names.push(port_name(PortId(self.ports[i])));
                ahead.push(k as u64);
                count.push(n);
            }
        }
        let mut t = Table::new("arrival_queues");
        t.push("port", Column::U32(port))
            .push("port_name", Column::Str(names))
            .push("packets_ahead", Column::U64(ahead))
            .push("arrivals", Column::U64(count));
        t
    }

    /// Records `pkts` for `port` at `now` if the port is traced and the length changed.
    #[inline(always)]
    pub fn observe(&mut self, now: Time, port: PortId, pkts: u64) {
        let s = self.slot[port.idx()];
        if s == u32::MAX || self.last[s as usize] == pkts {
            return;
        }
        self.last[s as usize] = pkts;
        self.time.push(now);
        self.port.push(port.0);
        self.pkts.push(pkts);
    }

    pub fn table(&self, port_name: impl Fn(PortId) -> String) -> Table {
        let names: Vec<String> = self.port.iter().map(|p| port_name(PortId(*p))).collect();
        let mut t = Table::new("queue_events");
        t.push("time_ps", Column::U64(self.time.clone()))
            .push("port", Column::U32(self.port.clone()))
            .push("port_name", Column::Str(names))
            .push("packets", Column::U64(self.pkts.clone()));
        t
    }
}

/// Every active flow's congestion window, bytes in flight and DCTCP alpha, every `interval`.
pub struct WindowSeries {
    pub interval: Time,
    time: Vec<u64>,
    flow: Vec<u64>,
    cwnd: Vec<u64>,
    in_flight: Vec<u64>,
    alpha: Vec<f64>,
}

impl WindowSeries {
    pub fn new(interval: Time) -> Self {
        WindowSeries { interval, time: Vec::new(), flow: Vec::new(), cwnd: Vec::new(), in_flight: Vec::new(), alpha: Vec::new() }
    }

    pub fn record(&mut self, now: Time, flow: FlowId, cwnd: u64, in_flight: u64, alpha: f64) {
        self.time.push(now);
        self.flow.push(flow.0 as u64);
        self.cwnd.push(cwnd);
        self.in_flight.push(in_flight);
        self.alpha.push(alpha);
    }

    pub fn table(&self) -> Table {
        let mut t = Table::new("windows");
        t.push("time_ps", Column::U64(self.time.clone()))
            .push("flow_id", Column::U64(self.flow.clone()))
            .push("cwnd_bytes", Column::U64(self.cwnd.clone()))
            .push("in_flight_bytes", Column::U64(self.in_flight.clone()))
            .push("alpha", Column::F64(self.alpha.clone()));
        t
    }
}
