//! Building the world from a validated scenario.

use super::flow::{Flow, NEVER, NO_FLOW, NO_HOST, NO_INCAST, NO_RPC, NO_TURNS};
use super::arrivals::Arrivals;
use super::flow::IncastRecord;
use super::world::{World, MEASURE_CHECK, NOT_A_HOST, RATE_SAMPLE};
use crate::des::{Event, EventKind, Schedule};
use crate::ids::{FlowId, HostId, PortId};
use crate::metrics::{HostCounters, QueueEvents, QueueSeries, RateSeries, WindowSeries};
use crate::net::faults::LinkFaults;
use crate::net::queue::Queue;
use crate::net::PortState;
use crate::packet::PacketPool;
use crate::rng::{hash32, hash64, stream, Stream};
use crate::routing::select::{FlowPaths, HostDraws};
use crate::routing::{Fib, LoadBalancing, Routes, Selector};
use crate::scenario::ValidSpec;
use crate::topology::NodeKind;
use crate::transport::cc::FlowPath;
use crate::transport::{Policy, Receiver, Sender, SubPacketPacer};
use crate::units::{serialization_ps, Time};
use crate::workload::{IncastEvent, ProxyScheme, Workload};
use crate::ScenarioError;

/// Marks the ids of the flows' path streams (UnoLB's subflows, PLB's repaths) apart from
/// their entropy hashes.
const PATH_STREAM: u64 = 1 << 40;

