//! `[[event]]` in whole runs: a failed link black-holes what is offered to it from its
//! instant on and nothing before, `recover` restores it, drop models lose packets that are
//! counted apart from buffer drops, routes never change, and a run is a function of its seed.

mod common;

use common::{opt_u64s, strs, u32s, u64s};
use fanin_engine::{parse_scenario, Results};

/// One sender, one receiver, a 10 Gb/s star: a 5 MB flow takes about 4.2 ms.
fn lone_flow(extra: &str) -> String {
    common::lone_flow(extra, "min_rto = \"200us\"", "5MB")
}

fn run_checked(toml: &str) -> Results {
    common::run_conserving(toml).finish()
}

/// The bottleneck port's row (`sw0->r0`) of a `ports` column.
fn bottleneck(r: &Results, col: &str) -> u64 {
    let row = strs(r, "ports", "port_name").iter().position(|n| n == "sw0->r0").unwrap();
    u64s(r, "ports", col)[row]
}

const T_FAIL: &str = "1000123ns";

#[test]
fn a_failed_link_drops_everything_offered_from_its_instant_and_nothing_before() {
    // The same run stopped at the failure's instant admits what the failed run admits.
    let before = run_checked(&lone_flow(&format!("duration = \"{T_FAIL}\"")));
    let admitted = bottleneck(&before, "enqueued_pkts");
    assert!(admitted > 500, "{admitted}");
    let failed = run_checked(&lone_flow(&format!(
        "duration = \"3ms\"\n[[event]]\nat = \"{T_FAIL}\"\nlink = \"sw0->r0\"\naction = \"fail\""
    )));
    assert_eq!(bottleneck(&failed, "enqueued_pkts"), admitted);
    let lost = u64s(&failed, "faults", "failed_pkts");
    assert_eq!(u32s(&failed, "faults", "port"), [3]);
    assert!(lost[0] > 0);
    // Every data packet the sender's NIC put on the wire reached the switch (1 us away)
    // and was either admitted before the failure or black-holed after it.
    let sent = u64s(&failed, "ports", "tx_pkts")[0];
    assert_eq!(sent, admitted + lost[0]);
    // Failure drops are not buffer drops, and the flow never finished.
    assert_eq!(bottleneck(&failed, "dropped_pkts"), 0);
    assert_eq!(failed.scalar("drops"), Some(0.0));
    assert_eq!(failed.scalar("failure_drops"), Some(lost[0] as f64));
    assert_eq!(opt_u64s(&failed, "flows", "fct_ps"), [None]);
    assert!(u64s(&failed, "flows", "timeouts")[0] >= 2);
}

#[test]
fn recover_restores_the_link() {
    let events = format!(
        "[[event]]\nat = \"{T_FAIL}\"\nlink = \"bottleneck\"\naction = \"fail\"\n[[event]]\nat = \"2ms\"\nlink = \"bottleneck\"\naction = \"recover\""
    );
    let r = run_checked(&lone_flow(&events));
    let finish = opt_u64s(&r, "flows", "finish_ps")[0].expect("the flow finishes once the link is back");
    let clean = opt_u64s(&run_checked(&lone_flow("")), "flows", "finish_ps")[0].unwrap();
    // It lost at least the 1 ms the link was down.
    assert!(finish > clean + 1_000_000_000, "{finish} vs {clean}");
    assert!(u64s(&r, "faults", "failed_pkts")[0] > 0);
    assert_eq!(u64s(&r, "faults", "lost_pkts")[0], 0);
}

#[test]
fn an_event_after_the_run_changes_no_table() {
    // The port then takes the queue's featured path: it must give the plain path's results.
    let incast = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/incast_dumbbell.toml")).unwrap();
    let plain = run_checked(&incast);
    let late = incast.replace("[topology]", "[[event]]\nat = \"1s\"\nlink = \"bottleneck\"\naction = \"fail\"\n\n[topology]");
    let with_event = run_checked(&late);
    for t in &plain.tables {
        assert_eq!(Some(t), with_event.table(&t.name), "{}", t.name);
    }
    assert_eq!(u64s(&with_event, "faults", "failed_pkts"), [0]);
    assert!(plain.table("faults").is_none() && plain.scalar("failure_drops").is_none());
}

#[test]
fn random_drops_are_counted_apart_and_follow_the_seed() {
    let drops = |seed: u64| {
        let toml = lone_flow("[[event]]\nat = \"0s\"\nlink = \"sw0->r0\"\naction = \"drop\"\nprobability = 0.002")
            .replace("seed = 1", &format!("seed = {seed}"));
        run_checked(&toml)
    };
    let a = drops(1);
    let lost = u64s(&a, "faults", "lost_pkts")[0];
    // About 0.2% of the ~3,400 packets offered (5 MB of 1,460 B segments, plus retransmissions).
    assert!((1..=30).contains(&lost), "{lost}");
    assert_eq!(bottleneck(&a, "dropped_pkts"), 0);
    assert!(u64s(&a, "flows", "retx_bytes")[0] > 0);
    assert!(opt_u64s(&a, "flows", "fct_ps")[0].is_some());
    let again = drops(1);
    assert_eq!(a.tables, again.tables);
    assert_ne!(a.table("flows"), drops(2).table("flows"));
}

