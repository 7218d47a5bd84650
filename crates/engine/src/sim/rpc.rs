//! The request/response incast on persistent connections (`rpc_incast`), and the senders'
//! window sampler. See `workload/rpc.rs` for the application's rules.
//!
//! Connections are flows created once, idle between responses (`finish` set). A burst:
//! the receiver sends each sender a `Control` packet with `REQUEST` after its jitter; the
//! sender, once it arrives, waits its own jitter and appends the response to its stream.
//! Each response starts on a segment boundary (the stream skips to the next multiple of
//! the MSS on both ends), so the fixed-MSS segmentation of the shared sender holds.

use super::flow::{NEVER, NO_INCAST};
use super::world::World;
use crate::des::{Event, EventKind};
use crate::ids::{FlowId, HostId};
use crate::metrics::table::{Column, Table};
use crate::packet::{flags, Packet, PacketKind, PacketRef, NIL};
use crate::units::Time;
use crate::workload::{Remember, RpcIncastSpec, RwndStrategy};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// One burst of a request/response incast.
#[derive(Clone, Debug, Default)]
pub struct BurstRecord {
    pub workload: u32,
    pub burst: u32,
    /// The connections that answer this burst (all of them unless `degree_min` is set).
    pub degree: u32,
    /// When the receiver decided to send the requests (BCT counts from here).
    pub start: Time,
    /// When the last byte of the last response arrived (0: never).
    pub end: Time,
    pub responses_done: u32,
    /// Drops and marks in every queue, and retransmission timeouts of the connections,
    /// between the start and the end (counters at the start, then the differences).
    pub drops: u64,
    pub marks: u64,
    pub timeouts: u64,
    /// Data bytes the receiver got for this burst, and those carrying CE.
    pub rx_bytes: u64,
    pub ce_bytes: u64,
}

/// One response (one connection in one burst).
#[derive(Clone, Debug, Default)]
pub struct ResponseRecord {
    pub burst: u32,
    pub flow: FlowId,
    pub request_sent: Time,
    pub write: Time,
    pub done: Time,
    pub start_cwnd: u64,
    pub start_alpha: f64,
    pub end_cwnd: u64,
    pub timeouts: u64,
    pub granted: bool,
}

pub struct RpcRun {
    pub spec: RpcIncastSpec,
    pub workload: u32,
    rng: Xoshiro256PlusPlus,
    /// The connection to each sender.
    pub flows: Vec<FlowId>,
    pub bursts: Vec<BurstRecord>,
    pub responses: Vec<ResponseRecord>,
    /// Per slot: the response jitter drawn for the current burst.
    response_jitter: Vec<Time>,
    /// Per slot: the request arrived but the previous response's last ACK has not (rare).
    deferred: Vec<bool>,
    /// The token scheduler: free tokens, holders, and slots waiting in request order.
    free_tokens: u32,
    holds_token: Vec<bool>,
    waiting: VecDeque<u32>,
    /// The path's bandwidth-delay product in bytes (propagation RTT x slowest rate), for
    /// the `bdp+connections` clamp.
    bdp: u64,
    /// The flow count of every finished burst (the history the prediction reads).
    history: Vec<u32>,
    /// Per slot: it answers the current burst, and its record in `responses`.
    answers: Vec<bool>,
    resp_of: Vec<u32>,
    /// A permutation of the slots; a burst of n answers takes its first n after a
    /// partial shuffle (only when the degree varies).
    order: Vec<u32>,
    /// `remember = "mean_cwnd"`: per slot, the integral of cwnd over time since the
    /// response's write (byte-picoseconds) and when it was last brought up to date.
    cwnd_area: Vec<u128>,
    cwnd_since: Vec<Time>,
}

impl RpcRun {
    fn current(&mut self) -> &mut BurstRecord {
        self.bursts.last_mut().expect("a burst is running")
    }

    fn response(&mut self, slot: u32) -> &mut ResponseRecord {
        let i = self.resp_of[slot as usize] as usize;
        &mut self.responses[i]
    }

