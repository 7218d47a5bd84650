//! Incasts at fixed aggregators (Superways' workload) run end to end: every event is one
//! aggregator's incast from its own fixed senders; the first answers with 64 KiB at the
//! event, the others with the event's one short size after 80 us and a bounded jitter.

mod common;

use std::collections::{BTreeMap, BTreeSet};

const SCENARIO: &str = r#"
[topology]
kind = "leaf_spine"
leaves = 4
spines = 2
hosts_per_leaf = 5
host_link = { rate = "10Gbps", delay = "1us" }
[transport]
cc = "dctcp"
min_rto = "1ms"
[[workload]]
kind = "aggregator_incast"
aggregators = ["h4", "h9", "h14", "h19"]
senders = ["h0", "h1", "h2", "h5", "h6", "h7", "h10", "h11", "h12", "h15", "h16", "h17"]
degree = 6
first_bytes = "64KiB"
sizes = "discrete 1KiB:0.7 2KiB:0.1 10KiB:0.2"
delay = "80us"
jitter = "10us"
jitter_max = "120us"
load = 0.05
capacity = "uplinks"
stop = "3ms"
"#;

#[test]
fn each_event_is_an_aggregators_incast_from_its_fixed_senders() {
    let r = common::run(SCENARIO);
    let events = common::i64s(&r, "incasts", "incast_id");
    let receiver = common::u32s(&r, "incasts", "receiver");
    let first = common::u64s(&r, "incasts", "first_start_ps");
    // 0.05 of 4 leaves x 2 spines x 10 Gb/s = 4 Gb/s, 6 x 2.7648 KiB an event counted:
    // 29,432 events/s, about 88 in 3 ms.
    assert!((50..130).contains(&events.len()), "{} events", events.len());
    let incast = common::i64s(&r, "flows", "incast_id");
    let (src, dst) = (common::u32s(&r, "flows", "src"), common::u32s(&r, "flows", "dst"));
    let (start, size) = (common::u64s(&r, "flows", "start_ps"), common::u64s(&r, "flows", "size_bytes"));
    let pool: BTreeSet<u32> = [0, 1, 2, 5, 6, 7, 10, 11, 12, 15, 16, 17].into();
    let mut senders_of: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut shorts = BTreeSet::new();
    for (i, &id) in events.iter().enumerate() {
        assert!([4, 9, 14, 19].contains(&receiver[i]));
        let flows: Vec<usize> = (0..incast.len()).filter(|&f| incast[f] == id).collect();
        assert_eq!(flows.len(), 6);
        let senders: Vec<u32> = flows.iter().map(|&f| src[f]).collect();
        assert!(senders.iter().all(|s| pool.contains(s)) && flows.iter().all(|&f| dst[f] == receiver[i]));
        // The same senders at every event of an aggregator.
        let known = senders_of.entry(receiver[i]).or_insert_with(|| senders.clone());
        assert_eq!(*known, senders, "aggregator h{}", receiver[i]);
        // The first at the event with 64 KiB, the others 80-200 us later with one size.
        let (head, rest) = flows.split_first().unwrap();
        assert_eq!((size[*head], start[*head]), (65_536, first[i]));
        let short = size[rest[0]];
        assert!([1024, 2048, 10_240].contains(&short));
        shorts.insert(short);
        for &f in rest {
            assert_eq!(size[f], short, "one short size per event");
            let late = start[f] - first[i];
            assert!((80_000_000..=200_000_000).contains(&late), "{late} ps");
        }
    }
    assert_eq!(senders_of.len(), 4, "every aggregator had events");
    assert_eq!(shorts.len(), 3, "the short size is drawn per event");
    assert!(common::bools(&r, "incasts", "completed").iter().all(|c| *c));
}

#[test]
fn the_seed_draws_the_senders() {
    let senders = |toml: &str| {
        let r = common::run(toml);
        let (incast, src) = (common::i64s(&r, "flows", "incast_id"), common::u32s(&r, "flows", "src"));
        (0..src.len()).filter(|&f| incast[f] == 0).map(|f| src[f]).collect::<Vec<_>>()
    };
    let a = senders(SCENARIO);
    assert_eq!(a, senders(SCENARIO));
    let others: BTreeSet<Vec<u32>> = (2..6).map(|s| senders(&format!("seed = {s}\n{SCENARIO}"))).collect();
    assert!(others.len() > 1, "other seeds draw other senders");
}
