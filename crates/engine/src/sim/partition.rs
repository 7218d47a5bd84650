//! A run cut into partitions, one per datacenter of a `multi_dc` topology, or parts of whole
//! pods of a fat-tree when the scenario asks (`[partition]`, `topology::pod_cut`), that
//! advance in parallel with conservative synchronisation (issue 23).
//!
//! **Lookahead.** A packet started now on a link between two partitions arrives no sooner
//! than the link's delay later: the shortest such delay, `lookahead`, bounds how far one
//! partition may run ahead without hearing from the others. How the partitions advance on
//! it (windows, slack, epochs) is `pipeline.rs`.
//!
//! **Arrivals.** An open-loop Poisson workload does not depend on the network: every
//! partition draws the same arrivals from the same stream and adds the same flows (so ids
//! agree), and only the sender's partition starts each.
//!
//! **What each partition owns.** Each is a whole `World` built from the same scenario (so
//! flow, port and host ids agree) that runs only the events of its own nodes: arrivals at
//! its nodes, the senders of flows from its hosts (starts, timers, pacing), the receivers of
//! flows to them (delayed ACKs). A flow across datacenters is split: its sender half lives
//! in the source's world, its receiver half in the destination's; no field is written by
//! both. Counters and records are per partition and merged at the end (sums, maxima, each
//! flow's halves joined), so nothing is shared while the partitions run.
//!
//! **A link between partitions** (A to B) is run by A as a one-world run does up to the
//! wire: its queue and transmitter. Each packet A starts on it goes to B with its arrival
//! time and leaves A's pool at once; B keeps the wire and runs the arrival at its node. A
//! needs no arrival of its own there: in one world, the arrival that empties a wire starts
//! the packets due by then, but A looks at every busy leaving link at the end of each window
//! (`start_leaving`), and windows are shorter than the link's delay, so by the time the wire
//! would empty nothing is left due. (A copy of each arrival ran in A until stop 39: 7% more
//! events in Uno's Fig 10, each reading a packet line that had waited 886 us, and a slot
//! held on both sides of the WAN.) A's wire holds only a stub (`Side::stub`), so A's
//! transmitter never takes its wire for empty and schedules no arrival there.
//!
//! **Order.** Within a partition, events of one instant run in the order they were
//! scheduled, as in a one-world run. A packet entering B is scheduled there when B takes it
//! in, before one of its windows (`pipeline.rs`: after everything B ran before that
//! window), or, if an earlier packet of the same link is still on B's copy of the wire,
//! when that one arrives (as in a one-world run). Packets taken in together are scheduled
//! by source partition, window sent, then the order they started. Where a packet is taken
//! in depends on window numbers alone, so the run is the same for any number of threads.
//! Cut per datacenter, it differs from a one-world run only if an arrival across partitions
//! ties to the picosecond with an event of the receiving partition that was itself scheduled
//! more than 5/8 of the lookahead ahead (a timer) and the two touch the same state; no
//! catalog scenario has one (docs/performance.md). Cut by pod, with 1 us links, such ties
//! are common at the cores, so that run's tables are its own: the scenario asks for it, and
//! one thread runs the same parts in turn.

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use super::crossings::{Crossings, Mailbox};
use super::flow::Flow;
use super::flow_rows::Retired;
use super::grid::{Grid, DC_GRID, POD_GRID};
use super::prefetch::prefetch;
use super::world::{World, LEAVES, REMOTE};
use crate::des::{Event, EventKind};
use crate::ids::{FlowId, PortId};
use crate::packet::{Fifo, Packet, PacketKind, PacketRef, NIL};
use crate::topology::NO_DC;
use crate::transport::ExtraSacks;
use crate::units::Time;

/// Windows shorter than this cost more in synchronisation than their parts gain: a cut's
/// links between parts must be at least its grid's windows per lookahead times as long
/// (1 us per datacenter, 500 ns by pod). A k = 16 fat-tree cut by pod with 500 ns links
/// (windows of 125 ns) ran 1.4-1.8x faster than whole on two threads, as with 1 us links
/// (docs/performance.md, stop 44).
const MIN_WINDOW_PS: Time = 125_000;

/// How many crossings ahead `enter_all` prefetches.
const ENTER_AHEAD: usize = 4;

