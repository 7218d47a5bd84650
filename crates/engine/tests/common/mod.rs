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
