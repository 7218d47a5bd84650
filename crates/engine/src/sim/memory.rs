//! What a scenario will need in memory, known before anything large is built: a topology or
//! a recording too large for the machine must end in one line naming the field, not in an
//! allocation failure that kills the process (and a Python interpreter with it).
//!
//! The estimate counts what grows with the scenario's size and is allocated up front or
//! steadily: the routing tables (a cell per forwarding node and destination class), the ports, the flows and incast
//! records, and the series a `[record]` entry fills over the run's duration. Packets in flight, queue-event
//! traces and window samples depend on the run's dynamics and are left out, so the figure
//! is a lower bound; the tables returned to Python roughly double the recorded part.

use super::flow::Flow;
use super::flow::IncastRecord;
use super::grid::STREAMING_EPOCH_PS;
use crate::metrics::hosts::Bin;
use crate::net::PortState;
use crate::routing::TableShape;
use crate::scenario::{MeasureWindow, ValidSpec};
use crate::units::{Time, PS_PER_SEC, PS_PER_US};
use crate::workload::Workload;
use crate::ScenarioError;

/// One part of the estimate: the scenario field that causes it, how, and its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Need {
    pub field: &'static str,
    pub what: String,
    pub bytes: u64,
}

/// Bytes of one queue-series sample (time, port, bytes, packets, phantom bytes).
const QUEUE_SAMPLE_BYTES: u64 = 8 + 4 + 8 + 8 + 8;
/// Bytes of one rate sample (time, flow, acked, rate, sent, sent rate).
const RATE_SAMPLE_BYTES: u64 = 6 * 8;

/// The parts of `spec`'s memory need that can be known before it is built, largest first.
pub fn estimate(spec: &ValidSpec) -> Vec<Need> {
    let topo = &spec.topology;
    let (nodes, hosts, ports) = (topo.nodes.len() as u64, topo.hosts.len() as u64, topo.port_count() as u64);
    let shape = TableShape::of(topo);
    let flows = flow_count(spec);
    let incasts = incast_count(spec);
    let mut needs = vec![
        Need {
            field: "topology",
            what: format!("routing tables: {} rows x {} destination classes", shape.rows + shape.switches + 1, shape.classes),
            bytes: shape.bytes(nodes, hosts),
        },
        Need { field: "topology", what: format!("{ports} ports"), bytes: ports * std::mem::size_of::<PortState>() as u64 },
        flow_need(spec, flows),
    ];
    if incasts > 0 {
        let bytes = incasts.saturating_mul(std::mem::size_of::<IncastRecord>() as u64);
        needs.push(Need { field: "workload", what: format!("{incasts} incast records"), bytes });
    }
    if let Some(end) = spec.duration {
        let r = &spec.record;
        if let Some((interval, ports)) = &r.queues {
            let samples = end / (*interval).max(1);
            let bytes = samples.saturating_mul(ports.len() as u64).saturating_mul(QUEUE_SAMPLE_BYTES);
            needs.push(Need { field: "record.queues", what: format!("{} ports x {samples} samples", ports.len()), bytes });
        }
        if let Some((bin, hosts)) = &r.hosts {
            let bins = end / (*bin).max(1);
            let bytes = bins.saturating_mul(hosts.len() as u64).saturating_mul(std::mem::size_of::<Bin>() as u64);
            needs.push(Need { field: "record.hosts", what: format!("{} hosts x {bins} bins", hosts.len()), bytes });
        }
        if let Some(interval) = r.rates {
            let samples = end / interval.max(1);
            let bytes = samples.saturating_mul(flows).saturating_mul(RATE_SAMPLE_BYTES);
            needs.push(Need { field: "record.rates", what: format!("{flows} flows x {samples} samples"), bytes });
        }
    }
    needs.sort_by(|a, b| b.bytes.cmp(&a.bytes));
    needs
}

