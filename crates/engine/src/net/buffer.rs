//! A switch-wide shared buffer with Dynamic Threshold admission (Choudhury & Hahne, "Dynamic
//! Queue Length Thresholds for Shared-Memory Packet Switches", 1998).
//!
//! Every port of a switch draws on one buffer of `B` units. A packet of `pkt` units for
//! port `i` is admitted iff
//!
//! ```text
//! q_i + pkt <= T(t) = alpha * (B - sum_j q_j)    and    sum_j q_j + pkt <= B
//! ```
//!
//! where `q_j` is port `j`'s backlog (packets waiting, not the one being serialized, as the
//! per-port limit counts it). Both conditions bound `q_i` alone, so the switch hands the
//! port's queue a *room* (`min(floor(T), q_i + B - sum)`) and the queue refuses a packet
//! that does not fit in it exactly as it refuses one past its own limit: dropped, or
//! trimmed if the queue trims. The queue's own limit, marking and policies still apply.
//!
//! Units: the buffer counts bytes, or packets if its size is given in `pkt`.
//!
//! **Exactness under lazy catch-up.** Ports start queued packets lazily (see
//! [`crate::net::port`]): a sibling port's backlog may still hold packets whose turn has
//! come, so its count is stale, and only ever too high. Each port's share of the
//! occupancy (`counted`) is what its backlog was when the switch last looked at it. The
//! admission rule, at an arrival at `now` on port `i` of switch `S`:
//! 1. port `i` is caught up to `now` (as every enqueue does) and its count refreshed;
//! 2. the packet is tested against the stale sum. The test only gets easier as the sum
//!    falls, so a packet that passes would pass against the exact sum too;
//! 3. otherwise every port of `S` is caught up to `now` (departures due *before* `now`
//!    only: an arrival at `now` is admitted before a departure at `now`, on every port of
//!    the switch as on its own), every count is refreshed, and the exact sum decides.
//!
//! So the decision is always the one the exact occupancy gives, runs without a shared
//! buffer pay nothing, and a switch pays the walk over its ports only for packets the
//! stale test refuses.
//!
//! **The periodic variant** (`update`: the Superways authors' ns-3 shared-buffer module).
//! The threshold is not `alpha (B - sum)` at each packet but a value recomputed every
//! `update` while any port is active:
//!
//! ```text
//! T = alpha * (B - sum of the inactive ports' q_j) / (1 + alpha * active ports)
//! ```
//!
//! (Choudhury-Hahne's steady state for that many busy ports), where a port is active at a
//! recomputation if it admitted a packet at most `update` earlier. The first admission
//! into an idle buffer starts the recomputations `update` later; one that finds every
//! port inactive stops them. Until the first, T = 2B (no port limit). `sum q + pkt <= B`
//! still holds at every packet. A recomputation is an event that first catches every port
//! of the switch up, so the inactive ports' backlogs it reads are exact.

use crate::ids::PortId;
use crate::net::queue::Backlog;
use crate::units::{Size, Time};

/// `[switch.buffer]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BufferConfig {
    /// alpha_DT: how much of the free buffer one port may take.
    pub alpha: f64,
    pub size: BufferSize,
    /// None: the threshold follows every packet (Choudhury-Hahne). Some(period): it is
    /// recomputed every period from the active ports (the module comment).
    pub update: Option<Time>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSize {
    /// Every switch's buffer `B`.
    Total(Size),
    /// `B` = the switch's ports x this.
    PerPort(Size),
}

impl BufferSize {
    fn unit(self) -> Size {
        match self {
            BufferSize::Total(s) | BufferSize::PerPort(s) => s,
        }
    }

    /// `B` in units for a switch of `ports` ports.
    fn units(self, ports: u64) -> u64 {
        let raw = |s: Size| match s {
            Size::Bytes(b) | Size::Packets(b) => b,
        };
        match self {
            BufferSize::Total(s) => raw(s),
            BufferSize::PerPort(s) => raw(s).saturating_mul(ports),
        }
    }
}

/// Not a switch port with a shared buffer.
const NONE: u32 = u32::MAX;

/// A port that never admitted a packet (periodic variant).
const NEVER: Time = Time::MAX;