    /// This burst's flow count, and which connections answer: every one, or (with
    /// `degree_min`) n ~ U[degree_min, N] of them, a uniformly random subset.
    fn draw_degree(&mut self) -> u32 {
        let total = self.flows.len() as u32;
        if self.spec.degree_min >= total {
            self.answers.fill(true);
            return total;
        }
        let n = self.rng.gen_range(self.spec.degree_min..=total);
        for i in 0..n as usize {
            let j = self.rng.gen_range(i..total as usize);
            self.order.swap(i, j);
        }
        self.answers.fill(false);
        for &slot in &self.order[..n as usize] {
            self.answers[slot as usize] = true;
        }
        n
    }
}

impl World {
    /// Creates the connections (idle) and schedules the first burst.
    pub(super) fn add_rpc_incast(&mut self, w: usize, spec: &RpcIncastSpec, rng: Xoshiro256PlusPlus) {
        let run = self.rpcs.len() as u32;
        let mut flows = Vec::with_capacity(spec.senders.len());
        for (slot, &s) in spec.senders.iter().enumerate() {
            let f = self.add_flow(s, spec.receiver, 0, 0, NO_INCAST);
            // Its senders answer one sink together: ICON paces them by their number.
            self.attach_icon(f, true);
            self.flows[f.idx()].sender.set_incast_degree(spec.senders.len() as u32);
            // A persistent connection: open at its receiver from the start, for every response.
            if self.receiver_policy.is_some() {
                self.open_at_receiver(f);
            }
            let flow = &mut self.flows[f.idx()];
            flow.rpc = run;
            flow.rpc_slot = slot as u32;
            flow.ideal_fct = 0;
            // The connection was opened with a handshake: the sender starts with that RTT
            // sample (an RTO of min_rto, not the initial 1 s) as in the artifact.
            let syn = self.transport.header + self.transport.framing;
            let entropy = self.flows[f.idx()].entropy;
            let (syn_rtt, _) = self.base_rtt_and_bottleneck(s, spec.receiver, syn, entropy);
            let flow = &mut self.flows[f.idx()];
            flow.sender.rtt.sample(syn_rtt);
            // Idle: nothing to send, nothing to receive.
            flow.finish = 0;
            flow.recv_done = 0;
            flows.push(f);
        }
        let n = flows.len();
        self.rpcs.push(RpcRun {
            spec: spec.clone(),
            workload: w as u32,
            rng,
            flows,
            bursts: Vec::new(),
            responses: Vec::new(),
            response_jitter: vec![0; n],
            deferred: vec![false; n],
            free_tokens: spec.tokens,
            holds_token: vec![false; n],
            waiting: VecDeque::new(),
            bdp: self.propagation_bdp(spec.senders[0], spec.receiver),
            history: Vec::new(),
            answers: vec![true; n],
            resp_of: vec![0; n],
            order: (0..n as u32).collect(),
            cwnd_area: vec![0; if spec.remember == Remember::Off { 0 } else { n }],
            cwnd_since: vec![0; if spec.remember == Remember::Off { 0 } else { n }],
        });
        self.pending_starts += 1;
        self.sched.at(spec.start, Event::new(EventKind::Burst, run));
    }

    /// Drops, marks (every queue) and timeouts (this run's connections) so far. Ports are
    /// caught up first: a mark at dequeue counts when its packet starts, not when the port
    /// is next looked at.
    fn rpc_counters(&mut self, run: usize) -> (u64, u64, u64) {
        self.catch_up_all();
        let (d, m) = self.ports.iter().fold((0, 0), |(d, m), p| (d + p.queue.counters.dropped_pkts, m + p.queue.counters.marked_pkts));
        let t = self.rpcs[run].flows.iter().map(|f| self.flows[f.idx()].sender.timeouts).sum();
        (d, m, t)
    }

    /// A burst starts: draw both jitters of every connection and schedule the requests.
    pub(super) fn rpc_burst(&mut self, run: usize) {
        let now = self.sched.now();
        let (drops, marks, timeouts) = self.rpc_counters(run);
        let r = &mut self.rpcs[run];
        let burst = r.bursts.len() as u32;
        let degree = r.draw_degree();
        r.bursts.push(BurstRecord { workload: r.workload, burst, degree, start: now, drops, marks, timeouts, ..Default::default() });
        r.free_tokens = r.spec.tokens;
        r.waiting.clear();
        r.holds_token.iter_mut().for_each(|h| *h = false);
        let (rq, rs) = (r.spec.request_jitter, r.spec.response_jitter);
        self.rpc_clamp(run);
        let r = &mut self.rpcs[run];
        for slot in 0..r.flows.len() {
            if !r.answers[slot] {
                continue;
            }
            let a = if rq > 0 { r.rng.gen_range(0..rq) } else { 0 };
            let b = if rs > 0 { r.rng.gen_range(0..rs) } else { 0 };
            r.response_jitter[slot] = b;
            let f = r.flows[slot];
            r.resp_of[slot] = r.responses.len() as u32;
            r.responses.push(ResponseRecord { burst, flow: f, ..Default::default() });
            self.sched.at(now + a, Event::new(EventKind::Request, self.flows[f.idx()].id.0));
        }
        // The burst event itself was pending; each response is pending until written.
        self.pending_starts += degree as u64 - 1;
    }

