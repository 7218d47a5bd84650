//! `[transport.erasure]`: UnoRC's erasure-coded blocks (spec `uno_sc25.md` §1.3). The
//! table's presence turns it on; `{}` is the paper's (8, 2) on inter-datacenter flows.

use super::fields::Ctx;
use super::spec::TransportSpec;
use crate::reliability::{BlockShape, ErasureConfig, ErasureScope};
use crate::topology::Topology;
use crate::transport::{Recovery, TransportConfig};
use crate::units::Time;
use crate::workload::Workload;
use crate::ScenarioError;

pub const SCOPES: &[&str] = &["inter", "all"];

/// The block shape and scope (`ec_wait` is resolved with the queues: [`resolve_wait`]).
pub fn erasure(cx: &Ctx, t: &TransportSpec, out: &TransportConfig) -> Result<Option<ErasureConfig>, ScenarioError> {
    let Some(spec) = &t.erasure else { return Ok(None) };
    if out.sender.recovery != Recovery::Basic {
        let why = format!("applies only with recovery = \"basic\" (here `{}`): set it for newreno and dctcp", out.sender.recovery.name());
        return Err(cx.err("erasure", why));
    }
    let cx = cx.at("erasure");
    let max = BlockShape::MAX_PACKETS as i64;
    let data = cx.count("data", spec.data, Some(8), 1, max - 1)? as u32;
    let parity = cx.count("parity", spec.parity, Some(2), 1, max - 1)? as u32;
    if data + parity > BlockShape::MAX_PACKETS {
        return Err(cx.err("parity", format!("data + parity must be at most {max} packets per block, got {}", data + parity)));
    }
    let scope = match cx.choice("scope", spec.scope.as_deref(), Some("inter"), SCOPES)? {
        "all" => ErasureScope::All,
        _ => ErasureScope::Inter,
    };
    if cx.opt_time("ec_wait", &spec.ec_wait)? == Some(0) {
        return Err(cx.err("ec_wait", "must be positive"));
    }
    Ok(Some(ErasureConfig { shape: BlockShape { data, parity }, scope, ec_wait: 0, ec_wait_inter: 0 }))
}

/// `ec_wait`: the scenario's for every flow, else the artifact's 5 Ql_intra for intra flows
/// and 5 Ql_intra + 3 Ql_inter for inter flows (640 µs with 1 MB ports at 100 Gb/s).
pub fn resolve_wait(cx: &Ctx, t: &TransportSpec, out: &mut TransportConfig, (ql_intra, ql_inter): (Time, Time)) -> Result<(), ScenarioError> {
    let (Some(cfg), Some(spec)) = (&mut out.erasure, &t.erasure) else { return Ok(()) };
    let given = cx.at("erasure").opt_time("ec_wait", &spec.ec_wait)?;
    cfg.ec_wait = given.unwrap_or(5 * ql_intra);
    cfg.ec_wait_inter = given.unwrap_or(5 * ql_intra + 3 * ql_inter);
    Ok(())
}

/// What coding cannot apply to: `scope = "inter"` with one datacenter (nothing would be
/// coded), and connections whose streams grow or are relayed.
pub fn check(cx: &Ctx, out: &TransportConfig, topology: &Topology, workloads: &[Workload]) -> Result<(), ScenarioError> {
    let Some(cfg) = &out.erasure else { return Ok(()) };
    let cx = cx.at("erasure");
    let dc = |h: &crate::ids::NodeId| topology.dc_of(*h);
    let one_dc = topology.hosts.iter().all(|h| topology.hosts.first().is_some_and(|f| dc(h) == dc(f)));
    if cfg.scope == ErasureScope::Inter && one_dc {
        return Err(cx.err("scope", "`inter` codes flows between datacenters, and this topology has one: use scope = \"all\"").with_allowed(SCOPES));
    }
    for (i, w) in workloads.iter().enumerate() {
        let kind = match w {
            Workload::RpcIncast(_) => "rpc_incast",
            Workload::ProxyIncast(_) => "proxy_incast",
            _ => continue,
        };
        let why = format!("cannot code the connections of workload[{i}] (kind `{kind}`: persistent or relayed streams)");
        return Err(ScenarioError::new(cx.path.clone(), why));
    }
    Ok(())
}
