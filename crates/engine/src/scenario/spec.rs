//! The scenario file as written: every section, every field, as serde reads it. Quantities
//! stay strings here (`"10Gbps"`); `validate` turns them into integers with their unit and
//! reports any problem with the field's path. Sections are flat structs with a `kind`
//! rather than tagged enums so that a field that does not apply to a kind gets a precise
//! error instead of a vague one.

use serde::Deserialize;

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub name: Option<String>,
    pub seed: Option<u64>,
    pub duration: Option<String>,
    pub max_duration: Option<String>,
    pub topology: Option<TopologySpec>,
    #[serde(default)]
    pub switch: NodeSpec,
    #[serde(default)]
    pub host: NodeSpec,
    #[serde(default)]
    pub transport: TransportSpec,
    #[serde(default)]
    pub workload: Vec<WorkloadSpec>,
    #[serde(default)]
    pub record: RecordSpec,
    #[serde(default)]
    pub routing: RoutingSpec,
    pub measure: Option<MeasureSpec>,
    pub partition: Option<PartitionSpec>,
    /// `[[event]]`: link failures and drop models on a timeline.
    #[serde(default)]
    pub event: Vec<EventSpec>,
}

/// One `[[event]]`: at `at`, `action` on the ports `link` names.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    pub at: Option<String>,
    pub link: Option<Names>,
    pub action: Option<String>,
    // drop: one of probability, block_losses (with block) or preset
    pub probability: Option<f64>,
    pub block: Option<i64>,
    pub block_losses: Option<Vec<f64>>,
    pub preset: Option<String>,
}

/// `[partition]`: the run cut into parts of whole pods, on one thread or several.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct PartitionSpec {
    pub by: Option<String>,
    pub parts: Option<i64>,
}

/// `[measure]`: the window whose flows and incasts are measured (both times required).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    pub from: Option<String>,
    pub until: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub rate: Option<String>,
    pub delay: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    pub kind: Option<String>,
    pub senders: Option<i64>,
    pub receivers: Option<i64>,
    pub host_link: Option<LinkSpec>,
    pub sender_link: Option<LinkSpec>,
    pub receiver_link: Option<LinkSpec>,
    pub core_link: Option<LinkSpec>,
    pub leaves: Option<i64>,
    pub spines: Option<i64>,
    pub hosts_per_leaf: Option<i64>,
    pub fabric_link: Option<LinkSpec>,
    pub k: Option<i64>,
    // jellyfish: network ports per outer (leaf) and inner (spine) switch
    pub leaf_ports: Option<i64>,
    pub spine_ports: Option<i64>,
    /// bcube: what each host's second link goes to (`BCUBE_LEVELS`).
    pub level: Option<String>,
    /// Superways shortcuts on a leaf_spine, subways, bcube or jellyfish base.
    pub superways: Option<SuperwaysSpec>,
    // multi_dc
    pub preset: Option<String>,
    pub dcs: Option<i64>,
    pub fabric: Option<String>,
    pub interconnect: Option<String>,
    pub routers: Option<i64>,
    pub border_links: Option<i64>,
    pub wan_links: Option<i64>,
    pub long_haul_link: Option<LinkSpec>,
    pub border_link: Option<LinkSpec>,
}

