//! `[record] flows = "stream"` (issue 23, large workloads in bounded memory): finished flows
//! leave memory once nothing of them is in the network, and their rows are handed out as the
//! run goes. The run must not change: the rows, sorted by flow id, equal the table of a run
//! that keeps every flow, and so do every other table and the summary.

use fanin_engine::{parse_scenario, Column, Results, Simulation, Table};

/// A k = 4 fat-tree under open-loop Poisson arrivals, 60 % load, with 30-packet queues:
/// 9,691 flows (485 k/s for 20 ms), with 21,254 drops and 1,718 timeouts (late duplicates
/// and ACKs: what keeps a finished flow alive), the last ending after 1 s of back-off.
const POISSON: &str = r#"
name = "stream"
seed = 3
[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "10Gbps", delay = "1us" }
[switch.queue]
limit = "30pkt"
marking = { kind = "step", threshold = "20pkt" }
[transport]
cc = "dctcp"
min_rto = "200us"
[[workload]]
kind = "poisson"
load = 0.6
sizes = "loguniform 2KB 100KB"
stop = "20ms"
"#;

fn spec(record: &str) -> fanin_engine::ValidSpec {
    parse_scenario(&format!("{POISSON}[record]\n{record}\n"), &|_: &str| Err("no files".into())).unwrap_or_else(|e| panic!("{e}"))
}

/// The table's rows sorted by `flow_id`, every column as u64 bits (floats by their bits, so
/// equality is byte identity).
fn by_id(t: &Table) -> Vec<(String, Vec<Option<u64>>)> {
    let Some(Column::U64(ids)) = t.column("flow_id") else { panic!("no flow_id") };
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| ids[i]);
    t.columns
        .iter()
        .map(|(name, c)| {
            let v: Vec<Option<u64>> = match c {
                Column::U64(v) => order.iter().map(|&i| Some(v[i])).collect(),
                Column::I64(v) => order.iter().map(|&i| Some(v[i] as u64)).collect(),
                Column::U32(v) => order.iter().map(|&i| Some(v[i] as u64)).collect(),
                Column::F64(v) => order.iter().map(|&i| Some(v[i].to_bits())).collect(),
                Column::Bool(v) => order.iter().map(|&i| Some(v[i] as u64)).collect(),
                Column::Str(v) => order.iter().map(|&i| Some(v[i].len() as u64 * 1_000_003 + v[i].bytes().map(u64::from).sum::<u64>())).collect(),
                Column::OptU64(v) => order.iter().map(|&i| v[i]).collect(),
                Column::OptF64(v) => order.iter().map(|&i| v[i].map(f64::to_bits)).collect(),
            };
            (name.clone(), v)
        })
        .collect()
}

/// Appends `more`'s rows to `all` (same columns).
fn append(all: &mut Option<Table>, more: Table) {
    let Some(a) = all else {
        *all = Some(more);
        return;
    };
    for ((_, c), (_, m)) in a.columns.iter_mut().zip(more.columns) {
        match (c, m) {
            (Column::U64(c), Column::U64(m)) => c.extend(m),
            (Column::I64(c), Column::I64(m)) => c.extend(m),
            (Column::U32(c), Column::U32(m)) => c.extend(m),
            (Column::F64(c), Column::F64(m)) => c.extend(m),
            (Column::Bool(c), Column::Bool(m)) => c.extend(m),
            (Column::Str(c), Column::Str(m)) => c.extend(m),
            (Column::OptU64(c), Column::OptU64(m)) => c.extend(m),
            (Column::OptF64(c), Column::OptF64(m)) => c.extend(m),
            _ => panic!("column types differ"),
        }
    }
}

fn without_wall(r: &Results) -> Vec<(String, u64)> {
    r.summary.iter().filter(|(k, _)| k != "wall_s").map(|(k, v)| (k.clone(), v.to_bits())).collect()
}

/// Runs the streaming scenario taking rows every `budget` retired flows; returns the rows
/// in chunks, the final results, and the most flow slots the run ever held.
fn streamed(budget: usize) -> (Vec<Table>, Results, usize) {
    streamed_on(Simulation::new(&spec("flows = \"stream\"")).unwrap(), budget, u64::MAX)
}

