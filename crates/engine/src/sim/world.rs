//! The world and its run loop. Every handler is a method here so the compiler can inline
//! the whole per-packet path into one `match` (un-inlined handlers cost 1.5-2x).

use super::flow::IncastRecord;
use super::hops::HOST_HOP;
use super::prefetch::{prefetch, Prefetching};
use crate::des::{Event, EventKind, Schedule};
use crate::ids::{FlowId, HostId, PortId};
use crate::metrics::{HostCounters, QueueEvents, QueueSeries, RateSeries, WindowSeries};
use crate::net::queue::Admission;
use crate::net::PortState;
use crate::packet::{flags, Packet, PacketKind, PacketPool, PacketRef, NIL};
use crate::routing::select::HostDraws;
use crate::routing::{Fib, Routes};
use crate::topology::Topology;
use crate::transport::TransportConfig;
use crate::units::Time;
use crate::routing::LoadBalancing;
use crate::scenario::MeasureWindow;

/// A port by id. Port ids come only from the topology and the routing tables, both built
/// for this world, so they are in range (checked in debug builds). Free functions, so the
/// borrow is of the port table alone.
#[inline(always)]
pub(super) fn port_at(ports: &mut [PortState], port: PortId) -> &mut PortState {
    debug_assert!(port.idx() < ports.len());
    // SAFETY: see above.
    unsafe { ports.get_unchecked_mut(port.idx()) }
}

/// Prefetching pays only when what the run touches outgrows the core's L2 cache (512 KiB
/// per core where this was tuned, 2 MiB on today's machines: not measured again there);
/// below that its hints are only instructions: a tenth of a 64-to-1 incast's.
/// (`World::prefetch_above_bytes` starts here.)
pub(super) const PREFETCH_ABOVE_BYTES: usize = 256 << 10;

pub(super) const NOT_A_HOST: u32 = u32::MAX;
/// `node_host` of a node another partition runs, at the far end of a link leaving this
/// one: no arrival there runs here (see `partition.rs`), and a route there is chosen here
/// only from a `Fib`.
pub(super) const REMOTE: u32 = u32::MAX - 1;
/// `port_host` of a port whose link leads to another partition (such a link joins two
/// switches, so the port is no NIC).
pub(super) const LEAVES: u32 = u32::MAX - 1;
/// The `Sample` event's index for per-connection rates (0: queue depths).
pub(super) const RATE_SAMPLE: u32 = 1;
/// The `Arrival` event's index for a look at whether a `[measure]` run is over (other
/// indices: a Poisson workload's next arrival).
pub(super) const MEASURE_CHECK: u32 = u32::MAX;

/// The event kinds whose index is a flow's stable id.
fn names_flow(kind: EventKind) -> bool {
    use EventKind::*;
    matches!(kind, FlowStart | Rto | DelayedAck | Request | Respond | Pace | PacketRto | Wake | EcWait)
}

