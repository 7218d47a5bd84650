//! Admission to a port of a switch with a shared buffer ([`crate::net::buffer`], whose
//! module comment states the rule that keeps it exact under lazy catch-up).

use super::world::{port_at, World};
use crate::des::{Event, EventKind};
use crate::ids::PortId;
use crate::net::queue::{Admission, Backlog};
use crate::packet::PacketRef;
use crate::units::Time;

impl World {
    /// Offers packet `r` to `port`'s queue under its switch's Dynamic Threshold; `idle`: the
    /// port is caught up to `now` and its transmitter free (the packet passes through).
    /// The port itself has been caught up to `now` by `enqueue`.
    #[inline(never)]
    pub(super) fn admit_shared(&mut self, port: PortId, r: PacketRef, idle: bool, now: Time) -> Admission {
        let sb = self.shared.as_mut().expect("shared buffers");
        let room = match sb.buffer_of(port) {
            None => Backlog::UNBOUNDED,
            Some(b) => {
                let q = sb.level(port_at(&mut self.ports, port).queue.backlog);
                sb.count(b, port, q);
                let pkt = sb.packet(self.pool.get(r).wire_bytes as u64);
                let mut room = sb.room(b, q);
                if q + pkt > room || sb.always_exact {
                    self.catch_up_switch(b, now);
                    room = self.shared.as_ref().expect("shared buffers").room(b, q);
                }
                self.shared.as_ref().expect("shared buffers").as_backlog(room)
            }
        };
        let p = port_at(&mut self.ports, port);
        let admission = if idle {
            p.queue.pass_through_within(&mut self.pool, r, now, room)
        } else {
            p.queue.enqueue_within(&mut self.pool, r, now, room)
        };
        let sb = self.shared.as_mut().expect("shared buffers");
        if let Some(b) = sb.buffer_of(port) {
            // Whatever became of the packet (queued, passed through, trimmed, dropped), the
            // port's share is its data backlog.
            let level = sb.level(p.queue.backlog);
            sb.count(b, port, level);
            if let Some(period) = sb.update() {
                if admission != Admission::Dropped && sb.admitted(b, port, now) {
                    self.sched.at(now + period, Event::new(EventKind::BufferTick, b));
                }
            }
        }
        admission
    }

    /// The periodic variant's recomputation of buffer `b`'s threshold, on exact counts.
    pub(super) fn buffer_tick(&mut self, b: u32) {
        let now = self.sched.now();
        self.catch_up_switch(b, now);
        let sb = self.shared.as_mut().expect("shared buffers");
        if sb.recompute(b, now) {
            let period = sb.update().expect("periodic buffer");
            self.sched.at(now + period, Event::new(EventKind::BufferTick, b));
        }
    }