/// `sim` run to the end in steps of `step_ps`, its rows taken every `budget` retired flows:
/// the chunks, the final results, the most flow slots held.
fn streamed_on(mut sim: Simulation, budget: usize, step_ps: u64) -> (Vec<Table>, Results, usize) {
    assert!(sim.streams_flows());
    sim.hand_out_flows_every(budget);
    let mut chunks = Vec::new();
    let (mut slots, mut t) = (0, 0u64);
    loop {
        // A return to hand out rows comes before the step's end: the same step again.
        if sim.now_ps() >= t {
            t = t.saturating_add(step_ps);
        }
        let done = sim.run_until(t);
        slots = slots.max(sim.flow_slots());
        chunks.extend(sim.take_flow_rows());
        if done {
            break;
        }
    }
    (chunks, sim.finish(), slots)
}

#[test]
fn streamed_rows_equal_the_kept_table_and_memory_follows_live_flows() {
    let mut kept = Simulation::new(&spec("flows = true")).unwrap();
    assert!(!kept.streams_flows());
    kept.run();
    let kept = kept.finish();
    let flows = kept.table("flows").unwrap().rows();
    let summary = |k: &str| kept.summary.iter().find(|(n, _)| n == k).unwrap().1;
    assert!(flows > 8_000, "{flows} flows");
    assert_eq!(summary("flows_completed") as usize, flows, "every flow finishes");
    assert!(summary("drops") > 0.0 && summary("timeouts") > 0.0, "the run must lose packets and time out");

    let (chunks, last, slots) = streamed(500);
    // Rows come in chunks of the budget (one more at most: a drop in the same event may
    // retire a second flow), and the flows alive at the end come with the results.
    assert!(chunks.len() >= flows / 500 - 1, "{} chunks", chunks.len());
    assert!(chunks.iter().all(|c| (500..=501).contains(&c.rows())), "{:?}", chunks.iter().map(Table::rows).collect::<Vec<_>>());
    let mut all = None;
    for c in chunks {
        append(&mut all, c);
    }
    append(&mut all, last.table("flows").unwrap().clone());
    let all = all.unwrap();
    assert_eq!(all.rows(), flows);
    assert!(by_id(&all) == by_id(kept.table("flows").unwrap()), "streamed rows differ from the kept table");
    for name in ["ports", "incasts"] {
        assert!(last.table(name) == kept.table(name), "table {name} differs");
    }
    let mut summary = without_wall(&last);
    let slots_row = summary.iter().position(|(k, _)| k == "flow_slots").expect("a streaming run reports its flow slots");
    assert_eq!(f64::from_bits(summary.remove(slots_row).1) as usize, slots);
    assert_eq!(summary, without_wall(&kept));
    // 485 k flows/s living well under a millisecond each (their FCT, then their last
    // packets' way out) are a few hundred at once: 348 slots at most here.
    assert!(slots < flows / 20, "{slots} flow slots for {flows} flows");
}

#[test]
fn without_a_taker_every_row_comes_at_the_end() {
    let mut sim = Simulation::new(&spec("flows = \"stream\"")).unwrap();
    sim.run();
    let slots = sim.flow_slots();
    let r = sim.finish();
    let t = r.table("flows").unwrap();
    assert!(slots < t.rows() / 20, "{slots} flow slots for {} flows", t.rows());
    let Some(Column::U64(ids)) = t.column("flow_id") else { panic!() };
    // In the order the flows were retired, not by id.
    assert!(ids.windows(2).any(|w| w[0] > w[1]));
}

#[test]
fn a_scenario_pairing_flows_keeps_them_all() {
    // Rates sample finished flows too: nothing may leave; the rows all come at the end.
    let mut sim = Simulation::new(&spec("flows = \"stream\"\nrates = { interval = \"100us\" }")).unwrap();
    assert!(!sim.streams_flows());
    sim.run();
    assert_eq!(sim.flow_slots(), sim.world().flows.len());
}

#[test]
fn an_unknown_flows_choice_is_named() {
    let e = parse_scenario(&format!("{POISSON}[record]\nflows = \"later\"\n"), &|_: &str| Err("no files".into())).unwrap_err();
    assert_eq!(e.path, "record.flows");
    assert_eq!(e.allowed, ["stream"]);
    assert!(e.to_string().contains("unknown value `later`"), "{e}");
}