pub struct World {
    pub sched: Schedule,
    pub pool: PacketPool,
    pub topo: Topology,
    /// Boxed: the run loop reads it only off its common path, and inline it would move the
    /// fields after it (the class-based tables are 300 bytes), which changed the loop's code.
    pub routes: Box<Routes>,
    /// The switches' compact forwarding tables (`None`: too many groups; use `routes`).
    pub fib: Option<Fib>,
    /// The hosts' own random streams for the entropies a flow's selector draws per packet
    /// (spraying's; empty unless flows spray).
    pub host_draws: HostDraws,
    pub ports: Vec<PortState>,
    /// Per node: its host number, or `NOT_A_HOST` for a switch.
    pub node_host: Vec<u32>,
    /// Per port: the host whose NIC it is, `LEAVES` in a partition, or `NOT_A_HOST`.
    pub port_host: Vec<u32>,
    /// Per host: its NIC (first egress port).
    pub host_nic: Vec<PortId>,
    /// Whether some host has several links: then a packet's NIC is chosen by `Routes`
    /// (the ECMP rule), else it is `host_nic`.
    pub multi_homed: bool,
    /// Static routes: (src, dst, the destination column packets from src to dst carry).
    pub pinned: Vec<(HostId, HostId, HostId)>,
    pub flows: super::flow_table::FlowTable,
    pub transport: TransportConfig,
    /// The scenario's path-selection scheme: each flow gets its own selector of it.
    pub load_balancing: LoadBalancing,
    /// Base RTT of flows inside a datacenter and of flows across (the class references).
    pub class_rtt: (Time, Time),
    pub incasts: Vec<IncastRecord>,
    pub poisson: Vec<super::arrivals::PoissonRun>,
    pub queue_series: Option<QueueSeries>,
    pub host_counters: Option<HostCounters>,
    /// A transmission on a NIC does something (host counters, first-switch stamps), or on
    /// a link leaving the partition.
    pub nic_work: bool,
    pub queue_events: Option<QueueEvents>,
    pub windows: Option<WindowSeries>,
    /// Request/response incasts, in workload order.
    pub rpcs: Vec<super::rpc::RpcRun>,
    pub rate_series: Option<RateSeries>,
    pub seed: u64,
    pub duration: Option<Time>,
    pub max_duration: Time,
    pub active_flows: u64,
    pub pending_starts: u64,
    pub pending_arrivals: u64,
    pub injected_bytes: u64,
    pub delivered_bytes: u64,
    pub dropped_bytes: u64,
    pub packet_hops: u64,
    /// Whether the `flows` table is produced.
    pub record_flows: bool,
    /// `[record] flows = "stream"` in a scenario whose flows nothing names after they end:
    /// a finished flow is retired (its row kept, its slot freed) once idle.
    pub retire: bool,
    pub retired: super::flow_rows::Retired,
    /// Nothing is left to do: no active flow, no start or arrival pending. The run then
    /// only drains packets still in the network (and stale timers, which do nothing).
    pub done: bool,
    /// The last packet arrival: where a drained run ends.
    pub last_activity: Time,
    /// Some flow is routed through a streamlined proxy: a delivery may then be a relay's,
    /// not the receiving host's (`intercepted`), one test on the path of every delivery.
    pub has_relays: bool,
    /// This world is one partition of a parallel run (`None`: the whole run).
    pub(super) partition: Option<Box<super::partition::Side>>,
    /// NACKs a streamlined proxy made from headers trimmed before it.
    pub proxy_nacks: u64,
    /// Each naive proxy's onward connections, served in turn (`Flow::turns` indexes it).
    pub proxy_turns: Vec<crate::proxy::Turns>,
    /// Above how many bytes of packets, ports and flows the run loop prefetches
    /// (`PREFETCH_ABOVE_BYTES`; a field so tests can show it never changes a result).
    pub(super) prefetch_above_bytes: usize,
    /// Above how many bytes the run loop prefetches further ahead (`prefetch::FAR_LEAD`; a
    /// field so tests can show it never changes a result).
    pub(super) far_lead_above_bytes: usize,
    /// TCP Small Queues at the hosts (`None`: off).
    pub tsq: Option<crate::transport::TsqConfig>,
    /// An ACK's SACK blocks beyond the first, by packet slot (the packet has room for one),
    /// under the models that send more than one: grown only for an ACK with a second
    /// block, and past its end a row reads as empty (`World::keep_extra_sacks`).
    pub sack_extra: Vec<crate::transport::ExtraSacks>,
    /// `[measure]`: the window of measured starts, and the measured flows not finished yet
    /// (created, whether started or not).
    pub measure: Option<MeasureWindow>,
    pub measured_open: u64,
    /// A receiver-side policy (ICTCP) setting the windows ACKs advertise (`None`: off).
    pub receiver_policy: Option<crate::transport::Policy>,
    /// `[switch.buffer]`: each switch's shared buffer (`None`: ports hold only their own
    /// limits).
    pub shared: Option<crate::net::buffer::SharedBuffers>,
    /// An arrival at a port is traced or meets a shared buffer (`admit_hooked`).
    pub enqueue_hooks: bool,
}

