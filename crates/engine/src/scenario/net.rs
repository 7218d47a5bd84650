//! `[topology]`, `[switch.queue]`, `[host.queue]`.

use super::fields::{link, Ctx, DEFAULT_DELAY, DEFAULT_RATE};
use super::spec::{MarkingSpec, QueueSpec, TopologySpec};
use super::superways::LeafQuota;
use crate::des::PORT_LIMIT;
use crate::net::queue::{MarkingConfig, QueueConfig, RedConfig};
use crate::topology::{BcubeLevel, DumbbellParams, FatTreeParams, JellyfishParams, LeafSpineParams, LinkParams, Topology, TopologyParams};
use crate::units::Size;
use crate::ScenarioError;

pub const BCUBE_LEVELS: &[&str] = &["switches", "leaf_i_mod_spines"];
pub const TOPOLOGY_KINDS: &[&str] = &["dumbbell", "star", "leaf_spine", "fat_tree", "multi_dc", "subways", "bcube", "jellyfish"];
pub const MARKING_KINDS: &[&str] = &["none", "step", "red", "dequeue_red"];
/// Switch output queues hold 1000 packets unless the scenario says otherwise.
pub const SWITCH_LIMIT: Option<&str> = Some("1000pkt");

/// The topology, and the Superways servers whose incast senders are split by `leaf_senders`.
pub fn topology(cx: &Ctx, t: &TopologySpec, seed: u64) -> Result<(Topology, Vec<LeafQuota>), ScenarioError> {
    let kind = cx.choice("kind", t.kind.as_deref(), None, TOPOLOGY_KINDS)?;
    if kind == "multi_dc" {
        cx.reject(kind, &[("leaf_ports", t.leaf_ports.is_some()), ("spine_ports", t.spine_ports.is_some()), ("level", t.level.is_some()), ("superways", t.superways.is_some())])?;
        let topo = super::multi_dc::params(cx, t)?.build(seed).map_err(|e| cx.err("kind", e))?;
        return Ok((addressable(cx, topo)?, Vec::new()));
    }
    cx.only(kind, &given_fields(t), reads(kind))?;
    let default = LinkParams { rate_bps: cx.rate("host_link.rate", &None, DEFAULT_RATE)?, delay_ps: cx.time("host_link.delay", &None, DEFAULT_DELAY)? };
    let host_link = link(cx, "host_link", t.host_link.as_ref(), default)?;
    let fabric_link = link(cx, "fabric_link", t.fabric_link.as_ref(), host_link)?;
    const MAX: i64 = 1 << 20;
    let params = match kind {
        "dumbbell" | "star" => TopologyParams::Dumbbell(DumbbellParams {
            senders: cx.count("senders", t.senders, None, 1, MAX)? as u32,
            receivers: cx.count("receivers", t.receivers, Some(1), 1, MAX)? as u32,
            sender_link: link(cx, "sender_link", t.sender_link.as_ref(), host_link)?,
            receiver_link: link(cx, "receiver_link", t.receiver_link.as_ref(), host_link)?,
            core_link: t.core_link.as_ref().map(|l| link(cx, "core_link", Some(l), host_link)).transpose()?,
        }),
        "leaf_spine" | "subways" | "bcube" => {
            let p = LeafSpineParams {
                leaves: cx.count("leaves", t.leaves, None, if kind == "subways" { 2 } else { 1 }, 4096)? as u32,
                spines: cx.count("spines", t.spines, None, 1, 4096)? as u32,
                hosts_per_leaf: cx.count("hosts_per_leaf", t.hosts_per_leaf, None, 1, 4096)? as u32,
                host_link,
                fabric_link,
            };
            match kind {
                "subways" => TopologyParams::Subways(p),
                "bcube" => {
                    let level = bcube_level(cx, t)?;
                    if level == BcubeLevel::LeafIModSpines && p.spines > p.leaves {
                        return Err(cx.err("level", format!("`leaf_i_mod_spines` needs spines <= leaves, got {} > {}", p.spines, p.leaves)));
                    }
                    TopologyParams::Bcube(p, level)
                }
                _ => TopologyParams::LeafSpine(p),
            }
        }
        "jellyfish" => TopologyParams::Jellyfish(jellyfish(cx, t, host_link, fabric_link)?),
        "fat_tree" => {
            let k = cx.count("k", t.k, None, 2, 64)?;
            if k % 2 != 0 {
                return Err(cx.err("k", format!("must be even, got {k}")));
            }
            TopologyParams::FatTree(FatTreeParams { k: k as u32, host_link, fabric_link })
        }
        other => unreachable!("kind `{other}` is in TOPOLOGY_KINDS but has no builder"),
    };
    let (params, quotas) = match &t.superways {
        Some(sw) => {
            let (p, quotas) = super::superways::params(&cx.at("superways"), sw, &params, fabric_link)?;
            (TopologyParams::Superways(Box::new(params), p), quotas)
        }
        None => (params, Vec::new()),
    };
    Ok((addressable(cx, params.build(seed).map_err(|e| cx.err("kind", e))?)?, quotas))
}

