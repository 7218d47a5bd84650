//! Turning the world's state into result tables.

use super::flow_rows::{self, FlowRow, FlowTotals};
use super::world::World;
use crate::ids::PortId;
use crate::metrics::table::{Column, Results, Table};
use crate::net::faults::FaultCounters;

pub(super) fn host_names(w: &World) -> Vec<String> {
    w.topo.hosts.iter().map(|n| w.topo.nodes[n.idx()].name.clone()).collect()
}

pub fn collect(w: &World, wall_s: f64) -> Results {
    let end = w.end_time();
    let host_names = host_names(w);
    let mut tables = vec![incasts_table(w), ports_table(w)];
    if w.record_flows {
        tables.insert(0, flows_table(w, &host_names));
    }
    if let Some(q) = &w.queue_series {
        tables.push(q.table(|p| w.topo.port_name(p)));
    }
    if let Some(r) = &w.rate_series {
        tables.push(r.table());
    }
    if let Some(h) = &w.host_counters {
        tables.push(h.table(&host_names, end));
    }
    if let Some(q) = &w.queue_events {
        tables.push(q.table(|p| w.topo.port_name(p)));
        tables.push(q.arrivals_table(|p| w.topo.port_name(p)));
    }
    if let Some(ws) = &w.windows {
        tables.push(ws.table());
    }
    if !w.rpcs.is_empty() {
        tables.push(super::rpc::bursts_table(&w.rpcs));
        tables.push(super::rpc::responses_table(w, &host_names));
    }
    let totals = flow_totals(w);
    let (drops, marks, trims) = w.ports.iter().fold((0, 0, 0), |(d, m, t), p| {
        (d + p.queue.counters.dropped_pkts, m + p.queue.counters.marked_pkts, t + p.queue.control_counters().trimmed_pkts)
    });
    let mut summary = vec![
        ("events".to_string(), w.sched.events as f64),
        ("packet_hops".to_string(), w.packet_hops as f64),
        ("sim_end_ps".to_string(), end as f64),
        ("wall_s".to_string(), wall_s),
        ("flows".to_string(), w.flows.len() as f64),
        ("flows_completed".to_string(), totals.completed as f64),
        ("drops".to_string(), drops as f64),
        ("marks".to_string(), marks as f64),
        ("trims".to_string(), trims as f64),
        ("seed".to_string(), w.seed as f64),
        ("nacks".to_string(), totals.nacks_sent as f64),
        ("proxy_nacks".to_string(), w.proxy_nacks as f64),
        ("timeouts".to_string(), totals.timeouts as f64),
    ];
    if w.retire {
        // Flow state a streaming run held at most (slots are reused, never given back).
        summary.push(("flow_slots".to_string(), w.flows.slots() as f64));
    }
    if w.measure.is_some() {
        summary.push(("measured_flows".to_string(), totals.measured as f64));
        summary.push(("measured_flows_completed".to_string(), totals.measured_completed as f64));
    }
    if w.transport.erasure.is_some() {
        let (table, totals) = erasure_table(w);
        tables.push(table);
        summary.extend(totals);
    }
    let faulty: Vec<(usize, FaultCounters)> = w.ports.iter().enumerate().filter_map(|(i, p)| Some((i, p.queue.fault_counters()?))).collect();
    if !faulty.is_empty() {
        let drops: u64 = faulty.iter().map(|(_, c)| c.failed_pkts + c.lost_pkts).sum();
        summary.push(("failure_drops".to_string(), drops as f64));
        tables.push(faults_table(w, &faulty));
    }
    Results { tables, summary }
}

/// The `flows` table: rows of retired flows not taken yet (a streaming run's), then the
/// live flows in id order (all of them, in a run that retires none). The rows are read out
/// of the flows once (112 bytes each), not once per column: twenty passes over a kilobyte
/// of state per flow were most of the time a 100,000-flow run took to make its tables.
fn flows_table(w: &World, names: &[String]) -> Table {
    let mut rows = Vec::with_capacity(w.retired.rows.len() + w.flows.len());
    rows.extend_from_slice(&w.retired.rows);
    rows.extend(w.flows.enumerate().map(|(id, f)| FlowRow::of(id, f, w.measured(f.start))));
    flow_rows::flows_table(&rows, names)
}

/// Per-flow totals for the summary: the retired flows' and the live ones'.
fn flow_totals(w: &World) -> FlowTotals {
    let mut t = w.retired.totals;
    for (id, f) in w.flows.enumerate() {
        t.add(&FlowRow::of(id, f, w.measured(f.start)));
    }
    t
}