/// What a partition's world knows of the cut.
pub(super) struct Side {
    /// Per port: the partition it leads to if it runs here and leads to another, else
    /// `STAYS`.
    leads_to: Vec<u32>,
    /// The leaving ports that may have packets to start: each has started one since it was
    /// last found idle with nothing queued (only a busy port queues what reaches it).
    busy_leaving: Vec<PortId>,
    /// Per port: whether it is in `busy_leaving`.
    listed: Vec<bool>,
    /// Per destination partition: packets put on links to it since the end of the last
    /// window, in the order they started.
    outbox: Vec<Crossings>,
    /// The one slot of this partition's pool that every leaving link's wire holds: a packet
    /// starting there is linked behind it and taken off at once (`leave_partition`), so
    /// such a wire is never empty and gets no arrival events here.
    stub: PacketRef,
    /// This partition, and each host's.
    me: u32,
    part_of_host: Vec<u32>,
    /// Poisson arrivals drawn here that partition 0 draws too (counted once, there).
    pub(super) replicas: u64,
    /// When the earliest packet waiting on a link leaving the partition starts.
    pub(super) next_leaving: Option<Time>,
    /// Per window run: (window, events, thread CPU ns), for `Balance`.
    pub(super) log: Vec<(u64, u64, u64)>,
    /// Whether each window's CPU time is read (`Partitioned::time_windows`): two system
    /// calls a window, 5-7% of a fat-tree cut by pod in windows of 125 ns.
    timed: bool,
    /// A streaming run: the flows (by slot) whose senders here finished them since the last
    /// epoch's end, in order (`partition_stream.rs` retires them).
    pub(super) finished: Vec<FlowId>,
}

/// How a run is cut.
pub struct Plan {
    part_of_node: Vec<u32>,
    parts: usize,
    lookahead: Time,
    grid: Grid,
}

/// `Side::leads_to` of a port that does not leave the partition.
const STAYS: u32 = u32::MAX;

/// What a streaming cut run keeps between epochs (`partition_stream.rs`).
#[derive(Default)]
pub(super) struct Stream {
    /// Finished flows (by slot) some of whose packets were still in the network at the last
    /// epoch's end, oldest first.
    pub(super) waiting: Vec<FlowId>,
    /// Rows of the flows retired and not taken yet, and the totals of all.
    pub(super) retired: Retired,
}

impl Plan {
    /// The partition that runs node `n`.
    pub(super) fn part(&self, n: crate::ids::NodeId) -> usize {
        self.part_of_node[n.idx()] as usize
    }

    pub(super) fn sender_part(&self, w: &World, f: &Flow) -> usize {
        self.part_of_node[w.topo.hosts[f.src.idx()].idx()] as usize
    }

    pub(super) fn receiver_part(&self, w: &World, f: &Flow) -> usize {
        self.part_of_node[w.topo.hosts[f.dst.idx()].idx()] as usize
    }
}

/// One partition per datacenter (nodes outside every datacenter, such as backbone routers,
/// join the first), or why the run stays whole.
pub fn plan(w: &World) -> Result<Plan, String> {
    let Some(top) = w.topo.nodes.iter().map(|n| n.dc).filter(|&d| d != NO_DC).max() else {
        return Err("the topology has no datacenters".into());
    };
    let parts = top as usize + 1;
    if parts < 2 {
        return Err("the topology has one datacenter".into());
    }
    // A streamed flows table comes in the order flows left, which a run cut per datacenter
    // would change; it must equal the whole run's, so such a run stays whole.
    if w.retire {
        return Err("streamed flows tables are cut by pod only, not per datacenter".into());
    }
    let part_of_node = w.topo.nodes.iter().map(|n| if n.dc == NO_DC { 0 } else { n.dc }).collect();
    cut(w, part_of_node, parts, DC_GRID)
}

/// `parts` partitions of whole pods (`[partition] by = "pod"`: `topology::pod_cut`), or why
/// the run cannot be cut so.
pub fn plan_pods(w: &World, parts: usize) -> Result<Plan, String> {
    cut(w, crate::topology::pod_cut(&w.topo, parts)?, parts, POD_GRID)
}