/// `topo`, if a run can name every port of it (`PORT_LIMIT`); checked before any table
/// is built for it, which at this size would take minutes.
fn addressable(cx: &Ctx, topo: Topology) -> Result<Topology, ScenarioError> {
    let ports = topo.port_count();
    if ports >= PORT_LIMIT {
        let limit = PORT_LIMIT - 1;
        return Err(cx.err("kind", format!("this topology has {ports} ports, more than the {limit} a run can address: use fewer switches, hosts or links")));
    }
    Ok(topo)
}

/// Jellyfish's switches: each may have at most one link to every other switch (no
/// parallel links), and inner switches need ports.
fn jellyfish(cx: &Ctx, t: &TopologySpec, host_link: LinkParams, fabric_link: LinkParams) -> Result<JellyfishParams, ScenarioError> {
    let p = JellyfishParams {
        leaves: cx.count("leaves", t.leaves, None, 1, 4096)? as u32,
        hosts_per_leaf: cx.count("hosts_per_leaf", t.hosts_per_leaf, None, 1, 4096)? as u32,
        leaf_ports: cx.count("leaf_ports", t.leaf_ports, None, 1, 4096)? as u32,
        spines: cx.count("spines", t.spines, Some(0), 0, 4096)? as u32,
        spine_ports: cx.count("spine_ports", t.spine_ports, Some(0), 0, 4096)? as u32,
        host_link,
        fabric_link,
    };
    let others = p.leaves + p.spines - 1;
    for (key, ports) in [("leaf_ports", p.leaf_ports), ("spine_ports", p.spine_ports)] {
        if ports > others {
            return Err(cx.err(key, format!("must be at most {others} (one link to each other switch), got {ports}")));
        }
    }
    if (p.spines > 0) != (p.spine_ports > 0) {
        return Err(cx.err("spine_ports", "is required with spines > 0 (and only then)"));
    }
    Ok(p)
}

/// `bcube`'s `level`: a BCube(n, 1) level of switches (default), or the Superways code's
/// second NIC to a leaf.
fn bcube_level(cx: &Ctx, t: &TopologySpec) -> Result<BcubeLevel, ScenarioError> {
    Ok(match cx.choice("level", t.level.as_deref(), Some("switches"), BCUBE_LEVELS)? {
        "switches" => BcubeLevel::Switches,
        "leaf_i_mod_spines" => BcubeLevel::LeafIModSpines,
        other => unreachable!("level `{other}` is in BCUBE_LEVELS but has no builder"),
    })
}

/// The fields kinds other than `multi_dc` may read, in the order errors name them.
fn given_fields(t: &TopologySpec) -> Vec<(&'static str, bool)> {
    let mut g = super::multi_dc::own_fields(t).to_vec();
    g.extend([
        ("senders", t.senders.is_some()),
        ("receivers", t.receivers.is_some()),
        ("sender_link", t.sender_link.is_some()),
        ("receiver_link", t.receiver_link.is_some()),
        ("core_link", t.core_link.is_some()),
        ("leaves", t.leaves.is_some()),
        ("spines", t.spines.is_some()),
        ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
        ("k", t.k.is_some()),
        ("fabric_link", t.fabric_link.is_some()),
        ("leaf_ports", t.leaf_ports.is_some()),
        ("spine_ports", t.spine_ports.is_some()),
        ("level", t.level.is_some()),
        ("superways", t.superways.is_some()),
    ]);
    g
}

/// The fields each kind reads (`host_link` and `kind` are read by all).
fn reads(kind: &str) -> &'static [&'static str] {
    match kind {
        "dumbbell" => &["senders", "receivers", "sender_link", "receiver_link", "core_link"],
        "star" => &["senders", "receivers", "sender_link", "receiver_link"],
        "leaf_spine" | "subways" => &["leaves", "spines", "hosts_per_leaf", "fabric_link", "superways"],
        "bcube" => &["leaves", "spines", "hosts_per_leaf", "fabric_link", "superways", "level"],
        "jellyfish" => &["leaves", "spines", "hosts_per_leaf", "fabric_link", "leaf_ports", "spine_ports", "superways"],
        "fat_tree" => &["k", "fabric_link"],
        _ => &[],
    }
}

