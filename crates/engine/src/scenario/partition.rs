//! `[partition]`: a run cut into parts of whole pods that advance in parallel (issue 23).
//!
//! A `multi_dc` run on two threads or more is cut per datacenter by itself, with the tables
//! of one world. A fat-tree's pods are joined by links of a microsecond, and packets of one
//! picosecond meet at its cores from several pods, in an order no partition can rebuild
//! alone (docs/performance.md, "Per pod"): a run cut by pod has tables of its own. So it is
//! asked for in the scenario, and then cut so on one thread as on many, with the same tables.

use super::fields::Ctx;
use super::spec::PartitionSpec;
use crate::topology::Topology;
use crate::ScenarioError;

/// What a run may be cut by.
pub const BY: &[&str] = &["pod"];

/// A run cut into `parts` partitions of whole pods.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PartitionConfig {
    pub parts: usize,
}

/// The cut `[partition]` asks for (`None`: none), checked against the topology.
pub fn partition(cx: &Ctx, spec: Option<&PartitionSpec>, topology: &Topology) -> Result<Option<PartitionConfig>, ScenarioError> {
    let Some(p) = spec else { return Ok(None) };
    cx.choice("by", p.by.as_deref(), None, BY)?;
    if topology.nodes.iter().any(|n| n.dc != 0 && n.dc != crate::topology::NO_DC) {
        return Err(cx.err("by", "does not apply to a multi_dc topology: its runs are cut per datacenter on two threads or more"));
    }
    let pods = crate::topology::pod_count(topology).map_err(|why| cx.err("by", why))?;
    let parts = cx.count("parts", p.parts, Some(2), 2, pods as i64)? as usize;
    Ok(Some(PartitionConfig { parts }))
}