/// The plan for a cut of the nodes into `parts` partitions, if the run allows it: only
/// switches may be joined across partitions, by links long enough for windows of
/// `MIN_WINDOW_PS` on `grid`.
fn cut(w: &World, part_of_node: Vec<u32>, parts: usize, grid: Grid) -> Result<Plan, String> {
    if let Some(what) = unsupported(w) {
        return Err(format!("{what} are not partitioned yet"));
    }
    let mut lookahead = Time::MAX;
    for (id, port) in w.topo.ports() {
        if part_of_node[port.from.idx()] == part_of_node[port.to.idx()] {
            continue;
        }
        if w.node_host[port.from.idx()] != super::world::NOT_A_HOST || w.node_host[port.to.idx()] != super::world::NOT_A_HOST {
            return Err(format!("link {} joins a host to another partition", w.topo.port_name(id)));
        }
        lookahead = lookahead.min(port.delay_ps);
    }
    let least = grid.windows_per_lookahead * MIN_WINDOW_PS;
    if lookahead < least {
        let least = if least % 1_000_000 == 0 { format!("{} us", least / 1_000_000) } else { format!("{} ns", least / 1_000) };
        return Err(format!("links between partitions are shorter than {least}"));
    }
    Ok(Plan { part_of_node, parts, lookahead, grid })
}

/// The first feature of the run that partitions cannot hold yet (each keeps global state
/// or global timers), if any.
fn unsupported(w: &World) -> Option<&'static str> {
    let checks = [
        (w.queue_series.is_some() || w.rate_series.is_some() || w.windows.is_some(), "[record] queue, rate and window series"),
        (w.host_counters.is_some() || w.queue_events.is_some(), "[record] hosts and queue_events"),
        (!w.rpcs.is_empty(), "request/response workloads"),
        (w.measure.is_some(), "[measure] windows"),
        (w.receiver_policy.is_some(), "receiver policies"),
        (w.shared.is_some(), "shared switch buffers"),
        (w.has_relays || !w.proxy_turns.is_empty() || w.flows.iter().any(|f| f.feeds != super::flow::NO_FLOW), "proxies"),
        (w.transport.icon.is_some(), "ICON"),
    ];
    checks.into_iter().find(|c| c.0).map(|c| c.1)
}

/// Makes `w` (built from the whole scenario) partition `me`: it keeps the events of its own
/// flows and marks the links that leave it.
fn own(w: &mut World, me: usize, plan: &Plan) {
    let mut leads_to = vec![STAYS; w.ports.len()];
    let stub = w.pool.alloc(Packet { next: NIL, ..Packet::default() });
    for (id, port) in w.topo.ports() {
        let (from, to) = (plan.part_of_node[port.from.idx()], plan.part_of_node[port.to.idx()]);
        if from as usize == me && to as usize != me {
            leads_to[id.idx()] = to;
            w.node_host[port.to.idx()] = REMOTE;
            w.port_host[id.idx()] = LEAVES;
            w.ports[id.idx()].wire = Fifo { head: stub, tail: stub };
        }
    }
    let senders: Vec<usize> = w.flows.iter().map(|f| plan.sender_part(w, f)).collect();
    let mut starts = 0;
    w.sched.retain(|_, ev| match ev.kind() {
        EventKind::FlowStart => {
            let mine = senders[ev.index() as usize] == me;
            starts += mine as u64;
            mine
        }
        // Every partition draws the same Poisson arrivals.
        EventKind::Arrival => true,
        k => unreachable!("a partitioned run schedules no {k:?} before it runs"),
    });
    w.pending_starts = starts;
    // A transmission on a link marked `LEAVES` goes to `leave_partition`.
    w.nic_work = true;
    let part_of_host = w.topo.hosts.iter().map(|h| plan.part_of_node[h.idx()]).collect();
    w.partition = Some(Box::new(Side {
        leads_to,
        busy_leaving: Vec::new(),
        listed: vec![false; w.ports.len()],
        outbox: (0..plan.parts).map(|_| Crossings::default()).collect(),
        stub,
        me: me as u32,
        part_of_host,
        replicas: 0,
        next_leaving: None,
        log: Vec::new(),
        timed: false,
        finished: Vec::new(),
    }));
}

impl World {
    /// Whether flow `f` starts in this world: its sender's partition, or a whole run.
    pub(super) fn starts_here(&self, f: crate::ids::FlowId) -> bool {
        self.sends_here(self.flows[f.idx()].src)
    }

    /// Whether host `src`'s flows have their senders here: this partition's host, or a
    /// whole run (a flow's row is its sender's half, `merge`).
    pub(super) fn sends_here(&self, src: crate::ids::HostId) -> bool {
        self.partition.as_ref().is_none_or(|s| s.part_of_host[src.idx()] == s.me)
    }