/// A queue section; `packet` is the bytes of a full-size packet on the wire.
pub fn queue(cx: &Ctx, q: Option<&QueueSpec>, packet: u64, default_limit: Option<&str>) -> Result<QueueConfig, ScenarioError> {
    let empty = QueueSpec::default();
    let q = q.unwrap_or(&empty);
    let mut cfg = QueueConfig::unlimited();
    let limit = match &q.limit {
        Some(_) => Some(cx.size("limit", &q.limit, "0B")?),
        None => default_limit.map(|d| cx.size("limit", &None, d)).transpose()?,
    };
    match limit {
        Some(Size::Packets(0)) | Some(Size::Bytes(0)) => return Err(cx.err("limit", "must be positive")),
        Some(Size::Packets(p)) => cfg.limit_pkts = p,
        Some(Size::Bytes(b)) => {
            if b < packet {
                return Err(cx.err("limit", format!("{b} B cannot hold one {packet}-byte packet")));
            }
            cfg.limit_bytes = b;
        }
        None => {}
    }
    if let Some(m) = &q.marking {
        cfg.marking = marking(&cx.at("marking"), m)?;
    }
    cfg.control = super::control::control(cx, q, limit, packet)?;
    if q.device_queue.is_some() {
        cfg.device_pkts = device_queue(cx, q, &cfg)?;
    }
    cfg.per_flow = cx.choice("schedule", q.schedule.as_deref(), Some("fifo"), &["fifo", "per_flow"])? == "per_flow";
    Ok(cfg)
}

/// A device FIFO under the queue (ns-3's PointToPoint queue beneath a queue disc). The
/// engine splits only packet counts between the two, so everything must be in `pkt`.
fn device_queue(cx: &Ctx, q: &QueueSpec, cfg: &QueueConfig) -> Result<u64, ScenarioError> {
    let pkts = match cx.opt_size("device_queue", &q.device_queue)? {
        Some(Size::Packets(p)) if p > 0 => p,
        Some(Size::Packets(_)) => return Err(cx.err("device_queue", "must be positive")),
        _ => return Err(cx.err("device_queue", "must be a packet count, e.g. \"100pkt\"")),
    };
    if cfg.limit_bytes != u64::MAX {
        return Err(cx.err("limit", "must be in pkt when device_queue is set"));
    }
    let bytes_marking = match &cfg.marking {
        MarkingConfig::Step { threshold } => matches!(threshold, Size::Bytes(_)),
        MarkingConfig::Red(r) => matches!(r.min, Size::Bytes(_)),
        MarkingConfig::None => false,
        MarkingConfig::Dequeue(_) => {
            return Err(cx.err("marking", "kind `dequeue_red` does not combine with device_queue (an ns-3 queue disc marks at enqueue; allowed: none, step, red)"));
        }
    };
    if bytes_marking {
        return Err(cx.err("marking", "thresholds must be in pkt when device_queue is set"));
    }
    Ok(pkts)
}

fn marking(cx: &Ctx, m: &MarkingSpec) -> Result<MarkingConfig, ScenarioError> {
    let kind = cx.choice("kind", m.kind.as_deref(), None, MARKING_KINDS)?;
    if kind == "dequeue_red" {
        return super::dequeue_marking::dequeue_red(cx, m);
    }
    cx.reject(kind, &[("phantom", m.phantom.is_some())])?;
    let red_fields = [("min", m.min.is_some()), ("max", m.max.is_some()), ("p_max", m.p_max.is_some()), ("weight", m.weight.is_some()), ("gentle", m.gentle.is_some()), ("wait", m.wait.is_some())];
    match kind {
        "none" => {
            cx.reject(kind, &[("threshold", m.threshold.is_some())])?;
            cx.reject(kind, &red_fields)?;
            Ok(MarkingConfig::None)
        }
        "step" => {
            cx.reject(kind, &red_fields)?;
            let threshold = cx.opt_size("threshold", &m.threshold)?.ok_or_else(|| cx.err("threshold", "is required for step marking (e.g. \"65pkt\")"))?;
            Ok(MarkingConfig::Step { threshold })
        }
        _ => {
            cx.reject(kind, &[("threshold", m.threshold.is_some())])?;
            let (min, max) = super::dequeue_marking::thresholds(cx, m)?;
            Ok(MarkingConfig::Red(RedConfig {
                min,
                max,
                p_max: cx.fraction("p_max", m.p_max, Some(0.02), 0.0, 1.0)?,
                weight: cx.fraction("weight", m.weight, Some(0.002), 0.0, 1.0)?,
                gentle: m.gentle.unwrap_or(true),
                wait: m.wait.unwrap_or(true),
            }))
        }
    }
}
