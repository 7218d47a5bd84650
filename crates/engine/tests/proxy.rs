//! The proxy paper's schemes (Zhou et al., HotNets '25) on a reduced two-site network: two
//! leaves joined by one long link stand for the two datacenters and the long haul. The
//! proxy is h0; senders h1..; the receiver sits behind the long link.

mod common;

use common::{run, u64s};
use fanin_engine::{Column, Results};

/// `degree` senders of `total` bytes through the scheme; a `limit`-packet switch buffer.
fn scenario(scheme: &str, degree: u32, total: &str, limit: &str, seed: u64) -> String {
    scenario_with(scheme, degree, total, limit, seed, "50us", "")
}

/// The same, trimming at every switch, packets sprayed over the two spines, and the long
/// links' delay.
fn trimming(scheme: &str, degree: u32, total: &str, limit: &str, seed: u64, long: &str) -> String {
    scenario_with(scheme, degree, total, limit, seed, long, "trim = true\n").replace("[switch.queue]", "[routing]\nlb = \"spray\"\n[switch.queue]")
}

fn scenario_with(scheme: &str, degree: u32, total: &str, limit: &str, seed: u64, long: &str, queue: &str) -> String {
    format!(
        r#"
seed = {seed}
[topology]
kind = "leaf_spine"
leaves = 2
spines = 2
hosts_per_leaf = 6
host_link = {{ rate = "100Gbps", delay = "1us" }}
fabric_link = {{ rate = "100Gbps", delay = "{long}" }}
[switch.queue]
{queue}limit = "{limit}"
marking = {{ kind = "step", threshold = "33pkt" }}
[transport]
cc = "hotnets_dctcp"
mtu = "4150B"
header = "0B"
ack_size = "64B"
init_cwnd = "1bdp"
min_cwnd = "1pkt"
min_rto = "2rtt"
initial_rto = "3rtt"
fast_retransmit = false
[[workload]]
kind = "proxy_incast"
scheme = "{scheme}"
proxy = "h0"
senders = ["h1", "h2", "h3", "h4", "h5"]
degree = {degree}
receiver = "h6"
total_bytes = "{total}"
[record]
flows = true
"#
    )
}

fn ict_ps(r: &Results) -> u64 {
    let ict = u64s(r, "incasts", "ict_ps");
    assert_eq!(ict.len(), 1);
    assert!(ict[0] > 0, "the incast completed");
    ict[0]
}

fn summary(r: &Results, key: &str) -> f64 {
    r.summary.iter().find(|(k, _)| k == key).map(|(_, v)| *v).unwrap_or_else(|| panic!("no summary {key}"))
}