impl World {
    /// Runs events up to `limit`; true when the run is over.
    pub fn run_until(&mut self, limit: Time) -> bool {
        let end = self.duration.unwrap_or(self.max_duration);
        let stop = limit.min(end);
        self.run_events(stop);
        // A streaming run stopped to hand out its retired flows' rows.
        if self.retired.ready {
            return false;
        }
        if self.sched.is_empty() || stop >= end {
            self.catch_up_all();
            self.sched.advance_to(if self.sched.is_empty() { self.sched.now() } else { end });
            return true;
        }
        self.sched.advance_to(stop);
        false
    }

    /// Runs every event due by `stop` (inclusive); the clock stays at the last one.
    #[inline(always)]
    pub(super) fn run_events(&mut self, stop: Time) {
        // No prefetching while the pool is small (it only grows, while the network fills
        // up), then packets, and ports too if they and the flows are cold on their own.
        let Prefetching { packets_above, ports_cold, far } = self.cold_working_set();
        // The far loop's peeks read the calendar's padding unclamped (`World::ahead`).
        self.sched.set_far_padding(far);
        // Routes are computed rather than read when the tables would not stay in cache.
        if let Some(fib) = &mut self.fib {
            fib.compute(far);
        }
        while self.pool.slots() <= packets_above && !self.retired.ready {
            let Some(ev) = self.sched.pop_until(stop) else { break };
            self.dispatch(ev);
        }
        if far {
            self.run_far(stop, ports_cold);
        } else {
            self.run_prefetching::<false>(stop, ports_cold);
        }
    }

    /// Arrivals (nearly every event) are told apart with one test, before the full match.
    #[inline(always)]
    pub(super) fn dispatch(&mut self, ev: Event) {
        if ev.is_arrival() {
            self.arrive(PortId(ev.port()), ev.index());
        } else {
            self.dispatch_timer(ev);
        }
    }

    /// Timers, starts and sampling: rare, so kept out of the inlined arrival loop.
    #[inline(never)]
    fn dispatch_timer(&mut self, ev: Event) {
        // A flow's events carry its stable id (they may outlive it): its slot, if it is
        // still there. A retired flow's timers fire into nothing, as on the finished flow.
        // Without retirement the id is the slot.
        let f = match self.retire && names_flow(ev.kind()) {
            true => match self.flows.live_slot(ev.index()) {
                Some(slot) => slot,
                None => return,
            },
            false => FlowId(ev.index()),
        };
        match ev.kind() {
            EventKind::Arrive => unreachable!("arrivals are dispatched before timers"),
            EventKind::FlowStart => self.flow_start(f),
            EventKind::Rto => self.rto_fired(f, ev),
            EventKind::DelayedAck => self.delayed_ack_fired(f, ev),
            EventKind::Arrival if ev.index() == MEASURE_CHECK => self.measure_check(),
            EventKind::Arrival => self.poisson_arrival(ev.index() as usize),
            EventKind::Sample if ev.index() == RATE_SAMPLE => self.sample_rates(),
            EventKind::Sample => self.sample_queues(),
            EventKind::Burst => self.rpc_burst(ev.index() as usize),
            EventKind::Request => self.rpc_request(f),
            EventKind::Respond => self.rpc_respond(f),
            EventKind::SampleWindows => self.sample_windows(),
            EventKind::Pace => self.pace_fired(f),
            EventKind::PacketRto => self.packet_rto_fired(f),
            EventKind::ProxyTurn => self.proxy_turn_fired(ev.index()),
            EventKind::Wake => self.wake_fired(f),
            EventKind::BufferTick => self.buffer_tick(ev.index()),
            EventKind::EcWait => self.ec_wait_fired(f, ev),
        }
    }

    // ---- links and queues -------------------------------------------------------------

