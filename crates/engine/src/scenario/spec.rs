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
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    pub lb: Option<String>,
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

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub queue: Option<QueueSpec>,
    /// Switches only: the queues of `inter` (long-haul) ports of a `multi_dc` topology.
    pub inter_queue: Option<QueueSpec>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub limit: Option<String>,
    pub marking: Option<MarkingSpec>,
    pub trim: Option<bool>,
    pub trim_header: Option<String>,
    pub control: Option<ControlSpec>,
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

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    pub cc: Option<String>,
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
    pub dctcp: Option<DctcpSpec>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct DctcpSpec {
    pub g: Option<f64>,
    pub alpha_init: Option<f64>,
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
    // every kind
    pub start: Option<String>,
    // poisson
    pub load: Option<f64>,
    pub sizes: Option<String>,
    pub sampling: Option<String>,
    pub stop: Option<String>,
    pub hosts: Option<Names>,
    // permutation and flow
    pub bytes: Option<String>,
    pub src: Option<String>,
    pub dst: Option<String>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    pub flows: Option<bool>,
    pub queues: Option<QueueRecordSpec>,
    pub hosts: Option<HostRecordSpec>,
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