    /// A Poisson arrival: drawn in every partition, counted in the first only.
    pub(super) fn replicated_arrival(&mut self) {
        if let Some(side) = self.partition.as_mut().filter(|s| s.me != 0) {
            side.replicas += 1;
        }
    }

    /// A packet starts on `port`, a link leaving the partition (from `transmit`): the far
    /// side gets a copy with its arrival time.
    pub(super) fn leave_partition(&mut self, port: PortId, r: PacketRef, hop: u32) {
        // The crossing carries its own egress port at the far switch.
        let pkt = Packet { next_hop: hop, ..*self.pool.get(r) };
        // An ACK's row of extra blocks is written, and read, only when its first block is
        // not empty (`send_ack`, `sacks_of`); a row never grown reads as empty.
        let sacks = (pkt.kind == PacketKind::Ack && pkt.sack_len != 0).then(|| self.extra_sacks(r));
        let side = self.partition.as_mut().expect("only a partition has links that leave it");
        let to = side.leads_to[port.idx()];
        debug_assert!(to != STAYS);
        if !side.listed[port.idx()] {
            side.listed[port.idx()] = true;
            side.busy_leaving.push(port);
        }
        let p = &mut self.ports[port.idx()];
        side.outbox[to as usize].push(p.busy_until + p.delay_ps, port, pkt, sacks);
        // Off the wire again, behind the stub (`transmit` linked it there); the packet is
        // the far side's now.
        debug_assert!(p.wire.head == side.stub && self.pool.get(side.stub).next == r);
        p.wire.tail = side.stub;
        self.pool.get_mut(side.stub).next = NIL;
        self.pool.free(r);
    }

    /// Runs the partition's events of window `k` due by `stop`, logging their count and, if
    /// windows are timed, its thread's CPU time.
    pub(super) fn run_window(&mut self, k: u64, stop: Time) {
        let timed = self.partition.as_ref().is_some_and(|s| s.timed);
        let cpu_ns = || if timed { thread_cpu_ns() } else { 0 };
        let (t0, e0) = (cpu_ns(), self.sched.events);
        self.run_events(stop);
        let (cpu, events) = (cpu_ns() - t0, self.sched.events - e0);
        if let Some(side) = self.partition.as_mut() {
            match side.log.last_mut() {
                Some(last) if last.0 == k => (last.1, last.2) = (last.1 + events, last.2 + cpu),
                _ => side.log.push((k, events, cpu)),
            }
        }
    }

    /// Packets from another partition, in the order they started, join this partition's
    /// copies of their links' wires. The batch was written on another core and the slots
    /// they take are cold: both are asked for a few packets ahead (Fig 10 on two threads:
    /// 14-45 ms of taking in per thread before, 11-13 ms after).
    pub(super) fn enter_all(&mut self, bag: &Crossings) {
        for (i, (c, sacks)) in bag.entries().enumerate() {
            if let Some(ahead) = bag.get(i + ENTER_AHEAD) {
                prefetch(ahead as *const Packet as *const u8);
            }
            if let Some(slot) = self.pool.free_after_next() {
                prefetch(self.pool.slot_ptr(slot));
            }
            self.enter(c, sacks);
        }
    }

    /// A packet from another partition joins this partition's copy of its link's wire.
    fn enter(&mut self, c: &Packet, sacks: Option<ExtraSacks>) {
        let (at, port) = (c.arrive_at, c.next);
        let r = self.pool.alloc(Packet { next: NIL, arrive_at: 0, ..*c });
        if let Some(extra) = sacks {
            self.keep_extra_sacks(r, &extra);
        }
        let p = &self.ports[port as usize];
        let (tail, to) = (p.wire.tail, p.to);
        // The sender chose the far switch's egress port already, from the same `Fib`
        // (without one, it left the choice to this side: the node is not its own).
        let hop = match &self.fib {
            Some(fib) => {
                debug_assert_eq!(c.next_hop, fib.select(to, c.dst, c.entropy).0);
                c.next_hop
            }
            None => self.route_ahead(to, r),
        };
        if tail != NIL {
            // The wire's arrival chain: each packet holds the next one's arrival and hop.
            let ahead = self.pool.get_mut(tail);
            (ahead.arrive_at, ahead.next_hop) = (at, hop);
        }
        self.ports[port as usize].wire.push(&mut self.pool, r);
        if tail == NIL {
            self.sched.at(at, Event::arrival(port, hop));
        }
    }

