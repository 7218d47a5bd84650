//! The control queue beside a port's data queue, and packet trimming into it.
//!
//! Header-only packets (ACKs, NACKs, trimmed data) wait here instead of behind data. When
//! trimming is on, a data packet that would overflow the data queue is cut to a header,
//! flagged [`flags::TRIMMED`] and queued here (htsim's `CompositeQueue`), so the receiver
//! learns of the loss within one RTT. The control queue has its own limit and drops beyond
//! it. Service between the two is strict priority or htsim's weighted round-robin turn
//! counter (`high:1`).

use super::Backlog;
use crate::packet::{flags, Fifo, Packet, PacketKind, PacketPool, PacketRef};
use crate::units::Size;

/// How the transmitter chooses between the control and the data queue when both wait.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Service {
    /// Control first, always (the HotNets '25 setup).
    Strict,
    /// `high` control packets per data packet, as htsim's turn counter (Uno: 20:1).
    Wrr { high: u32 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ControlConfig {
    pub limit: Size,
    pub service: Service,
    /// Wire bytes a trimmed packet keeps; `None`: no trimming (the queue only carries ACKs
    /// and NACKs ahead of data).
    pub trim_header_bytes: Option<u32>,
}

/// Counters of the control queue (monotone).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ControlCounters {
    /// Data packets cut to a header, and their wire bytes before the cut.
    pub trimmed_pkts: u64,
    pub trimmed_bytes: u64,
}

pub struct ControlQueue {
    fifo: Fifo,
    pub backlog: Backlog,
    limit: Size,
    service: Service,
    trim_header_bytes: Option<u32>,
    /// htsim's `_crt`: advances once per choice made while both queues wait.
    turn: u32,
    pub counters: ControlCounters,
    /// Wire bytes the last trim cut off.
    pub last_cut_bytes: u64,
}

/// Whether a packet belongs in the control queue: it carries no payload.
#[inline(always)]
pub fn header_only(p: &Packet) -> bool {
    p.kind != PacketKind::Data || p.has(flags::TRIMMED)
}

impl ControlQueue {
    pub fn new(cfg: &ControlConfig) -> Self {
        ControlQueue {
            fifo: Fifo::default(),
            backlog: Backlog::default(),
            limit: cfg.limit,
            service: cfg.service,
            trim_header_bytes: cfg.trim_header_bytes,
            turn: 0,
            counters: ControlCounters::default(),
            last_cut_bytes: 0,
        }
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    pub fn trims(&self) -> bool {
        self.trim_header_bytes.is_some()
    }

    /// Whether a header of `size` bytes fits.
    fn fits(&self, size: u64) -> bool {
        match self.limit {
            Size::Bytes(b) => self.backlog.bytes + size <= b,
            Size::Packets(p) => self.backlog.pkts < p,
        }
    }

    /// Queues header-only packet `r`; false (the caller drops it) when the queue is full.
    #[inline]
    pub fn push(&mut self, pool: &mut PacketPool, r: PacketRef) -> bool {
        let size = pool.get(r).wire_bytes as u64;
        if !self.fits(size) {
            return false;
        }
        self.fifo.push(pool, r);
        self.backlog.bytes += size;
        self.backlog.pkts += 1;
        true
    }

    /// Cuts data packet `r` to a header and queues it. Returns the header's bytes, or `None`
    /// (packet untouched, to be dropped) when trimming is off or the header does not fit.
    #[cold]
    pub fn trim(&mut self, pool: &mut PacketPool, r: PacketRef) -> Option<u32> {
        let header = self.trim_header_bytes?;
        let pkt = pool.get(r);
        let before = pkt.wire_bytes;
        if before <= header || !self.fits(header as u64) {
            return None;
        }
        let pkt = pool.get_mut(r);
        pkt.wire_bytes = header;
        pkt.flags |= flags::TRIMMED;
        self.counters.trimmed_pkts += 1;
        self.counters.trimmed_bytes += before as u64;
        let queued = self.push(pool, r);
        debug_assert!(queued);
        self.last_cut_bytes = (before - header) as u64;
        Some(header)
    }

    /// Whether the next departure comes from this queue, given whether data waits too.
    #[inline]
    pub fn serve_next(&mut self, data_waiting: bool) -> bool {
        if self.fifo.is_empty() {
            return false;
        }
        if !data_waiting {
            return true;
        }
        match self.service {
            Service::Strict => true,
            Service::Wrr { high } => {
                self.turn += 1;
                if self.turn > high {
                    self.turn = 0;
                }
                self.turn < high
            }
        }
    }

    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PacketRef> {
        let r = self.fifo.pop(pool)?;
        self.backlog.bytes -= pool.get(r).wire_bytes as u64;
        self.backlog.pkts -= 1;
        Some(r)
    }

    pub fn packets<'a>(&self, pool: &'a PacketPool) -> impl Iterator<Item = PacketRef> + 'a {
        self.fifo.iter(pool)
    }
}