/// One switch's buffer.
#[derive(Clone, Debug)]
struct DynamicThreshold {
    alpha: f64,
    /// `B`, in units.
    size: u64,
    /// The sum of its ports' counts: at least the true occupancy.
    occupied: u64,
    /// Its ports: `members[first..first + ports]`.
    first: u32,
    ports: u32,
    /// Periodic variant: the threshold of the last recomputation, in units.
    threshold: f64,
    /// Periodic variant: a recomputation is scheduled.
    ticking: bool,
}

/// The shared buffers of every switch, and which port draws on which.
#[derive(Clone, Debug)]
pub struct SharedBuffers {
    /// Units are packets (else bytes).
    packets: bool,
    switches: Vec<DynamicThreshold>,
    /// Per port: its switch's buffer, or `NONE`.
    port_buffer: Vec<u32>,
    /// Per port: its backlog, in units, when the switch last looked at it.
    counted: Vec<u64>,
    members: Vec<PortId>,
    /// The periodic variant's period.
    update: Option<Time>,
    /// Periodic variant, per port: when it last admitted a packet (`NEVER`).
    last_admit: Vec<Time>,
    /// Tests only: catch the switch up before every decision (the slow path always).
    pub(crate) always_exact: bool,
}

impl SharedBuffers {
    /// `switches`: each switch's egress ports; `port_count`: all ports of the world.
    pub fn new(config: &BufferConfig, switches: &[Vec<PortId>], port_count: usize) -> Self {
        let mut sb = SharedBuffers {
            packets: matches!(config.size.unit(), Size::Packets(_)),
            switches: Vec::with_capacity(switches.len()),
            port_buffer: vec![NONE; port_count],
            counted: vec![0; port_count],
            members: Vec::new(),
            update: config.update,
            last_admit: if config.update.is_some() { vec![NEVER; port_count] } else { Vec::new() },
            always_exact: false,
        };
        for ports in switches {
            let id = sb.switches.len() as u32;
            let size = config.size.units(ports.len() as u64);
            sb.switches.push(DynamicThreshold {
                alpha: config.alpha,
                size,
                occupied: 0,
                first: sb.members.len() as u32,
                ports: ports.len() as u32,
                threshold: 2.0 * size as f64,
                ticking: false,
            });
            for &p in ports {
                sb.port_buffer[p.idx()] = id;
                sb.members.push(p);
            }
        }
        sb
    }

    /// The buffer port `port` draws on, if any.
    #[inline(always)]
    pub fn buffer_of(&self, port: PortId) -> Option<u32> {
        let b = self.port_buffer[port.idx()];
        (b != NONE).then_some(b)
    }

    /// Buffer `b`'s `i`-th port.
    pub fn member(&self, b: u32, i: u32) -> Option<PortId> {
        let s = &self.switches[b as usize];
        (i < s.ports).then(|| self.members[(s.first + i) as usize])
    }

    /// A backlog in the buffer's units.
    #[inline(always)]
    pub fn level(&self, backlog: Backlog) -> u64 {
        if self.packets { backlog.pkts } else { backlog.bytes }
    }

    /// A packet of `wire_bytes` in the buffer's units.
    #[inline(always)]
    pub fn packet(&self, wire_bytes: u64) -> u64 {
        if self.packets { 1 } else { wire_bytes }
    }

    /// Port `port` (of buffer `b`) now holds `level`.
    #[inline(always)]
    pub fn count(&mut self, b: u32, port: PortId, level: u64) {
        let counted = &mut self.counted[port.idx()];
        let s = &mut self.switches[b as usize];
        s.occupied = s.occupied - *counted + level;
        *counted = level;
    }

    /// The most port `i`, holding `q_i`, may hold after an arrival: the Dynamic Threshold
    /// (`floor(alpha * (B - sum))`, or the periodic variant's last value) and the buffer's
    /// free space `q_i + B - sum`, whichever is lower (both bound `q_i + pkt`).
    #[inline(always)]
    pub fn room(&self, b: u32, q_i: u64) -> u64 {
        let s = &self.switches[b as usize];
        let free = s.size.saturating_sub(s.occupied);
        let threshold = match self.update {
            None => s.alpha * free as f64,
            Some(_) => s.threshold,
        };
        // Exact for any buffer below 2^53 units; `as` saturates a huge product.
        (threshold.floor() as u64).min(q_i + free)
    }