pub fn build(spec: &ValidSpec) -> Result<World, ScenarioError> {
    let topo = spec.topology.clone();
    let mut routes = Routes::shortest_paths(&topo);
    let pinned = pin_static_routes(&mut routes, &topo, &spec.routing.static_routes);
    let fib = Fib::new(&topo, &routes);
    let mut links_at = vec![0u32; topo.nodes.len()];
    for l in &topo.links {
        links_at[l.a.idx()] += 1;
        links_at[l.b.idx()] += 1;
    }
    let multi_homed = topo.hosts.iter().any(|h| links_at[h.idx()] > 1);
    let mut node_host = vec![NOT_A_HOST; topo.nodes.len()];
    for (h, n) in topo.hosts.iter().enumerate() {
        node_host[n.idx()] = h as u32;
    }
    let mut host_nic = vec![PortId(u32::MAX); topo.hosts.len()];
    let mut ports = Vec::with_capacity(topo.port_count());
    let mut port_host = Vec::with_capacity(topo.port_count());
    let mean_pkt = spec.transport.mtu + spec.transport.framing;
    for (id, port) in topo.ports() {
        let from_host = topo.nodes[port.from.idx()].kind == NodeKind::Host;
        let cfg = if from_host {
            &spec.host_queue
        } else if topo.is_inter(id) {
            &spec.inter_queue
        } else {
            &spec.switch_queue
        };
        let rng = stream(spec.seed, Stream::Queue, id.0 as u64);
        ports.push(PortState::new(port.to, port.rate_bps, port.delay_ps, Queue::new(cfg, port.rate_bps, mean_pkt, rng)));
        let h = node_host[port.from.idx()];
        if from_host && host_nic[h as usize].0 == u32::MAX {
            host_nic[h as usize] = id;
        }
        port_host.push(if from_host { h } else { NOT_A_HOST });
    }
    for f in &spec.faults {
        let rng = stream(spec.seed, Stream::Faults, f.port.0 as u64);
        ports[f.port.idx()].queue.set_faults(LinkFaults::new(f.changes.clone(), rng));
    }
    if let Some(h) = host_nic.iter().position(|p| p.0 == u32::MAX) {
        return Err(ScenarioError::new("topology", format!("host {} has no link", topo.nodes[topo.hosts[h].idx()].name)));
    }
    // How far ahead a packet's arrival is scheduled: sizes the calendar's wheel.
    let span = topo.ports().map(|(_, p)| p.delay_ps + serialization_ps(mean_pkt, p.rate_bps)).max().unwrap_or(0);
    let queue_series = spec.record.queues.as_ref().map(|(interval, ports)| QueueSeries::new(*interval, ports.clone()));
    let host_counters = spec.record.hosts.as_ref().map(|(bin, hosts)| {
        let mut recorded = vec![false; topo.hosts.len()];
        for h in hosts {
            recorded[h.idx()] = true;
        }
        HostCounters::new(*bin, topo.hosts.len(), recorded)
    });
    let queue_events = spec.record.queue_events.as_ref().map(|ports| QueueEvents::new(topo.port_count(), ports));
    let windows = spec.record.windows.map(WindowSeries::new);
    let nic_work = host_counters.is_some() || spec.transport.stamp_at_first_switch;
    let mut world = World {
        sched: Schedule::new(span),
        pool: PacketPool::default(),
        topo,
        routes: Box::new(routes),
        fib,
        host_draws: match spec.routing.lb {
            LoadBalancing::Spray(_) => HostDraws::new(spec.seed, spec.topology.hosts.len()),
            LoadBalancing::Ecmp | LoadBalancing::UnoLb(_) | LoadBalancing::Plb(_) => HostDraws::default(),
        },
        ports,
        node_host,
        port_host,
        host_nic,
        multi_homed,
        pinned,
        flows: Default::default(),
        transport: spec.transport.clone(),
        load_balancing: spec.routing.lb,
        class_rtt: (0, 0),
        incasts: Vec::new(),
        poisson: Vec::new(),
        queue_series,
        host_counters,
        nic_work,
        queue_events,
        windows,
        rpcs: Vec::new(),
        rate_series: spec.record.rates.map(RateSeries::new),
        seed: spec.seed,
        duration: spec.duration,
        max_duration: spec.max_duration,
        active_flows: 0,
        pending_starts: 0,
        pending_arrivals: 0,
        injected_bytes: 0,
        delivered_bytes: 0,
        dropped_bytes: 0,
        packet_hops: 0,
        record_flows: spec.record.flows,
        retire: false,
        retired: Default::default(),
        done: false,
        last_activity: 0,
        has_relays: false,
        partition: None,
        proxy_nacks: 0,
        proxy_turns: Vec::new(),
        prefetch_above_bytes: super::world::PREFETCH_ABOVE_BYTES,
        far_lead_above_bytes: super::prefetch::FAR_LEAD_ABOVE_BYTES,
        tsq: spec.tsq.clone(),
        sack_extra: Vec::new(),
        measure: spec.measure,
        measured_open: 0,
        receiver_policy: None,
        shared: None,
        enqueue_hooks: false,
    };
    world.shared = spec.switch_buffer.as_ref().map(|cfg| world.shared_buffers(cfg));
    world.enqueue_hooks = world.queue_events.is_some() || world.shared.is_some();
    world.receiver_policy = spec.transport.receiver_policy.map(|cfg| Policy::new(&cfg, &world.receive_capacities(), world.transport.mss()));
    world.class_rtt = world.class_rtts();
    for (w, workload) in spec.workloads.iter().enumerate() {
        world.add_workload(w, workload);
    }
    if world.queue_series.is_some() {
        world.sched.at(0, Event::new(EventKind::Sample, 0));
    }
    if world.windows.is_some() {
        world.sched.at(0, Event::new(EventKind::SampleWindows, 0));
    }
    if let Some(r) = &world.rate_series {
        world.sched.at(r.interval, Event::new(EventKind::Sample, RATE_SAMPLE));
    }
    world.retire = spec.record.stream_flows && world.can_retire(spec);
    if let Some(m) = world.measure {
        // The earliest the run can end; later, the last measured flow's end looks again.
        world.sched.at(m.until, Event::new(EventKind::Arrival, MEASURE_CHECK));
    }
    Ok(world)
}

impl World {
    /// Whether nothing names a flow once it has finished and gone quiet: no request/response
    /// runs or proxies (they pair flows), no erasure coding (its wait timers), no receiver
    /// policy (per-receiver lists) and no rate series (which samples finished flows too).
    /// Otherwise a streaming run keeps every flow and hands all rows out at the end.
    fn can_retire(&self, spec: &ValidSpec) -> bool {
        let pairs = spec.workloads.iter().any(|w| matches!(w, Workload::RpcIncast(_) | Workload::ProxyIncast(_)));
        !pairs && !self.has_relays && self.transport.erasure.is_none() && self.receiver_policy.is_none() && self.rate_series.is_none()
    }

    /// `[switch.buffer]`: one buffer per switch over all its egress ports.
    fn shared_buffers(&self, cfg: &crate::net::buffer::BufferConfig) -> crate::net::buffer::SharedBuffers {
        let mut by_switch: Vec<Vec<PortId>> = vec![Vec::new(); self.topo.nodes.len()];
        for (id, port) in self.topo.ports() {
            if self.topo.nodes[port.from.idx()].kind == NodeKind::Switch {
                by_switch[port.from.idx()].push(id);
            }
        }
        by_switch.retain(|ports| !ports.is_empty());
        crate::net::buffer::SharedBuffers::new(cfg, &by_switch, self.ports.len())
    }

