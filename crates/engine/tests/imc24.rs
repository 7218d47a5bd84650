//! The IMC '24 DCTCP incast study, reduced: the dumbbell of the paper's artifact (10 Gb/s
//! hosts, 100 Gb/s between the ToRs, 5 us per link, 1502-B frames), RED as a step marker at
//! 65 over a 100-packet device FIFO, classic ECN echo, persistent request/response
//! connections. The three modes the paper describes show up at 100, 500 and 1000 flows.

mod common;
use common::{bools, imc24_rpc, run, u64s, Imc24};
use fanin_engine::{Column, Results};

const K: u64 = 65;
const MSS: u64 = 1448;
/// "Mid-burst", as the spec's checks define it: from 2 ms after the start to 1 ms before the end.
const MID_FROM_PS: u64 = 2_000_000_000;
const MID_TO_END_PS: u64 = 1_000_000_000;

fn scenario(n: u32, response_bytes: u64, bursts: u32, fidelity: bool, extra: &str) -> String {
    let (device, echo, limit) = if fidelity { ("device_queue = \"100pkt\"\n", "classic", 1334) } else { ("", "dctcp", 1333) };
    let queue = format!(
        "limit = \"{limit}pkt\"\n{device}marking = {{ kind = \"red\", min = \"65pkt\", max = \"65pkt\", weight = 1, p_max = 1 }}\n"
    );
    let queues = format!("[switch.queue]\n{queue}[host.queue]\n{queue}");
    let transport = format!("rto_granularity = \"1ms\"\necn_echo = \"{echo}\"");
    let workload = format!("gap = \"1s\"\nrequest_jitter = \"100us\"\nresponse_jitter = \"100us\"\n{extra}");
    let record = "queue_events = { ports = \"bottleneck\" }";
    imc24_rpc(n, response_bytes, bursts, &Imc24 { seed: 3, queues: &queues, transport: &transport, workload: &workload, record })
}