    /// Offers a packet to a port's queue and starts it at once if the port is idle.
    ///
    /// Same-picosecond ties: a packet arriving at the instant the transmitter finishes one
    /// is admitted **before** the next queued packet starts (it still counts in the
    /// backlog that the arrival sees). ns-3 and htsim order them so, because the arrival's
    /// event was scheduled when it left the upstream port, before the departure's; the
    /// departure is left to the next look at the port (start times are exact either way).
    /// In a symmetric incast the first sender's packets arrive exactly on the bottleneck's
    /// departure grid, so this tie decides which packet a full queue drops.
    ///
    /// Under a shared buffer (`[switch.buffer]`) the same tie holds on every port of the
    /// switch: a decision the stale occupancy cannot make catches all of them up to `now`
    /// first (`admit_shared`; the rule is stated in [`crate::net::buffer`]).
    #[inline(always)]
    pub(super) fn enqueue(&mut self, port: PortId, r: PacketRef) {
        let now = self.sched.now();
        // `catch_up` with its tests shared: a busy port has nothing to catch up and is not
        // idle; a free one with an empty queue is idle.
        let p = port_at(&mut self.ports, port);
        let idle = if p.busy_until > now {
            false
        } else if p.queue.is_empty() {
            true
        } else {
            self.catch_up_free::<true>(port, now);
            let p = port_at(&mut self.ports, port);
            p.queue.is_empty() && p.busy_until <= now
        };
        // One test for the rare extras (tracing, a shared buffer), none for each of them.
        let admission = if self.enqueue_hooks { self.admit_hooked(port, r, idle, now) } else { self.admit(port, r, idle, now) };
        match admission {
            Admission::Dropped => {
                let pkt = self.pool.get(r);
                self.dropped_bytes += pkt.wire_bytes as u64;
                let f = pkt.flow;
                self.pool.free(r);
                self.left_network(f);
            }
            Admission::Queued if idle => {
                let was_empty = port_at(&mut self.ports, port).wire.is_empty();
                let (at, hop) = self.transmit(port, r, now);
                if was_empty {
                    self.sched.at(at, Event::arrival(port.0, hop));
                }
            }
            Admission::Queued => self.trace_queue(port, now),
            Admission::Trimmed => self.trimmed(port),
        }
    }

    /// The port's own admission: `idle`, the packet passes through to the transmitter.
    #[inline(always)]
    fn admit(&mut self, port: PortId, r: PacketRef, idle: bool, now: Time) -> Admission {
        let p = port_at(&mut self.ports, port);
        if idle {
            p.queue.pass_through(&mut self.pool, r, now)
        } else {
            p.queue.enqueue(&mut self.pool, r, now)
        }
    }

    /// `admit` with the arrival traced (`[record] queue_events`) and under the switch's
    /// shared buffer (`[switch.buffer]`), whichever are on.
    #[inline(never)]
    fn admit_hooked(&mut self, port: PortId, r: PacketRef, idle: bool, now: Time) -> Admission {
        if self.queue_events.is_some() {
            self.trace_arrival(port, idle);
        }
        if self.shared.is_some() {
            return self.admit_shared(port, r, idle, now);
        }
        self.admit(port, r, idle, now)
    }

    /// A trimmed packet's cut-off bytes count as dropped. Out of line: rare, and off the
    /// hot path of every other packet.
    #[cold]
    #[inline(never)]
    fn trimmed(&mut self, port: PortId) {
        self.dropped_bytes += port_at(&mut self.ports, port).queue.last_trim_cut_bytes();
    }

    /// Records a queue-length change on a traced port (a no-op unless `queue_events` is on).
    #[inline(always)]
    fn trace_queue(&mut self, port: PortId, at: Time) {
        if let Some(qe) = &mut self.queue_events {
            qe.observe(at, port, port_at(&mut self.ports, port).queue.disc_backlog().pkts);
        }
    }

    /// Counts what an arriving packet finds ahead of it on a traced port (nothing at an
    /// idle one; else the queue, not the packet on the wire).
    #[inline(never)]
    fn trace_arrival(&mut self, port: PortId, idle: bool) {
        let ahead = if idle { 0 } else { port_at(&mut self.ports, port).queue.disc_backlog().pkts };
        if let Some(qe) = &mut self.queue_events {
            qe.arrival(port, ahead);
        }
    }

    /// Starts every queued packet whose turn came by `now`, each at the instant the previous
    /// one finished, and schedules the port's arrival event if its wire was empty.
    #[inline(always)]
    pub(super) fn catch_up(&mut self, port: PortId, now: Time) {
        if port_at(&mut self.ports, port).busy_until > now {
            return;
        }
        self.catch_up_free::<false>(port, now);
    }

