//! `[[workload]]` kinds `matrix` (a `.cm` traffic matrix file) and `mixed_poisson` (the
//! Uno artifact's intra/inter-datacenter generator).

use super::fields::Ctx;
use super::spec::WorkloadSpec;
use super::parties::hosts;
use crate::ids::HostId;
use crate::topology::Topology;
use crate::units::Time;
use crate::workload::{matrix, Cdf, FlowSpec, MixedPoissonSpec, Sampling, Workload};
use crate::ScenarioError;

/// A `.cm` file: host numbers index the topology's hosts; `start` shifts every flow;
/// `max_flows` keeps the first flows by start time (ties in file order).
pub fn matrix(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, start: Time, load_file: &dyn Fn(&str) -> Result<String, String>) -> Result<Workload, ScenarioError> {
    let name = w.file.as_deref().ok_or_else(|| cx.err("file", "is required: a traffic matrix (.cm) file, e.g. \"websearchIntra_AlibabaInter_5000f_40l.cm\""))?;
    let text = load_file(name).map_err(|e| cx.err("file", format!("cannot read `{name}`: {e}")))?;
    let parsed = matrix::parse(&text).map_err(|e| cx.err("file", format!("`{name}` {e}")))?;
    let n_hosts = topo.hosts.len();
    let mut flows = Vec::with_capacity(parsed.len());
    for f in &parsed {
        if let Some(h) = [f.src, f.dst].into_iter().find(|&h| h as usize >= n_hosts) {
            return Err(cx.err("file", format!("`{name}` flow id {}: host {h} does not exist (the topology has hosts 0..{})", f.id, n_hosts - 1)));
        }
        flows.push(FlowSpec { src: HostId(f.src), dst: HostId(f.dst), bytes: f.size_bytes, start: start + f.start_ps });
    }
    flows.sort_by_key(|f| f.start);
    if let Some(n) = w.max_flows {
        let n = cx.count("max_flows", Some(n), None, 1, i64::MAX)? as usize;
        flows.truncate(n);
    }
    Ok(Workload::Flows(flows))
}

/// The datacenter of each of `hosts`, as the topology assigns it.
fn host_dcs(topo: &Topology, hosts: &[HostId]) -> Vec<u32> {
    hosts.iter().map(|h| topo.dc_of(topo.hosts[h.idx()])).collect()
}

pub fn mixed_poisson(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, start: Time, load_file: &dyn Fn(&str) -> Result<String, String>) -> Result<Workload, ScenarioError> {
    let hosts = hosts(cx, "hosts", w.hosts.as_ref(), "all", topo)?;
    let load = cx.fraction("load", w.load, None, 0.0, 1.0)?;
    let intra_fraction = w.intra_fraction.ok_or_else(|| cx.err("intra_fraction", "is required: the probability that a flow stays in its datacenter, in [0, 1]"))?;
    if !(0.0..=1.0).contains(&intra_fraction) {
        return Err(cx.err("intra_fraction", format!("must be in [0, 1], got {intra_fraction}")));
    }
    let flows = cx.count("flows", w.flows, None, 1, 100_000_000)? as usize;
    let sampling = match w.sampling.as_deref() {
        None => None,
        Some(s) => Some(if cx.choice("sampling", Some(s), None, &["interpolate", "discrete"])? == "discrete" { Sampling::Discrete } else { Sampling::Interpolate }),
    };
    let cdf = |key: &str, v: &Option<String>| -> Result<Cdf, ScenarioError> {
        let name = v.as_deref().ok_or_else(|| cx.err(key, "is required: a flow-size CDF file, e.g. \"alibaba_storage2019_cdf.txt\""))?;
        let text = load_file(name).map_err(|e| cx.err(key, format!("cannot read `{name}`: {e}")))?;
        Cdf::parse(&text, sampling).map_err(|e| cx.err(key, format!("`{name}` {e}")))
    };
    let (intra_sizes, inter_sizes) = (cdf("intra_sizes", &w.intra_sizes)?, cdf("inter_sizes", &w.inter_sizes)?);
    let dc_of = host_dcs(topo, &hosts);
    let mut per_dc = std::collections::BTreeMap::<u32, usize>::new();
    for &d in &dc_of {
        *per_dc.entry(d).or_default() += 1;
    }
    if intra_fraction > 0.0 && per_dc.values().any(|&n| n < 2) {
        return Err(cx.err("intra_fraction", "is above 0 but some datacenter has fewer than 2 of the hosts"));
    }
    if intra_fraction < 1.0 && per_dc.len() < 2 {
        return Err(cx.err("intra_fraction", format!("is below 1 but the hosts lie in {} datacenter (inter-datacenter flows need a multi-datacenter topology)", per_dc.len())));
    }
    // Renumber datacenters densely so the generator can index them.
    let dense: Vec<u32> = dc_of.iter().map(|d| per_dc.keys().position(|k| k == d).unwrap() as u32).collect();
    let nic_bps = super::parties::nic_rates(topo, &hosts);
    Ok(Workload::MixedPoisson(MixedPoissonSpec { hosts, dc_of: dense, nic_bps, load, intra_fraction, intra_sizes, inter_sizes, flows, start }))
}