    /// The receive-window clamp of `rwnd_strategy` for the burst that starts now, on every
    /// connection (never above the static `transport.rwnd`).
    fn rpc_clamp(&mut self, run: usize) {
        let r = &self.rpcs[run];
        let spec = &r.spec;
        if spec.rwnd_strategy == RwndStrategy::None {
            return;
        }
        let degree = r.bursts.last().map_or(r.flows.len() as u32, |b| b.degree);
        let clamp = spec.rwnd_strategy.clamp(r.bdp, spec.rwnd_floor, degree, &r.history);
        let window = clamp.min(self.transport.sender.rwnd);
        for &f in &self.rpcs[run].flows {
            self.flows[f.idx()].sender.set_rwnd(window);
        }
    }

    /// Propagation RTT x slowest rate of the path from `src` to `dst`, in bytes (the
    /// IMC '24 dumbbell: 30 us x 10 Gb/s = 37,500 B).
    fn propagation_bdp(&self, src: HostId, dst: HostId) -> u64 {
        let (mut rtt, mut rate) = (0u128, None::<u64>);
        self.each_hop(src, self.route_dst(src, dst), 0, |p| {
            let port = self.topo.port(p);
            rtt += 2 * port.delay_ps as u128;
            rate = Some(rate.map_or(port.rate_bps, |r| r.min(port.rate_bps)));
        });
        (rtt * rate.unwrap_or(0) as u128 / 8 / crate::units::PS_PER_SEC as u128) as u64
    }

    /// `remember = "mean_cwnd"`: brings the cwnd integral of connection `f` (of a
    /// request/response incast: the caller tests) up to `now`, before its window changes
    /// (an ACK, a timeout). Out of line: the other flows pay one test of `rpc`.
    #[inline(never)]
    pub(super) fn rpc_track_cwnd(&mut self, f: FlowId, now: Time) {
        let flow = &self.flows[f.idx()];
        let r = &mut self.rpcs[flow.rpc as usize];
        if r.spec.remember == Remember::Off {
            return;
        }
        let slot = flow.rpc_slot as usize;
        r.cwnd_area[slot] += flow.sender.window.cwnd as u128 * (now - r.cwnd_since[slot]) as u128;
        r.cwnd_since[slot] = now;
    }

    /// The sender has its response's last ACK: what `remember` keeps for the next burst.
    fn rpc_remember(&mut self, f: FlowId) {
        let now = self.sched.now();
        self.rpc_track_cwnd(f, now);
        let flow = &self.flows[f.idx()];
        let (run, slot) = (flow.rpc as usize, flow.rpc_slot);
        let r = &mut self.rpcs[run];
        match r.spec.remember {
            Remember::Off => {}
            Remember::MeanCwnd => {
                let span = now - r.response(slot).write;
                let area = r.cwnd_area[slot as usize];
                let w = &mut self.flows[f.idx()].sender.window;
                if span > 0 {
                    w.cwnd = ((area / span as u128) as u64).max(w.min_cwnd);
                }
            }
        }
    }

    /// The receiver sends one request (with a token, if the scheduler has one free).
    pub(super) fn rpc_request(&mut self, f: FlowId) {
        let now = self.sched.now();
        let flow = &self.flows[f.idx()];
        let (run, slot) = (flow.rpc as usize, flow.rpc_slot);
        let r = &mut self.rpcs[run];
        let mut fl = flags::REQUEST;
        if r.spec.tokens > 0 {
            if r.free_tokens > 0 {
                r.free_tokens -= 1;
                r.holds_token[slot as usize] = true;
                fl |= flags::GRANT;
            } else {
                r.waiting.push_back(slot);
            }
        }
        let granted = fl & flags::GRANT != 0;
        let bytes = r.spec.request_bytes;
        let rec = r.response(slot);
        rec.request_sent = now;
        rec.granted = granted;
        self.send_control(f, fl, bytes);
    }

