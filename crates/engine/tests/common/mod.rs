//! Helpers shared by the integration tests.
#![allow(dead_code)]

use fanin_engine::{parse_scenario, Column, Results, ScenarioError, Simulation};

/// Reads CDF files from the repository's packaged data.
pub fn load_file(name: &str) -> Result<String, String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/fanin/data/workloads/");
    std::fs::read_to_string(format!("{dir}{name}")).map_err(|e| e.to_string())
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