/// The flows' state. A streaming run (`[record] flows = "stream"`) keeps only the flows alive
/// at once, plus 4 bytes a flow for its id's slot; its rows leave as it goes. Cut by pod,
/// every part holds every flow, and a finished one until its epoch ends.
fn flow_need(spec: &ValidSpec, flows: u64) -> Need {
    let flow_bytes = std::mem::size_of::<Flow>() as u64;
    let parts = spec.partition.map_or(1, |p| p.parts as u64);
    if !spec.record.stream_flows || !only_poisson_flows(spec) {
        let bytes = flows.saturating_mul(flow_bytes).saturating_mul(parts);
        return Need { field: "workload", what: format!("{flows} flows"), bytes };
    }
    let wait_ps = if parts > 1 { STREAMING_EPOCH_PS as f64 } else { 0.0 };
    let live = live_poisson_flows(spec, wait_ps).min(flows);
    Need {
        field: "workload",
        what: format!("{flows} flows streamed, about {live} alive at once"),
        bytes: live.saturating_mul(flow_bytes).saturating_add(flows.saturating_mul(4)).saturating_mul(parts),
    }
}

/// Whether every workload is open-loop Poisson flows (the ones a streaming run retires and
/// whose number alive can be told from the spec).
fn only_poisson_flows(spec: &ValidSpec) -> bool {
    spec.workloads.iter().all(|w| matches!(w, Workload::Poisson(_)))
}

/// A flow's life beyond sending its bytes: RTTs, queueing, a timeout or two (generous; a
/// data-center RTT is some microseconds).
const LIFE_ALLOWANCE_PS: f64 = 100.0 * PS_PER_US as f64;

/// The flows alive at once (Little's law: arrival rate x life), with twice the life a
/// flow of the mean size has at its host's rate, slowed by the load as in an M/M/1 queue,
/// plus `wait_ps` a finished flow may wait to be retired.
fn live_poisson_flows(spec: &ValidSpec, wait_ps: f64) -> u64 {
    let live: f64 = spec
        .workloads
        .iter()
        .filter_map(|w| match w {
            Workload::Poisson(p) if p.sizes.mean() > 0.0 && !p.hosts.is_empty() => Some(p),
            _ => None,
        })
        .map(|p| {
            let per_s = p.load * p.capacity_bps / 8.0 / p.sizes.mean();
            let host_bps = p.capacity_bps / p.hosts.len() as f64;
            let send_ps = p.sizes.mean() * 8.0 / host_bps * PS_PER_SEC as f64 / (1.0 - p.load.min(0.99));
            per_s * (2.0 * (send_ps + LIFE_ALLOWANCE_PS) + wait_ps) / PS_PER_SEC as f64
        })
        .sum();
    if live.is_finite() {
        live.ceil().min(u64::MAX as f64) as u64
    } else {
        u64::MAX
    }
}

/// The flows the workloads will create (a Poisson workload's expected count).
fn flow_count(spec: &ValidSpec) -> u64 {
    spec.workloads
        .iter()
        .map(|w| match w {
            Workload::Incast(i) => i.senders.len() as u64 * i.count.max(1) as u64,
            Workload::Poisson(p) => poisson_flows(p.load * p.capacity_bps, p.sizes.mean(), arrival_span(p.start, p.stop, spec.measure)),
            // Every response is a flow of the mean size.
            Workload::PoissonIncast(p) => poisson_flows(p.load * p.capacity_bps, p.sizes.mean(), arrival_span(p.start, p.stop, spec.measure)),
            Workload::AggregatorIncast(p) => poisson_flows(p.load * p.capacity_bps, p.sizes.mean(), arrival_span(p.start, p.stop, spec.measure)),
            Workload::Permutation(p) => p.hosts.len() as u64,
            Workload::Flows(f) => f.len() as u64,
            Workload::MixedPoisson(m) => m.flows as u64,
            Workload::RpcIncast(r) => r.senders.len() as u64,
            // The senders' connections to the proxy and the proxy's onward ones.
            Workload::ProxyIncast(p) => 2 * p.incast.senders.len() as u64 * p.incast.count.max(1) as u64,
        })
        .fold(0, u64::saturating_add)
}

