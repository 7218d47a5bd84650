//! Work the run's end cut off has no completion time: null in every table, never 0.
mod common;

use common::{bools, opt_u64s, run};
use fanin_engine::Column;

/// Two incasts into one 10 Gbit/s port: the first (4 x 64 KB, about 0.2 ms) ends, the
/// second starts at 1 ms and moves 4 x 10 MB, far more than the 2 ms run allows.
const TWO_INCASTS: &str = r#"
name = "cut-off"
seed = 1
duration = "2ms"
[topology]
kind = "dumbbell"
senders = 4
host_link = { rate = "10Gbps", delay = "1us" }
[transport]
cc = "dctcp"
[[workload]]
kind = "incast"
degree = 4
bytes_per_sender = "64KB"
start = "0s"
[[workload]]
kind = "incast"
degree = 4
bytes_per_sender = "10MB"
start = "1ms"
[record]
flows = true
"#;

#[test]
fn unfinished_flows_and_incasts_are_null() {
    let r = run(TWO_INCASTS);
    let done = bools(&r, "flows", "completed");
    assert_eq!(done, [true, true, true, true, false, false, false, false]);
    for col in ["finish_ps", "fct_ps", "recv_done_ps"] {
        let v = opt_u64s(&r, "flows", col);
        for (d, x) in done.iter().zip(&v) {
            assert_eq!(*d, x.is_some(), "{col}: {v:?}");
        }
    }
    match r.table("flows").unwrap().column("slowdown").unwrap() {
        Column::OptF64(v) => assert!(v[..4].iter().all(|x| x.is_some_and(|s| s >= 1.0)) && v[4..].iter().all(Option::is_none), "{v:?}"),
        other => panic!("slowdown is {other:?}"),
    }
    assert_eq!(bools(&r, "incasts", "completed"), [true, false]);
    for col in ["ict_ps", "last_finish_ps", "last_delivery_ps"] {
        let v = opt_u64s(&r, "incasts", col);
        assert!(v[0].is_some_and(|t| t > 0) && v[1].is_none(), "{col}: {v:?}");
    }
}