    /// Starts every packet due by `last` on the links leaving the partition (they may not
    /// wait for a later look, which the far side needs before they arrive); notes when the
    /// next one is due to start. Only ports that started a packet since they were last found
    /// idle and empty are looked at: a fat-tree cut by pod has hundreds of leaving ports, and
    /// a look at each, every window, took 15% of the run.
    pub(super) fn start_leaving(&mut self, last: Time) {
        let Some(side) = self.partition.as_mut() else { return };
        let mut busy = std::mem::take(&mut side.busy_leaving);
        let mut next = None::<Time>;
        busy.retain(|&port| {
            self.catch_up(port, last);
            let p = &self.ports[port.idx()];
            if !p.queue.is_empty() {
                next = Some(next.map_or(p.busy_until, |t| t.min(p.busy_until)));
            }
            // Idle and empty: the next packet to reach it starts at once (and lists it again).
            let keep = !p.queue.is_empty() || p.busy_until > last;
            if !keep {
                self.partition.as_mut().expect("a partition").listed[port.idx()] = false;
            }
            keep
        });
        let side = self.partition.as_mut().expect("a partition");
        (side.busy_leaving, side.next_leaving) = (busy, next);
    }

    /// How many packets this partition sent to partition `to` since the last look.
    pub(super) fn outbox_len(&self, to: usize) -> usize {
        self.partition.as_ref().map_or(0, |s| s.outbox[to].len())
    }

    /// The packets this partition sent to partition `to` since the last look; `empty` (a
    /// batch the other side has taken in) gathers the next ones.
    pub(super) fn take_outbox(&mut self, to: usize, empty: Crossings) -> Crossings {
        debug_assert!(empty.len() == 0);
        std::mem::replace(&mut self.partition.as_mut().expect("a partition").outbox[to], empty)
    }
}

/// A run in partitions (advanced by `pipeline.rs`).
pub struct Partitioned {
    pub(super) parts: Vec<World>,
    pub(super) plan: Plan,
    pub(super) threads: usize,
    /// Window length (ps) of the fixed grid of windows.
    pub(super) window: Time,
    /// Packets sent, by (source, destination) partition (`src * parts + dst`).
    pub(super) mail: Vec<Mutex<Mailbox>>,
    /// Per partition: the next window it runs (it has finished all before).
    pub(super) next: Vec<AtomicU64>,
    /// The window the current epoch ends before, once it is open.
    pub(super) epoch_end: Option<u64>,
    /// Windows an epoch lasts (`pipeline.rs`; shorter when flows stream, since they are
    /// retired at epochs' ends).
    pub(super) epoch_windows: u64,
    pub(super) end: Time,
    /// Streaming (`[record] flows = "stream"`): finished flows waiting for their last
    /// packets, and the retired flows' rows (`partition_stream.rs`).
    pub(super) stream: Option<Stream>,
}

/// How evenly a partitioned run's work falls: windows run, and events and thread CPU time
/// (ns) of all partitions and along the critical path (each partition's windows in turn,
/// each waiting for the windows of the others it depends on). All over critical is the
/// speed-up as many free cores as partitions could give, synchronisation aside (the CPU
/// figures are measured per thread, whatever else loads the machine, and only once asked
/// for: `Simulation::time_windows`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Balance {
    pub windows: u64,
    pub events: u64,
    pub critical_events: u64,
    pub cpu_ns: u64,
    pub critical_cpu_ns: u64,
}

impl Partitioned {
    /// `build` makes a whole world from the scenario (called once per partition); `first` is
    /// one it already made.
    pub fn new(first: World, plan: Plan, threads: usize, mut build: impl FnMut() -> Result<World, crate::ScenarioError>) -> Result<Self, crate::ScenarioError> {
        let end = first.duration.unwrap_or(first.max_duration);
        let mut parts = vec![first];
        for _ in 1..plan.parts {
            parts.push(build()?);
        }
        for (me, w) in parts.iter_mut().enumerate() {
            own(w, me, &plan);
        }
        let n = parts.len();
        let window = (plan.lookahead / plan.grid.windows_per_lookahead).max(1);
        let mail = (0..n * n).map(|_| Mutex::default()).collect();
        let next = (0..n).map(|_| AtomicU64::new(0)).collect();
        let stream = parts[0].retire.then(Stream::default);
        let epoch_windows = super::grid::epoch_windows(window, stream.is_some());
        Ok(Partitioned { parts, plan, threads, window, mail, next, epoch_end: None, epoch_windows, end, stream })
    }

    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    pub(super) fn grid(&self) -> Grid {
        self.plan.grid
    }

