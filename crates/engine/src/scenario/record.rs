//! `[record]`: what the run keeps beyond flows and port counters.

use super::fields::Ctx;
use super::spec::{FlowsRecord, Names, RecordSpec};
use super::parties::hosts;
use super::RecordConfig;
use crate::ids::PortId;
use crate::topology::{NodeKind, Topology};
use crate::units::{Time, PS_PER_NS, PS_PER_US};
use crate::ScenarioError;

pub fn record(cx: &Ctx, r: &RecordSpec, topo: &Topology) -> Result<RecordConfig, ScenarioError> {
    let queues = match &r.queues {
        None => None,
        Some(q) => {
            let qc = cx.at("queues");
            let interval = qc.time("interval", &q.interval, "10us")?;
            // Finer sampling than a minimum-size packet's serialization only costs memory.
            if interval < PS_PER_NS {
                return Err(qc.err("interval", "must be at least 1ns"));
            }
            Some((interval, ports(&qc, q.ports.as_ref(), topo)?))
        }
    };
    let hosts = match &r.hosts {
        None => None,
        Some(h) => {
            let hc = cx.at("hosts");
            let bin = hc.time("bin", &h.bin, "1ms")?;
            // Millisampler's finest bin is 100 us; below 1 us the per-host arrays only grow.
            if bin < PS_PER_US {
                return Err(hc.err("bin", "must be at least 1us"));
            }
            Some((bin, hosts(&hc, "hosts", h.hosts.as_ref(), "all", topo)?))
        }
    };
    let queue_events = match &r.queue_events {
        None => None,
        Some(q) => Some(ports(&cx.at("queue_events"), q.ports.as_ref(), topo)?),
    };
    let windows = sample_interval(cx, "windows", r.windows.as_ref().map(|w| &w.interval), "10us")?;
    let rates = sample_interval(cx, "rates", r.rates.as_ref().map(|w| &w.interval), "100us")?;
    let (flows, stream_flows) = match &r.flows {
        None => (true, false),
        Some(FlowsRecord::On(on)) => (*on, false),
        Some(FlowsRecord::Named(s)) => {
            // A string must be the one name; `true`/`false` are the TOML booleans.
            cx.choice("flows", Some(s), None, &["stream"])?;
            (true, true)
        }
    };
    Ok(RecordConfig { flows, stream_flows, queues, hosts, queue_events, windows, rates })
}

/// A per-flow trace's sampling interval, if the trace is on. Each sample visits every
/// active flow, so a grid below 1 us only costs memory.
fn sample_interval(cx: &Ctx, key: &str, interval: Option<&Option<String>>, default: &str) -> Result<Option<Time>, ScenarioError> {
    let Some(interval) = interval else { return Ok(None) };
    let c = cx.at(key);
    let t = c.time("interval", interval, default)?;
    if t < PS_PER_US {
        return Err(c.err("interval", "must be at least 1us"));
    }
    Ok(Some(t))
}

/// `"bottleneck"` (or any named port), `"switches"` (every switch egress), `"all"`, or a
/// list of port names like `"sw0->r0"`.
fn ports(cx: &Ctx, sel: Option<&Names>, topo: &Topology) -> Result<Vec<PortId>, ScenarioError> {
    let all = || topo.ports().map(|(id, _)| id);
    let by_name = |key: &str, name: &str| -> Result<PortId, ScenarioError> {
        if let Some(p) = topo.named_port(name) {
            return Ok(p);
        }
        all().find(|p| topo.port_name(*p) == name).ok_or_else(|| {
            let mut allowed = vec!["all".to_string(), "switches".to_string()];
            allowed.extend(topo.named_ports.iter().map(|(n, _)| n.clone()));
            allowed.push(format!("a port name such as `{}`", topo.port_name(PortId(0))));
            cx.err(key, format!("no port `{name}`")).with_allowed(allowed)
        })
    };
    match sel {
        None => match topo.named_port("bottleneck") {
            Some(p) => Ok(vec![p]),
            None => Err(cx.err("ports", "is required: this topology has no `bottleneck` port")),
        },
        Some(Names::One(s)) if s == "all" => Ok(all().collect()),
        Some(Names::One(s)) if s == "switches" => Ok(all().filter(|p| topo.nodes[topo.port(*p).from.idx()].kind == NodeKind::Switch).collect()),
        Some(Names::One(s)) => Ok(vec![by_name("ports", s)?]),
        Some(Names::Many(list)) => list.iter().enumerate().map(|(i, n)| by_name(&format!("ports[{i}]"), n)).collect(),
    }
}
