//! `[[workload]]` entries: incast, poisson, poisson_incast, permutation, flow, proxy_incast.

use super::fields::Ctx;
use super::parties::{host, hosts, incast_parties, named_or_first, nic_rates, positive};
use super::spec::WorkloadSpec;
use super::MAX_TIME;
use crate::ids::HostId;
use crate::topology::{uplink_capacity_bps, Topology};
use crate::units::{Time, PS_PER_SEC};
use crate::workload::{
    assign_senders, AggregatorIncastSpec, Cdf, FlowSpec, IncastSpec, PermutationSpec, PoissonIncastSpec, PoissonSpec, ProxyIncastSpec, ProxyScheme,
    Sampling, Workload, PROXY_ORDERS, SCHEMES,
};
use crate::ScenarioError;

pub const KINDS: &[&str] = &["incast", "poisson", "permutation", "flow", "matrix", "mixed_poisson", "rpc_incast", "proxy_incast", "poisson_incast", "aggregator_incast"];
/// The fields each kind reads besides `kind`; any other field it is given is an error.
fn fields_of(kind: &str) -> &'static [&'static str] {
    const INCAST: &[&str] = &["degree", "receiver", "senders", "pick", "bytes_per_sender", "total_bytes", "jitter", "period", "count", "start"];
    match kind {
        "incast" => INCAST,
        "proxy_incast" => &["degree", "receiver", "senders", "pick", "bytes_per_sender", "total_bytes", "jitter", "start", "scheme", "proxy", "proxy_order"],
        "poisson" => &["load", "sizes", "sampling", "stop", "hosts", "start", "capacity"],
        "poisson_incast" => &["load", "degree", "sizes", "sampling", "stop", "hosts", "start", "capacity"],
        "aggregator_incast" => &[
            "aggregators", "senders", "degree", "first_bytes", "sizes", "sampling", "delay", "jitter", "jitter_max", "load", "capacity", "start", "stop",
        ],
        "permutation" => &["hosts", "bytes", "start"],
        "matrix" => &["file", "max_flows", "start"],
        "mixed_poisson" => &["load", "sampling", "hosts", "flows", "intra_fraction", "intra_sizes", "inter_sizes", "start"],
        "rpc_incast" => &[
            "degree", "receiver", "senders", "pick", "bytes_per_sender", "total_bytes", "count", "start",
            "gap", "request_jitter", "response_jitter", "request_bytes", "tokens", "token_window",
            "remember", "rwnd_strategy", "rwnd_floor", "degree_min",
        ],
        _ => &["src", "dst", "bytes", "start"],
    }
}

const SAMPLINGS: &[&str] = &["interpolate", "discrete"];
/// What a `capacity` names besides an explicit rate.
const CAPACITIES: &[&str] = &["hosts", "uplinks"];
/// The forms a `sizes` field takes.
const SIZE_FORMS: &[&str] = &["a CDF file name", "\"uniform <min> <max>\"", "\"loguniform <min> <max>\"", "\"constant <size>\"", "\"discrete <size>:<probability> ...\""];

