//! `[topology.superways]`: which servers get extra links to which spines.

use super::fields::{link, Ctx};
use super::routing::StaticRoute;
use super::spec::{HostRef, SuperwaysSpec};
use crate::ids::{HostId, NodeId};
use crate::topology::{LinkParams, ShortcutServer, ShortcutTarget, SuperwaysParams, Topology, TopologyParams};
use crate::workload::Workload;
use crate::ScenarioError;

/// The placement heuristic's routing split at one incast server (spec §1.3): the first
/// `quota` of its incast senders come through its leaf, the others over its extra links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafQuota {
    pub server: HostId,
    pub quota: u32,
    /// The spine of each of its extra links.
    pub extra_spines: Vec<u32>,
    /// The base's hosts per rack and spines (leaf `r` is `leaf{r}`, spine `j` `spine{j}`).
    pub per_rack: u32,
    pub spines: u32,
}

/// Most extra links one server may get.
const MAX_LINKS: i64 = 64;
/// Where the extra links go.
pub const TARGETS: &[&str] = &["spines", "leaves"];

/// Either `servers = [{ server = "h19" | 19, links = 3, spines = [0, 1, 2] }, ...]` (spines
/// default to 0..links, wrapping into LAGs past the last spine), or `per_rack = 19` with
/// `links = 3`: server 19 of every rack, links to spines 0..3 (the paper's code).
pub fn params(cx: &Ctx, sw: &SuperwaysSpec, base: &TopologyParams, fabric_link: LinkParams) -> Result<(SuperwaysParams, Vec<LeafQuota>), ScenarioError> {
    let (racks, per_rack, spines) = match base {
        TopologyParams::LeafSpine(p) | TopologyParams::Subways(p) | TopologyParams::Bcube(p, _) => (p.leaves, p.hosts_per_leaf, p.spines),
        TopologyParams::Jellyfish(p) => (p.leaves, p.hosts_per_leaf, p.spines),
        _ => unreachable!("superways on a base the topology layer did not allow"),
    };
    // The split's leaf path is leaf -> spine -> leaf: a base whose racks all reach every spine.
    let split_allowed = |cx: &Ctx| match (base, &sw.to) {
        (TopologyParams::Jellyfish(_), _) => Err(cx.err("leaf_senders", "needs a leaf_spine, subways or bcube base (Jellyfish's racks do not reach every spine)")),
        (_, Some(to)) if to == "leaves" => Err(cx.err("leaf_senders", "applies to links to spines only (to = \"spines\")")),
        _ => Ok(()),
    };
    let mut quotas = Vec::new();
    let mut quota = |cx: &Ctx, host: HostId, leaf_senders: Option<i64>, extra_spines: &[u32]| -> Result<(), ScenarioError> {
        if leaf_senders.is_some() {
            split_allowed(cx)?;
            let quota = cx.count("leaf_senders", leaf_senders, None, 0, i64::from(u32::MAX))? as u32;
            quotas.push(LeafQuota { server: host, quota, extra_spines: extra_spines.to_vec(), per_rack, spines });
        }
        Ok(())
    };
    let to = match cx.choice("to", sw.to.as_deref(), Some("spines"), TARGETS)? {
        "leaves" => ShortcutTarget::Leaves,
        _ => ShortcutTarget::Spines,
    };
    if to == ShortcutTarget::Spines && spines == 0 {
        return Err(cx.err("servers", "needs spine switches in the base topology (spines = 0)"));
    }
    let link = link(cx, "link", sw.link.as_ref(), fabric_link)?;
    // Spines 0, 1, ... (wrapping into LAGs); or the leaves of the next racks, never the
    // server's own: (r + 1) mod R, (r + 2) mod R, ... (spec §2, Fig. 12).
    let default_targets = |cx: &Ctx, host: HostId, links: u32| -> Result<Vec<u32>, ScenarioError> {
        match to {
            ShortcutTarget::Spines => Ok((0..links).map(|j| j % spines).collect()),
            ShortcutTarget::Leaves if links >= racks => Err(cx.err("links", format!("is {links} but a server can reach only the {} other racks' leaves", racks - 1))),
            ShortcutTarget::Leaves => Ok((1..=links).map(|j| (host.0 / per_rack + j) % racks).collect()),
        }
    };
    let servers = match (&sw.servers, sw.per_rack) {
        (Some(_), Some(_)) => return Err(cx.err("per_rack", "give either servers or per_rack, not both")),
        (None, None) => return Err(cx.err("servers", "is required (or per_rack with links), e.g. servers = [{ server = \"h19\", links = 3 }]")),
        (None, Some(_)) => {
            let local = cx.count("per_rack", sw.per_rack, None, 0, per_rack as i64 - 1)? as u32;
            let links = cx.count("links", sw.links, None, 1, MAX_LINKS)? as u32;
            let hosts = (0..racks).map(|r| HostId(r * per_rack + local));
            let servers: Vec<ShortcutServer> = hosts.map(|host| Ok(ShortcutServer { host, switches: default_targets(cx, host, links)? })).collect::<Result<_, ScenarioError>>()?;
            for s in &servers {
                quota(cx, s.host, sw.leaf_senders, &s.switches)?;
            }
            servers
        }
        (Some(list), None) => {
            if sw.links.is_some() {
                return Err(cx.err("links", "with servers, give links per server"));
            }
            if sw.leaf_senders.is_some() {
                return Err(cx.err("leaf_senders", "with servers, give leaf_senders per server"));
            }
            let mut out: Vec<ShortcutServer> = Vec::new();
            for (i, s) in list.iter().enumerate() {
                let cx = cx.at(&format!("servers[{i}]"));
                let host = server(&cx, s.server.as_ref(), racks * per_rack)?;
                if out.iter().any(|o| o.host == host) {
                    return Err(cx.err("server", format!("h{} is listed twice", host.0)));
                }
                let links = cx.count("links", s.links, None, 1, MAX_LINKS)? as u32;
                let chosen = match &s.spines {
                    None => default_targets(&cx, host, links)?,
                    Some(_) if to == ShortcutTarget::Leaves => return Err(cx.err("spines", "does not apply when the links go to leaves (to = \"leaves\")")),
                    Some(list) => {
                        if list.len() != links as usize {
                            return Err(cx.err("spines", format!("lists {} spines for {links} links (one per link)", list.len())));
                        }
                        let bad = list.iter().find(|&&j| j < 0 || j >= spines as i64);
                        if let Some(j) = bad {
                            return Err(cx.err("spines", format!("spine {j} does not exist (allowed: 0..{})", spines - 1)));
                        }
                        list.iter().map(|&j| j as u32).collect()
                    }
                };
                quota(&cx, host, s.leaf_senders, &chosen)?;
                out.push(ShortcutServer { host, switches: chosen });
            }
            out
        }
    };
    Ok((SuperwaysParams { servers, to, link }, quotas))
}