    fn add_workload(&mut self, w: usize, workload: &Workload) {
        let mut rng = stream(self.seed, Stream::Workload, w as u64);
        match workload {
            Workload::Incast(inc) => {
                for burst in 0..inc.count {
                    self.add_incast(w, burst, &inc.burst(burst, &mut rng), None);
                }
            }
            Workload::ProxyIncast(p) => {
                let first = self.flows.len();
                self.add_incast(w, 0, &p.incast.burst(0, &mut rng), Some((p.proxy, p.scheme)));
                if p.scheme == ProxyScheme::Naive && p.round_robin {
                    self.serve_in_turn(p.proxy, first);
                }
            }
            Workload::Permutation(p) => {
                let pairs = p.pairs(&mut rng);
                self.flows.reserve(pairs.len());
                for (s, d) in pairs {
                    let f = self.add_flow(s, d, p.bytes.unwrap_or(u64::MAX), p.start, NO_INCAST);
                    self.schedule_start(f);
                }
            }
            Workload::Flows(list) => {
                self.flows.reserve(list.len());
                for fs in list {
                    let f = self.add_flow(fs.src, fs.dst, fs.bytes, fs.start, NO_INCAST);
                    self.schedule_start(f);
                }
            }
            Workload::MixedPoisson(m) => {
                for fs in m.flows_for(self.seed, w) {
                    let f = self.add_flow(fs.src, fs.dst, fs.bytes, fs.start, NO_INCAST);
                    self.schedule_start(f);
                }
            }
            Workload::RpcIncast(spec) => self.add_rpc_incast(w, spec, rng),
            Workload::Poisson(p) => self.add_arrivals(w, Arrivals::Flows(p.clone()), rng),
            Workload::PoissonIncast(p) => self.add_arrivals(w, Arrivals::Incasts(p.clone()), rng),
            Workload::AggregatorIncast(p) => self.add_arrivals(w, Arrivals::Aggregators(p.clone()), rng),
        }
    }

    /// One incast: a flow from each sender to the receiver, under a new incast record. The
    /// record is made before the flows, so a flow can read its incast's degree
    /// (`incasts[flow.incast]`) from its first packet on; the flows start through start
    /// events at their start times (no sooner than the next event, at a run's `now`).
    pub(super) fn add_incast(&mut self, w: usize, burst: u32, event: &IncastEvent, proxy: Option<(HostId, ProxyScheme)>) {
        let id = self.incasts.len() as u32;
        let bytes: Vec<u64> = event.bytes.iter().map(|&b| self.transport.flow_bytes(b)).collect();
        let n = bytes.len().max(1) as u128;
        // The responses' mean, exact when all are alike (a burst's bytes_per_sender).
        let mean = ((bytes.iter().map(|&b| b as u128).sum::<u128>() + n / 2) / n) as u64;
        self.incasts.push(IncastRecord {
            workload: w as u32,
            burst,
            receiver: event.receiver,
            degree: event.senders.len() as u32,
            bytes_per_sender: mean,
            first_start: event.starts.iter().copied().min().unwrap_or(NEVER),
            last_finish: 0,
            last_delivery: 0,
            finished_flows: 0,
            ideal: 0,
        });
        // The burst's flows in one block (a naive proxy's two a sender), not a doubling.
        let per_sender = if matches!(proxy, Some((_, ProxyScheme::Naive))) { 2 } else { 1 };
        self.flows.reserve(event.senders.len() * per_sender);
        let mut ideal: Time = 0;
        for ((&s, &b), &start) in event.senders.iter().zip(&bytes).zip(&event.starts) {
            let f = self.add_incast_flow(s, event.receiver, b, start, id, proxy);
            ideal = ideal.max(self.flows[f.idx()].ideal_fct);
        }
        self.incasts[id as usize].ideal = ideal.max(self.ideal_incast(&event.senders, event.receiver, &bytes));
    }