    /// `catch_up` for a port whose transmitter is free by `now` (its wire just emptied, or
    /// an enqueue found it so). `BEFORE`: only packets due to start before `now` (a look
    /// that must not put a departure at `now` ahead of an arrival at `now`; see `enqueue`).
    #[inline(always)]
    pub(super) fn catch_up_free<const BEFORE: bool>(&mut self, port: PortId, now: Time) {
        let p = port_at(&mut self.ports, port);
        debug_assert!(p.busy_until <= now);
        if p.queue.is_empty() || (BEFORE && p.busy_until == now) {
            return;
        }
        // The first packet started on an empty wire gets the port's arrival event (nothing
        // else here schedules one, so it may be scheduled before the others start).
        let wire_was_empty = p.wire.is_empty();
        let Some((at, hop)) = self.start_next(port) else { return };
        if wire_was_empty {
            self.sched.at(at, Event::arrival(port.0, hop));
        }
        loop {
            let until = port_at(&mut self.ports, port).busy_until;
            if until > now || (BEFORE && until == now) || self.start_next(port).is_none() {
                break;
            }
        }
    }

    /// Starts the port's next queued packet when the previous one ends; returns its arrival
    /// time and the port the far switch forwards it on.
    #[inline(always)]
    fn start_next(&mut self, port: PortId) -> Option<(Time, u32)> {
        let p = port_at(&mut self.ports, port);
        let start = p.busy_until;
        let r = p.queue.dequeue(&mut self.pool, start)?;
        // The packet behind it leaves next; its line is usually cold by then.
        if let Some(next) = p.queue.head() {
            prefetch(self.pool.slot_ptr(next));
        }
        let started = self.transmit(port, r, start);
        self.trace_queue(port, start);
        Some(started)
    }

    /// Serializes packet `r` on `port` from `start` and puts it on the wire; returns when it
    /// arrives and the port the far switch forwards it on. The packet ahead of it on the
    /// wire holds both (`arrive_at`, `next_hop`), so the next arrival's event is made
    /// without touching the next packet.
    #[inline(always)]
    fn transmit(&mut self, port: PortId, r: PacketRef, start: Time) -> (Time, u32) {
        let p = port_at(&mut self.ports, port);
        let bytes = self.pool.get(r).wire_bytes as u64;
        let end = start + p.ser_time(bytes);
        let at = end + p.delay_ps;
        p.busy_until = end;
        let (node, tail) = (p.to, p.wire.tail);
        let hop = self.route_ahead(node, r);
        if tail != NIL {
            let ahead = self.pool.get_mut(tail);
            (ahead.arrive_at, ahead.next_hop) = (at, hop);
        }
        port_at(&mut self.ports, port).wire.push(&mut self.pool, r);
        // Only host counters, first-switch stamps and partitions care whether this is a
        // NIC (or leaves the partition): test them first, and the per-port host table stays
        // out of the cache; then a switch's port, most of them, costs no call.
        if self.nic_work {
            let host = self.port_host[port.idx()];
            if host != NOT_A_HOST {
                self.nic_transmit(port, r, start, bytes, host, hop);
            }
        }
        (at, hop)
    }

    #[inline(never)]
    fn nic_transmit(&mut self, port: PortId, r: PacketRef, start: Time, bytes: u64, host: u32, hop: u32) {
        if host == LEAVES {
            self.leave_partition(port, r, hop);
            return;
        }
        if let Some(hc) = &mut self.host_counters {
            hc.egress(HostId(host), start, bytes, self.pool.get(r).has(flags::RETX));
        }
        if self.transport.stamp_at_first_switch {
            self.stamp_at_first_switch(r, start);
        }
    }