    /// Starts, on every port of buffer `b`, the packets due before `now`, and counts each
    /// port's backlog afresh: the buffer's occupancy is then exact for an arrival at `now`.
    fn catch_up_switch(&mut self, b: u32, now: Time) {
        let mut i = 0;
        while let Some(port) = self.shared.as_ref().and_then(|sb| sb.member(b, i)) {
            if port_at(&mut self.ports, port).busy_until <= now {
                self.catch_up_free::<true>(port, now);
            }
            let backlog = port_at(&mut self.ports, port).queue.backlog;
            let sb = self.shared.as_mut().expect("shared buffers");
            let level = sb.level(backlog);
            sb.count(b, port, level);
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::packet::Packet;

    /// A switch with four hosts, 10 Gb/s (1500 B in 1.2 us), a buffer of 10 packets at
    /// alpha = 1 and ports of 1000 (never the binding limit); its ports to the first two
    /// hosts.
    fn star() -> (World, PortId, PortId) {
        let (w, ports) = star_with("");
        (w, ports[0], ports[1])
    }

    /// The star with `extra` appended to its `[switch.buffer]`; its ports to hosts 0-2.
    fn star_with(extra: &str) -> (World, [PortId; 3]) {
        let toml = r#"
[topology]
kind = "star"
senders = 3
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "1000pkt"
[switch.buffer]
kind = "dynamic_threshold"
size = "10pkt"
EXTRA
[[workload]]
kind = "incast"
degree = 2
bytes_per_sender = "1KB"
start = "1s"
"#
        .replace("EXTRA", extra);
        let spec = crate::parse_scenario(&toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"));
        let world = super::super::build::build(&spec).unwrap();
        let to = |h: u32| {
            let node = world.topo.hosts[h as usize];
            world.topo.ports().find(|(_, p)| p.to == node).unwrap().0
        };
        let ports = [to(0), to(1), to(2)];
        (world, ports)
    }

    /// Offers `n` full-size packets to `port` at the current time; returns how many the
    /// port dropped.
    fn offer(w: &mut World, port: PortId, dst: u32, n: u64) -> u64 {
        let before = w.ports[port.idx()].queue.counters.dropped_pkts;
        for _ in 0..n {
            let r = w.pool.alloc(Packet { wire_bytes: 1500, dst: HostId(dst), ..Default::default() });
            w.enqueue(port, r);
        }
        w.ports[port.idx()].queue.counters.dropped_pkts - before
    }

    fn waiting(w: &World, port: PortId) -> u64 {
        w.ports[port.idx()].queue.backlog.pkts
    }

    #[test]
    fn two_ports_share_ten_packets_at_alpha_one() {
        let (mut w, a, b) = star();
        // Port A: the first packet starts at once (it never waits); then q_A may reach
        // q with q <= 10 - q: 5 wait, the 7th packet finds T = 5 and is dropped.
        assert_eq!(offer(&mut w, a, 0, 7), 1);
        assert_eq!(waiting(&w, a), 5);
        // Port B: one starts, then q_B + 1 <= 10 - 5 - q_B while q_B <= 2: three wait,
        // and the fifth finds q_B = 3, T = 2 and is dropped.
        assert_eq!(offer(&mut w, b, 1, 5), 1);
        assert_eq!(waiting(&w, b), 3);
        // A's threshold fell to 2, below its 5 waiting: everything for A is dropped.
        assert_eq!(offer(&mut w, a, 0, 1), 1);
        assert_eq!(w.shared.as_ref().unwrap().occupied(0), 8);
        // At 3.6 us each port has started two more (at 1.2 and 2.4 us; the one due at
        // 3.6 us waits: an arrival comes first). B's own count is exact (B: 1), A's is
        // stale (5, really 3). B takes two on the stale sum (T = 4, then 3); the third
        // would be refused on it (q_B = 3, T = 2) but the switch catches A up: the
        // exact sum is 6, T = 4, and it is admitted; the fourth finds T = 3 and drops.
        w.sched.advance_to(3_600_000);
        assert_eq!(offer(&mut w, b, 1, 4), 1);
        assert_eq!((waiting(&w, a), waiting(&w, b)), (3, 4));
        assert_eq!(w.shared.as_ref().unwrap().occupied(0), 7);
        let dropped = |p: PortId| w.ports[p.idx()].queue.counters.dropped_pkts;
        assert_eq!((dropped(a), dropped(b)), (2, 2));
    }

    /// The periodic variant (alpha 2, B = 10 packets, recomputed every 3 us) by hand.
    #[test]
    fn periodic_threshold_counts_the_active_ports() {
        let (mut w, [a, b, c]) = star_with("alpha = 2.0\nupdate = \"3us\"");
        let threshold = |w: &World| w.shared.as_ref().unwrap().room(0, 0);
        // Before any recomputation T = 2B = 20: only the free space binds. A takes 7 (one
        // starts, six wait); B at 1 us takes 2 (one starts, one waits).
        assert_eq!(offer(&mut w, a, 0, 7), 0);
        w.sched.advance_to(1_000_000);
        assert_eq!(offer(&mut w, b, 1, 2), 0);
        assert_eq!((waiting(&w, a), waiting(&w, b)), (6, 1));
        // At 3 us: A has started two more (1.2, 2.4 us): 4 wait; B's second started at 2.2.
        // Both admitted within 3 us: T = 2 x (10 - 0) / (1 + 2 x 2) = 4.
        w.sched.advance_to(3_000_000);
        w.buffer_tick(0);
        assert_eq!((waiting(&w, a), waiting(&w, b), threshold(&w)), (4, 0, 4));
        // A holds 4 = T: refused. C starts one and queues up to T = 4: the sixth is refused.
        assert_eq!(offer(&mut w, a, 0, 1), 1);
        assert_eq!(offer(&mut w, c, 2, 6), 1);
        // At 6 us only C is active (it admitted at 3 us; A's refused packet does not count).
        // A waits 2 (starts at 3.6, 4.8; the one due at 6.0 has not started), B 0, C 2:
        // T = 2 x (10 - 2 - 0) / (1 + 2) = 5.33, so A may hold 5 again: three of four.
        w.sched.advance_to(6_000_000);
        w.buffer_tick(0);
        assert_eq!((waiting(&w, a), waiting(&w, c), threshold(&w)), (2, 2, 5));
        assert_eq!(offer(&mut w, a, 0, 4), 1);
        // At 9 us A (6 us) is active, C (3 us) not: C's last 2 waiting have gone (6.6, 7.8),
        // so T = 2 x 10 / 3 = 6; at 13 us nobody has admitted for 3 us: T = 2 x (10 - 0)
        // = 20 and the recomputations stop until the next admission.
        w.sched.advance_to(9_000_000);
        w.buffer_tick(0);
        assert_eq!(threshold(&w), 6);
        w.sched.advance_to(13_000_000);
        w.buffer_tick(0);
        assert!(!w.shared.as_mut().unwrap().recompute(0, 13_000_000), "no port is active");
        assert_eq!(threshold(&w), 10, "the free space (10) binds below T = 20");
    }

    /// The stale-sum shortcut is only a shortcut: a leaf-spine with several incasts and a
    /// permutation under a tight shared buffer (drops, trims, many stale decisions) gives
    /// the same tables when every decision catches the switch up first.
    #[test]
    fn admitting_on_the_stale_sum_changes_nothing() {
        let toml = r#"seed = 4
[topology]
kind = "leaf_spine"
leaves = 3
spines = 2
hosts_per_leaf = 6
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "1MB"
trim = true
marking = { kind = "step", threshold = "20KB" }
[switch.buffer]
kind = "dynamic_threshold"
alpha = 2.0
per_port = "12KB"
[transport]
min_rto = "1ms"
[[workload]]
kind = "incast"
receiver = "h0"
senders = "all"
pick = "random"
degree = 12
bytes_per_sender = "60KB"
count = 3
period = "300us"
[[workload]]
kind = "permutation"
bytes = "300KB"
[record]
flows = true
"#;
        let spec = crate::parse_scenario(toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"));
        let run = |exact: bool| {
            let mut sim = super::super::Simulation::new(&spec).unwrap();
            sim.whole_mut().shared.as_mut().unwrap().always_exact = exact;
            sim.run();
            let mut r = sim.finish();
            r.summary.retain(|(k, _)| k != "wall_s");
            r
        };
        let lazy = run(false);
        let sum = |col: &str| match lazy.table("ports").unwrap().column(col).unwrap() {
            crate::metrics::table::Column::U64(v) => v.iter().sum::<u64>(),
            c => panic!("{c:?}"),
        };
        assert!(sum("trimmed_pkts") > 100, "the buffer refused {} packets", sum("trimmed_pkts"));
        assert!(run(true) == lazy, "deciding on the stale sum changed a result");
    }
}
