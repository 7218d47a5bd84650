//! Scenario: TOML -> [`spec::Spec`] (serde) -> [`validate`] -> [`ValidSpec`] -> build.
//!
//! Every error names the field by its path (`workload[0].degree`) and, for closed choices,
//! the allowed values. The engine reads no files: a CDF a workload names is fetched through
//! the caller's `load_file`.

pub mod spec;
mod buffer;
mod control;
mod dequeue_marking;
mod erasure;
mod events;
mod fields;
mod icon;
mod ictcp;
mod matrix;
mod measure;
mod multi_dc;
mod net;
mod parties;
mod partition;
mod record;
mod routing;
mod rpc;
mod superways;
mod transport;
mod window;
mod workload;

use crate::ids::{HostId, PortId};
use crate::net::queue::QueueConfig;
use crate::routing::LoadBalancing;
use crate::topology::Topology;
use crate::transport::{Recovery, TransportConfig, TsqConfig};
use crate::units::{Time, PS_PER_SEC};
use crate::workload::Workload;
use crate::ScenarioError;
use fields::Ctx;

pub use events::{ACTIONS, DROP_PRESETS};
pub use measure::MeasureWindow;
pub use partition::PartitionConfig;
pub use routing::StaticRoute;

pub use crate::units::MAX_TIME;

/// A scenario that has passed every check, resolved to integers with units.
#[derive(Clone, Debug)]
pub struct ValidSpec {
    pub name: String,
    pub seed: u64,
    /// Stop here even if flows are still running.
    pub duration: Option<Time>,
    /// Safety cap when no duration is set.
    pub max_duration: Time,
    pub topology: Topology,
    pub switch_queue: QueueConfig,
    /// The queues of `inter` ports (a `multi_dc` topology's long-haul side).
    pub inter_queue: QueueConfig,
    pub host_queue: QueueConfig,
    /// `[switch.buffer]`: a shared buffer in every switch (`None`: per-port limits only).
    pub switch_buffer: Option<crate::net::buffer::BufferConfig>,
    /// TCP Small Queues at every host (`None`: NIC queues take whatever a window allows).
    pub tsq: Option<TsqConfig>,
    pub transport: TransportConfig,
    pub workloads: Vec<Workload>,
    pub record: RecordConfig,
    pub routing: RoutingConfig,
    /// `[measure]`: the window of measured starts (`None`: every flow, as it comes).
    pub measure: Option<MeasureWindow>,
    /// `[[event]]`: each port's failures and drop models over time (ports without any are
    /// left out; empty: none).
    pub faults: Vec<crate::net::faults::PortFaults>,
    /// `[partition]`: the run cut into parts of whole pods (`None`: one world on one thread,
    /// or a `multi_dc` run per datacenter on several).
    pub partition: Option<PartitionConfig>,
}

#[derive(Clone, Debug, Default)]
pub struct RoutingConfig {
    pub lb: LoadBalancing,
    /// `[[routing.static]]`, in the scenario's order.
    pub static_routes: Vec<StaticRoute>,
}

#[derive(Clone, Debug, Default)]
pub struct RecordConfig {
    pub flows: bool,
    /// `flows = "stream"`: the run hands out finished flows' rows as it goes and frees them.
    pub stream_flows: bool,
    /// Sampling interval and ports.
    pub queues: Option<(Time, Vec<PortId>)>,
    /// Bin width and hosts.
    pub hosts: Option<(Time, Vec<HostId>)>,
    /// Ports whose queue length is recorded at every change.
    pub queue_events: Option<Vec<PortId>>,
    /// Sampling interval of the active flows' windows.
    pub windows: Option<Time>,
    /// Per-connection rate sampling interval.
    pub rates: Option<Time>,
}

/// Reads and checks a scenario. `load_file(name)` returns a named file's text (a CDF).
pub fn parse_scenario(src: &str, load_file: &dyn Fn(&str) -> Result<String, String>) -> Result<ValidSpec, ScenarioError> {
    let spec = fields::deserialize(src)?;
    validate(&spec, load_file)
}

