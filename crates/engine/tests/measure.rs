//! A `[measure]` window: flows and incasts starting in it are measured; Poisson arrivals go on
//! past it; the run ends once the window has closed and every measured flow has finished,
//! or at `duration`, with what did not finish null.

mod common;

use fanin_engine::{parse_scenario, Results, Simulation};

const MS: u64 = 1_000_000_000;

/// A small leaf-spine under ICON's kind of mix: 1 MB flows and incasts of U[8, 32] KB
/// responses, arriving from `start` on without a stop.
fn mix(extra: &str, start: &str) -> String {
    format!(
        r#"
{extra}
[topology]
kind = "leaf_spine"
leaves = 4
spines = 2
hosts_per_leaf = 4
host_link = {{ rate = "10Gbps", delay = "1us" }}
[switch.queue]
limit = "200pkt"
marking = {{ kind = "step", threshold = "65pkt" }}
[transport]
cc = "dctcp"
min_rto = "1ms"
[[workload]]
kind = "poisson"
load = 0.2
sizes = "constant 1MB"
capacity = "uplinks"
start = "{start}"
[[workload]]
kind = "poisson_incast"
load = 0.1
degree = 4
sizes = "uniform 8KB 32KB"
capacity = "uplinks"
start = "{start}"
"#
    )
}

struct Flows {
    start: Vec<u64>,
    finish: Vec<Option<u64>>,
    measured: Vec<bool>,
}

fn flows(r: &Results) -> Flows {
    Flows { start: common::u64s(r, "flows", "start_ps"), finish: common::opt_u64s(r, "flows", "finish_ps"), measured: common::bools(r, "flows", "measured") }
}

/// The run stopped and resumed every 37 us, as Python runs it in chunks.
fn run_in_chunks(toml: &str) -> Results {
    let spec = parse_scenario(toml, &common::load_file).unwrap();
    let mut sim = Simulation::new(&spec).unwrap();
    let mut t = 0;
    while !sim.run_until(t) {
        t += 37_000_123;
    }
    sim.finish()
}

#[test]
fn the_run_ends_when_the_measured_flows_do_and_cuts_off_the_rest() {
    // An unmeasured flow far too long to finish starts as the window closes.
    let toml = format!(
        "{}[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h15\"\nbytes = \"1GB\"\nstart = \"3ms\"\n[measure]\nfrom = \"1ms\"\nuntil = \"3ms\"\n",
        mix("duration = \"50ms\"", "0s")
    );
    let r = common::run(&toml);
    let f = flows(&r);
    let end = r.scalar("sim_end_ps").unwrap() as u64;
    let n = f.start.len();
    assert!(f.measured.iter().zip(&f.start).all(|(m, &s)| *m == (MS..3 * MS).contains(&s)), "measured = started in [1, 3) ms");
    let measured: Vec<usize> = (0..n).filter(|&i| f.measured[i]).collect();
    assert!(measured.len() > 30, "{} measured flows", measured.len());
    assert!(measured.iter().all(|&i| f.finish[i].is_some()), "every measured flow finished");
    let last = measured.iter().map(|&i| f.finish[i].unwrap()).max().unwrap();
    assert_eq!(end, last, "the run ends as the last measured flow finishes");
    assert!(end > 3 * MS && end < 50 * MS, "ended at {end} ps, before the duration");
    // Arrivals went on past the window; those still running at the end are cut off.
    let after: Vec<usize> = (0..n).filter(|&i| f.start[i] >= 3 * MS).collect();
    assert!(after.len() > 5, "arrivals continue past `until`");
    let cut: Vec<usize> = after.iter().copied().filter(|&i| f.finish[i].is_none()).collect();
    assert!(!cut.is_empty());
    let big = (0..n).find(|&i| f.start[i] == 3 * MS && common::opt_u64s(&r, "flows", "size_bytes")[i] == Some(1_000_000_000)).unwrap();
    assert!(!f.measured[big] && f.finish[big].is_none(), "the long unmeasured flow is null");
    assert!(common::opt_u64s(&r, "flows", "fct_ps").iter().zip(&f.finish).all(|(fct, fin)| fct.is_some() == fin.is_some()));
    let chunked = run_in_chunks(&toml);
    assert_eq!(chunked.scalar("sim_end_ps"), Some(end as f64));
    assert_eq!(flows(&chunked).finish, f.finish, "a run in chunks ends alike");
    // Flows that started before the window are not measured either.
    assert!((0..n).any(|i| f.start[i] < MS && !f.measured[i]));
    assert_eq!(r.scalar("measured_flows"), Some(measured.len() as f64));
    assert_eq!(r.scalar("measured_flows_completed"), Some(measured.len() as f64));
    // Incasts: measured by their start, the measured ones complete.
    let first = common::u64s(&r, "incasts", "first_start_ps");
    let inc_measured = common::bools(&r, "incasts", "measured");
    let done = common::bools(&r, "incasts", "completed");
    assert!(first.iter().zip(&inc_measured).all(|(&s, m)| *m == (MS..3 * MS).contains(&s)));
    assert!(inc_measured.iter().filter(|m| **m).count() > 3);
    assert!(inc_measured.iter().zip(&done).all(|(m, d)| !m || *d));
}

#[test]
fn a_window_whose_flows_finish_early_ends_the_run_at_its_close() {
    // A short measured flow, over long before the window closes at 0.6 ms; the arrivals,
    // from the window's close on, would go on until 50 ms.
    let toml = format!(
        "{}[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h15\"\nbytes = \"10KB\"\nstart = \"0.5ms\"\n[measure]\nfrom = \"0.5ms\"\nuntil = \"0.6ms\"\n",
        mix("duration = \"50ms\"", "0.6ms")
    );
    let r = common::run(&toml);
    let f = flows(&r);
    let measured: Vec<usize> = (0..f.start.len()).filter(|&i| f.measured[i]).collect();
    assert_eq!(measured.len(), 1);
    let last = measured.iter().map(|&i| f.finish[i].expect("measured flows finish")).max().unwrap();
    assert!(last < 600 * MS / 1000, "the measured flows finished at {last} ps, before the window closed");
    assert_eq!(r.scalar("sim_end_ps"), Some((600 * MS / 1000) as f64), "the run ends as the window closes");
    assert_eq!(f.start.len(), 1, "no arrival came before the end: the run did not wait for them");
}

#[test]
fn a_measured_flow_cut_off_by_the_duration_is_null() {
    // 100 MB at 10 Gb/s takes 80 ms: still running at the 4 ms cap.
    let toml = format!(
        "{}[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h15\"\nbytes = \"100MB\"\nstart = \"0.5ms\"\n[measure]\nfrom = \"0ms\"\nuntil = \"1ms\"\n",
        mix("duration = \"4ms\"", "0s")
    );
    let r = common::run(&toml);
    assert_eq!(r.scalar("sim_end_ps"), Some((4 * MS) as f64), "the duration caps the run");
    let f = flows(&r);
    let big = (0..f.start.len()).find(|&i| f.start[i] == MS / 2 && f.measured[i]).unwrap();
    assert_eq!(f.finish[big], None);
    assert_eq!(common::opt_u64s(&r, "flows", "fct_ps")[big], None);
    let (n, done) = (r.scalar("measured_flows").unwrap(), r.scalar("measured_flows_completed").unwrap());
    assert_eq!(n, f.measured.iter().filter(|m| **m).count() as f64);
    assert!(done < n, "{done} of {n}");
    assert_eq!(done, (0..f.start.len()).filter(|&i| f.measured[i] && f.finish[i].is_some()).count() as f64);
}