pub fn workload(
    cx: &Ctx,
    w: &WorkloadSpec,
    topo: &Topology,
    seed: u64,
    index: usize,
    end: RunEnd,
    load_file: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Workload, ScenarioError> {
    let kind = cx.choice("kind", w.kind.as_deref(), None, KINDS)?;
    cx.only(kind, &w.given(), fields_of(kind))?;
    let start = cx.time("start", &w.start, "0s")?;
    match kind {
        "rpc_incast" => {
            super::rpc::rpc_incast(cx, w, topo, seed, index, start).map(Workload::RpcIncast)
        }
        "incast" => {
            incast(cx, w, topo, seed, index, start, None).map(Workload::Incast)
        }
        "proxy_incast" => proxy_incast(cx, w, topo, seed, index, start).map(Workload::ProxyIncast),
        "poisson" => {
            poisson(cx, w, topo, start, end.default_stop(), load_file).map(Workload::Poisson)
        }
        "poisson_incast" => {
            poisson_incast(cx, w, topo, start, end.default_stop(), load_file).map(Workload::PoissonIncast)
        }
        "aggregator_incast" => {
            aggregator_incast(cx, w, topo, seed, index, start, end.default_stop(), load_file).map(Workload::AggregatorIncast)
        }
        "permutation" => {
            let hosts = hosts(cx, "hosts", w.hosts.as_ref(), "all", topo)?;
            if hosts.len() < 2 {
                return Err(cx.err("hosts", "a permutation needs at least 2 hosts"));
            }
            let bytes = positive(cx, "bytes", cx.opt_bytes("bytes", &w.bytes)?)?;
            if bytes.is_none() && end.duration.is_none() {
                return Err(cx.err("bytes", "is required unless the scenario sets `duration` (flows without a size never end)"));
            }
            Ok(Workload::Permutation(PermutationSpec { hosts, bytes, start }))
        }
        "matrix" => {
            super::matrix::matrix(cx, w, topo, start, load_file)
        }
        "mixed_poisson" => {
            super::matrix::mixed_poisson(cx, w, topo, start, load_file)
        }
        _ => {
            let src = host(cx, "src", w.src.as_deref().ok_or_else(|| cx.err("src", "is required"))?, topo)?;
            let dst = host(cx, "dst", w.dst.as_deref().ok_or_else(|| cx.err("dst", "is required"))?, topo)?;
            if src == dst {
                return Err(cx.err("dst", "must differ from src"));
            }
            let bytes = positive(cx, "bytes", cx.opt_bytes("bytes", &w.bytes)?)?.ok_or_else(|| cx.err("bytes", "is required"))?;
            Ok(Workload::Flows(vec![FlowSpec { src, dst, bytes, start }]))
        }
    }
}

/// An incast through a proxy host. Defaults follow the paper's placement: the proxy is the
/// first host of the topology's `proxies` group, and it is never one of the senders.
fn proxy_incast(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, seed: u64, index: usize, start: Time) -> Result<ProxyIncastSpec, ScenarioError> {
    let scheme = match cx.choice("scheme", w.scheme.as_deref(), Some("baseline"), SCHEMES)? {
        "naive" => ProxyScheme::Naive,
        "streamlined" => ProxyScheme::Streamlined,
        _ => ProxyScheme::Baseline,
    };
    let proxy = named_or_first(cx, "proxy", w.proxy.as_deref(), "proxies", topo)?;
    let incast = incast(cx, w, topo, seed, index, start, Some(proxy))?;
    if incast.receiver == proxy {
        return Err(cx.err("proxy", "must differ from the receiver"));
    }
    // How proxy_S shares its NIC (spec ASSUMPTION: round robin); only a naive proxy has one.
    let order = cx.choice("proxy_order", w.proxy_order.as_deref(), Some("round_robin"), PROXY_ORDERS)?;
    if w.proxy_order.is_some() && scheme != ProxyScheme::Naive {
        return Err(cx.err("proxy_order", "applies only with scheme = \"naive\""));
    }
    Ok(ProxyIncastSpec { incast, proxy, scheme, round_robin: order == "round_robin" })
}

fn incast(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, seed: u64, index: usize, start: Time, proxy: Option<HostId>) -> Result<IncastSpec, ScenarioError> {
    let (receiver, senders, bytes_per_sender) = incast_parties(cx, w, topo, seed, index, proxy)?;
    let count = cx.count("count", w.count, Some(1), 1, 1_000_000)? as u32;
    let period = cx.opt_time("period", &w.period)?;
    if count > 1 && period.unwrap_or(0) == 0 {
        return Err(cx.err("period", "is required and positive when count > 1"));
    }
    let jitter = cx.time("jitter", &w.jitter, "0s")?;
    let last_start = period.unwrap_or(0).checked_mul(count as u64 - 1).and_then(|t| t.checked_add(start)).and_then(|t| t.checked_add(jitter));
    if last_start.is_none_or(|t| t > MAX_TIME) {
        let key = if count > 1 { "count" } else { "jitter" };
        return Err(cx.err(key, format!("the last burst would start beyond the longest a scenario may name ({}s)", MAX_TIME / PS_PER_SEC)));
    }
    Ok(IncastSpec { receiver, senders, bytes_per_sender, start, jitter, period: period.unwrap_or(0), count })
}

/// How the run ends, as far as workloads care: its `duration`, and whether a `[measure]`
/// window ends it.
#[derive(Copy, Clone, Debug)]
pub struct RunEnd {
    pub duration: Option<Time>,
    pub measured: bool,
}

impl RunEnd {
    /// When open-loop arrivals stop unless `stop` is given: never with a `[measure]` window
    /// (the run then ends once the measured flows have, at the latest at its end), else at
    /// the duration. `None`: neither, so `stop` is required.
    fn default_stop(self) -> Option<Time> {
        if self.measured {
            Some(Time::MAX)
        } else {
            self.duration
        }
    }
}

fn poisson(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, start: Time, default_stop: Option<Time>, load_file: &dyn Fn(&str) -> Result<String, String>) -> Result<PoissonSpec, ScenarioError> {
    let hosts = hosts(cx, "hosts", w.hosts.as_ref(), "all", topo)?;
    if hosts.len() < 2 {
        return Err(cx.err("hosts", "Poisson traffic needs at least 2 hosts"));
    }
    let load = cx.fraction("load", w.load, None, 0.0, 1.0)?;
    let sizes = sizes(cx, w, load_file)?;
    let stop = stop(cx, w, start, default_stop)?;
    let capacity_bps = capacity(cx, w, topo, &hosts)?;
    Ok(PoissonSpec { hosts, load, sizes, start, stop, capacity_bps })
}

fn poisson_incast(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, start: Time, default_stop: Option<Time>, load_file: &dyn Fn(&str) -> Result<String, String>) -> Result<PoissonIncastSpec, ScenarioError> {
    let hosts = hosts(cx, "hosts", w.hosts.as_ref(), "all", topo)?;
    let degree = cx.count("degree", w.degree, None, 1, i64::MAX)? as usize;
    if degree >= hosts.len() {
        return Err(cx.err("degree", format!("is {degree} but an event's senders must be fewer than the {} hosts (the sink is one of them)", hosts.len())));
    }
    let load = cx.fraction("load", w.load, None, 0.0, 1.0)?;
    let sizes = sizes(cx, w, load_file)?;
    let stop = stop(cx, w, start, default_stop)?;
    let capacity_bps = capacity(cx, w, topo, &hosts)?;
    Ok(PoissonIncastSpec { hosts, degree, load, sizes, capacity_bps, start, stop })
}

#[allow(clippy::too_many_arguments)]
fn aggregator_incast(
    cx: &Ctx,
    w: &WorkloadSpec,
    topo: &Topology,
    seed: u64,
    index: usize,
    start: Time,
    default_stop: Option<Time>,
    load_file: &dyn Fn(&str) -> Result<String, String>,
) -> Result<AggregatorIncastSpec, ScenarioError> {
    let aggregators = hosts(cx, "aggregators", Some(w.aggregators.as_ref().ok_or_else(|| cx.err("aggregators", "is required: a host set"))?), "all", topo)?;
    let pool = hosts(cx, "senders", Some(w.senders.as_ref().ok_or_else(|| cx.err("senders", "is required: the host set the aggregators' senders are drawn from"))?), "all", topo)?;
    let degree = cx.count("degree", w.degree, None, 1, i64::MAX)? as usize;
    for a in &aggregators {
        let candidates = pool.iter().filter(|h| *h != a).count();
        if degree > candidates {
            return Err(cx.err("degree", format!("is {degree} but the `senders` pool has only {candidates} hosts besides an aggregator")));
        }
    }
    let load = cx.fraction("load", w.load, None, 0.0, 1.0)?;
    let sizes = sizes(cx, w, load_file)?;
    let stop = stop(cx, w, start, default_stop)?;
    let capacity_bps = capacity(cx, w, topo, &pool)?;
    let first_bytes = cx.opt_bytes("first_bytes", &w.first_bytes)?.unwrap_or(0);
    let delay = cx.time("delay", &w.delay, "0s")?;
    let jitter_mean = cx.time("jitter", &w.jitter, "0s")?;
    let jitter_max = match cx.opt_time("jitter_max", &w.jitter_max)? {
        Some(m) if m < jitter_mean => return Err(cx.err("jitter_max", "must be at least `jitter` (the exponential's mean)")),
        Some(m) => m,
        None => MAX_TIME,
    };
    // The senders are fixed for the run: drawn from the run's seed and the workload's place
    // (the stream `choose_senders` uses, apart from the arrivals' own).
    let mut rng = crate::rng::stream(seed, crate::rng::Stream::Workload, 1_000_000 + index as u64);
    let senders = assign_senders(&aggregators, &pool, degree, &mut rng);
    Ok(AggregatorIncastSpec { aggregators, senders, first_bytes, sizes, delay, jitter_mean, jitter_max, load, capacity_bps, start, stop })
}

/// `sizes`: an inline distribution, or a CDF file read through `load_file`.
fn sizes(cx: &Ctx, w: &WorkloadSpec, load_file: &dyn Fn(&str) -> Result<String, String>) -> Result<Cdf, ScenarioError> {
    let name = w.sizes.as_deref().ok_or_else(|| cx.err("sizes", "is required: a flow-size CDF file, e.g. \"websearch_dctcp2010_cdf.txt\", or a distribution").with_allowed(SIZE_FORMS))?;
    if let Some(inline) = Cdf::inline(name) {
        if w.sampling.is_some() {
            return Err(cx.err("sampling", "applies only to sizes from a CDF file"));
        }
        return inline.map_err(|e| cx.err("sizes", format!("`{name}`: {e}")).with_allowed(SIZE_FORMS));
    }
    let text = load_file(name).map_err(|e| cx.err("sizes", format!("cannot read `{name}`: {e}")).with_allowed(SIZE_FORMS))?;
    let sampling = match w.sampling.as_deref() {
        None => None,
        Some(s) => Some(if cx.choice("sampling", Some(s), None, SAMPLINGS)? == "discrete" { Sampling::Discrete } else { Sampling::Interpolate }),
    };
    Cdf::parse(&text, sampling).map_err(|e| cx.err("sizes", format!("`{name}` {e}")))
}

fn stop(cx: &Ctx, w: &WorkloadSpec, start: Time, default: Option<Time>) -> Result<Time, ScenarioError> {
    let stop = match cx.opt_time("stop", &w.stop)? {
        Some(s) => s,
        None => default.ok_or_else(|| cx.err("stop", "is required unless the scenario sets `duration` or [measure]"))?,
    };
    if stop <= start {
        return Err(cx.err("stop", "must be after start"));
    }
    Ok(stop)
}

/// What `load` is a fraction of, bits per second: the pool's NIC rates (`hosts`, the
/// default), the topology's uplinks (`uplinks`), or a rate.
fn capacity(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, hosts: &[HostId]) -> Result<f64, ScenarioError> {
    match w.capacity.as_deref() {
        None | Some("hosts") => Ok(nic_rates(topo, hosts).iter().map(|&r| r as f64).sum()),
        Some("uplinks") => match uplink_capacity_bps(topo) {
            0 => Err(cx.err("capacity", "this topology has no links from a host-facing switch to another switch")),
            bps => Ok(bps as f64),
        },
        Some(text) => match crate::units::parse_rate(text) {
            Ok(bps) if bps > 0 => Ok(bps as f64),
            Ok(_) => Err(cx.err("capacity", "must be positive")),
            Err(_) => Err(cx.err("capacity", format!("unknown value `{text}`: give a rate such as \"2Tbps\", or one of")).with_allowed(CAPACITIES)),
        },
    }
}
