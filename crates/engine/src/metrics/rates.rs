//! Per-connection rates over time: every `interval`, the bytes each unfinished connection
//! had newly acknowledged since the previous sample (the proxy paper's rate plots), and the
//! bytes it sent, retransmissions included (the Uno artifact's sending rate).

use super::table::{Column, Table};
use crate::units::{Time, PS_PER_SEC};

pub struct RateSeries {
    pub interval: Time,
    /// Each flow's cumulative acknowledged and sent bytes at the previous sample.
    last: Vec<(u64, u64)>,
    time: Vec<u64>,
    flow: Vec<u64>,
    acked: Vec<u64>,
    sent: Vec<u64>,
}

impl RateSeries {
    pub fn new(interval: Time) -> Self {
        RateSeries { interval, last: Vec::new(), time: Vec::new(), flow: Vec::new(), acked: Vec::new(), sent: Vec::new() }
    }

    /// Records flow `f`'s progress to `acked` bytes acknowledged and `sent` bytes sent (both
    /// cumulative); a row only when one of them moved.
    pub fn record(&mut self, now: Time, f: usize, acked: u64, sent: u64) {
        if self.last.len() <= f {
            self.last.resize(f + 1, (0, 0));
        }
        let (last_acked, last_sent) = self.last[f];
        if acked > last_acked || sent > last_sent {
            self.last[f] = (acked, sent);
            self.time.push(now);
            self.flow.push(f as u64);
            self.acked.push(acked - last_acked);
            self.sent.push(sent - last_sent);
        }
    }

    pub fn table(&self) -> Table {
        let bps = |bytes: &[u64]| bytes.iter().map(|b| *b as f64 * 8.0 * PS_PER_SEC as f64 / self.interval as f64).collect();
        let mut t = Table::new("rates");
        t.push("time_ps", Column::U64(self.time.clone()))
            .push("flow_id", Column::U64(self.flow.clone()))
            .push("acked_bytes", Column::U64(self.acked.clone()))
            .push("rate_bps", Column::F64(bps(&self.acked)))
            .push("sent_bytes", Column::U64(self.sent.clone()))
            .push("sent_rate_bps", Column::F64(bps(&self.sent)));
        t
    }
}