/// `[transport.erasure]`: one row per coded flow, and the summary's totals of its NACKs and
/// rebuilt blocks.
fn erasure_table(w: &World) -> (Table, [(String, f64); 2]) {
    let coded: Vec<(usize, &super::Flow)> = w.flows.enumerate().filter(|(_, f)| f.erasure.is_some()).map(|(id, f)| (id.idx(), f)).collect();
    fn e(f: &super::Flow) -> &crate::reliability::BlockReceiver {
        f.erasure.as_deref().expect("a coded flow")
    }
    let c = |g: &dyn Fn(&super::Flow) -> u64| Column::U64(coded.iter().map(|&(_, f)| g(f)).collect());
    let mut t = Table::new("erasure");
    t.push("flow_id", Column::U64(coded.iter().map(|&(i, _)| i as u64).collect()))
        .push("blocks", c(&|f| e(f).blocks()))
        .push("coded_bytes", c(&|f| e(f).coded_bytes()))
        .push("parity_pkts", c(&|f| e(f).parity_packets()))
        .push("parity_nacks_sent", c(&|f| e(f).nacks_sent))
        .push("parity_nacks", c(&|f| e(f).nacks_acted))
        .push("rebuilt_blocks", c(&|f| e(f).rebuilt_blocks()));
    let sum = |g: &dyn Fn(&super::Flow) -> u64| coded.iter().map(|&(_, f)| g(f)).sum::<u64>() as f64;
    let totals = [
        ("parity_nacks".to_string(), sum(&|f| e(f).nacks_sent)),
        ("rebuilt_blocks".to_string(), sum(&|f| e(f).rebuilt_blocks())),
    ];
    (t, totals)
}

fn incasts_table(w: &World) -> Table {
    let i = &w.incasts;
    let done = |x: &super::flow::IncastRecord| x.finished_flows == x.degree;
    let mut t = Table::new("incasts");
    t.push("incast_id", Column::I64((0..i.len() as i64).collect()))
        .push("workload", Column::U32(i.iter().map(|x| x.workload).collect()))
        .push("burst", Column::U32(i.iter().map(|x| x.burst).collect()))
        .push("degree", Column::U32(i.iter().map(|x| x.degree).collect()))
        .push("receiver", Column::U32(i.iter().map(|x| x.receiver.0).collect()))
        .push("bytes_per_sender", Column::U64(i.iter().map(|x| x.bytes_per_sender).collect()))
        .push("first_start_ps", Column::U64(i.iter().map(|x| x.first_start).collect()))
        .push("last_finish_ps", Column::OptU64(i.iter().map(|x| done(x).then_some(x.last_finish)).collect()))
        .push("ict_ps", Column::OptU64(i.iter().map(|x| done(x).then(|| x.last_finish - x.first_start)).collect()))
        .push("ideal_ict_ps", Column::U64(i.iter().map(|x| x.ideal).collect()))
        .push("last_delivery_ps", Column::OptU64(i.iter().map(|x| done(x).then_some(x.last_delivery)).collect()))
        .push("completed", Column::Bool(i.iter().map(done).collect()))
        .push("measured", Column::Bool(i.iter().map(|x| w.measured(x.first_start)).collect()));
    t
}

fn ports_table(w: &World) -> Table {
    let p = &w.ports;
    let c = |g: &dyn Fn(&crate::net::PortState) -> u64| Column::U64(p.iter().map(g).collect());
    let mut t = Table::new("ports");
    t.push("port", Column::U32((0..p.len() as u32).collect()))
        .push("port_name", Column::Str((0..p.len()).map(|i| w.topo.port_name(PortId::from(i))).collect()))
        .push("rate_bps", c(&|x| x.rate_bps))
        .push("delay_ps", c(&|x| x.delay_ps))
        .push("tx_bytes", c(&|x| x.tx_bytes()))
        .push("tx_pkts", c(&|x| x.tx_pkts()))
        .push("enqueued_bytes", c(&|x| x.queue.counters.enqueued_bytes))
        .push("enqueued_pkts", c(&|x| x.queue.counters.enqueued_pkts))
        .push("dropped_bytes", c(&|x| x.queue.counters.dropped_bytes))
        .push("dropped_pkts", c(&|x| x.queue.counters.dropped_pkts))
        .push("marked_bytes", c(&|x| x.queue.counters.marked_bytes))
        .push("marked_pkts", c(&|x| x.queue.counters.marked_pkts))
        .push("max_queue_bytes", c(&|x| x.queue.counters.max_bytes))
        .push("max_queue_pkts", c(&|x| x.queue.counters.max_pkts))
        .push("trimmed_bytes", c(&|x| x.queue.control_counters().trimmed_bytes))
        .push("trimmed_pkts", c(&|x| x.queue.control_counters().trimmed_pkts));
    t
}

/// `[[event]]`: one row per port with failures or drop models, what they dropped (apart from
/// the queue's own drops in `ports`).
fn faults_table(w: &World, faulty: &[(usize, FaultCounters)]) -> Table {
    let c = |g: &dyn Fn(&FaultCounters) -> u64| Column::U64(faulty.iter().map(|(_, x)| g(x)).collect());
    let mut t = Table::new("faults");
    t.push("port", Column::U32(faulty.iter().map(|&(i, _)| i as u32).collect()))
        .push("port_name", Column::Str(faulty.iter().map(|&(i, _)| w.topo.port_name(PortId::from(i))).collect()))
        .push("failed_bytes", c(&|x| x.failed_bytes))
        .push("failed_pkts", c(&|x| x.failed_pkts))
        .push("lost_bytes", c(&|x| x.lost_bytes))
        .push("lost_pkts", c(&|x| x.lost_pkts))
        .push("blocks", c(&|x| x.blocks))
        .push("blocks_1_loss", c(&|x| x.blocks_by_losses[0]))
        .push("blocks_2_losses", c(&|x| x.blocks_by_losses[1]))
        .push("blocks_3_losses", c(&|x| x.blocks_by_losses[2]))
        .push("blocks_more_losses", c(&|x| x.blocks_by_losses[3]));
    t
}
