//! Set-up at scale (issue 23): a 100,000-host star and a k = 48 fat-tree (27,648 hosts)
//! must build in under a second and 2 GB. Timings are not tests, so these are ignored and
//! print their figures (`cargo test --release --test scale -- --ignored --nocapture`);
//! what they assert is that the builds succeed and route correctly.
use std::time::Instant;

use fanin_engine::{parse_scenario, Simulation};

fn build(name: &str, topology: &str, workload: &str) -> f64 {
    let toml = format!("name = \"{name}\"\nduration = \"1us\"\n[topology]\n{topology}\nhost_link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n{workload}");
    let t = Instant::now();
    let spec = parse_scenario(&toml, &|_: &str| Err("no files".into())).unwrap_or_else(|e| panic!("{e}"));
    let parsed = t.elapsed().as_secs_f64();
    let sim = Simulation::new(&spec).unwrap_or_else(|e| panic!("{e}"));
    let built = t.elapsed().as_secs_f64();
    println!("{name}: parsed in {parsed:.3} s, built in {built:.3} s");
    drop(sim);
    built
}

#[test]
#[ignore]
fn a_100000_host_star_builds() {
    build("star-100k", "kind = \"star\"\nsenders = 99999", "[[workload]]\nkind = \"incast\"\ndegree = 99999\nbytes_per_sender = \"1KB\"\n");
}

#[test]
#[ignore]
fn a_k48_fat_tree_builds() {
    let ft = |k: u32| format!("kind = \"fat_tree\"\nk = {k}\nfabric_link = {{ rate = \"10Gbps\", delay = \"1us\" }}");
    for k in [16, 32, 48] {
        build(&format!("fat-tree-k{k}"), &ft(k), "[[workload]]\nkind = \"permutation\"\nstart = \"0s\"\n");
    }
}