fn i64s(r: &Results, table: &str, col: &str) -> Vec<i64> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::I64(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

#[test]
fn without_loss_every_scheme_moves_the_same_bytes_in_about_the_same_time() {
    let base = run(&scenario("baseline", 4, "4MB", "100000pkt", 1));
    let stream = run(&scenario("streamlined", 4, "4MB", "100000pkt", 1));
    let naive = run(&scenario("naive", 4, "4MB", "100000pkt", 1));
    let (b, s, n) = (ict_ps(&base), ict_ps(&stream), ict_ps(&naive));
    for r in [&base, &stream, &naive] {
        assert_eq!(summary(r, "drops"), 0.0);
        assert_eq!(summary(r, "timeouts"), 0.0);
    }
    // The relay adds two short hops to a 200 us path; the split connection adds proxy_S's
    // own start (it waits for the first bytes).
    assert!((s as f64 / b as f64 - 1.0).abs() < 0.05, "streamlined {s} vs baseline {b}");
    assert!((n as f64 / b as f64 - 1.0).abs() < 0.10, "naive {n} vs baseline {b}");
    // Streamlined: every flow is routed through h0 and is one connection.
    assert_eq!(i64s(&stream, "flows", "via"), vec![0; 4]);
    // Naive: two connections per flow; the proxy_R legs finish before proxy_S's.
    let finish = u64s(&naive, "flows", "finish_ps");
    let incast = i64s(&naive, "flows", "incast_id");
    assert_eq!(finish.len(), 8);
    let legs: Vec<u64> = (0..8).filter(|&i| incast[i] < 0).map(|i| finish[i]).collect();
    let onward: Vec<u64> = (0..8).filter(|&i| incast[i] == 0).map(|i| finish[i]).collect();
    assert_eq!((legs.len(), onward.len()), (4, 4));
    assert!(legs.iter().max() < onward.iter().min(), "the split ACKs end the legs early");
    assert_eq!(*onward.iter().max().unwrap(), u64s(&naive, "incasts", "last_finish_ps")[0]);
}

#[test]
fn a_split_connection_conserves_bytes_and_is_deterministic() {
    let a = run(&scenario("naive", 4, "2MB", "60pkt", 3));
    let b = run(&scenario("naive", 4, "2MB", "60pkt", 3));
    assert_eq!(u64s(&a, "flows", "finish_ps"), u64s(&b, "flows", "finish_ps"));
    let acked = u64s(&a, "flows", "bytes_acked");
    assert!(acked.iter().all(|&x| x == 500_000));
}

#[test]
fn trimming_proxies_beat_the_baseline_and_every_trim_is_nacked_once() {
    // 4 x 1 MB into a 60-packet buffer with a 1-BDP (~25 MB) window over a ~2 ms RTT: the
    // first burst is trimmed at the receiver's (baseline) or the proxy's (proxies) ToR.
    let mut icts = Vec::new();
    for scheme in ["baseline", "naive", "streamlined"] {
        let r = run(&trimming(scheme, 4, "4MB", "60pkt", 1, "500us"));
        let trims = summary(&r, "trims");
        let nacks = summary(&r, "nacks");
        // Naive's legs to the proxy start at the intra-DC BDP: they may never overflow.
        assert!(scheme == "naive" || trims > 100.0, "{scheme}: the first burst is trimmed");
        assert_eq!(summary(&r, "drops"), 0.0);
        // Every header reaches an endpoint or the proxy and is NACKed exactly once; each
        // NACK marks one segment lost, and in the end every byte is delivered once.
        assert_eq!(nacks, trims, "{scheme}: one NACK per trimmed packet");
        let acted: u64 = u64s(&r, "flows", "nacks").iter().sum();
        assert_eq!(acted as f64, trims, "{scheme}: no NACK is stale without timeouts");
        assert!(u64s(&r, "flows", "bytes_acked").iter().all(|&b| b == 1_000_000));
        if scheme == "streamlined" {
            assert_eq!(summary(&r, "proxy_nacks"), trims, "trimmed at the proxy's ToR, NACKed by the proxy");
        }
        icts.push(ict_ps(&r));
    }
    let (base, naive, stream) = (icts[0], icts[1], icts[2]);
    // Loss feedback in microseconds instead of one long RTT: both proxies finish in about
    // one RTT plus the transfer; the baseline needs NACK rounds over the long link.
    assert!((naive as f64) < 0.5 * base as f64 && (stream as f64) < 0.5 * base as f64, "base {base} naive {naive} streamlined {stream}");
}

#[test]
fn without_loss_the_proxies_gain_nothing() {
    // 4 x 100 KB fit in the 1000-packet buffer: nothing is trimmed, all three within 5%.
    let icts: Vec<u64> = ["baseline", "naive", "streamlined"]
        .iter()
        .map(|s| {
            let r = run(&trimming(s, 4, "400KB", "1000pkt", 2, "500us"));
            assert_eq!(summary(&r, "trims"), 0.0, "{s}");
            ict_ps(&r)
        })
        .collect();
    let lo = *icts.iter().min().unwrap() as f64;
    assert!(icts.iter().all(|&x| x as f64 / lo < 1.05), "{icts:?}");
}

#[test]
fn at_a_long_latency_a_proxy_finishes_in_one_rtt_plus_the_transfer() {
    // L = 10 ms on each of the two long links: one RTT is 4L plus microseconds, and 4 MB
    // take 320 us at 100 Gb/s.
    for scheme in ["naive", "streamlined"] {
        let r = run(&trimming(scheme, 4, "4MB", "60pkt", 1, "10ms"));
        let expect = 40e9 + 4e6 * 8.0 / 100e9 * 1e12;
        let got = ict_ps(&r) as f64;
        assert!((got / expect - 1.0).abs() < 0.02, "{scheme}: {got} ps vs 4L + transfer {expect} ps");
    }
}

#[test]
fn connection_rates_add_up_to_every_flow() {
    let toml = trimming("naive", 4, "4MB", "8pkt", 1, "500us").replace("[record]\n", "[record]\nrates = { interval = \"50us\" }\n");
    let r = run(&toml);
    let flow = u64s(&r, "rates", "flow_id");
    let acked = u64s(&r, "rates", "acked_bytes");
    let sent = u64s(&r, "rates", "sent_bytes");
    let time = u64s(&r, "rates", "time_ps");
    let retx = u64s(&r, "flows", "retx_bytes");
    assert!(retx.iter().sum::<u64>() > 0, "the scenario should retransmit");
    for f in 0..8u64 {
        let of = |col: &[u64]| -> u64 { flow.iter().zip(col).filter(|(x, _)| **x == f).map(|(_, b)| b).sum() };
        assert_eq!(of(&acked), 1_000_000, "flow {f}");
        // Sent counts every transmission: the flow's bytes once, plus its retransmissions.
        assert_eq!(of(&sent), 1_000_000 + retx[f as usize], "flow {f}");
    }
    assert!(time.iter().all(|t| t % 50_000_000 == 0));
}

#[test]
fn repeated_runs_are_identical_and_seeds_change_the_spraying() {
    let a = run(&trimming("streamlined", 4, "4MB", "60pkt", 5, "500us"));
    let b = run(&trimming("streamlined", 4, "4MB", "60pkt", 5, "500us"));
    for col in ["finish_ps", "recv_done_ps", "nacks", "retx_bytes"] {
        assert_eq!(u64s(&a, "flows", col), u64s(&b, "flows", col), "{col}");
    }
    let c = run(&trimming("streamlined", 4, "4MB", "60pkt", 6, "500us"));
    assert_ne!(u64s(&a, "ports", "tx_pkts"), u64s(&c, "ports", "tx_pkts"), "another seed sprays other paths");
}


/// The proxy's NIC (h0's only egress port) in the `ports` table: its most bytes queued.
fn proxy_nic_max_queue_bytes(r: &Results) -> u64 {
    let names = match r.table("ports").unwrap().column("port_name").unwrap() {
        Column::Str(v) => v.clone(),
        other => panic!("port_name is {other:?}"),
    };
    let i = names.iter().position(|n| n.starts_with("h0->")).unwrap_or_else(|| panic!("no h0 port in {names:?}"));
    u64s(r, "ports", "max_queue_bytes")[i]
}

#[test]
fn naive_proxy_s_puts_a_packet_on_its_nic_only_when_it_is_free() {
    // proxy_R's legs deliver faster than proxy_S's one NIC can send: in arrival order the
    // onward connections fill the NIC's FIFO; taking turns, a data packet waits for the
    // NIC to be free (only 64 B ACKs to the senders ever queue there), and the same bytes
    // arrive in about the same time.
    let rr = run(&trimming("naive", 4, "4MB", "60pkt", 1, "500us"));
    let fifo = run(&trimming("naive", 4, "4MB", "60pkt", 1, "500us").replace("total_bytes", "proxy_order = \"arrival\"\ntotal_bytes"));
    let (q_rr, q_fifo) = (proxy_nic_max_queue_bytes(&rr), proxy_nic_max_queue_bytes(&fifo));
    // (The counter includes the arriving packet: one data packet is the one going out.)
    assert!(q_rr <= 4150, "round robin: no data packet waits at the NIC ({q_rr} B)");
    assert!(q_fifo > 10 * 4150, "arrival order: the FIFO holds data ({q_fifo} B)");
    for r in [&rr, &fifo] {
        assert!(u64s(r, "flows", "bytes_acked").iter().all(|&b| b == 1_000_000));
    }
    let (a, b) = (ict_ps(&rr) as f64, ict_ps(&fifo) as f64);
    assert!((a / b - 1.0).abs() < 0.05, "round robin {a} ps vs arrival {b} ps");
}

#[test]
fn whole_segments_keep_a_short_tail_trimmable() {
    // 1,000,180 B per sender is 241 full 4150 B segments and a 30 B tail. With the htsim
    // convention (`header = "0B"`) that tail is smaller than a 64 B trimmed header: a
    // queue that overflows cannot trim it and drops it, and only the RTO recovers it.
    // With whole segments every flow is 242 full packets, and every loss is NACKed.
    let runt = trimming("baseline", 4, "4000720B", "60pkt", 1, "500us");
    let whole = runt.replace("fast_retransmit = false", "fast_retransmit = false\nwhole_segments = true");
    let r = run(&runt);
    assert!(summary(&r, "drops") > 0.0 && summary(&r, "timeouts") > 0.0, "a runt tail is dropped");
    let w = run(&whole);
    assert_eq!(summary(&w, "drops"), 0.0);
    assert_eq!(summary(&w, "timeouts"), 0.0);
    assert_eq!(summary(&w, "nacks"), summary(&w, "trims"));
    assert!(u64s(&w, "flows", "size_bytes").iter().all(|&b| b == 242 * 4150));
    assert!(u64s(&w, "flows", "bytes_acked").iter().all(|&b| b == 242 * 4150));
    assert_eq!(u64s(&w, "incasts", "bytes_per_sender"), vec![242 * 4150]);
}