pub fn validate(spec: &spec::Spec, load_file: &dyn Fn(&str) -> Result<String, String>) -> Result<ValidSpec, ScenarioError> {
    let cx = Ctx::root();
    let topology_spec = spec.topology.as_ref().ok_or_else(|| ScenarioError::new("topology", "section is required"))?;
    let seed = spec.seed.unwrap_or(1);
    let (topology, leaf_quotas) = net::topology(&cx.at("topology"), topology_spec, seed)?;
    let mut transport = transport::transport(&cx.at("transport"), &spec.transport)?;
    let packet = transport.mtu + transport.framing;
    let (switch_queue, inter_queue) = switch_queues(&cx, spec, topology_spec, packet)?;
    if spec.host.inter_queue.is_some() {
        return Err(ScenarioError::new("host.inter_queue", "only switches have inter ports"));
    }
    let host_queue = net::queue(&cx.at("host.queue"), spec.host.queue.as_ref(), packet, None)?;
    if spec.host.buffer.is_some() {
        return Err(ScenarioError::new("host.buffer", "only switches have a shared buffer ([switch.buffer])"));
    }
    let switch_buffer = buffer::buffer(&cx.at("switch.buffer"), spec.switch.buffer.as_ref(), &switch_queue, packet)?;
    let tsq = small_queues(&cx.at("host"), spec, &transport, packet)?;
    let host_rate = topology.hosts.first().and_then(|&h| topology.ports().find(|(_, p)| p.from == h)).map_or(1, |(_, p)| p.rate_bps);
    let ql = window::queue_latencies(&transport, &switch_queue, &inter_queue, host_rate);
    window::resolve_rto(&cx.at("transport"), &spec.transport, &mut transport, ql)?;
    erasure::resolve_wait(&cx.at("transport"), &spec.transport, &mut transport, ql)?;
    let duration = cx.opt_time("duration", &spec.duration)?;
    if duration == Some(0) {
        return Err(ScenarioError::new("duration", "must be positive"));
    }
    let max_duration = cx.opt_time("max_duration", &spec.max_duration)?.unwrap_or(10 * PS_PER_SEC);
    if max_duration == 0 {
        return Err(ScenarioError::new("max_duration", "must be positive"));
    }
    if spec.workload.is_empty() {
        return Err(ScenarioError::new("workload", "at least one [[workload]] is required")
            .with_allowed(workload::KINDS));
    }
    let measure = measure::window(&cx.at("measure"), spec.measure.as_ref(), duration.unwrap_or(max_duration))?;
    let mut workloads = Vec::new();
    for (i, w) in spec.workload.iter().enumerate() {
        let wcx = cx.at(&format!("workload[{i}]"));
        let end = workload::RunEnd { duration, measured: measure.is_some() };
        workloads.push(workload::workload(&wcx, w, &topology, seed, i, end, load_file)?);
    }
    if measure.is_some() {
        measure::check_workloads(&cx.at("measure"), &workloads)?;
    }
    erasure::check(&cx.at("transport"), &transport, &topology, &workloads)?;
    let record = record::record(&cx.at("record"), &spec.record, &topology)?;
    let faults = events::events(&cx, &spec.event, &topology)?;
    let rcx = cx.at("routing");
    let mut static_routes = routing::static_routes(&rcx, &spec.routing.static_routes, &topology)?;
    for r in superways::quota_routes(&leaf_quotas, &workloads, &topology) {
        if let Some(i) = static_routes.iter().position(|o| (o.src, o.dst) == (r.src, r.dst)) {
            let msg = format!("routes h{} -> h{}, which topology.superways.leaf_senders already routes", r.src.0, r.dst.0);
            return Err(rcx.at(&format!("static[{i}]")).err("src", msg));
        }
        static_routes.push(r);
    }
    let routing = RoutingConfig { lb: routing::routing(&rcx, &spec.routing)?, static_routes };
    let partition = partition::partition(&cx.at("partition"), spec.partition.as_ref(), &topology)?;
    Ok(ValidSpec {
        name: spec.name.clone().unwrap_or_else(|| "scenario".into()),
        seed,
        duration,
        max_duration,
        topology,
        switch_queue,
        inter_queue,
        host_queue,
        switch_buffer,
        tsq,
        transport,
        workloads,
        record,
        routing,
        measure,
        faults,
        partition,
    })
}

/// `[host] tsq`: on by default for the kernel's algorithms (the Linux model) unless
/// `[host.queue]` is given, which keeps a scenario's own NIC queue as it was.
fn small_queues(cx: &Ctx, spec: &spec::Spec, t: &TransportConfig, packet: u64) -> Result<Option<TsqConfig>, ScenarioError> {
    for (key, given) in [("tsq", spec.switch.tsq.is_some()), ("limit_output", spec.switch.limit_output.is_some())] {
        if given {
            return Err(ScenarioError::new(format!("switch.{key}"), "applies only to hosts ([host])"));
        }
    }
    let default = spec.host.queue.is_none() && t.sender.recovery == Recovery::Linux;
    let on = spec.host.tsq.unwrap_or(default);
    let limit = cx.opt_bytes("limit_output", &spec.host.limit_output)?;
    if !on {
        if limit.is_some() {
            return Err(cx.err("limit_output", "applies only with tsq = true"));
        }
        return Ok(None);
    }
    let limit_output = limit.unwrap_or(1 << 20);
    if limit_output == 0 {
        return Err(cx.err("limit_output", "must be positive"));
    }
    Ok(Some(TsqConfig { limit_output, packet }))
}

/// `[switch.queue]` and `[switch.inter_queue]`, over a `multi_dc` preset's defaults if any.
/// Without a preset, inter ports default to `[switch.queue]`.
fn switch_queues(cx: &Ctx, spec: &spec::Spec, t: &spec::TopologySpec, packet: u64) -> Result<(QueueConfig, QueueConfig), ScenarioError> {
    let given_inter = spec.switch.inter_queue.as_ref();
    if given_inter.is_some() && t.kind.as_deref() != Some("multi_dc") {
        return Err(ScenarioError::new("switch.inter_queue", "applies only to topology kind `multi_dc`"));
    }
    let (sw, inter) = match &t.preset {
        Some(p) => {
            let (sw, inter) = multi_dc::preset_queues(p);
            let sw = multi_dc::queue_over(spec.switch.queue.as_ref(), sw);
            let inter = multi_dc::queue_over(given_inter, inter.unwrap_or_else(|| sw.clone()));
            (sw, Some(inter))
        }
        None => (multi_dc::queue_over(spec.switch.queue.as_ref(), spec::QueueSpec::default()), given_inter.cloned()),
    };
    let switch_queue = net::queue(&cx.at("switch.queue"), Some(&sw), packet, net::SWITCH_LIMIT)?;
    let inter_queue = match inter {
        Some(q) => net::queue(&cx.at("switch.inter_queue"), Some(&q), packet, net::SWITCH_LIMIT)?,
        None => switch_queue.clone(),
    };
    Ok((switch_queue, inter_queue))
}