/// The static routes of every `leaf_senders` split. At a server, its `aggregator_incast`
/// senders are taken workload by workload in scenario order, each workload's own rack's
/// first, then in their drawn order: the first `quota` come through the server's leaf (the
/// k-th remote one of them over spine `k mod spines`), the others over the extra links in
/// turn (leaf -> that link's spine -> server). Each such route is pinned.
/// A (sender, server) pair keeps its first route if two workloads share it.
pub fn quota_routes(quotas: &[LeafQuota], workloads: &[Workload], topo: &Topology) -> Vec<StaticRoute> {
    let named = |name: String| NodeId::from(topo.nodes.iter().position(|n| n.name == name).expect("a leaf-spine switch"));
    let mut out: Vec<StaticRoute> = Vec::new();
    for q in quotas {
        let rack = |h: HostId| h.0 / q.per_rack;
        let server_leaf = named(format!("leaf{}", rack(q.server)));
        let mut senders: Vec<HostId> = Vec::new();
        for w in workloads {
            let Workload::AggregatorIncast(a) = w else { continue };
            for (_, list) in a.aggregators.iter().zip(&a.senders).filter(|(agg, _)| **agg == q.server) {
                let (local, remote): (Vec<HostId>, Vec<HostId>) = list.iter().partition(|&&s| rack(s) == rack(q.server));
                for s in local.into_iter().chain(remote) {
                    if !senders.contains(&s) {
                        senders.push(s);
                    }
                }
            }
        }
        let (mut leaf_i, mut extra_i) = (0u32, 0usize);
        for (i, &s) in senders.iter().enumerate() {
            let src_leaf = named(format!("leaf{}", rack(s)));
            let via = if (i as u32) < q.quota {
                if rack(s) == rack(q.server) {
                    continue; // its own leaf: the shortest path already
                }
                leaf_i += 1;
                vec![src_leaf, named(format!("spine{}", (leaf_i - 1) % q.spines)), server_leaf]
            } else {
                extra_i += 1;
                vec![src_leaf, named(format!("spine{}", q.extra_spines[(extra_i - 1) % q.extra_spines.len()]))]
            };
            let nodes = std::iter::once(topo.hosts[s.idx()]).chain(via).chain(std::iter::once(topo.hosts[q.server.idx()])).collect();
            out.push(StaticRoute { src: s, dst: q.server, nodes });
        }
    }
    out
}

/// A server by host number or name (`h{number}`, the builders' naming).
fn server(cx: &Ctx, s: Option<&HostRef>, hosts: u32) -> Result<HostId, ScenarioError> {
    let n = match s {
        None => return Err(cx.err("server", "is required (a host name such as \"h19\", or its number)")),
        Some(HostRef::Index(i)) => Some(*i),
        Some(HostRef::Name(name)) => name.strip_prefix('h').and_then(|d| d.parse::<i64>().ok()),
    };
    match n {
        Some(i) if (0..hosts as i64).contains(&i) => Ok(HostId(i as u32)),
        _ => Err(cx.err("server", format!("must be a host, h0..h{} or 0..{}", hosts - 1, hosts - 1))),
    }
}
