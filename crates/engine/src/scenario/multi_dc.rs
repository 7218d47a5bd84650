//! `kind = "multi_dc"`: datacenters joined by long-haul links, with the two presets of the
//! papers (`hotnets25`, `uno`) and the queue defaults they bring.

use super::fields::{link, Ctx};
use super::spec::{ControlSpec, LinkSpec, MarkingSpec, QueueSpec, TopologySpec};
use crate::topology::{DcFabric, Interconnect, LinkParams, MultiDcParams, TopologyParams};
use crate::ScenarioError;

pub const PRESETS: &[&str] = &["hotnets25", "uno"];
pub const FABRICS: &[&str] = &["leaf_spine", "fat_tree"];
pub const INTERCONNECTS: &[&str] = &["backbone", "border"];

/// Fields only `multi_dc` reads, for the other kinds to reject.
pub fn own_fields(t: &TopologySpec) -> [(&'static str, bool); 9] {
    [
        ("preset", t.preset.is_some()),
        ("dcs", t.dcs.is_some()),
        ("fabric", t.fabric.is_some()),
        ("interconnect", t.interconnect.is_some()),
        ("routers", t.routers.is_some()),
        ("border_links", t.border_links.is_some()),
        ("wan_links", t.wan_links.is_some()),
        ("long_haul_link", t.long_haul_link.is_some()),
        ("border_link", t.border_link.is_some()),
    ]
}

fn spec_link(rate: &str, delay: &str) -> Option<LinkSpec> {
    Some(LinkSpec { rate: Some(rate.into()), delay: Some(delay.into()) })
}

/// The topology a preset stands for, as if written in the scenario.
fn preset_topology(preset: &str) -> TopologySpec {
    let l = || spec_link("100Gbps", "1us");
    let mut t = TopologySpec { dcs: Some(2), host_link: l(), fabric_link: l(), ..TopologySpec::default() };
    if preset == "hotnets25" {
        // HotNets '25 §1: 2 x (8 spines, 8 leaves, 8 servers per leaf); 64 backbone routers.
        t.fabric = Some("leaf_spine".into());
        (t.leaves, t.spines, t.hosts_per_leaf) = (Some(8), Some(8), Some(8));
        t.interconnect = Some("backbone".into());
        t.routers = Some(64);
        t.long_haul_link = spec_link("100Gbps", "1ms");
    } else {
        // Uno §0: 2 x k = 8 fat-tree, one border per DC, 8 links core-border, 8 WAN links.
        t.fabric = Some("fat_tree".into());
        t.k = Some(8);
        t.interconnect = Some("border".into());
        (t.border_links, t.wan_links) = (Some(8), Some(8));
        t.border_link = l();
        t.long_haul_link = spec_link("100Gbps", "886.5us");
    }
    t
}

fn or_link(a: &Option<LinkSpec>, b: &Option<LinkSpec>) -> Option<LinkSpec> {
    match (a, b) {
        (Some(a), Some(b)) => Some(LinkSpec { rate: a.rate.clone().or(b.rate.clone()), delay: a.delay.clone().or(b.delay.clone()) }),
        (a, b) => a.clone().or(b.clone()),
    }
}

/// The scenario's fields over the preset's, field by field (link fields too).
fn with_preset(t: &TopologySpec, p: &TopologySpec) -> TopologySpec {
    TopologySpec {
        kind: t.kind.clone(),
        preset: t.preset.clone(),
        dcs: t.dcs.or(p.dcs),
        fabric: t.fabric.clone().or(p.fabric.clone()),
        interconnect: t.interconnect.clone().or(p.interconnect.clone()),
        leaves: t.leaves.or(p.leaves),
        spines: t.spines.or(p.spines),
        hosts_per_leaf: t.hosts_per_leaf.or(p.hosts_per_leaf),
        k: t.k.or(p.k),
        routers: t.routers.or(p.routers),
        border_links: t.border_links.or(p.border_links),
        wan_links: t.wan_links.or(p.wan_links),
        host_link: or_link(&t.host_link, &p.host_link),
        fabric_link: or_link(&t.fabric_link, &p.fabric_link),
        long_haul_link: or_link(&t.long_haul_link, &p.long_haul_link),
        border_link: or_link(&t.border_link, &p.border_link),
        ..TopologySpec::default()
    }
}

pub fn params(cx: &Ctx, given: &TopologySpec) -> Result<TopologyParams, ScenarioError> {
    let kind = "multi_dc";
    cx.reject(
        kind,
        &[("senders", given.senders.is_some()), ("receivers", given.receivers.is_some()), ("sender_link", given.sender_link.is_some()), ("receiver_link", given.receiver_link.is_some()), ("core_link", given.core_link.is_some())],
    )?;
    let preset = given.preset.as_deref().map(|p| cx.choice("preset", Some(p), None, PRESETS)).transpose()?;
    let t = match preset {
        Some(p) => {
            let defaults = preset_topology(p);
            if let (Some(i), Some(d)) = (&given.interconnect, &defaults.interconnect) {
                if i != d {
                    return Err(cx.err("interconnect", format!("preset `{p}` uses interconnect `{d}`")));
                }
            }
            with_preset(given, &defaults)
        }
        None => with_preset(given, &TopologySpec::default()),
    };
    let default_link = LinkParams { rate_bps: cx.rate("host_link.rate", &None, "10Gbps")?, delay_ps: cx.time("host_link.delay", &None, "1us")? };
    let host_link = link(cx, "host_link", t.host_link.as_ref(), default_link)?;
    let fabric_link = link(cx, "fabric_link", t.fabric_link.as_ref(), host_link)?;
    if t.long_haul_link.as_ref().and_then(|l| l.delay.as_ref()).is_none() {
        return Err(cx.err("long_haul_link.delay", "is required for multi_dc without a preset (e.g. \"1ms\")"));
    }
    let long_haul_link = link(cx, "long_haul_link", t.long_haul_link.as_ref(), fabric_link)?;
    let dcs = cx.count("dcs", t.dcs, Some(2), 2, 16)? as u32;
    let fabric = match cx.choice("fabric", t.fabric.as_deref(), None, FABRICS)? {
        "leaf_spine" => {
            cx.reject("leaf_spine", &[("k", t.k.is_some())])?;
            DcFabric::LeafSpine {
                leaves: cx.count("leaves", t.leaves, None, 1, 4096)? as u32,
                spines: cx.count("spines", t.spines, None, 1, 4096)? as u32,
                hosts_per_leaf: cx.count("hosts_per_leaf", t.hosts_per_leaf, None, 1, 4096)? as u32,
            }
        }
        _ => {
            cx.reject("fat_tree", &[("leaves", t.leaves.is_some()), ("spines", t.spines.is_some()), ("hosts_per_leaf", t.hosts_per_leaf.is_some())])?;
            let k = cx.count("k", t.k, None, 2, 64)?;
            if k % 2 != 0 {
                return Err(cx.err("k", format!("must be even, got {k}")));
            }
            DcFabric::FatTree { k: k as u32 }
        }
    };
    let interconnect = match cx.choice("interconnect", t.interconnect.as_deref(), None, INTERCONNECTS)? {
        "backbone" => {
            cx.reject("backbone", &[("border_links", t.border_links.is_some()), ("wan_links", t.wan_links.is_some()), ("border_link", t.border_link.is_some())])?;
            Interconnect::Backbone { routers: cx.count("routers", t.routers, Some(64), 1, 65_536)? as u32 }
        }
        _ => {
            cx.reject("border", &[("routers", t.routers.is_some())])?;
            Interconnect::Border {
                border_links: cx.count("border_links", t.border_links, Some(8), 1, 1024)? as u32,
                wan_links: cx.count("wan_links", t.wan_links, Some(8), 1, 65_536)? as u32,
                border_link: link(cx, "border_link", t.border_link.as_ref(), fabric_link)?,
            }
        }
    };
    Ok(TopologyParams::MultiDc(MultiDcParams { dcs, fabric, host_link, fabric_link, long_haul_link, interconnect }))
}

fn dequeue_red(min: &str, max: &str) -> Option<MarkingSpec> {
    Some(MarkingSpec { kind: Some("dequeue_red".into()), min: Some(min.into()), max: Some(max.into()), ..MarkingSpec::default() })
}

/// A preset's `[switch.queue]` defaults, and its `[switch.inter_queue]` defaults when they
/// differ from the scenario's `[switch.queue]` (`None`: the inter ports start from it).
pub fn preset_queues(preset: &str) -> (QueueSpec, Option<QueueSpec>) {
    if preset == "hotnets25" {
        // HotNets '25 §1: static per-port buffers, ECN at dequeue, trimming everywhere.
        let q = |limit: &str, min: &str, max: &str| QueueSpec { limit: Some(limit.into()), marking: dequeue_red(min, max), trim: Some(true), ..QueueSpec::default() };
        (q("17.015MB", "33.2KB", "136.95KB"), Some(q("49.8MB", "9.96MB", "39.84MB")))
    } else {
        // Uno §0: 1,000,000 B drop-tail data queues; ACKs/NACKs in an unlimited queue served
        // 20:1. Marking (phantom or physical) is the scenario's to choose. The artifact runs
        // every Uno experiment with `-interEcn`: the core-border and WAN queues are built
        // like the others and mark the same way, so the inter ports inherit the scenario's
        // `[switch.queue]` (Fig. 12 sizes them apart with `[switch.inter_queue]`).
        let control = ControlSpec { limit: Some("unlimited".into()), service: Some("wrr".into()), weight: Some(20) };
        (QueueSpec { limit: Some("1000000B".into()), control: Some(control), ..QueueSpec::default() }, None)
    }
}

/// A queue section's fields over `defaults`, field by field.
pub fn queue_over(q: Option<&QueueSpec>, defaults: QueueSpec) -> QueueSpec {
    let Some(q) = q else { return defaults };
    QueueSpec {
        limit: q.limit.clone().or(defaults.limit),
        marking: q.marking.clone().or(defaults.marking),
        trim: q.trim.or(defaults.trim),
        trim_header: q.trim_header.clone().or(defaults.trim_header),
        control: q.control.clone().or(defaults.control),
        device_queue: q.device_queue.clone().or(defaults.device_queue),
        schedule: q.schedule.clone().or(defaults.schedule),
    }
}
