//! Per-packet spraying: one flow's data and ACKs spread evenly over every equal-cost path,
//! where per-flow ECMP keeps them on one; runs stay deterministic.

mod common;

use fanin_engine::Column;

fn one_flow(lb: &str) -> fanin_engine::Results {
    common::run(&format!(
        r#"
seed = 9
[topology]
kind = "leaf_spine"
leaves = 2
spines = 4
hosts_per_leaf = 2
host_link = {{ rate = "10Gbps", delay = "1us" }}
[routing]
lb = "{lb}"
[[workload]]
kind = "flow"
src = "h0"
dst = "h2"
bytes = "2MB"
"#
    ))
}

/// Packets sent by each port whose name starts with `prefix`.
fn tx(r: &fanin_engine::Results, prefix: &str) -> Vec<u64> {
    let ports = r.table("ports").unwrap();
    let Column::Str(names) = ports.column("port_name").unwrap() else { panic!() };
    let pkts = common::u64s(r, "ports", "tx_pkts");
    names.iter().zip(pkts).filter(|(n, _)| n.starts_with(prefix)).map(|(_, p)| p).collect()
}

#[test]
fn spraying_spreads_data_and_acks_over_every_spine() {
    let ecmp = one_flow("ecmp");
    let spray = one_flow("spray");
    for r in [&ecmp, &spray] {
        assert!(common::bools(r, "flows", "completed")[0]);
    }
    // Data leaves leaf0 towards the spines, ACKs leave leaf1.
    for prefix in ["leaf0->spine", "leaf1->spine"] {
        let e = tx(&ecmp, prefix);
        assert_eq!(e.iter().filter(|&&p| p > 0).count(), 1, "ECMP keeps one path: {prefix} {e:?}");
        let s = tx(&spray, prefix);
        let total: u64 = s.iter().sum();
        assert_eq!(s.len(), 4);
        for &p in &s {
            let share = p as f64 / total as f64;
            assert!((share - 0.25).abs() < 0.03, "{prefix} {s:?}");
        }
    }
    // The same seed sprays the same way.
    assert_eq!(tx(&one_flow("spray"), "leaf0->spine"), tx(&spray, "leaf0->spine"));
}