/// The same Poisson run cut into two parts of whole pods (`[partition]`): its flows are
/// retired at epochs' ends, when the parts together know that none of a flow's packets is
/// left. Its rows, sorted by flow id, are the cut run's kept table, and come in the same
/// chunks, in the same order, on one thread or three and whatever the caller's steps.
#[test]
fn a_cut_run_streams_its_rows_in_the_same_order_on_any_thread_count() {
    let cut = |record: &str| spec(&format!("{record}\n[partition]\nby = \"pod\"\nparts = 2"));
    let mut kept = Simulation::with_threads(&cut("flows = true"), 2).unwrap();
    assert_eq!(kept.partitions(), 2);
    assert!(!kept.streams_flows());
    kept.run();
    let kept = kept.finish();
    let flows = kept.table("flows").unwrap().rows();

    let stream = cut("flows = \"stream\"");
    let run = |threads: usize, step_ps: u64| streamed_on(Simulation::with_threads(&stream, threads).unwrap(), 500, step_ps);
    let (chunks, last, slots) = run(1, u64::MAX);
    assert!(chunks.len() >= flows / 1000 && chunks.iter().all(|c| c.rows() >= 500), "{:?}", chunks.iter().map(Table::rows).collect::<Vec<_>>());
    let mut all = None;
    for c in chunks.iter().cloned() {
        append(&mut all, c);
    }
    append(&mut all, last.table("flows").unwrap().clone());
    let all = all.unwrap();
    assert_eq!(all.rows(), flows);
    assert!(by_id(&all) == by_id(kept.table("flows").unwrap()), "streamed rows differ from the cut run's kept table");
    // The same flows as the uncut run's (the same arrivals, drawn in every part), with the
    // same unloaded FCTs (each walked in its sender's part only).
    let mut whole = Simulation::new(&spec("flows = true")).unwrap();
    whole.run();
    let (whole, cut) = (by_id(whole.finish().table("flows").unwrap()), by_id(&all));
    for name in ["flow_id", "src", "dst", "size_bytes", "start_ps", "ideal_fct_ps"] {
        let col = |t: &[(String, Vec<Option<u64>>)]| t.iter().find(|c| c.0 == name).unwrap().1.clone();
        assert!(col(&cut) == col(&whole), "{name} differs from the uncut run's");
    }
    let Some(Column::U64(ids)) = all.column("flow_id") else { panic!() };
    assert!(ids.windows(2).any(|w| w[0] > w[1]), "rows come in the order flows were retired");
    for name in ["ports", "incasts"] {
        assert!(last.table(name) == kept.table(name), "table {name} differs");
    }
    let mut summary = without_wall(&last);
    summary.retain(|(k, _)| k != "flow_slots");
    assert_eq!(summary, without_wall(&kept));
    assert!(slots < flows / 20, "{slots} flow slots for {flows} flows");

    for (threads, step_ps) in [(2, u64::MAX), (3, 37_000_000), (2, 13_300_000_000)] {
        let (other, other_last, other_slots) = run(threads, step_ps);
        assert!(other == chunks, "{threads} threads in steps of {step_ps} ps streamed other chunks");
        assert!(without_wall(&other_last) == without_wall(&last) && other_last.tables == last.tables);
        assert_eq!(other_slots, slots);
    }
}

#[test]
fn a_run_cut_per_datacenter_streams_whole() {
    // Its streamed rows would come in another order than the whole run's, whose tables a
    // cut per datacenter must give: it stays whole and says why.
    let two_dcs = POISSON.replace(
        "kind = \"fat_tree\"\nk = 4\n",
        "kind = \"multi_dc\"\npreset = \"uno\"\n",
    );
    let s = parse_scenario(&format!("{two_dcs}[record]\nflows = \"stream\"\n"), &|_: &str| Err("no files".into())).unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulation::with_threads(&s, 2).unwrap();
    assert_eq!(sim.partitions(), 1);
    assert!(sim.streams_flows());
    assert_eq!(sim.whole_because(), Some("streamed flows tables are cut by pod only, not per datacenter"));
}