    /// A message from the receiver's application to sender `f.src` (request or grant).
    fn send_control(&mut self, f: FlowId, fl: u8, payload: u64) {
        let flow = &self.flows[f.idx()];
        let (from, to) = (flow.dst, flow.src);
        let wire = payload + self.transport.header + self.transport.framing;
        self.send_host_packet(f, from, to, PacketKind::Control, fl, 0, payload, wire);
    }

    /// The sender's pure ACK of a request. With an ACK for every segment (`delayed_ack = 1`)
    /// a TCP stack acknowledges the request at once, before the response is written (the
    /// response jitter is far shorter than a delayed-ACK timer, so with delayed ACKs it
    /// rides on the response instead). These ACKs cross the bottleneck with the burst and
    /// hold one slot each of a packet-counted queue: at 1000 flows they are what makes
    /// every burst overflow the 1434-packet port, as in ns-3.
    fn ack_request(&mut self, f: FlowId) {
        let flow = &self.flows[f.idx()];
        let (from, to) = (flow.src, flow.dst);
        let wire = self.transport.ack_bytes;
        self.send_host_packet(f, from, to, PacketKind::Control, 0, 0, 0, wire);
    }

    /// Sends a packet of connection `f` that is neither data nor its ACK (a request, a
    /// grant, a degree update) from host `from` to host `to`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_host_packet(&mut self, f: FlowId, from: HostId, to: HostId, kind: PacketKind, fl: u8, seq: u64, payload: u64, wire_bytes: u64) {
        let flow = &self.flows[f.idx()];
        let ecn = if self.transport.ecn { flags::ECT } else { 0 };
        let pkt = Packet {
            flow: f,
            dst: to,
            entropy: flow.entropy,
            wire_bytes: wire_bytes as u32,
            payload: payload as u16,
            kind,
            flags: fl | ecn,
            seq,
            sack_start: 0,
            sack_len: 0,
            next_hop: 0,
            ts: self.sched.now(),
            arrive_at: 0,
            next: NIL,
        };
        self.send_from_host(from, pkt);
    }

    /// Puts a new packet on host `from`'s NIC towards `pkt.dst`, on the path its entropy picks.
    pub(super) fn send_from_host(&mut self, from: HostId, pkt: Packet) {
        let r = self.pool.alloc(pkt);
        self.injected_bytes += pkt.wire_bytes as u64;
        self.flows[pkt.flow.idx()].packet_in();
        let nic = self.nic(from, pkt.dst, pkt.entropy);
        self.enqueue(nic, r);
    }

    /// A request or a grant reaches the sender.
    pub(super) fn on_control(&mut self, r: PacketRef, pkt: &Packet) {
        let now = self.sched.now();
        self.pool.free(r);
        let f = pkt.flow;
        let flow = &mut self.flows[f.idx()];
        if pkt.dst == flow.dst {
            return; // a request's ACK reached the receiver: nothing more to do
        }
        if let Some(hc) = &mut self.host_counters {
            hc.ingress(flow.src, now, pkt.wire_bytes as u64, false, pkt.has(flags::CE), &mut flow.last_bin_src);
        }
        let (run, slot) = (flow.rpc as usize, flow.rpc_slot as usize);
        let rp = &self.rpcs[run];
        if rp.spec.tokens > 0 {
            let window = if pkt.has(flags::GRANT) { rp.spec.token_window } else { 0 };
            self.flows[f.idx()].sender.set_rwnd(window);
        }
        if pkt.has(flags::REQUEST) {
            let at = now + rp.response_jitter[slot];
            self.sched.at(at, Event::new(EventKind::Respond, self.flows[f.idx()].id.0));
            if pkt.payload > 0 && self.transport.receiver.delayed_ack == 1 {
                self.ack_request(f);
            }
        } else if !self.flows[f.idx()].finished() {
            // A window update: the held-back response may go now.
            self.pump(f, NIL);
            self.arm_rto(f);
        }
    }

    /// The sender writes its response on the persistent connection.
    pub(super) fn rpc_respond(&mut self, f: FlowId) {
        let flow = &self.flows[f.idx()];
        let (run, slot) = (flow.rpc as usize, flow.rpc_slot as usize);
        if !flow.finished() {
            // The previous response's last ACK is still out: write once it is in.
            self.rpcs[run].deferred[slot] = true;
            return;
        }
        self.pending_starts -= 1;
        self.write_response(f);
    }

    fn write_response(&mut self, f: FlowId) {
        let now = self.sched.now();
        let mss = self.transport.mss();
        let flow = &mut self.flows[f.idx()];
        let (run, slot) = (flow.rpc as usize, flow.rpc_slot);
        let bytes = self.rpcs[run].spec.response_bytes;
        let boundary = flow.sender.size.next_multiple_of(mss);
        flow.sender.skip_to(boundary);
        flow.sender.append(bytes);
        flow.sender.on_write(now);
        flow.receiver.skip_to(boundary);
        flow.receiver.append(bytes);
        flow.size = if flow.size == 0 { bytes } else { flow.size + bytes };
        flow.finish = NEVER;
        flow.recv_done = NEVER;
        if flow.start == 0 {
            flow.start = now;
        }
        let (cwnd, alpha, timeouts) = (flow.sender.window.cwnd, flow.sender.cc.alpha(), flow.sender.timeouts);
        let rec = self.rpcs[run].response(slot);
        rec.write = now;
        rec.start_cwnd = cwnd;
        rec.start_alpha = alpha;
        rec.timeouts = timeouts;
        let r = &mut self.rpcs[run];
        if r.spec.remember != Remember::Off {
            (r.cwnd_area[slot as usize], r.cwnd_since[slot as usize]) = (0, now);
        }
        self.active_flows += 1;
        self.done = false;
        self.pump(f, NIL);
        self.arm_rto(f);
    }

    /// Counts a data segment the receiver got on a connection (for the burst's CE share).
    #[inline]
    pub(super) fn rpc_data(&mut self, f: FlowId, payload: u64, ce: bool) {
        let run = self.flows[f.idx()].rpc as usize;
        let b = self.rpcs[run].current();
        b.rx_bytes += payload;
        if ce {
            b.ce_bytes += payload;
        }
    }

    /// The receiver has the whole response: record it, pass the token on, end the burst
    /// after the last one.
    pub(super) fn rpc_received(&mut self, f: FlowId) {
        let now = self.sched.now();
        let flow = &self.flows[f.idx()];
        let (run, slot) = (flow.rpc as usize, flow.rpc_slot);
        let (cwnd, timeouts) = (flow.sender.window.cwnd, flow.sender.timeouts);
        let r = &mut self.rpcs[run];
        let rec = r.response(slot);
        rec.done = now;
        rec.end_cwnd = cwnd;
        rec.timeouts = timeouts - rec.timeouts;
        if r.holds_token[slot as usize] {
            r.holds_token[slot as usize] = false;
            match r.waiting.pop_front() {
                Some(next) => {
                    r.holds_token[next as usize] = true;
                    r.response(next).granted = true;
                    let g = r.flows[next as usize];
                    self.send_control(g, flags::GRANT, 0);
                }
                None => r.free_tokens += 1,
            }
        }
        let r = &mut self.rpcs[run];
        let b = r.current();
        b.responses_done += 1;
        if b.responses_done < b.degree {
            return;
        }
        b.end = now;
        let done = b.responses_done;
        r.history.push(done);
        let r = &mut self.rpcs[run];
        let next = r.current().burst + 1 < r.spec.count;
        let gap = r.spec.gap;
        let (drops, marks, timeouts) = self.rpc_counters(run);
        let b = self.rpcs[run].current();
        b.drops = drops - b.drops;
        b.marks = marks - b.marks;
        b.timeouts = timeouts - b.timeouts;
        if next {
            self.pending_starts += 1;
            self.sched.at(now + gap, Event::new(EventKind::Burst, run as u32));
        }
    }

    /// A connection's sender has every byte acknowledged: write a deferred response.
    pub(super) fn rpc_finished(&mut self, f: FlowId) {
        self.rpc_remember(f);
        let flow = &self.flows[f.idx()];
        let (run, slot) = (flow.rpc as usize, flow.rpc_slot as usize);
        if std::mem::take(&mut self.rpcs[run].deferred[slot]) {
            self.pending_starts -= 1;
            self.write_response(f);
        }
    }

    /// Samples every active flow's window (flows started and not finished).
    pub(super) fn sample_windows(&mut self) {
        let now = self.sched.now();
        let Some(ws) = &mut self.windows else { return };
        for (id, f) in self.flows.enumerate() {
            if !f.finished() && f.start <= now {
                ws.record(now, id, f.sender.window.cwnd, f.sender.in_flight, f.sender.cc.alpha());
            }
        }
        let interval = ws.interval;
        if self.has_work() {
            self.sched.after(interval, Event::new(EventKind::SampleWindows, 0));
        }
    }
}

