//! Millisampler-style host counters (Canel et al., IMC '24; Ghabashneh et al., IMC '22):
//! per host and per bin, ingress and egress frame bytes, retransmitted bytes in and out,
//! ECN-CE bytes in, and the number of connections with at least one ingress packet.
//! Ingress is binned at last-bit arrival, egress at transmission start.

use super::table::{Column, Table};
use crate::ids::HostId;
use crate::units::Time;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Bin {
    pub ingress: u64,
    pub egress: u64,
    pub in_rxmit: u64,
    pub out_rxmit: u64,
    pub in_ce: u64,
    pub connections: u64,
}

pub struct HostCounters {
    pub bin_ps: Time,
    /// `bins[host][i]`: grows as time passes.
    bins: Vec<Vec<Bin>>,
    recorded: Vec<bool>,
}

impl HostCounters {
    pub fn new(bin_ps: Time, hosts: usize, recorded: Vec<bool>) -> Self {
        HostCounters { bin_ps, bins: vec![Vec::new(); hosts], recorded }
    }

    #[inline]
    fn bin(&mut self, host: HostId, now: Time) -> Option<&mut Bin> {
        if !self.recorded[host.idx()] {
            return None;
        }
        let i = (now / self.bin_ps) as usize;
        let bins = &mut self.bins[host.idx()];
        if bins.len() <= i {
            bins.resize(i + 1, Bin::default());
        }
        Some(&mut bins[i])
    }

    /// Counts one ingress packet. `last_bin` is the connection's own record of the last bin
    /// it was counted in at this host, so each connection counts once per bin.
    #[inline]
    pub fn ingress(&mut self, host: HostId, now: Time, bytes: u64, rxmit: bool, ce: bool, last_bin: &mut u32) {
        let bin = (now / self.bin_ps) as u32;
        let new_connection = *last_bin != bin;
        *last_bin = bin;
        if let Some(b) = self.bin(host, now) {
            b.ingress += bytes;
            if rxmit {
                b.in_rxmit += bytes;
            }
            if ce {
                b.in_ce += bytes;
            }
            if new_connection {
                b.connections += 1;
            }
        }
    }

    #[inline]
    pub fn egress(&mut self, host: HostId, now: Time, bytes: u64, rxmit: bool) {
        if let Some(b) = self.bin(host, now) {
            b.egress += bytes;
            if rxmit {
                b.out_rxmit += bytes;
            }
        }
    }

    /// One row per (recorded host, bin) up to the end of the run, zero bins included.
    pub fn table(&self, names: &[String], end: Time) -> Table {
        let n_bins = (end / self.bin_ps + 1) as usize;
        let mut t = Table::new("hosts");
        let (mut host, mut name, mut start) = (Vec::new(), Vec::new(), Vec::new());
        let mut cols: [Vec<u64>; 6] = Default::default();
        for (h, bins) in self.bins.iter().enumerate() {
            if !self.recorded[h] {
                continue;
            }
            for i in 0..n_bins {
                let b = bins.get(i).copied().unwrap_or_default();
                host.push(h as u32);
                name.push(names[h].clone());
                start.push(i as u64 * self.bin_ps);
                for (c, v) in cols.iter_mut().zip([b.ingress, b.egress, b.in_rxmit, b.out_rxmit, b.in_ce, b.connections]) {
                    c.push(v);
                }
            }
        }
        t.push("host", Column::U32(host)).push("host_name", Column::Str(name)).push("bin_start_ps", Column::U64(start));
        let [ingress, egress, in_rx, out_rx, in_ce, conns] = cols;
        t.push("ingress_bytes", Column::U64(ingress))
            .push("egress_bytes", Column::U64(egress))
            .push("in_rxmit_bytes", Column::U64(in_rx))
            .push("out_rxmit_bytes", Column::U64(out_rx))
            .push("in_ce_bytes", Column::U64(in_ce))
            .push("connections", Column::U64(conns));
        t
    }
}