    /// One sender's connection(s) of an incast; returns the one whose completion counts
    /// (for a naive proxy, proxy_S's connection to the receiver).
    fn add_incast_flow(&mut self, s: HostId, r: HostId, bytes: u64, start: Time, incast: u32, proxy: Option<(HostId, ProxyScheme)>) -> FlowId {
        let f = match proxy {
            None | Some((_, ProxyScheme::Baseline)) => self.add_flow(s, r, bytes, start, incast),
            Some((p, ProxyScheme::Streamlined)) => {
                self.has_relays = true;
                self.add_flow_via(s, r, p, bytes, start, incast)
            }
            Some((p, ProxyScheme::Naive)) => {
                let leg = self.add_flow(s, p, bytes, start, NO_INCAST);
                self.schedule_start(leg);
                let f = self.add_flow(p, r, bytes, start, incast);
                // proxy_S sends only what proxy_R has received in order.
                self.flows[f.idx()].sender.available = 0;
                self.flows[leg.idx()].feeds = f;
                f
            }
        };
        self.schedule_start(f);
        f
    }

    fn schedule_start(&mut self, f: FlowId) {
        if !self.starts_here(f) {
            return;
        }
        self.pending_starts += 1;
        let flow = &self.flows[f.idx()];
        self.sched.at(flow.start, Event::new(EventKind::FlowStart, flow.id.0));
    }

    /// Creates a flow (not yet started) and returns its id.
    pub(super) fn add_flow(&mut self, src: HostId, dst: HostId, size: u64, start: Time, incast: u32) -> FlowId {
        self.add_flow_via(src, dst, NO_HOST, size, start, incast)
    }

    /// Creates a flow routed through relay `via` (or `NO_HOST`).
    pub(super) fn add_flow_via(&mut self, src: HostId, dst: HostId, via: HostId, size: u64, start: Time, incast: u32) -> FlowId {
        let id = FlowId::from(self.flows.len());
        if self.measure.is_some_and(|m| m.contains(start)) {
            self.measured_open += 1;
        }
        let size = self.transport.flow_bytes(size);
        let entropy = hash32(self.seed, Stream::Flow, id.0 as u64);
        let (route_dst, ack_dst) = if via == NO_HOST { (self.route_dst(src, dst), self.route_dst(dst, src)) } else { (via, via) };
        let path = self.flow_path(src, dst, entropy);
        // A coded flow's endpoints carry its padded stream of whole blocks.
        let erasure = self.erasure_for(id, via, size, &path);
        let stream = erasure.as_ref().map_or(size, |e| e.coded_bytes());
        let t = &self.transport;
        let mut sender = t.new_sender(stream, &path);
        if erasure.is_some() {
            sender.recover_by_blocks();
        }
        self.scale_to_path(&mut sender, src, dst, via, entropy);
        if t.sender.sub_packet_pacing {
            sender.pace_sub_packet(SubPacketPacer::new(self.path_rtt(src, dst, via, entropy).0, t.mss(), entropy));
        }
        let receiver = Receiver::new(stream, &t.receiver);
        // A flow a partition adds during the run (a Poisson arrival, drawn in every one) has
        // its row from its sender's partition: the path walk is wasted elsewhere (9.5% of a
        // k = 32 Poisson run cut in two). An incast's ideal takes all its flows'.
        let row_here = incast != NO_INCAST || self.sends_here(src);
        let ideal_fct = if size == u64::MAX || !row_here { 0 } else { self.ideal_fct(src, dst, size, entropy) };
        let selector = self.new_selector(id, src, dst, start, entropy);
        let slot = self.flows.push(Flow {
            id,
            retired: false,
            src,
            dst,
            size,
            start,
            entropy,
            selector,
            incast,
            sender,
            receiver,
            rto_deadline: NEVER,
            rto_event_at: NEVER,
            rto_gen: 0,
            dack_gen: 0,
            pace_at: NEVER,
            packet_rto_at: NEVER,
            dack_armed: false,
            dack_ts: 0,
            recv_done: NEVER,
            finish: NEVER,
            ideal_fct,
            last_bin_src: u32::MAX,
            last_bin_dst: u32::MAX,
            rpc: NO_RPC,
            rpc_slot: 0,
            via,
            route_dst,
            ack_dst,
            feeds: NO_FLOW,
            nacks_sent: 0,
            turns: NO_TURNS,
            nic: Default::default(),
            wake_at: NEVER,
            erasure,
            in_net: 0,
        });
        self.attach_icon(slot, incast != NO_INCAST);
        slot
    }

    /// Flow `id`'s path selector. Its base RTT is the one its first full segment would see
    /// (as UnoLB's artifact gates reroutes with).
    fn new_selector(&self, id: FlowId, src: HostId, dst: HostId, start: Time, entropy: u32) -> Selector {
        let base_rtt = match self.load_balancing {
            LoadBalancing::Ecmp | LoadBalancing::Spray(_) => 0,
            LoadBalancing::UnoLb(_) | LoadBalancing::Plb(_) => {
                let first = self.transport.wire_bytes(self.transport.mss());
                self.base_rtt_and_bottleneck(src, dst, first, entropy).0
            }
        };
        let seed = hash64(self.seed, Stream::Flow, PATH_STREAM | id.0 as u64);
        Selector::new(&self.load_balancing, &FlowPaths { entropy, seed, start, base_rtt })
    }

