//! `[topology.superways]`'s `leaf_senders`: the placement heuristic's split of an incast
//! server's senders between its leaf and its extra links (spec §1.3), as static routes.

mod common;

use fanin_engine::ids::HostId;
use fanin_engine::scenario::ValidSpec;
use fanin_engine::{parse_scenario, Simulation};

/// 3 racks of 3 under 2 spines; h2 (rack 0) aggregates all 8 others and has one extra link,
/// to spine 1; `leaf_senders` as given.
fn scenario(split: &str) -> String {
    format!(
        r#"seed = 3
[topology]
kind = "leaf_spine"
leaves = 3
spines = 2
hosts_per_leaf = 3
host_link = {{ rate = "10Gbps", delay = "1us" }}
superways = {{ servers = [{{ server = "h2", links = 1, spines = [1]{split} }}] }}
[[workload]]
kind = "aggregator_incast"
aggregators = ["h2"]
senders = "all"
degree = 8
first_bytes = "20KB"
sizes = "constant 4KB"
load = 0.2
capacity = "10Gbps"
stop = "200us"
[record]
flows = true
"#
    )
}

fn parse(split: &str) -> ValidSpec {
    parse_scenario(&scenario(split), &common::load_file).unwrap_or_else(|e| panic!("{e}"))
}

/// The pinned routes as (sender, switch names on the way).
fn routes(spec: &ValidSpec) -> Vec<(u32, Vec<String>)> {
    let t = &spec.topology;
    spec.routing
        .static_routes
        .iter()
        .map(|r| {
            assert_eq!(r.dst, HostId(2));
            (r.src.0, r.nodes[1..r.nodes.len() - 1].iter().map(|n| t.nodes[n.idx()].name.clone()).collect())
        })
        .collect()
}

#[test]
fn the_first_leaf_senders_come_through_the_leaf_and_the_rest_over_the_extra_link() {
    assert!(parse("").routing.static_routes.is_empty(), "no split, no route");
    // Quota 3: both rack-0 senders (h0, h1) first, on their own leaf (no route needed),
    // then the first remote one over spine 0 to leaf0; the five others over the extra link.
    let r = routes(&parse(", leaf_senders = 3"));
    assert_eq!(r.len(), 6);
    let through_leaf: Vec<_> = r.iter().filter(|(_, via)| via.len() == 3).collect();
    assert_eq!(through_leaf.len(), 1);
    let (s, via) = through_leaf[0];
    assert_eq!(via[1..], ["spine0".to_string(), "leaf0".to_string()]);
    assert_eq!(via[0], format!("leaf{}", s / 3));
    assert!(r.iter().filter(|(_, via)| via.len() == 2).all(|(s, via)| via == &[format!("leaf{}", s / 3), "spine1".into()]));
    // Quota 1: one local sender on the leaf, the other local one up to spine 1 and down the
    // extra link (leaf0 -> spine1 -> h2), every remote one over the extra link too.
    let r = routes(&parse(", leaf_senders = 1"));
    assert_eq!(r.len(), 7);
    let local: Vec<_> = r.iter().filter(|(s, _)| *s < 3).collect();
    assert_eq!(local.len(), 1);
    assert_eq!(local[0].1, ["leaf0", "spine1"]);
    // Quota 0: all eight over the extra link.
    assert_eq!(routes(&parse(", leaf_senders = 0")).len(), 8);
}

#[test]
fn a_split_run_sends_each_sender_its_way() {
    // With quota 0 nothing reaches h2 through leaf0 -> h2; with a quota of 8, nothing over
    // the extra link spine1 -> h2.
    let port_bytes = |split: &str, port: &str| {
        let mut sim = Simulation::new(&parse(split)).unwrap();
        sim.run();
        let r = sim.finish();
        let names = match r.table("ports").unwrap().column("port_name").unwrap() {
            fanin_engine::Column::Str(v) => v.clone(),
            c => panic!("{c:?}"),
        };
        let i = names.iter().position(|n| n == port).unwrap_or_else(|| panic!("no port {port}"));
        common::u64s(&r, "ports", "tx_bytes")[i]
    };
    assert!(port_bytes(", leaf_senders = 0", "spine1->h2") > 0);
    assert_eq!(port_bytes(", leaf_senders = 0", "leaf0->h2"), 0);
    assert!(port_bytes(", leaf_senders = 8", "leaf0->h2") > 0);
    assert_eq!(port_bytes(", leaf_senders = 8", "spine1->h2"), 0);
}

#[test]
fn a_split_needs_spines_and_one_place_to_say_it() {
    let err = |toml: String| parse_scenario(&toml, &common::load_file).err().expect("an error").to_string();
    let e = err(scenario(", leaf_senders = -1"));
    assert!(e.contains("topology.superways.servers[0].leaf_senders"), "{e}");
    let e = err(scenario("").replace("servers = [{ server = \"h2\", links = 1, spines = [1] }]", "per_rack = 2, links = 1, leaf_senders = 2, to = \"leaves\""));
    assert!(e.contains("leaf_senders") && e.contains("to = \"spines\""), "{e}");
    let e = err(scenario(", leaf_senders = 2") + "[[routing.static]]\nsrc = \"h5\"\ndst = \"h2\"\nvia = [\"leaf1\", \"spine0\", \"leaf0\"]\n");
    assert!(e.contains("routing.static[0]") && e.contains("leaf_senders already routes"), "{e}");
}