/// The incast records the workloads will create (a Poisson incast workload's expected count).
fn incast_count(spec: &ValidSpec) -> u64 {
    spec.workloads
        .iter()
        .map(|w| match w {
            Workload::Incast(i) => i.count as u64,
            Workload::ProxyIncast(_) => 1,
            Workload::PoissonIncast(p) => {
                let events_bps = p.load * p.capacity_bps / p.degree as f64;
                poisson_flows(events_bps, p.sizes.mean(), arrival_span(p.start, p.stop, spec.measure))
            }
            Workload::AggregatorIncast(p) => (arrival_span(p.start, p.stop, spec.measure) as f64 / p.mean_gap_ps()).ceil() as u64,
            _ => 0,
        })
        .fold(0, u64::saturating_add)
}

/// How long a Poisson workload's arrivals go on, as far as can be known: to its stop or,
/// with a `[measure]` window, at least to the window's end (the run then ends once the
/// measured flows have, so arrivals without a stop are not an unbounded count).
fn arrival_span(start: Time, stop: Time, measure: Option<MeasureWindow>) -> Time {
    measure.map_or(stop, |m| stop.min(m.until)).saturating_sub(start)
}

/// Flows of mean size `mean_bytes` offered at `bps` over `span`.
fn poisson_flows(bps: f64, mean_bytes: f64, span: Time) -> u64 {
    if mean_bytes <= 0.0 {
        return 0;
    }
    let n = bps / 8.0 / mean_bytes * (span as f64 / PS_PER_SEC as f64);
    if n.is_finite() {
        n.min(u64::MAX as f64) as u64
    } else {
        u64::MAX
    }
}

/// Refuses a scenario whose estimate exceeds `limit_bytes`, naming the largest part's field.
pub fn check(spec: &ValidSpec, limit_bytes: u64) -> Result<(), ScenarioError> {
    let needs = estimate(spec);
    let total = needs.iter().map(|n| n.bytes).fold(0, u64::saturating_add);
    if total <= limit_bytes {
        return Ok(());
    }
    let top = &needs[0];
    Err(ScenarioError::new(
        top.field,
        format!(
            "the run would need at least {} before it starts ({}: {}), over the memory limit of {}",
            gigabytes(total),
            top.what,
            gigabytes(top.bytes),
            gigabytes(limit_bytes)
        ),
    ))
}

