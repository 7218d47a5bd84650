//! `[[event]]`: link failures, recoveries and drop models on a timeline, resolved to each
//! port's sorted list of changes (`net::faults`).

use super::fields::Ctx;
use super::spec::{EventSpec, Names};
use crate::ids::{NodeId, PortId};
use crate::net::faults::{BlockLoss, DropModel, LinkState, PortFaults, UNO_BLOCK, UNO_SETUP1, UNO_SETUP2, MAX_BLOCK};
use crate::topology::Topology;
use crate::ScenarioError;

pub const ACTIONS: &[&str] = &["fail", "recover", "drop"];
/// `preset`: the per-block loss rates of Uno's Table 1.
pub const DROP_PRESETS: &[&str] = &["uno_setup1", "uno_setup2"];
/// The fields of a drop model (the other actions take none of them).
const DROP_FIELDS: &[&str] = &["probability", "block", "block_losses", "preset"];

pub fn events(cx: &Ctx, list: &[EventSpec], topo: &Topology) -> Result<Vec<PortFaults>, ScenarioError> {
    let mut by_port: Vec<Vec<(u64, LinkState)>> = vec![Vec::new(); topo.port_count()];
    for (i, e) in list.iter().enumerate() {
        let cx = cx.at(&format!("event[{i}]"));
        let action = cx.choice("action", e.action.as_deref(), None, ACTIONS)?;
        if action != "drop" {
            if let Some((key, _)) = given(e).into_iter().find(|(_, present)| *present) {
                return Err(cx.err(key, format!("does not apply to action `{action}`")));
            }
        }
        let at = cx.opt_time("at", &e.at)?.ok_or_else(|| cx.err("at", "is required (a time, e.g. \"1ms\")"))?;
        let ports = links(&cx, e.link.as_ref(), topo)?;
        let state = match action {
            "fail" => LinkState::Failed,
            "recover" => LinkState::Up,
            _ => LinkState::Drop(drop_model(&cx, e)?),
        };
        for p in ports {
            by_port[p.idx()].push((at, state.clone()));
        }
    }
    let mut out = Vec::new();
    for (p, mut changes) in by_port.into_iter().enumerate() {
        if !changes.is_empty() {
            // Stable: at equal times the event listed later wins.
            changes.sort_by_key(|c| c.0);
            out.push(PortFaults { port: PortId::from(p), changes });
        }
    }
    Ok(out)
}

fn given(e: &EventSpec) -> [(&'static str, bool); 4] {
    let present = [e.probability.is_some(), e.block.is_some(), e.block_losses.is_some(), e.preset.is_some()];
    std::array::from_fn(|i| (DROP_FIELDS[i], present[i]))
}

/// `action = "drop"`: exactly one of `probability`, `block_losses` (with `block`) or `preset`.
fn drop_model(cx: &Ctx, e: &EventSpec) -> Result<DropModel, ScenarioError> {
    let models: Vec<&str> = given(e).into_iter().filter(|&(k, present)| present && k != "block").map(|(k, _)| k).collect();
    let only = ["probability", "block_losses", "preset"];
    match models.as_slice() {
        [] => Err(ScenarioError::new(cx.path.clone(), "action `drop` needs a drop model").with_allowed(only)),
        [first, second, ..] => Err(cx.err(second, format!("not with `{first}`: give one drop model")).with_allowed(only)),
        ["block_losses"] => {
            let block = cx.count("block", e.block, Some(UNO_BLOCK as i64), 1, MAX_BLOCK as i64)? as u32;
            let losses = e.block_losses.clone().unwrap_or_default();
            block_losses(cx, block, &losses)?;
            Ok(DropModel::Blocks(BlockLoss { block, losses }))
        }
        [model] if e.block.is_some() => Err(cx.err("block", format!("applies only with `block_losses`, not with `{model}`"))),
        ["probability"] => Ok(DropModel::Independent { probability: probability(cx, "probability", e.probability.unwrap_or(0.0))? }),
        _ => {
            let losses = match cx.choice("preset", e.preset.as_deref(), None, DROP_PRESETS)? {
                "uno_setup1" => UNO_SETUP1,
                _ => UNO_SETUP2,
            };
            Ok(DropModel::Blocks(BlockLoss { block: UNO_BLOCK, losses: losses.to_vec() }))
        }
    }
}

/// P(1 loss), P(2 losses), ... per block: each a probability, at most `block` of them, and
/// together at most 1 (the rest is a block without loss).
fn block_losses(cx: &Ctx, block: u32, losses: &[f64]) -> Result<(), ScenarioError> {
    if losses.is_empty() {
        return Err(cx.err("block_losses", "is empty: list P(1 loss), P(2 losses), ... per block"));
    }
    for (k, &p) in losses.iter().enumerate() {
        probability(cx, &format!("block_losses[{k}]"), p)?;
    }
    if losses.len() > block as usize {
        return Err(cx.err("block_losses", format!("lists {} losses per block, but a block has {block} packets", losses.len())));
    }
    let sum: f64 = losses.iter().sum();
    if sum > 1.0 + 1e-12 {
        return Err(cx.err("block_losses", format!("sum to {sum}, more than 1")));
    }
    Ok(())
}

fn probability(cx: &Ctx, key: &str, p: f64) -> Result<f64, ScenarioError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(cx.err(key, format!("must be a probability in [0, 1], got {p}")));
    }
    Ok(p)
}

