//! Per-connection rates over time: every `interval`, the bytes each unfinished connection
//! had newly acknowledged since the previous sample (the proxy paper's rate plots).

use super::table::{Column, Table};
use crate::units::{Time, PS_PER_SEC};

pub struct RateSeries {
    pub interval: Time,
    /// Each flow's cumulative acknowledged bytes at the previous sample.
    last_acked: Vec<u64>,
    time: Vec<u64>,
    flow: Vec<u64>,
    bytes: Vec<u64>,
}

impl RateSeries {
    pub fn new(interval: Time) -> Self {
        RateSeries { interval, last_acked: Vec::new(), time: Vec::new(), flow: Vec::new(), bytes: Vec::new() }
    }

    /// Records flow `f`'s progress to `acked` bytes; a row only when it moved.
    pub fn record(&mut self, now: Time, f: usize, acked: u64) {
        if self.last_acked.len() <= f {
            self.last_acked.resize(f + 1, 0);
        }
        let delta = acked - self.last_acked[f];
        if delta > 0 {
            self.last_acked[f] = acked;
            self.time.push(now);
            self.flow.push(f as u64);
            self.bytes.push(delta);
        }
    }

    pub fn table(&self) -> Table {
        let rate = self.bytes.iter().map(|b| *b as f64 * 8.0 * PS_PER_SEC as f64 / self.interval as f64).collect();
        let mut t = Table::new("rates");
        t.push("time_ps", Column::U64(self.time.clone()))
            .push("flow_id", Column::U64(self.flow.clone()))
            .push("acked_bytes", Column::U64(self.bytes.clone()))
            .push("rate_bps", Column::F64(rate));
        t
    }
}