    /// Reads each window's CPU time from now on, for `balance`'s CPU figures (else 0).
    pub fn time_windows(&mut self) {
        for side in self.parts.iter_mut().filter_map(|w| w.partition.as_mut()) {
            side.timed = true;
        }
    }

    /// The first partition's world (its scenario-wide fields are every partition's).
    pub fn first(&self) -> &World {
        &self.parts[0]
    }

    /// The latest clock of the partitions.
    pub fn now(&self) -> Time {
        self.parts.iter().map(|w| w.sched.now()).max().unwrap_or(0)
    }

    /// The run's balance so far.
    pub fn balance(&self) -> Balance {
        let logs: Vec<&[(u64, u64, u64)]> = self.parts.iter().map(|w| w.partition.as_ref().map_or(&[][..], |s| &s.log[..])).collect();
        let slack = self.plan.grid.slack;
        let events = critical_path(&logs, slack, |e| e.1);
        let cpu = critical_path(&logs, slack, |e| e.2);
        let windows = logs.iter().flat_map(|l| l.iter().map(|e| e.0)).collect::<std::collections::BTreeSet<_>>().len() as u64;
        Balance { windows, events: events.0, critical_events: events.1, cpu_ns: cpu.0, critical_cpu_ns: cpu.1 }
    }

    /// Bytes injected, delivered, dropped and in flight over all partitions. A link between
    /// partitions holds its queue on its sender's side and its wire on the receiver's, with
    /// the packets sent and not yet taken in between them.
    pub fn conservation(&self) -> super::Conservation {
        let mut total = super::Conservation::default();
        for (me, w) in self.parts.iter().enumerate() {
            total.injected += w.injected_bytes;
            total.delivered += w.delivered_bytes;
            total.dropped += w.dropped_bytes;
            let own = |i: &usize| self.plan.part_of_node[w.topo.port(PortId::from(*i)).from.idx()] as usize == me;
            total.in_flight += (0..w.ports.len()).filter(own).map(|i| w.port_queued(i)).sum::<u64>();
            // A wire is on one side only: its sender's, or a copy on its receiver's.
            total.in_flight += (0..w.ports.len()).map(|i| w.ports[i].wire_bytes(&w.pool)).sum::<u64>();
            total.in_flight += w.partition.as_ref().map_or(0, |s| s.outbox.iter().map(Crossings::wire_bytes).sum());
        }
        for m in &self.mail {
            total.in_flight += m.lock().expect("no thread panicked").sent.iter().map(|b| b.1.wire_bytes()).sum::<u64>();
        }
        total
    }
}

/// The total and the critical path of a cost over the partitions' window logs: partition
/// `p`'s window `k` starts when its window before ends and every other partition has ended
/// its windows up to `k - 1 - slack` (`pipeline.rs`).
fn critical_path(logs: &[&[(u64, u64, u64)]], slack: u64, cost: impl Fn(&(u64, u64, u64)) -> u64) -> (u64, u64) {
    let mut entries: Vec<(u64, usize, u64)> = Vec::new();
    for (p, log) in logs.iter().enumerate() {
        entries.extend(log.iter().map(|e| (e.0, p, cost(e))));
    }
    entries.sort_unstable();
    // Per partition: (window, finish) of its windows so far, in order.
    let mut done: Vec<Vec<(u64, u64)>> = vec![Vec::new(); logs.len()];
    let mut total = 0;
    for (k, p, c) in entries {
        total += c;
        let mut start = done[p].last().map_or(0, |d| d.1);
        for (_, d) in done.iter().enumerate().filter(|(q, _)| *q != p) {
            let upto = d.partition_point(|x| x.0 + 1 + slack <= k);
            start = start.max(if upto == 0 { 0 } else { d[upto - 1].1 });
        }
        done[p].push((k, start + c));
    }
    (total, done.iter().filter_map(|d| d.last().map(|x| x.1)).max().unwrap_or(0))
}

/// The calling thread's CPU time (ns; 0 where it cannot be read).
fn thread_cpu_ns() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
        }
    }
    0
}
