//! `[routing]`: the senders' load balancing (`lb`), with UnoLB's knobs.

use super::fields::Ctx;
use super::spec::RoutingSpec;
use crate::routing::{LoadBalancing, UnoLbConfig};
use crate::ScenarioError;

/// `[routing] lb`: per-flow ECMP, per-packet spraying, or UnoLB subflows.
pub const LB_KINDS: &[&str] = &["ecmp", "spray", "unolb"];

pub fn routing(cx: &Ctx, r: &RoutingSpec) -> Result<LoadBalancing, ScenarioError> {
    match cx.choice("lb", r.lb.as_deref(), Some("ecmp"), LB_KINDS)? {
        "unolb" => Ok(LoadBalancing::UnoLb(UnoLbConfig {
            subflows: cx.count("subflows", r.subflows, Some(10), 1, 255)? as u8,
            entropies: cx.count("entropies", r.entropies, Some(250), 1, 1 << 30)? as u32,
        })),
        kind => {
            cx.reject(kind, &[("subflows", r.subflows.is_some()), ("entropies", r.entropies.is_some())])?;
            Ok(if kind == "spray" { LoadBalancing::Spray } else { LoadBalancing::Ecmp })
        }
    }
}
