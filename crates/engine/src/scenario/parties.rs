//! Who takes part in a workload: hosts named one by one or by group, an incast's receiver
//! and senders, and the hosts' NIC rates. Shared by the workload kinds and `[record]`.

use super::fields::Ctx;
use super::spec::{Names, WorkloadSpec};
use crate::ids::HostId;
use crate::topology::Topology;
use crate::workload::choose_senders;
use crate::ScenarioError;

const PICKS: &[&str] = &["first", "random"];

/// Finds a host by name.
pub fn host(cx: &Ctx, key: &str, name: &str, topo: &Topology) -> Result<HostId, ScenarioError> {
    topo.hosts
        .iter()
        .position(|n| topo.nodes[n.idx()].name == name)
        .map(HostId::from)
        .ok_or_else(|| {
            let mut examples: Vec<String> = topo.hosts.iter().take(4).map(|n| topo.nodes[n.idx()].name.clone()).collect();
            if topo.hosts.len() > 4 {
                examples.push("...".into());
            }
            cx.err(key, format!("no host named `{name}`")).with_allowed(examples)
        })
}

/// A group name, a single host name, or a list of host names.
pub fn hosts(cx: &Ctx, key: &str, names: Option<&Names>, default_group: &str, topo: &Topology) -> Result<Vec<HostId>, ScenarioError> {
    match names {
        None => Ok(topo.group(default_group).map(<[HostId]>::to_vec).unwrap_or_else(|| (0..topo.hosts.len()).map(HostId::from).collect())),
        Some(Names::One(name)) => {
            if let Some(g) = topo.group(name) {
                return Ok(g.to_vec());
            }
            host(cx, key, name, topo).map(|h| vec![h]).map_err(|e| {
                let groups: Vec<String> = topo.groups.iter().map(|(n, _)| n.clone()).collect();
                ScenarioError::new(e.path, format!("`{name}` is neither a group nor a host")).with_allowed(groups)
            })
        }
        Some(Names::Many(list)) => {
            if list.is_empty() {
                return Err(cx.err(key, "must not be empty"));
            }
            list.iter().enumerate().map(|(i, n)| host(cx, &format!("{key}[{i}]"), n, topo)).collect()
        }
    }
}

/// The host `name`, or without one the first of the topology's `group` (where the paper
/// places a receiver or a proxy).
pub fn named_or_first(cx: &Ctx, key: &str, name: Option<&str>, group: &str, topo: &Topology) -> Result<HostId, ScenarioError> {
    match name {
        Some(name) => host(cx, key, name, topo),
        None => topo
            .group(group)
            .and_then(|g| g.first().copied())
            .ok_or_else(|| cx.err(key, format!("is required (this topology has no `{group}` group)"))),
    }
}

/// The receiver, the chosen senders (never `exclude`, a proxy) and the bytes each sends:
/// what `incast`, `proxy_incast` and `rpc_incast` share.
pub fn incast_parties(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, seed: u64, index: usize, exclude: Option<HostId>) -> Result<(HostId, Vec<HostId>, u64), ScenarioError> {
    let receiver = named_or_first(cx, "receiver", w.receiver.as_deref(), "receivers", topo)?;
    let mut pool = hosts(cx, "senders", w.senders.as_ref(), "senders", topo)?;
    pool.retain(|h| Some(*h) != exclude);
    let available = pool.iter().filter(|h| **h != receiver).count() as i64;
    let degree = cx.count("degree", w.degree, None, 1, i64::MAX)?;
    if degree as i64 > available {
        return Err(cx.err("degree", format!("is {degree} but only {available} senders are available")));
    }
    let random = cx.choice("pick", w.pick.as_deref(), Some("first"), PICKS)? == "random";
    let senders = choose_senders(&pool, receiver, degree as usize, random, seed, index);
    let per_sender = positive(cx, "bytes_per_sender", cx.opt_bytes("bytes_per_sender", &w.bytes_per_sender)?)?;
    let total = positive(cx, "total_bytes", cx.opt_bytes("total_bytes", &w.total_bytes)?)?;
    let bytes_per_sender = match (per_sender, total) {
        (Some(b), None) => b,
        (None, Some(t)) => t.div_ceil(degree),
        (Some(_), Some(_)) => return Err(cx.err("total_bytes", "give bytes_per_sender or total_bytes, not both")),
        (None, None) => return Err(cx.err("bytes_per_sender", "is required (or total_bytes)")),
    };
    Ok((receiver, senders, bytes_per_sender))
}

/// A count or size that, if given, is more than zero.
pub(super) fn positive(cx: &Ctx, key: &str, v: Option<u64>) -> Result<Option<u64>, ScenarioError> {
    if v == Some(0) {
        return Err(cx.err(key, "must be positive"));
    }
    Ok(v)
}

/// Each host's NIC rate: its first link's (0 without a link). One pass over the links, so
/// a pool of 100,000 hosts costs no more than its links.
pub(super) fn nic_rates(topo: &Topology, hosts: &[HostId]) -> Vec<u64> {
    let mut first = vec![None; topo.nodes.len()];
    for l in topo.links.iter().rev() {
        first[l.a.idx()] = Some(l.rate_bps);
        first[l.b.idx()] = Some(l.rate_bps);
    }
    hosts.iter().map(|h| first[topo.hosts[h.idx()].idx()].unwrap_or(0)).collect()
}
