//! Queue-depth time series: every `interval`, the backlog of each selected port.

use super::table::{Column, Table};
use crate::ids::PortId;
use crate::units::Time;

pub struct QueueSeries {
    pub interval: Time,
    pub ports: Vec<PortId>,
    time: Vec<u64>,
    port: Vec<u32>,
    bytes: Vec<u64>,
    pkts: Vec<u64>,
    /// The port's phantom queue counter (0 without one).
    phantom: Vec<u64>,
}

impl QueueSeries {
    pub fn new(interval: Time, ports: Vec<PortId>) -> Self {
        QueueSeries { interval, ports, time: Vec::new(), port: Vec::new(), bytes: Vec::new(), pkts: Vec::new(), phantom: Vec::new() }
    }

    pub fn record(&mut self, now: Time, port: PortId, bytes: u64, pkts: u64, phantom_bytes: u64) {
        self.phantom.push(phantom_bytes);
        self.time.push(now);
        self.port.push(port.0);
        self.bytes.push(bytes);
        self.pkts.push(pkts);
    }

    pub fn table(&self, port_name: impl Fn(PortId) -> String) -> Table {
        let names: Vec<String> = self.port.iter().map(|p| port_name(PortId(*p))).collect();
        let mut t = Table::new("queues");
        t.push("time_ps", Column::U64(self.time.clone()))
            .push("port", Column::U32(self.port.clone()))
            .push("port_name", Column::Str(names))
            .push("bytes", Column::U64(self.bytes.clone()))
            .push("packets", Column::U64(self.pkts.clone()))
            .push("phantom_bytes", Column::U64(self.phantom.clone()));
        t
    }
}
