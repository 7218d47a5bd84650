//! Traffic-matrix (`.cm`) and mixed Poisson workloads, end to end through a scenario.

mod common;

use fanin_engine::{parse_scenario, Column, Results, Simulation};

const TOPO: &str = "[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n";

fn loader(name: &str) -> Result<String, String> {
    match name {
        // Out of start order on purpose; start in microseconds, one fractional.
        "three.cm" => Ok("Nodes 8\nConnections 3\n5->1 id 7 start 20 size 30000\n0->4 id 1 start 0 size 10000\n2->3 id 2 start 2.5 size 20000".into()),
        _ => common::load_file(name),
    }
}

fn run(toml: &str) -> Results {
    let spec = parse_scenario(toml, &loader).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    sim.finish()
}

fn u32s(r: &Results, col: &str) -> Vec<u32> {
    match r.table("flows").unwrap().column(col).unwrap() {
        Column::U32(v) => v.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn matrix_flows_start_in_time_order_at_their_hosts() {
    let r = run(&format!("{TOPO}[[workload]]\nkind = \"matrix\"\nfile = \"three.cm\"\nstart = \"1ms\"\n[record]\nflows = true\n"));
    assert_eq!(u32s(&r, "src"), [0, 2, 5]);
    assert_eq!(u32s(&r, "dst"), [4, 3, 1]);
    assert_eq!(common::u64s(&r, "flows", "size_bytes"), [10_000, 20_000, 30_000]);
    assert_eq!(common::u64s(&r, "flows", "start_ps"), [1_000_000_000, 1_002_500_000, 1_020_000_000]);
    assert!(common::bools(&r, "flows", "completed").iter().all(|c| *c));

    let r = run(&format!("{TOPO}[[workload]]\nkind = \"matrix\"\nfile = \"three.cm\"\nmax_flows = 2\n[record]\nflows = true\n"));
    assert_eq!(u32s(&r, "src"), [0, 2], "max_flows keeps the earliest");
}

#[test]
fn mixed_poisson_is_deterministic_and_keeps_the_first_flows() {
    let wl = |flows: u32, seed: u32| {
        format!(
            "seed = {seed}\n{TOPO}[[workload]]\nkind = \"mixed_poisson\"\nload = 0.3\nintra_fraction = 1.0\nflows = {flows}\nintra_sizes = \"alibaba_storage2019_cdf.txt\"\ninter_sizes = \"websearch_dctcp2010_cdf.txt\"\n[record]\nflows = true\n"
        )
    };
    let a = run(&wl(40, 3));
    let b = run(&wl(40, 3));
    let starts = common::u64s(&a, "flows", "start_ps");
    assert_eq!(starts.len(), 40);
    assert!(starts.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(starts, common::u64s(&b, "flows", "start_ps"));
    assert_eq!(common::u64s(&a, "flows", "size_bytes"), common::u64s(&b, "flows", "size_bytes"));
    // A prefix of a longer draw, and a different one under another seed.
    let longer = run(&wl(60, 3));
    assert_eq!(common::u64s(&longer, "flows", "start_ps")[..40], starts[..]);
    assert_ne!(common::u64s(&run(&wl(40, 4)), "flows", "start_ps"), starts);
    assert!(common::bools(&a, "flows", "completed").iter().all(|c| *c));
}
