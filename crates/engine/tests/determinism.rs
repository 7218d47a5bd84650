//! Same scenario + seed -> identical results; a different seed changes exactly what the seed
//! drives (ECMP entropy, incast jitter, Poisson arrivals and sizes, permutation pairs).

mod common;

use fanin_engine::units::PS_PER_US;
use fanin_engine::{parse_scenario, Column, Results, Simulation};

/// Everything but wall-clock time. Floats compare by bits, so a NaN (the slowdown of a flow
/// that did not finish) equals itself and `==` means byte-identical.
fn comparable(r: &Results) -> (Vec<fanin_engine::Table>, Vec<(String, u64)>) {
    let tables = r
        .tables
        .iter()
        .map(|t| {
            let mut t = t.clone();
            for (_, c) in t.columns.iter_mut() {
                if let Column::F64(v) = c {
                    *c = Column::U64(v.iter().map(|x| x.to_bits()).collect());
                }
            }
            t
        })
        .collect();
    (tables, r.summary.iter().filter(|(k, _)| k != "wall_s").map(|(k, v)| (k.clone(), v.to_bits())).collect())
}

fn run_seed(toml: &str, seed: u64) -> Results {
    common::run(&format!("seed = {seed}\n{toml}"))
}

fn assert_repeatable(toml: &str) -> Results {
    let a = run_seed(toml, 7);
    let b = run_seed(toml, 7);
    assert!(comparable(&a) == comparable(&b), "two runs with seed 7 differ");
    // Stopping and resuming the run at arbitrary instants changes nothing either.
    let spec = parse_scenario(&format!("seed = 7\n{toml}"), &common::load_file).unwrap();
    let mut sim = Simulation::new(&spec).unwrap();
    let mut t = 0;
    while !sim.run_until(t) {
        t += 37 * PS_PER_US + 123;
    }
    let c = sim.finish();
    assert!(comparable(&a) == comparable(&c), "a run stopped every 37 us differs from one run");
    a
}

const FAT_TREE_POISSON: &str = r#"
duration = "6ms"
[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "100pkt"
marking = { kind = "red", min = "20pkt", max = "60pkt", p_max = 0.1, weight = 0.2 }
[transport]
cc = "dctcp"
[[workload]]
kind = "poisson"
load = 0.4
sizes = "websearch_dctcp2010_cdf.txt"
[[workload]]
kind = "incast"
receiver = "h0"
senders = "all"
pick = "random"
degree = 12
bytes_per_sender = "20KB"
jitter = "50us"
period = "1ms"
count = 4
[record]
queues = { ports = "switches", interval = "50us" }
hosts = { bin = "1ms" }
"#;

#[test]
fn same_seed_same_results_poisson_jitter_ecmp() {
    let r = assert_repeatable(FAT_TREE_POISSON);
    // The scenario really exercises what it claims to.
    let flows = common::u64s(&r, "flows", "flow_id").len();
    assert!(flows > 48 + 5, "{flows} flows");
    assert!(r.scalar("marks").unwrap() > 0.0);
    let other = run_seed(FAT_TREE_POISSON, 8);
    assert!(comparable(&r) != comparable(&other));
    // Poisson: arrivals (count) or sizes change with the seed.
    let poisson = |r: &Results| -> Vec<(u64, u64)> {
        let inc = common::u64s(r, "flows", "size_bytes");
        let start = common::u64s(r, "flows", "start_ps");
        let id = match r.table("flows").unwrap().column("incast_id").unwrap() {
            Column::I64(v) => v.clone(),
            _ => unreachable!(),
        };
        inc.iter().zip(&start).zip(&id).filter(|(_, i)| **i < 0).map(|((s, t), _)| (*s, *t)).collect()
    };
    let (pa, pb) = (poisson(&r), poisson(&other));
    eprintln!("Poisson flows: {} (seed 7) vs {} (seed 8); total flows {flows}", pa.len(), pb.len());
    assert!(pa.len() > 5 && pb.len() > 5);
    assert_ne!(pa, pb, "Poisson arrivals did not depend on the seed");
    let sizes_a: Vec<u64> = pa.iter().map(|x| x.0).collect();
    let sizes_b: Vec<u64> = pb.iter().map(|x| x.0).collect();
    assert_ne!(sizes_a, sizes_b);
}

#[test]
fn incast_jitter_depends_on_the_seed() {
    let toml = r#"
[topology]
kind = "star"
senders = 16
[switch.queue]
limit = "200pkt"
[[workload]]
kind = "incast"
degree = 16
bytes_per_sender = "30KB"
jitter = "100us"
"#;
    let a = assert_repeatable(toml);
    let b = run_seed(toml, 8);
    let (sa, sb) = (common::u64s(&a, "flows", "start_ps"), common::u64s(&b, "flows", "start_ps"));
    assert!(sa.iter().all(|&t| t < 100 * PS_PER_US) && sb.iter().all(|&t| t < 100 * PS_PER_US));
    assert_ne!(sa, sb);
    // Sixteen draws from U[0, 100 us): distinct, and spread over the interval.
    let mut d = sa.clone();
    d.dedup();
    assert_eq!(d.len(), 16);
    assert!(sa.iter().max().unwrap() - sa.iter().min().unwrap() > 50 * PS_PER_US);
    // Without jitter every start is 0 whatever the seed.
    let no_jitter = toml.replace("jitter = \"100us\"\n", "");
    assert!(common::u64s(&run_seed(&no_jitter, 3), "flows", "start_ps").iter().all(|&t| t == 0));
}

/// Fixed host pairs on a fat-tree: only the per-flow ECMP entropy depends on the seed, and
/// with 8 inter-pod flows on 4 core paths some seeds collide where others do not.
#[test]
fn ecmp_paths_depend_on_the_seed() {
    let mut toml = String::from(
        r#"
[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "1000pkt"
marking = { kind = "step", threshold = "65pkt" }
"#,
    );
    for i in 0..8 {
        toml += &format!("[[workload]]\nkind = \"flow\"\nsrc = \"h{i}\"\ndst = \"h{}\"\nbytes = \"2MB\"\n", 8 + (i + 3) % 8);
    }
    let a = assert_repeatable(&toml);
    let fct = |r: &Results| common::u64s(r, "flows", "fct_ps");
    let mut distinct = vec![fct(&a)];
    for seed in 1..=6 {
        let f = fct(&run_seed(&toml, seed));
        if !distinct.contains(&f) {
            distinct.push(f);
        }
    }
    assert!(distinct.len() >= 3, "ECMP did not vary with the seed: {} distinct outcomes", distinct.len());
    // Same pairs, same sizes, in every run.
    let dst = |r: &Results| r.table("flows").unwrap().column("dst").unwrap().clone();
    assert_eq!(dst(&a), dst(&run_seed(&toml, 3)));
}

#[test]
fn permutation_on_a_fat_tree_depends_on_the_seed() {
    let toml = r#"
[topology]
kind = "fat_tree"
k = 4
[switch.queue]
limit = "100pkt"
[transport]
cc = "newreno"
min_rto = "1ms"
[[workload]]
kind = "permutation"
bytes = "500KB"
"#;
    let a = assert_repeatable(toml);
    let b = run_seed(toml, 8);
    assert_ne!(common::u64s(&a, "flows", "fct_ps"), common::u64s(&b, "flows", "fct_ps"));
    assert!(common::bools(&a, "flows", "completed").iter().all(|c| *c));
}
