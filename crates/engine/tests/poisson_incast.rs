//! Poisson incast events (ICON's incast traffic) run end to end: one incasts row per event,
//! its flows tagged with the event, every response started at the event's instant.

mod common;

use std::collections::BTreeSet;

const LEAF_SPINE: &str = r#"
[topology]
kind = "leaf_spine"
leaves = 4
spines = 2
hosts_per_leaf = 4
host_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "200pkt"
marking = { kind = "step", threshold = "65pkt" }
[transport]
cc = "dctcp"
min_rto = "1ms"
[[workload]]
kind = "poisson_incast"
load = 0.3
degree = 5
sizes = "uniform 8KB 32KB"
capacity = "uplinks"
stop = "2ms"
"#;

#[test]
fn every_event_is_an_incast_of_its_degree_with_its_own_flows() {
    let r = common::run(LEAF_SPINE);
    let events = common::i64s(&r, "incasts", "incast_id");
    let degree = common::u32s(&r, "incasts", "degree");
    let receiver = common::u32s(&r, "incasts", "receiver");
    let first = common::u64s(&r, "incasts", "first_start_ps");
    let burst = common::u32s(&r, "incasts", "burst");
    let per_sender = common::u64s(&r, "incasts", "bytes_per_sender");
    // 0.3 of 8 leaves' uplinks x 10 Gb/s, in events of 5 x 20 KB: 30,000 events/s, 60 in 2 ms.
    assert!((35..90).contains(&events.len()), "{} events", events.len());
    assert_eq!(burst, (0..events.len() as u32).collect::<Vec<_>>(), "events numbered in order");
    assert!(degree.iter().all(|&d| d == 5));
    assert!(first.windows(2).all(|w| w[0] < w[1]) && *first.last().unwrap() < 2_000_000_000);

    let incast = common::i64s(&r, "flows", "incast_id");
    let (src, dst) = (common::u32s(&r, "flows", "src"), common::u32s(&r, "flows", "dst"));
    let (start, size) = (common::u64s(&r, "flows", "start_ps"), common::u64s(&r, "flows", "size_bytes"));
    assert_eq!(incast.len(), 5 * events.len(), "a flow per response, and no other");
    let mut sizes_seen = BTreeSet::new();
    for (i, &id) in events.iter().enumerate() {
        let flows: Vec<usize> = (0..incast.len()).filter(|&f| incast[f] == id).collect();
        assert_eq!(flows.len(), 5, "incast {id}");
        let senders: BTreeSet<u32> = flows.iter().map(|&f| src[f]).collect();
        assert_eq!(senders.len(), 5, "incast {id}: distinct senders");
        assert!(!senders.contains(&receiver[i]), "incast {id}: the sink never sends");
        assert!(flows.iter().all(|&f| dst[f] == receiver[i] && start[f] == first[i]), "incast {id}");
        let total: u64 = flows.iter().map(|&f| size[f]).sum();
        assert_eq!(per_sender[i], (total + 2) / 5, "incast {id}: the responses' mean");
        assert!(flows.iter().all(|&f| (8_000..=32_000).contains(&size[f])));
        sizes_seen.extend(flows.iter().map(|&f| size[f]));
    }
    assert!(sizes_seen.len() > 100, "responses are sized independently");
    // Everything finished (no duration), and the run measured all of it (no [measure]).
    assert!(common::bools(&r, "incasts", "completed").iter().all(|c| *c));
    assert!(common::bools(&r, "flows", "measured").iter().all(|m| *m));
    assert!(common::bools(&r, "incasts", "measured").iter().all(|m| *m));
    assert_eq!(r.scalar("measured_flows"), None, "measured counts come with a [measure] window");
}

#[test]
fn the_same_seed_draws_the_same_events() {
    let a = common::run(LEAF_SPINE);
    let b = common::run(LEAF_SPINE);
    let other = common::run(&format!("seed = 2\n{LEAF_SPINE}"));
    let key = |r: &fanin_engine::Results| (common::u32s(r, "flows", "src"), common::u64s(r, "flows", "size_bytes"), common::u64s(r, "flows", "fct_ps"));
    assert!(key(&a) == key(&b));
    assert!(key(&a) != key(&other));
}