/// `[topology.superways]`: either `servers` (each its own links) or `per_rack` + `links`
/// (the paper's code: server `per_rack` of every rack, links to spines 0..links-1).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct SuperwaysSpec {
    pub servers: Option<Vec<ShortcutSpec>>,
    pub per_rack: Option<i64>,
    pub links: Option<i64>,
    pub link: Option<LinkSpec>,
    pub to: Option<String>,
    /// With `per_rack`: every server's `leaf_senders`.
    pub leaf_senders: Option<i64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct ShortcutSpec {
    /// A host name (`"h19"`) or number (`19`, as `fanin plan` writes it).
    pub server: Option<HostRef>,
    pub links: Option<i64>,
    pub spines: Option<Vec<i64>>,
    /// The placement heuristic's split: this many of its incast senders come through its leaf.
    pub leaf_senders: Option<i64>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum HostRef {
    Index(i64),
    Name(String),
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub queue: Option<QueueSpec>,
    /// Switches only: the queues of `inter` (long-haul) ports of a `multi_dc` topology.
    pub inter_queue: Option<QueueSpec>,
    /// Hosts only: TCP Small Queues, and its cap (`tcp_limit_output_bytes`).
    pub tsq: Option<bool>,
    pub limit_output: Option<String>,
    /// Switches only: a switch-wide shared buffer.
    pub buffer: Option<BufferSpec>,
}

/// `[switch.buffer]`: a buffer shared by all of a switch's egress ports.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    pub kind: Option<String>,
    pub alpha: Option<f64>,
    pub size: Option<String>,
    pub per_port: Option<String>,
    pub update: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub limit: Option<String>,
    pub marking: Option<MarkingSpec>,
    pub trim: Option<bool>,
    pub trim_header: Option<String>,
    pub control: Option<ControlSpec>,
    pub device_queue: Option<String>,
    pub schedule: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct ControlSpec {
    pub limit: Option<String>,
    pub service: Option<String>,
    pub weight: Option<i64>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct MarkingSpec {
    pub kind: Option<String>,
    pub threshold: Option<String>,
    pub min: Option<String>,
    pub max: Option<String>,
    pub p_max: Option<f64>,
    pub weight: Option<f64>,
    pub gentle: Option<bool>,
    pub wait: Option<bool>,
    pub phantom: Option<PhantomSpec>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct PhantomSpec {
    pub size: Option<String>,
    pub slowdown: Option<f64>,
    pub drain_rate: Option<String>,
}

/// `cc = "uno"`, or one algorithm per flow class: `cc = { intra = "mprdma", inter = "bbr" }`.
#[derive(Debug, Clone)]
pub enum CcSpec {
    One(String),
    ByClass(CcByClass),
}

/// By hand rather than `untagged`, so a wrong key in the table is named as such.
impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CcSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a name or { intra, inter }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CcSpec, E> {
                Ok(CcSpec::One(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<CcSpec, A::Error> {
                CcByClass::deserialize(de::value::MapAccessDeserializer::new(m)).map(CcSpec::ByClass)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct CcByClass {
    pub intra: Option<String>,
    pub inter: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    pub cc: Option<CcSpec>,
    pub recovery: Option<String>,
    pub mtu: Option<String>,
    pub header: Option<String>,
    pub framing: Option<String>,
    pub init_cwnd: Option<String>,
    pub min_cwnd: Option<String>,
    pub min_rto: Option<String>,
    pub initial_rto: Option<String>,
    pub max_rto: Option<String>,
    pub rto_granularity: Option<String>,
    pub sack: Option<bool>,
    pub dupack_threshold: Option<i64>,
    pub delayed_ack: Option<i64>,
    pub delayed_ack_timeout: Option<String>,
    pub ecn: Option<bool>,
    pub ecn_echo: Option<String>,
    pub rwnd: Option<String>,
    pub pacing: Option<bool>,
    pub sub_packet_pacing: Option<bool>,
    pub timestamp: Option<String>,
    pub rto: Option<String>,
    pub rto_margin: Option<String>,
    pub rto_margin_inter: Option<String>,
    pub base_rtt: Option<String>,
    pub base_rtt_inter: Option<String>,
    pub ack_size: Option<String>,
    pub fast_retransmit: Option<bool>,
    pub whole_segments: Option<bool>,
    pub nack_decrease: Option<String>,
    pub dctcp: Option<DctcpSpec>,
    pub uno: Option<UnoSpec>,
    pub gemini: Option<GeminiSpec>,
    pub mprdma: Option<MprdmaSpec>,
    pub bbr: Option<BbrSpec>,
    pub icon: Option<IconSpec>,
    pub ictcp: Option<IctcpSpec>,
    pub erasure: Option<ErasureSpec>,
}

/// `[transport.erasure]`: UnoRC's erasure-coded blocks (present: on).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct ErasureSpec {
    pub data: Option<i64>,
    pub parity: Option<i64>,
    pub ec_wait: Option<String>,
    pub scope: Option<String>,
}

/// `[transport.ictcp]`: ICTCP's receiver windows (present: on; `{}`: the paper's values).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct IctcpSpec {
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub gamma1: Option<f64>,
    pub gamma2: Option<f64>,
    pub init_rwnd: Option<String>,
    pub min_rwnd: Option<String>,
}

/// `[transport.icon]`: ICON's pacing by incast degree (present: on).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct IconSpec {
    pub variant: Option<String>,
    pub rate: Option<String>,
    pub pace_scope: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct UnoSpec {
    pub g: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct GeminiSpec {
    pub t: Option<String>,
    pub h: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct MprdmaSpec {
    pub variant: Option<String>,
}

/// `[transport.bbr]`: the bandwidths BBR's pacing starts from and never goes below.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct BbrSpec {
    pub initial_bw: Option<String>,
    pub pacing_floor: Option<String>,
}

/// `[routing]`: how senders pick the entropy switches hash on.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    pub lb: Option<String>,
    pub subflows: Option<i64>,
    pub entropies: Option<i64>,
    /// PLB: the marked fraction of a congested round, and the congested rounds in a row
    /// that move a flow.
    pub cong_thresh: Option<f64>,
    pub rehash_rounds: Option<i64>,
    /// `[[routing.static]]`: (src, dst) overrides of the shortest-path routes.
    #[serde(rename = "static", default)]
    pub static_routes: Vec<StaticRouteSpec>,
}

/// One static route: packets from host `src` to host `dst` cross the switches `via`, in
/// order (and the flow's ACKs the reverse, unless a route for (dst, src) is given).
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct StaticRouteSpec {
    pub src: Option<String>,
    pub dst: Option<String>,
    pub via: Option<Vec<String>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct DctcpSpec {
    pub g: Option<f64>,
    pub alpha_init: Option<f64>,
}

/// `[record] flows`: `true`, `false` or `"stream"`.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum FlowsRecord {
    On(bool),
    Named(String),
}

/// A host set: a group name (`"senders"`, `"all"`, `"leaf3"`) or a list of host names.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum Names {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub kind: Option<String>,
    // incast
    pub degree: Option<i64>,
    pub receiver: Option<String>,
    pub senders: Option<Names>,
    pub pick: Option<String>,
    pub bytes_per_sender: Option<String>,
    pub total_bytes: Option<String>,
    pub jitter: Option<String>,
    pub period: Option<String>,
    pub count: Option<i64>,
    // proxy_incast (and the incast fields above)
    pub scheme: Option<String>,
    pub proxy: Option<String>,
    pub proxy_order: Option<String>,
    // every kind
    pub start: Option<String>,
    // poisson (and poisson_incast, with degree)
    pub load: Option<f64>,
    pub sizes: Option<String>,
    pub capacity: Option<String>,
    pub sampling: Option<String>,
    pub stop: Option<String>,
    pub hosts: Option<Names>,
    // permutation and flow
    pub bytes: Option<String>,
    pub src: Option<String>,
    pub dst: Option<String>,
    // matrix
    pub file: Option<String>,
    pub max_flows: Option<i64>,
    // mixed_poisson (also load, hosts, sampling)
    pub intra_fraction: Option<f64>,
    pub intra_sizes: Option<String>,
    pub inter_sizes: Option<String>,
    pub flows: Option<i64>,
    // rpc_incast
    pub gap: Option<String>,
    pub request_jitter: Option<String>,
    pub response_jitter: Option<String>,
    pub request_bytes: Option<String>,
    pub tokens: Option<i64>,
    pub token_window: Option<String>,
    pub remember: Option<String>,
    pub rwnd_strategy: Option<String>,
    pub rwnd_floor: Option<String>,
    pub degree_min: Option<i64>,
    // aggregator_incast (also degree, senders, sizes, jitter, load, capacity, stop)
    pub aggregators: Option<Names>,
    pub first_bytes: Option<String>,
    pub delay: Option<String>,
    pub jitter_max: Option<String>,
}

impl WorkloadSpec {
    /// Every optional field by name, and whether the entry gives it (each kind reads a subset).
    /// Keep in step with the fields above: a field missing here is accepted by every kind.
    pub fn given(&self) -> Vec<(&'static str, bool)> {
        vec![
            ("degree", self.degree.is_some()),
            ("receiver", self.receiver.is_some()),
            ("senders", self.senders.is_some()),
            ("pick", self.pick.is_some()),
            ("bytes_per_sender", self.bytes_per_sender.is_some()),
            ("total_bytes", self.total_bytes.is_some()),
            ("jitter", self.jitter.is_some()),
            ("period", self.period.is_some()),
            ("count", self.count.is_some()),
            ("scheme", self.scheme.is_some()),
            ("proxy", self.proxy.is_some()),
            ("start", self.start.is_some()),
            ("load", self.load.is_some()),
            ("sizes", self.sizes.is_some()),
            ("capacity", self.capacity.is_some()),
            ("sampling", self.sampling.is_some()),
            ("stop", self.stop.is_some()),
            ("hosts", self.hosts.is_some()),
            ("bytes", self.bytes.is_some()),
            ("src", self.src.is_some()),
            ("dst", self.dst.is_some()),
            ("file", self.file.is_some()),
            ("max_flows", self.max_flows.is_some()),
            ("intra_fraction", self.intra_fraction.is_some()),
            ("intra_sizes", self.intra_sizes.is_some()),
            ("inter_sizes", self.inter_sizes.is_some()),
            ("flows", self.flows.is_some()),
            ("gap", self.gap.is_some()),
            ("request_jitter", self.request_jitter.is_some()),
            ("response_jitter", self.response_jitter.is_some()),
            ("request_bytes", self.request_bytes.is_some()),
            ("tokens", self.tokens.is_some()),
            ("token_window", self.token_window.is_some()),
            ("remember", self.remember.is_some()),
            ("rwnd_strategy", self.rwnd_strategy.is_some()),
            ("rwnd_floor", self.rwnd_floor.is_some()),
            ("degree_min", self.degree_min.is_some()),
            ("scheme", self.scheme.is_some()),
            ("proxy", self.proxy.is_some()),
            ("proxy_order", self.proxy_order.is_some()),
            ("aggregators", self.aggregators.is_some()),
            ("first_bytes", self.first_bytes.is_some()),
            ("delay", self.delay.is_some()),
            ("jitter_max", self.jitter_max.is_some()),
        ]
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    pub flows: Option<FlowsRecord>,
    pub queues: Option<QueueRecordSpec>,
    pub hosts: Option<HostRecordSpec>,
    pub queue_events: Option<QueueEventsSpec>,
    pub windows: Option<WindowsRecordSpec>,
    pub rates: Option<RateRecordSpec>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct QueueEventsSpec {
    pub ports: Option<Names>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct WindowsRecordSpec {
    pub interval: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RateRecordSpec {
    pub interval: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct QueueRecordSpec {
    pub ports: Option<Names>,
    pub interval: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct HostRecordSpec {
    pub bin: Option<String>,
    pub hosts: Option<Names>,
}