/// One row per burst of every request/response incast.
pub fn bursts_table(runs: &[RpcRun]) -> Table {
    let b: Vec<&BurstRecord> = runs.iter().flat_map(|r| r.bursts.iter()).collect();
    let degree: Vec<u32> = b.iter().map(|x| x.degree).collect();
    let bytes: Vec<u64> = runs.iter().flat_map(|r| r.bursts.iter().map(|_| r.spec.response_bytes)).collect();
    let done = |x: &BurstRecord| x.end != 0;
    let u = |g: &dyn Fn(&BurstRecord) -> u64| Column::U64(b.iter().map(|x| g(x)).collect());
    // What a burst's end decides is null until it ends.
    let at_end = |g: &dyn Fn(&BurstRecord) -> u64| Column::OptU64(b.iter().map(|x| done(x).then(|| g(x))).collect());
    let mut t = Table::new("bursts");
    t.push("workload", Column::U32(b.iter().map(|x| x.workload).collect()))
        .push("burst", Column::U32(b.iter().map(|x| x.burst).collect()))
        .push("degree", Column::U32(degree))
        .push("response_bytes", Column::U64(bytes))
        .push("start_ps", u(&|x| x.start))
        .push("end_ps", at_end(&|x| x.end))
        .push("bct_ps", at_end(&|x| x.end - x.start))
        .push("responses_done", Column::U32(b.iter().map(|x| x.responses_done).collect()))
        .push("drops", at_end(&|x| x.drops))
        .push("marks", at_end(&|x| x.marks))
        .push("timeouts", at_end(&|x| x.timeouts))
        .push("rx_bytes", u(&|x| x.rx_bytes))
        .push("ce_bytes", u(&|x| x.ce_bytes))
        .push("completed", Column::Bool(b.iter().map(|x| done(x)).collect()));
    t
}