fn gigabytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_scenario;

    fn star(senders: u32, extra: &str) -> ValidSpec {
        let toml = format!(
            "name = \"m\"\nduration = \"10ms\"\n[topology]\nkind = \"star\"\nsenders = {senders}\n\
             host_link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [[workload]]\nkind = \"incast\"\ndegree = {senders}\nbytes_per_sender = \"1KB\"\n{extra}"
        );
        parse_scenario(&toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The flow table holds the flows the estimate counts, not up to twice as many (a
    /// doubling from empty): an incast's burst and a permutation's pairs are reserved.
    #[test]
    fn incasts_and_permutations_take_their_flows_in_one_block() {
        let permutation = "[[workload]]\nkind = \"permutation\"\nstart = \"0s\"\n";
        for (extra, flows) in [("", 1000), (permutation, 2001)] {
            let w = crate::sim::build::build(&star(1000, extra)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((w.flows.len(), w.flows.capacity()), (flows, flows), "{extra}");
        }
    }

    #[test]
    fn the_routing_tables_grow_with_switches_times_classes() {
        let s = star(1000, "");
        let routing = estimate(&s).into_iter().find(|n| n.what.starts_with("routing")).unwrap();
        // One switch, one class (every host hangs off it): a row in `Routes`, the switch's
        // and the hosts' in the `Fib`; 1001 hosts and 1002 nodes.
        assert_eq!(routing.what, "routing tables: 3 rows x 1 destination classes");
        assert_eq!(routing.bytes, 3 * 4 + 1001 * 20 + 1002 * 16);
    }

    #[test]
    fn a_star_of_100000_senders_fits_and_a_4096_leaf_fabric_needs_135_mb() {
        assert!(check(&star(100_000, ""), 1 << 30).is_ok());
        let s = parse_scenario(
            "name = \"w\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 4096\nspines = 16\nhosts_per_leaf = 16\n\
             host_link = { rate = \"10Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"10Gbps\", delay = \"1us\" }\n\
             [[workload]]\nkind = \"incast\"\ndegree = 4\nbytes_per_sender = \"1KB\"\nreceiver = \"h0\"\n",
            &|_: &str| Err("no files".to_string()),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let e = check(&s, 100_000_000).unwrap_err();
        assert_eq!(e.path, "topology");
        // 4,112 switch rows in `Routes`, 4,113 rows in the `Fib`, 4,096 classes of 4 bytes
        // (134.8 MB), 65,536 hosts and 69,648 nodes (2.4 MB).
        assert!(e.to_string().contains("routing tables: 8225 rows x 4096 destination classes: 0.1 GB"), "{e}");
    }

    #[test]
    fn poisson_incasts_count_their_responses_and_events() {
        // 0.5 x 10 x 10 Gb/s over 1 ms in events of 4 responses of 10 KB: 625 responses.
        let wl = "[[workload]]\nkind = \"poisson_incast\"\nload = 0.5\ndegree = 4\nsizes = \"constant 10KB\"\nhosts = \"all\"\nstop = \"1ms\"\n";
        let s = star(9, wl);
        let needs = estimate(&s);
        let flows = needs.iter().find(|n| n.what.ends_with(" flows")).unwrap();
        assert_eq!(flows.what, "634 flows", "9 of the incast, 625 responses");
        let records = needs.iter().find(|n| n.what.ends_with("incast records")).unwrap();
        assert_eq!(records.what, "157 incast records", "the incast and 156.25 events");
        // With a window and no stop, arrivals are counted to the window's end.
        let windowed = star(9, &format!("{}[measure]\nfrom = \"0ms\"\nuntil = \"2ms\"\n", wl.replace("stop = \"1ms\"\n", "")));
        let flows = estimate(&windowed).into_iter().find(|n| n.what.ends_with(" flows")).unwrap();
        assert_eq!(flows.what, "1259 flows");
    }

    #[test]
    fn a_streaming_poisson_run_is_counted_by_its_live_flows() {
        // 10 KB flows at 0.3 x 10 hosts x 10 Gb/s: 375,000 flows/s, 40,001 over 106.67 ms.
        let wl = "[[workload]]\nkind = \"poisson\"\nload = 0.3\nsizes = \"constant 10KB\"\nhosts = \"all\"\nstop = \"106.67ms\"\n";
        let kept = star(9, wl);
        let all = |s: &ValidSpec| estimate(s).into_iter().find(|n| n.what.contains(" flows")).unwrap();
        let streamed = star(9, &format!("{wl}[record]\nflows = \"stream\"\n"));
        // Kept: the 9 incast flows and 40,001 Poisson ones, each a whole `Flow`.
        assert_eq!(all(&kept).what, "40010 flows");
        // Streamed beside an incast: counted whole (only Poisson flows are counted by life).
        assert_eq!(all(&streamed).what, "40010 flows");
        let only = |extra: &str| {
            parse_scenario(
                &format!(
                    "name = \"p\"\n[topology]\nkind = \"star\"\nsenders = 9\nhost_link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n{wl}{extra}"
                ),
                &|_: &str| Err("no files".to_string()),
            )
            .unwrap_or_else(|e| panic!("{e}"))
        };
        let need = all(&only("[record]\nflows = \"stream\"\n"));
        // Life: 8 us to send at 10 Gb/s, / (1 - 0.3) = 11.4 us, + 100 us, x 2 = 222.9 us;
        // x 375,000/s = 83.6 flows alive; 40,001 ids of 4 bytes.
        assert_eq!(need.what, "40001 flows streamed, about 84 alive at once");
        assert_eq!(need.bytes, 84 * std::mem::size_of::<Flow>() as u64 + 40_001 * 4);
        assert_eq!(all(&only("")).bytes, 40_001 * std::mem::size_of::<Flow>() as u64);
    }

    #[test]
    fn a_queue_series_names_its_record_field() {
        let s = star(64, "[record]\nqueues = { ports = \"all\", interval = \"1ns\" }\n");
        let e = check(&s, 1 << 30).unwrap_err();
        assert_eq!(e.path, "record.queues");
        assert!(e.to_string().contains("samples"), "{e}");
    }
}