/// Two leaf-spine datacenters, one border each, two parallel WAN links (10 us).
fn two_dc(lb: &str, events: &str) -> String {
    format!(
        r#"seed = 3
duration = "100ms"
{events}
{}[transport]
cc = "dctcp"
min_rto = "200us"
[routing]
lb = "{lb}"
[[workload]]
kind = "flow"
src = "h0"
dst = "h7"
bytes = "100KB"
"#,
        common::two_leaf_spines(2, "10Gbps", "10us")
    )
}

#[test]
fn a_black_hole_is_not_routed_around() {
    let both = "[[event]]\nat = \"0s\"\nlink = [\"dc0_border->dc1_border#0\", \"dc0_border->dc1_border#1\"]\naction = \"fail\"";
    let r = run_checked(&two_dc("ecmp", both));
    assert_eq!(opt_u64s(&r, "flows", "fct_ps"), [None]);
    let lost = u64s(&r, "faults", "failed_pkts");
    assert_eq!(lost.len(), 2);
    assert!(lost.iter().sum::<u64>() > 0);

    // Spraying over one failed and one working link: the flow gets through, and only the
    // failed link's port drops.
    let one = "[[event]]\nat = \"0s\"\nlink = \"dc0_border->dc1_border#0\"\naction = \"fail\"";
    let r = run_checked(&two_dc("spray", one));
    assert!(opt_u64s(&r, "flows", "fct_ps")[0].is_some());
    assert!(u64s(&r, "faults", "failed_pkts")[0] > 0);
    assert_eq!(strs(&r, "faults", "port_name"), ["dc0_border->dc1_border"]);
}

#[test]
fn link_names_resolve_to_the_ports_they_say() {
    let ports = |events: &str| {
        let spec = parse_scenario(&two_dc("ecmp", events), &common::load_file).unwrap_or_else(|e| panic!("{e}"));
        spec.faults.iter().map(|f| spec.topology.port_name(f.port)).collect::<Vec<_>>()
    };
    let ev = |link: &str| format!("[[event]]\nat = \"0s\"\nlink = {link}\naction = \"fail\"");
    assert_eq!(ports(&ev("\"dc1_border<->dc0_border#1\"")), ["dc0_border->dc1_border", "dc1_border->dc0_border"]);
    assert_eq!(ports(&ev("\"h0->dc0_leaf0\"")), ["h0->dc0_leaf0"]);
    // Per DC: 1 spine-border link; then 2 WAN links: 2 x 2 + 2 x 2 ports.
    assert_eq!(ports(&ev("\"inter\"")).len(), 8);
    // The two parallel WAN links are told apart by number, in the order they were built.
    let spec = parse_scenario(&two_dc("ecmp", &ev("[\"dc0_border->dc1_border#0\", \"dc0_border->dc1_border#1\"]")), &common::load_file).unwrap();
    let ids: Vec<u32> = spec.faults.iter().map(|f| f.port.0).collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[1], ids[0] + 2);
}

#[test]
fn block_drops_on_the_border_ports_are_seeded_per_port() {
    let events = "[[event]]\nat = \"0s\"\nlink = \"inter\"\naction = \"drop\"\nblock_losses = [0.1, 0.05]";
    let a = run_checked(&two_dc("spray", events));
    // 8 inter ports, each counting its own blocks of 10 packets (ACKs too).
    assert_eq!(u32s(&a, "faults", "port").len(), 8);
    let sum = |r: &Results, col: &str| u64s(r, "faults", col).iter().sum::<u64>();
    let (blocks, one, two) = (sum(&a, "blocks"), sum(&a, "blocks_1_loss"), sum(&a, "blocks_2_losses"));
    assert!(blocks > 20, "{blocks}");
    // Losses are drawn at a block's first packet: each port's last block, cut off by the
    // end of the traffic, may not have reached its doomed positions (at most 2 each).
    let lost = sum(&a, "lost_pkts");
    assert!(lost <= one + 2 * two && lost + 2 * 8 >= one + 2 * two, "{lost} {one} {two}");
    assert_eq!(sum(&a, "blocks_3_losses") + sum(&a, "blocks_more_losses"), 0);
    assert_eq!(a.tables, run_checked(&two_dc("spray", events)).tables);
    let other = run_checked(&two_dc("spray", events).replace("seed = 3", "seed = 4"));
    assert_ne!(a.table("faults"), other.table("faults"));
}

#[test]
fn presets_are_table1s_rates() {
    use fanin_engine::net::faults::{BlockLoss, DropModel, LinkState};
    let model = |preset: &str| {
        let events = format!("[[event]]\nat = \"2ms\"\nlink = \"dc0_border<->dc1_border#0\"\naction = \"drop\"\npreset = \"{preset}\"");
        let spec = parse_scenario(&two_dc("ecmp", &events), &common::load_file).unwrap();
        assert_eq!(spec.faults.len(), 2);
        spec.faults[0].changes.clone()
    };
    let blocks = |losses: &[f64]| LinkState::Drop(DropModel::Blocks(BlockLoss { block: 10, losses: losses.to_vec() }));
    assert_eq!(model("uno_setup1"), [(2_000_000_000, blocks(&[3.0e-4, 7.5e-5, 1.6e-5]))]);
    assert_eq!(model("uno_setup2"), [(2_000_000_000, blocks(&[4.0e-5, 2.3e-5, 4.9e-6]))]);
}