fn u32s(r: &Results, table: &str, col: &str) -> Vec<u32> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::U32(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

/// The bottleneck queue-disc length as (time, packets) steps from the burst's start to its end.
fn queue_in(r: &Results, start: u64, end: u64) -> Vec<(u64, u64)> {
    let t = u64s(r, "queue_events", "time_ps");
    let q = u64s(r, "queue_events", "packets");
    let mut level = 0;
    let mut out = vec![];
    for (t, q) in t.into_iter().zip(q) {
        if t < start {
            level = q;
        } else if t <= end {
            out.push((t, q));
        }
    }
    out.insert(0, (start, level));
    out
}

struct Burst {
    bct_ps: u64,
    drops: u64,
    timeouts: u64,
    start: u64,
    end: u64,
}

fn bursts(r: &Results) -> Vec<Burst> {
    let (s, e, b, d, t) = (u64s(r, "bursts", "start_ps"), u64s(r, "bursts", "end_ps"), u64s(r, "bursts", "bct_ps"), u64s(r, "bursts", "drops"), u64s(r, "bursts", "timeouts"));
    assert!(bools(r, "bursts", "completed").iter().all(|c| *c));
    (0..s.len()).map(|i| Burst { bct_ps: b[i], drops: d[i], timeouts: t[i], start: s[i], end: e[i] }).collect()
}

/// Start cwnds (bytes) of the responses of burst `b`.
fn start_cwnds(r: &Results, b: u32) -> Vec<u64> {
    let burst = u32s(r, "responses", "burst");
    u64s(r, "responses", "start_cwnd_bytes").into_iter().zip(burst).filter(|(_, x)| *x == b).map(|(c, _)| c).collect()
}

#[test]
fn healthy_mode_at_100_flows_oscillates_around_k() {
    // 100 x 187.5 kB: 15 ms of the receiver's link, three bursts.
    let r = run(&scenario(100, 187_500, 3, true, ""));
    let b = bursts(&r);
    assert_eq!(b.len(), 3);
    let last = &b[2];
    assert_eq!((last.drops, last.timeouts), (0, 0));
    // Near the framing-aware minimum: 100 x 18 frames of 1502 B... at 10 Gb/s.
    let wire = 100 * (187_500 + 187_500u64.div_ceil(MSS) * 54);
    let min_ps = wire * 800;
    assert!(last.bct_ps < min_ps * 11 / 10, "bct {} vs {}", last.bct_ps, min_ps);
    // Mid-burst the queue crosses K downward again and again, and stays far below the
    // 1334-packet disc.
    let q = queue_in(&r, last.start + MID_FROM_PS, last.end - MID_TO_END_PS);
    let down = q.windows(2).filter(|w| w[0].1 >= K && w[1].1 < K).count();
    assert!(down >= 3, "{down} down-crossings of K");
    assert!(q.iter().all(|(_, p)| *p < 667), "max {}", q.iter().map(|x| x.1).max().unwrap());
    assert!(start_cwnds(&r, 2).iter().any(|c| *c > MSS), "some cwnd above 1 MSS");
}

#[test]
fn degenerate_mode_at_500_flows_sits_above_k_with_every_cwnd_at_one_mss() {
    // 500 x 37.5 kB: 15 ms of the receiver's link, as in the paper.
    let r = run(&scenario(500, 37_500, 3, true, ""));
    let b = bursts(&r);
    let last = &b[2];
    assert_eq!((last.drops, last.timeouts), (0, 0));
    let cw = start_cwnds(&r, 2);
    let mut sorted = cw.clone();
    sorted.sort();
    assert_eq!(sorted[sorted.len() / 2], MSS, "median start cwnd");
    let q = queue_in(&r, last.start + MID_FROM_PS, last.end - MID_TO_END_PS);
    let min = q.iter().map(|x| x.1).min().unwrap();
    assert!(min > K, "mid-burst minimum {min}");
}

#[test]
fn timeout_mode_at_1000_flows_overflows_and_waits_for_rto() {
    // Every burst overflows, not only the one after the initial-window burst: the 1000
    // request ACKs share the 1434-packet port with ~1000 x 1 MSS of data (ns-3 agrees).
    let r = run(&scenario(1000, 18_750, 4, true, ""));
    let b = bursts(&r);
    for x in &b[1..] {
        assert!(x.drops > 0 && x.timeouts > 0, "drops {} timeouts {}", x.drops, x.timeouts);
        assert!(x.bct_ps >= 200_000_000_000, "bct {} ps", x.bct_ps);
    }
}

#[test]
fn the_token_scheduler_removes_the_timeouts_at_1000_flows() {
    // Section 5's "split the incast": 20 tokens of 64 kB of receive window.
    let r = run(&scenario(1000, 18_750, 2, true, "tokens = 20\ntoken_window = \"64KB\""));
    let b = bursts(&r);
    for x in &b[1..] {
        assert_eq!((x.drops, x.timeouts), (0, 0));
        assert!(x.bct_ps < 17_000_000_000, "bct {}", x.bct_ps);
    }
    assert!(bools(&r, "responses", "granted").iter().all(|g| *g), "every response got a token");
}

#[test]
fn paper_mode_at_500_flows_holds_n_minus_bdp_packets() {
    // One queue, DCTCP echo: every flow has one packet in flight, so the queue holds
    // about N - BDP = 500 - 25 packets.
    let r = run(&scenario(500, 37_500, 3, false, ""));
    let last = &bursts(&r)[2];
    let q = queue_in(&r, last.start + MID_FROM_PS, last.end - MID_TO_END_PS);
    let area: f64 = q.windows(2).map(|w| (w[1].0 - w[0].0) as f64 * w[0].1 as f64).sum();
    let mean = area / (q.last().unwrap().0 - q[0].0) as f64;
    assert!((mean - 475.0).abs() < 0.15 * 475.0, "mean queue {mean}");
}

#[test]
fn connections_persist_and_bytes_are_conserved() {
    use fanin_engine::{parse_scenario, Simulation};
    let spec = parse_scenario(&scenario(20, 50_000, 3, true, ""), &common::load_file).unwrap();
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    let c = sim.conservation();
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight);
    let r = sim.finish();
    // 20 connections (not 60 flows), each carrying three responses.
    assert_eq!(r.table("responses").unwrap().rows(), 60);
    let timeouts = u64s(&r, "responses", "timeouts");
    assert!(timeouts.iter().all(|t| *t == 0));
    // The window carries over: burst 2 starts from where burst 1 left off, not from IW.
    assert!(start_cwnds(&r, 0).iter().all(|c| *c == 10 * MSS));
    let start2 = start_cwnds(&r, 1);
    assert!(start2.iter().all(|c| *c != 10 * MSS), "{start2:?}");
}
