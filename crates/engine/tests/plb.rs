//! PLB end to end: a flow keeps one path while its rounds are calm, and moves after two
//! congested rounds in a row (its ACKs' ECE bits and acknowledged bytes reach it).

mod common;

use fanin_engine::routing::Selector;
use fanin_engine::{parse_scenario, Simulation};

/// The fat-tree with PLB; more `[routing]` lines may follow.
fn fat_tree() -> String {
    format!("{}[routing]\nlb = \"plb\"\n", common::FAT_TREE_K4)
}

fn run(toml: &str) -> Simulation {
    let mut s = Simulation::new(&parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"))).unwrap();
    s.run();
    s
}

fn plb(s: &Selector) -> &fanin_engine::routing::select::Plb {
    match s {
        Selector::Plb(p) => p,
        other => panic!("not PLB: {other:?}"),
    }
}

#[test]
fn a_lone_flow_keeps_its_path() {
    let s = run(&format!("seed = 3\n{}[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h15\"\nbytes = \"2MB\"\n", fat_tree()));
    let f = &s.world().flows[0];
    assert!(f.finished());
    let p = plb(&f.selector);
    // 2 MB at 10 Gb/s is 1.6 ms, about 60 base RTTs of ~26 us: all calm (no queue).
    assert!(p.rounds > 40, "{} rounds", p.rounds);
    assert_eq!((p.congested_total, p.repaths), (0, 0));
}

/// Eight 1 MB senders into one host, marking above 2 packets at every port, with the PLB
/// knobs `knobs`; returns per flow (rounds, congested rounds, repaths).
fn incast(knobs: &str) -> Vec<(u64, u64, u64)> {
    let toml = format!(
        "seed = 5\n{}{knobs}\n[switch.queue]\nlimit = \"1000pkt\"\nmarking = {{ kind = \"step\", threshold = \"2pkt\" }}\n[[workload]]\nkind = \"incast\"\nreceiver = \"h15\"\ndegree = 8\nbytes_per_sender = \"1MB\"\n",
        fat_tree()
    );
    let s = run(&toml);
    let flows = &s.world().flows;
    assert!(flows.iter().all(|f| f.finished() && f.sender.timeouts == 0 && f.sender.nacks == 0));
    flows.iter().map(|f| plb(&f.selector)).map(|p| (p.rounds, p.congested_total, p.repaths)).collect()
}

#[test]
fn congested_rounds_move_flows() {
    // One congested round is enough: every one moves its flow, and only those do.
    let one = incast("rehash_rounds = 1");
    assert!(one.iter().all(|&(_, congested, repaths)| congested > 5 && repaths == congested), "{one:?}");
    // Two in a row (the default): at most one move per two congested rounds.
    let two = incast("");
    assert!(two.iter().all(|&(_, congested, repaths)| repaths > 0 && 2 * repaths <= congested), "{two:?}");
    // No round has more than all its bytes marked: nothing moves.
    let never = incast("cong_thresh = 1.0");
    assert!(never.iter().all(|&(rounds, _, repaths)| rounds > 5 && repaths == 0), "{never:?}");
}
