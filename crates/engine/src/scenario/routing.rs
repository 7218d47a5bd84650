//! `[routing]`: the senders' load balancing (`lb`), with UnoLB's knobs.

use super::fields::Ctx;
use super::spec::{RoutingSpec, StaticRouteSpec};
use crate::ids::{HostId, NodeId};
use crate::routing::select::{LoadBalancing, PlbConfig, Scheme, SprayConfig, UnoLbConfig, SCHEMES};
use crate::topology::{NodeKind, Topology};
use crate::ScenarioError;

/// A validated static route: host `src` to host `dst` along `nodes` (both hosts included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticRoute {
    pub src: HostId,
    pub dst: HostId,
    pub nodes: Vec<NodeId>,
}

/// `[[routing.static]]`: each route's hosts exist, its `via` names switches, every hop is
/// a link, no node repeats, and no (src, dst) pair is given twice.
pub fn static_routes(cx: &Ctx, routes: &[StaticRouteSpec], topo: &Topology) -> Result<Vec<StaticRoute>, ScenarioError> {
    let mut out: Vec<StaticRoute> = Vec::new();
    for (i, r) in routes.iter().enumerate() {
        let cx = cx.at(&format!("static[{i}]"));
        let host = |key: &str, name: &Option<String>| -> Result<(HostId, NodeId), ScenarioError> {
            let name = name.as_deref().ok_or_else(|| cx.err(key, "is required (a host name, e.g. \"h3\")"))?;
            let n = node_named(topo, name).filter(|n| topo.nodes[n.idx()].kind == NodeKind::Host);
            let n = n.ok_or_else(|| cx.err(key, format!("`{name}` is not a host of this topology")))?;
            Ok((topo.nodes[n.idx()].host.expect("a host"), n))
        };
        let (src, src_node) = host("src", &r.src)?;
        let (dst, dst_node) = host("dst", &r.dst)?;
        if src == dst {
            return Err(cx.err("dst", "must differ from src"));
        }
        let via = r.via.as_ref().ok_or_else(|| cx.err("via", "is required (the switches in order, e.g. [\"leaf0\", \"spine1\"])"))?;
        let mut nodes = vec![src_node];
        for name in via {
            let n = node_named(topo, name).filter(|n| topo.nodes[n.idx()].kind == NodeKind::Switch);
            nodes.push(n.ok_or_else(|| cx.err("via", format!("`{name}` is not a switch of this topology")))?);
        }
        nodes.push(dst_node);
        for w in nodes.windows(2) {
            if !topo.links.iter().any(|l| (l.a, l.b) == (w[0], w[1]) || (l.b, l.a) == (w[0], w[1])) {
                let name = |n: NodeId| topo.nodes[n.idx()].name.clone();
                return Err(cx.err("via", format!("no link joins {} and {}", name(w[0]), name(w[1]))));
            }
        }
        if (1..nodes.len()).any(|j| nodes[..j].contains(&nodes[j])) {
            return Err(cx.err("via", "visits a node twice"));
        }
        if out.iter().any(|o| (o.src, o.dst) == (src, dst)) {
            return Err(cx.err("src", "a static route for this (src, dst) pair is already given"));
        }
        out.push(StaticRoute { src, dst, nodes });
    }
    Ok(out)
}

fn node_named(topo: &Topology, name: &str) -> Option<NodeId> {
    topo.nodes.iter().position(|n| n.name == name).map(NodeId::from)
}

/// `[routing] lb` and the chosen scheme's knobs (`routing/select`).
pub fn routing(cx: &Ctx, r: &RoutingSpec) -> Result<LoadBalancing, ScenarioError> {
    let scheme = cx.pick("lb", r.lb.as_deref(), Some("ecmp"), SCHEMES)?;
    let given = [
        ("subflows", r.subflows.is_some()),
        ("entropies", r.entropies.is_some()),
        ("cong_thresh", r.cong_thresh.is_some()),
        ("rehash_rounds", r.rehash_rounds.is_some()),
    ];
    let entropies = |default| Ok::<u32, ScenarioError>(cx.count("entropies", r.entropies, Some(default), 1, 1 << 30)? as u32);
    Ok(match scheme {
        Scheme::Ecmp => {
            cx.only("ecmp", &given, &[])?;
            LoadBalancing::Ecmp
        }
        Scheme::Spray => {
            cx.only("spray", &given, &["entropies"])?;
            LoadBalancing::Spray(SprayConfig { entropies: entropies(256)? })
        }
        Scheme::UnoLb => {
            cx.only("unolb", &given, &["subflows", "entropies"])?;
            LoadBalancing::UnoLb(UnoLbConfig { subflows: cx.count("subflows", r.subflows, Some(10), 1, 255)? as u8, entropies: entropies(250)? })
        }
        Scheme::Plb => {
            cx.only("plb", &given, &["entropies", "cong_thresh", "rehash_rounds"])?;
            LoadBalancing::Plb(PlbConfig {
                entropies: entropies(250)?,
                cong_thresh: cx.fraction("cong_thresh", r.cong_thresh, Some(0.25), 0.0, 1.0)?,
                rehash_rounds: cx.count("rehash_rounds", r.rehash_rounds, Some(2), 1, 1 << 20)? as u32,
            })
        }
    })
}