    /// The head of `port`'s wire arrives at its far end, which (a switch) forwards it on
    /// `hop`, chosen when it started, or which is the host `hop` names (`HOST_HOP`).
    #[inline(always)]
    fn arrive(&mut self, port: PortId, hop: u32) {
        let now = self.sched.now();
        let p = port_at(&mut self.ports, port);
        // The wire's head arrives. Popped by hand: whether the wire empties is one branch
        // here, not one in the pop and another for the next arrival.
        let r = p.wire.head;
        // A broken invariant must stop the run, not read outside the pool (one branch that
        // always goes the same way).
        assert!(r != NIL, "arrival on an empty wire");
        let pkt = self.pool.get(r);
        // A switch needs one field; copy the whole header only at a host.
        let bytes = pkt.wire_bytes as u64;
        let node = p.to;
        p.wire.head = pkt.next;
        if pkt.next != NIL {
            self.sched.at(pkt.arrive_at, Event::arrival(port.0, pkt.next_hop));
        } else {
            // Packets due to start wait for the next look at the port (an enqueue, a
            // sample, the end) while its wire is busy: the next arrival is scheduled, and
            // they start at the same instants whenever they are started. Only an empty
            // wire needs them now, to schedule its next arrival.
            p.wire.tail = NIL;
            // Its last packet has arrived, so it finished serializing before now.
            self.catch_up_free::<false>(port, now);
        }
        self.packet_hops += 1;
        self.last_activity = now;
        debug_assert_eq!(Self::host_of(hop), Some(self.node_host[node.idx()]).filter(|&h| h < HOST_HOP));
        let Some(host) = Self::host_of(hop) else {
            debug_assert_eq!(hop, {
                let pkt = self.pool.get(r);
                self.routes.select(node, pkt.dst, pkt.entropy).0
            });
            self.enqueue(PortId(hop), r);
            return;
        };
        self.delivered_bytes += bytes;
        let pkt = *self.pool.get(r);
        // Relays keep every flow, so their count is never read.
        if self.has_relays && self.intercepted(host, r, &pkt) {
            return;
        }
        // Wrapping: in a partitioned run a flow's packets leave in one world and arrive
        // in another (the count is exact, and read, only in a whole run that retires).
        self.flows[pkt.flow.idx()].packet_out();
        match pkt.kind {
            PacketKind::Data => self.on_data(HostId(host), r, &pkt),
            PacketKind::Ack => self.on_ack(r, &pkt),
            PacketKind::Control => self.on_control(r, &pkt),
            PacketKind::Nack => self.on_nack(r, &pkt),
            PacketKind::Degree => self.on_degree(r, &pkt),
            PacketKind::ParityNack => self.on_parity_nack(r, &pkt),
        }
        if self.retire {
            self.retire_if_done(pkt.flow);
        }
    }

    /// A packet of flow `f` was dropped: one fewer in the network.
    #[cold]
    #[inline(never)]
    fn left_network(&mut self, f: FlowId) {
        self.flows[f.idx()].packet_out();
        if self.retire {
            self.retire_if_done(f);
        }
    }

    /// A delivery that is not the host's own: at a relay, which forwards it.
    #[inline(never)]
    fn intercepted(&mut self, host: u32, r: PacketRef, pkt: &Packet) -> bool {
        if self.flows[pkt.flow.idx()].via.0 == host {
            self.relay(HostId(host), r, pkt);
            return true;
        }
        false
    }

    // ---- workloads and recording ------------------------------------------------------

    /// Whether a flow or incast starting at `t` is measured: in the `[measure]` window, or
    /// any time without one.
    pub fn measured(&self, t: Time) -> bool {
        self.measure.is_none_or(|m| m.contains(t))
    }

    /// Whether anything can still happen besides sampling.
    pub(super) fn has_work(&self) -> bool {
        self.active_flows > 0 || self.pending_starts > 0 || self.pending_arrivals > 0
    }

    /// When the run ended: the last packet arrival once everything finished (stale timers
    /// left in the schedule do not stretch it), otherwise the clock.
    pub fn end_time(&self) -> Time {
        if self.done {
            self.last_activity
        } else {
            self.sched.now()
        }
    }

    /// Brings every port's departures up to now (counters are exact at the end of a run).
    pub(super) fn catch_up_all(&mut self) {
        let now = self.sched.now();
        for p in 0..self.ports.len() {
            self.catch_up(PortId::from(p), now);
        }
    }
}