/// `link`: one link name or a list of them.
fn links(cx: &Ctx, sel: Option<&Names>, topo: &Topology) -> Result<Vec<PortId>, ScenarioError> {
    match sel {
        None => Err(cx.err("link", "is required").with_allowed(link_forms(topo))),
        Some(Names::One(name)) => ports_named(cx, "link", name, topo),
        Some(Names::Many(list)) if list.is_empty() => Err(cx.err("link", "is an empty list").with_allowed(link_forms(topo))),
        Some(Names::Many(list)) => {
            let mut out = Vec::new();
            for (i, name) in list.iter().enumerate() {
                out.extend(ports_named(cx, &format!("link[{i}]"), name, topo)?);
            }
            Ok(out)
        }
    }
}

/// The ports one name covers: `"inter"` (every inter port), a named port, `"a->b"` (one
/// direction) or `"a<->b"` (both), each of the last two with `#k` for the k-th of
/// parallel links between a and b (in the order the topology built them).
fn ports_named(cx: &Ctx, key: &str, name: &str, topo: &Topology) -> Result<Vec<PortId>, ScenarioError> {
    if name == "inter" {
        let inter: Vec<PortId> = topo.ports().map(|(p, _)| p).filter(|&p| topo.is_inter(p)).collect();
        if inter.is_empty() {
            return Err(cx.err(key, "this topology has no inter ports (a multi_dc topology has)").with_allowed(link_forms(topo)));
        }
        return Ok(inter);
    }
    if let Some(p) = topo.named_port(name) {
        return Ok(vec![p]);
    }
    let unknown = || cx.err(key, format!("no link `{name}`")).with_allowed(link_forms(topo));
    let (both, a, rest) = match (name.split_once("<->"), name.split_once("->")) {
        (Some((a, rest)), _) => (true, a, rest),
        (None, Some((a, rest))) => (false, a, rest),
        (None, None) => return Err(unknown()),
    };
    let (b, index) = match rest.split_once('#') {
        Some((b, k)) => (b, Some(k.parse::<usize>().map_err(|_| cx.err(key, format!("`#{k}` in `{name}` is not a link number (#0, #1, ...)")))?)),
        None => (rest, None),
    };
    let node = |n: &str| topo.nodes.iter().position(|x| x.name == n).map(NodeId::from);
    let (Some(na), Some(nb)) = (node(a), node(b)) else {
        let missing = if node(a).is_none() { a } else { b };
        return Err(cx.err(key, format!("no node `{missing}` in `{name}`")).with_allowed(link_forms(topo)));
    };
    let joining: Vec<usize> = (0..topo.links.len()).filter(|&l| {
        let l = topo.links[l];
        (l.a, l.b) == (na, nb) || (l.b, l.a) == (na, nb)
    }).collect();
    let n = joining.len();
    let l = match index {
        _ if n == 0 => return Err(cx.err(key, format!("no link joins `{a}` and `{b}`"))),
        None if n == 1 => joining[0],
        None => return Err(cx.err(key, format!("`{name}` names {n} parallel links: add `#0` ... `#{}`", n - 1))),
        Some(k) if k < n => joining[k],
        Some(k) => return Err(cx.err(key, format!("`#{k}`: `{a}` and `{b}` have {n} parallel links (#0 ... #{})", n - 1))),
    };
    // Link l's ports: 2l carries a -> b of the link as built, 2l + 1 the reverse.
    let forward = PortId::from(if topo.links[l].a == na { 2 * l } else { 2 * l + 1 });
    Ok(if both { vec![forward, PortId(forward.0 ^ 1)] } else { vec![forward] })
}

/// What `link` accepts, for an error's allowed list.
fn link_forms(topo: &Topology) -> Vec<String> {
    let mut forms = Vec::new();
    if (0..topo.port_count()).any(|p| topo.is_inter(PortId::from(p))) {
        forms.push("inter".to_string());
    }
    forms.extend(topo.named_ports.iter().map(|(n, _)| n.clone()));
    forms.push(format!("one direction `from->to`, e.g. `{}`", topo.port_name(PortId(0))));
    forms.push("both directions `a<->b`".to_string());
    forms.push("`#k` after either: the k-th of parallel links".to_string());
    forms
}
