//! UnoLB end to end: subflows spread a flow over paths, ACKs stay on their subflow, and
//! paths move only after a retransmission timeout.

mod common;

use fanin_engine::{parse_scenario, Column, Results, Simulation};

use common::FAT_TREE_K4 as FAT_TREE;

fn one_flow(lb: &str) -> String {
    format!("seed = 3\n{FAT_TREE}[routing]\nlb = \"{lb}\"\n[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h15\"\nbytes = \"2MB\"\n")
}

fn sim(toml: &str) -> Simulation {
    Simulation::new(&parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

/// Data packets (MTU-sized) leaving pod 0 upward, per agg -> core port.
fn core_uplinks_used(r: &Results) -> usize {
    let t = r.table("ports").unwrap();
    let (Column::Str(names), Column::U64(pkts)) = (t.column("port_name").unwrap(), t.column("tx_pkts").unwrap()) else { panic!() };
    names.iter().zip(pkts).filter(|(n, p)| (n.starts_with("agg0_") && n.contains("->core")) && **p > 100).count()
}

#[test]
fn subflows_spread_one_flow_over_core_paths() {
    let ecmp = common::run(&one_flow("ecmp"));
    assert_eq!(core_uplinks_used(&ecmp), 1, "ECMP keeps a flow on one path");
    let mut s = sim(&one_flow("unolb"));
    let paths = s.world().flows[0].selector.paths().to_vec();
    assert_eq!(paths.len(), 10);
    s.run();
    let f = &s.world().flows[0];
    assert!(f.finished());
    // A clean run has no timeout, so no subflow ever moved.
    assert_eq!(f.sender.timeouts, 0);
    assert_eq!(f.selector.paths(), paths.as_slice());
    assert_eq!(f.selector.reroutes(), 0);
    let r = s.finish();
    assert!(core_uplinks_used(&r) >= 3, "{} core uplinks", core_uplinks_used(&r));
}

#[test]
fn entropies_follow_the_seed() {
    let paths = |seed: u64| {
        let toml = one_flow("unolb").replacen("seed = 3", &format!("seed = {seed}"), 1);
        sim(&toml).world().flows[0].selector.paths().to_vec()
    };
    assert_eq!(paths(3), paths(3));
    assert_ne!(paths(3), paths(4));
    let custom = sim(&one_flow("unolb").replace("lb = \"unolb\"", "lb = \"unolb\"\nsubflows = 4\nentropies = 2"));
    let p = custom.world().flows[0].selector.paths().to_vec();
    assert_eq!(p.len(), 4);
    assert!(p.iter().all(|&e| e < 2));
}

#[test]
fn paths_move_only_after_a_timeout() {
    // An 8-to-1 incast into 8-packet buffers: tail losses end in retransmission timeouts.
    let toml = format!(
        "seed = 5\n{FAT_TREE}[switch.queue]\nlimit = \"8pkt\"\nmarking = {{ kind = \"step\", threshold = \"100pkt\" }}\n[routing]\nlb = \"unolb\"\n[[workload]]\nkind = \"incast\"\nreceiver = \"h15\"\ndegree = 8\nbytes_per_sender = \"300KB\"\n"
    );
    let mut s = sim(&toml);
    let before: Vec<Vec<u32>> = s.world().flows.iter().map(|f| f.selector.paths().to_vec()).collect();
    s.run();
    let flows = &s.world().flows;
    assert!(flows.iter().all(|f| f.finished()));
    let timed_out = flows.iter().filter(|f| f.sender.timeouts > 0).count();
    assert!(timed_out > 0, "the scenario must produce timeouts");
    for (f, old) in flows.iter().zip(&before) {
        let sub = &f.selector;
        if f.sender.timeouts == 0 {
            assert_eq!(sub.reroutes(), 0);
            assert_eq!(sub.paths(), old.as_slice());
        }
        // Each timeout moves at most every subflow once.
        assert!(sub.reroutes() <= 10 * f.sender.timeouts);
    }
    assert!(flows.iter().any(|f| f.selector.reroutes() > 0));
}
