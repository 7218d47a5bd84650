//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod errors;

use fanin_engine::{parse_scenario, Column, Results, ScenarioError, Simulation};

/// Reads CDF files from the repository's packaged data.
pub fn load_file(name: &str) -> Result<String, String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/fanin/data/workloads/");
    std::fs::read_to_string(format!("{dir}{name}")).map_err(|e| e.to_string())
}

/// The ICON spec's leaf-spine (20 leaves x 20 servers, 10 spines, 10 Gb/s links of
/// 10 us: a cross-leaf base RTT of 80 us) with drop-tail 200-packet switch ports; more
/// `[switch.queue]` lines may follow.
pub const ICON_LEAF_SPINE: &str = r#"[topology]
kind = "leaf_spine"
leaves = 20
spines = 10
hosts_per_leaf = 20
host_link = { rate = "10Gbps", delay = "10us" }
[switch.queue]
limit = "200pkt"
"#;

/// What an IMC '24 test scenario sets beyond the artifact's dumbbell and DCTCP: TOML
/// lines for the queues (both `[switch.queue]` and `[host.queue]` tables), more
/// `[transport]` and `rpc_incast` fields, and the `[record]` fields.
pub struct Imc24<'a> {
    pub seed: u32,
    pub queues: &'a str,
    pub transport: &'a str,
    pub workload: &'a str,
    pub record: &'a str,
}

/// An `rpc_incast` of `n` senders and `bursts` bursts of `response_bytes` each, in the IMC
/// '24 artifact's dumbbell (10 Gb/s hosts, 100 Gb/s between the ToRs, 5 us per link: a
/// 30 us propagation RTT, BDP 37.5 kB) with its DCTCP (52 B of IP + TCP headers and 2 B of
/// PPP: 1502-B frames, MSS 1448; the fork's 1-MSS floor).
pub fn imc24_rpc(n: u32, response_bytes: u64, bursts: u32, p: &Imc24) -> String {
    let Imc24 { seed, queues, transport, workload, record } = p;
    format!(
        r#"
seed = {seed}
max_duration = "60s"
[topology]
kind = "dumbbell"
senders = {n}
host_link = {{ rate = "10Gbps", delay = "5us" }}
core_link = {{ rate = "100Gbps", delay = "5us" }}
{queues}
[transport]
cc = "dctcp"
header = "52B"
framing = "2B"
min_cwnd = "1pkt"
{transport}
[[workload]]
kind = "rpc_incast"
degree = {n}
bytes_per_sender = "{response_bytes}B"
count = {bursts}
{workload}
[record]
flows = false
{record}
"#
    )
}

/// The ICON spec's micro-test: one 26 x 20 KB incast into an idle sink.
pub const ICON_MICRO_INCAST: &str = r#"[[workload]]
kind = "incast"
receiver = "h0"
senders = "all"
pick = "random"
degree = 26
bytes_per_sender = "20KB"
"#;

/// A k = 4 fat-tree of 10 Gb/s, 1 us links with DCTCP senders (200 us minimum RTO),
/// recording flows; the load balancing and the traffic follow.
pub const FAT_TREE_K4: &str = r#"
[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
[transport]
cc = "dctcp"
min_rto = "200us"
[record]
flows = true
"#;

/// One 10 Gb/s sender and receiver (a dumbbell, 1,460 B segments) and one DCTCP flow s0 ->
/// r0 of `bytes`: `extra` lines at the top level, `transport` lines in `[transport]`.
pub fn lone_flow(extra: &str, transport: &str, bytes: &str) -> String {
    format!(
        r#"seed = 1
{extra}
[topology]
kind = "dumbbell"
senders = 1
host_link = {{ rate = "10Gbps", delay = "1us" }}
[transport]
cc = "dctcp"
{transport}
[[workload]]
kind = "flow"
src = "s0"
dst = "r0"
bytes = "{bytes}"
"#
    )
}

/// `[topology]`: two leaf-spine datacenters (2 leaves, 1 spine, 2 hosts per leaf: h0-h3
/// and h4-h7), each spine with one link to its border, the borders joined by `wan_links`
/// parallel links of `wan_delay`; every link at `rate`, 1 us inside a datacenter.
pub fn two_leaf_spines(wan_links: u32, rate: &str, wan_delay: &str) -> String {
    format!(
        r#"[topology]
kind = "multi_dc"
fabric = "leaf_spine"
interconnect = "border"
leaves = 2
spines = 1
hosts_per_leaf = 2
border_links = 1
wan_links = {wan_links}
host_link = {{ rate = "{rate}", delay = "1us" }}
long_haul_link = {{ delay = "{wan_delay}" }}
"#
    )
}

/// Runs a scenario to its end and checks that every byte injected was delivered, dropped
/// or is still in flight.
pub fn run_conserving(toml: &str) -> Simulation {
    let spec = parse_scenario(toml, &load_file).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    let c = sim.conservation();
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{c:?}");
    sim
}

pub fn run(toml: &str) -> Results {
    let spec = parse_scenario(toml, &load_file).unwrap_or_else(|e| panic!("scenario error: {e}"));
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    sim.finish()
}

pub fn error(toml: &str) -> ScenarioError {
    match parse_scenario(toml, &load_file) {
        Ok(_) => panic!("scenario was accepted"),
        Err(e) => e,
    }
}

/// A column of integers; a nullable one must have no nulls (the tests using this expect
/// finished work).
pub fn u64s(r: &Results, table: &str, col: &str) -> Vec<u64> {
    opt_u64s(r, table, col).into_iter().enumerate().map(|(i, v)| v.unwrap_or_else(|| panic!("{col}[{i}] is null"))).collect()
}

pub fn opt_u64s(r: &Results, table: &str, col: &str) -> Vec<Option<u64>> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::U64(v) => v.iter().copied().map(Some).collect(),
        Column::OptU64(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

pub fn f64s(r: &Results, table: &str, col: &str) -> Vec<f64> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::F64(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

pub fn bools(r: &Results, table: &str, col: &str) -> Vec<bool> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::Bool(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

pub fn i64s(r: &Results, table: &str, col: &str) -> Vec<i64> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::I64(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

pub fn u32s(r: &Results, table: &str, col: &str) -> Vec<u32> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::U32(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

pub fn strs(r: &Results, table: &str, col: &str) -> Vec<String> {
    match r.table(table).unwrap().column(col).unwrap() {
        Column::Str(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}