/// One row per response: every connection in every burst.
pub fn responses_table(w: &World, names: &[String]) -> Table {
    let rows: Vec<(u32, &ResponseRecord)> = w.rpcs.iter().flat_map(|r| r.responses.iter().map(move |x| (r.workload, x))).collect();
    let u = |g: &dyn Fn(&ResponseRecord) -> u64| Column::U64(rows.iter().map(|(_, x)| g(x)).collect());
    let done = |x: &ResponseRecord| x.done != 0;
    let at_done = |g: &dyn Fn(&ResponseRecord) -> u64| Column::OptU64(rows.iter().map(|(_, x)| done(x).then(|| g(x))).collect());
    let mut t = Table::new("responses");
    t.push("workload", Column::U32(rows.iter().map(|(wl, _)| *wl).collect()))
        .push("burst", Column::U32(rows.iter().map(|(_, x)| x.burst).collect()))
        .push("flow_id", u(&|x| x.flow.0 as u64))
        .push("src_name", Column::Str(rows.iter().map(|(_, x)| names[w.flows[x.flow.idx()].src.idx()].clone()).collect()))
        .push("request_ps", u(&|x| x.request_sent))
        .push("write_ps", u(&|x| x.write))
        .push("done_ps", at_done(&|x| x.done))
        .push("start_cwnd_bytes", u(&|x| x.start_cwnd))
        .push("start_alpha", Column::F64(rows.iter().map(|(_, x)| x.start_alpha).collect()))
        .push("end_cwnd_bytes", at_done(&|x| x.end_cwnd))
        .push("timeouts", at_done(&|x| x.timeouts))
        .push("granted", Column::Bool(rows.iter().map(|(_, x)| x.granted).collect()))
        .push("completed", Column::Bool(rows.iter().map(|(_, x)| done(x)).collect()));
    t
}