    /// The periodic variant's period, if this is it.
    #[inline(always)]
    pub fn update(&self) -> Option<Time> {
        self.update
    }

    /// Periodic variant: port `port` of buffer `b` admitted a packet at `now`. True if this
    /// starts the buffer's recomputations (the caller schedules the first, one period on).
    pub fn admitted(&mut self, b: u32, port: PortId, now: Time) -> bool {
        self.last_admit[port.idx()] = now;
        let s = &mut self.switches[b as usize];
        !std::mem::replace(&mut s.ticking, true)
    }

    /// Periodic variant: recomputes buffer `b`'s threshold at `now` from its counts, which
    /// the caller has made exact. True if a port is still active (schedule the next).
    pub fn recompute(&mut self, b: u32, now: Time) -> bool {
        let period = self.update.expect("periodic buffer");
        let s = &self.switches[b as usize];
        let (mut active, mut inactive_units) = (0u64, 0u64);
        for &p in &self.members[s.first as usize..(s.first + s.ports) as usize] {
            let last = self.last_admit[p.idx()];
            if last != NEVER && now - last <= period {
                active += 1;
            } else {
                inactive_units += self.counted[p.idx()];
            }
        }
        let s = &mut self.switches[b as usize];
        let free_of_inactive = s.size.saturating_sub(inactive_units) as f64;
        s.threshold = s.alpha * free_of_inactive / (1.0 + s.alpha * active as f64);
        s.ticking = active > 0;
        s.ticking
    }

    /// A room in the buffer's units as a bound on a queue's backlog.
    #[inline(always)]
    pub fn as_backlog(&self, room: u64) -> Backlog {
        if self.packets { Backlog { bytes: u64::MAX, pkts: room } } else { Backlog { bytes: room, pkts: u64::MAX } }
    }

    /// The sum of buffer `b`'s counts (tests and invariants).
    pub fn occupied(&self, b: u32) -> u64 {
        self.switches[b as usize].occupied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_ports(alpha: f64, size: u64) -> SharedBuffers {
        let config = BufferConfig { alpha, size: BufferSize::Total(Size::Packets(size)), update: None };
        SharedBuffers::new(&config, &[vec![PortId(0), PortId(1)]], 3)
    }

    #[test]
    fn threshold_falls_as_the_buffer_fills() {
        let mut sb = two_ports(1.0, 10);
        assert_eq!(sb.buffer_of(PortId(2)), None);
        assert_eq!(sb.buffer_of(PortId(1)), Some(0));
        // Empty: T = 10, free = 10.
        assert_eq!(sb.room(0, 0), 10);
        // Port 0 holds 4: T = 1 * (10 - 4) = 6, so port 0 may reach 6, port 1 may reach 6.
        sb.count(0, PortId(0), 4);
        assert_eq!((sb.room(0, 4), sb.room(0, 0)), (6, 6));
        // Port 0 holds 5: T = 5, its next packet (5 + 1 > 5) is refused.
        sb.count(0, PortId(0), 5);
        assert_eq!(sb.room(0, 5), 5);
        // Port 1 takes 2: T = 3, below port 0's backlog.
        sb.count(0, PortId(1), 2);
        assert_eq!((sb.room(0, 5), sb.occupied(0)), (3, 7));
        // Counts replace, never add up: port 0 drains to 1.
        sb.count(0, PortId(0), 1);
        assert_eq!((sb.room(0, 1), sb.occupied(0)), (7, 3));
    }

    #[test]
    fn free_space_binds_when_alpha_is_large() {
        let mut sb = two_ports(8.0, 10);
        sb.count(0, PortId(1), 6);
        // T = 8 * 4 = 32, but only 4 units are free: port 0 may reach 0 + 4.
        assert_eq!(sb.room(0, 0), 4);
        // Per port: B = 2 ports x 5 units.
        let config = BufferConfig { alpha: 0.5, size: BufferSize::PerPort(Size::Bytes(5)), update: None };
        let sb = SharedBuffers::new(&config, &[vec![PortId(0), PortId(1)]], 2);
        assert_eq!((sb.room(0, 0), sb.as_backlog(5)), (5, Backlog { bytes: 5, pkts: u64::MAX }));
    }
}