    /// What a flow's congestion control knows of its path: its class (whether it crosses
    /// datacenters), its NIC's rate and the class base RTTs.
    pub(super) fn flow_path(&self, src: HostId, dst: HostId, entropy: u32) -> FlowPath {
        FlowPath {
            inter: self.topo.crosses_dc(src, dst),
            rate_bps: self.ports[self.nic(src, self.route_dst(src, dst), entropy).idx()].rate_bps,
            base_rtt_intra: self.class_rtt.0,
            base_rtt_inter: self.class_rtt.1,
        }
    }

    /// The base RTT of each class, per class rather than per path (Uno's convention: a
    /// same-ToR flow uses the intra value): the scenario's value, else a full-size packet
    /// and its ACK between the first and the last host of a datacenter (the longest
    /// intra path in the builders' numbering), and from the first host of datacenter 0's
    /// to the last host of another datacenter.
    fn class_rtts(&self) -> (Time, Time) {
        let t = &self.transport;
        let packet = t.mtu + t.framing;
        let hosts: Vec<HostId> = (0..self.topo.hosts.len()).map(HostId::from).collect();
        let dc = |h: &HostId| self.topo.dc_of(self.topo.hosts[h.idx()]);
        let mut intra = 0;
        for d in hosts.iter().map(dc).collect::<std::collections::BTreeSet<_>>() {
            let members: Vec<HostId> = hosts.iter().copied().filter(|h| dc(h) == d).collect();
            if let (Some(&a), Some(&b)) = (members.first(), members.last()) {
                if a != b {
                    intra = intra.max(self.base_rtt_and_bottleneck(a, b, packet, 0).0);
                }
            }
        }
        let first = hosts[0];
        let inter = match hosts.iter().rev().find(|h| dc(h) != dc(&first)) {
            Some(&far) => self.base_rtt_and_bottleneck(first, far, packet, 0).0,
            None => intra,
        };
        (t.base_rtt.unwrap_or(intra), t.base_rtt_inter.unwrap_or(inter))
    }

    /// Applies the transport settings given in multiples of the path's BDP or base RTT.
    fn scale_to_path(&self, sender: &mut Sender, src: HostId, dst: HostId, via: HostId, entropy: u32) {
        let ps = &self.transport.path_scaled;
        if ps.init_cwnd_bdp.is_none() && ps.min_rto_rtts.is_none() && ps.initial_rto_rtts.is_none() {
            return;
        }
        let (rtt, rate) = self.path_rtt(src, dst, via, entropy);
        let scaled = |x: f64| (rtt as f64 * x).round() as Time;
        if let Some(m) = ps.init_cwnd_bdp {
            let bdp = rtt as f64 * rate as f64 / 8.0 / crate::units::PS_PER_SEC as f64;
            sender.set_initial_window((bdp * m).round() as u64);
        }
        let min_rto = ps.min_rto_rtts.map_or(sender.rtt.min_rto, scaled);
        let initial = ps.initial_rto_rtts.map_or(sender.rto(), scaled);
        sender.set_rto_bounds(min_rto, initial.max(min_rto));
    }
}

/// Adds each static route's destination column to the routes, and the reverse path for
/// its ACKs unless the scenario routes (dst, src) itself; returns (src, dst, column).
fn pin_static_routes(routes: &mut Routes, topo: &crate::topology::Topology, given: &[crate::scenario::StaticRoute]) -> Vec<(HostId, HostId, HostId)> {
    let mut pairs: Vec<(HostId, HostId, Vec<crate::ids::NodeId>)> = given.iter().map(|r| (r.src, r.dst, r.nodes.clone())).collect();
    for r in given {
        if !given.iter().any(|o| (o.src, o.dst) == (r.dst, r.src)) {
            pairs.push((r.dst, r.src, r.nodes.iter().rev().copied().collect()));
        }
    }
    let paths: Vec<_> = pairs.iter().map(|p| p.2.clone()).collect();
    let ids = routes.pin(topo, &paths);
    pairs.iter().zip(ids).map(|(p, id)| (p.0, p.1, id)).collect()
}
