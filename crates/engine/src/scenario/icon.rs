//! `[transport.icon]`: ICON's sender pacing (spec `icon.md` §1.1). The table's presence
//! turns it on; each field names one of the spec's readings.

use super::fields::Ctx;
use super::spec::TransportSpec;
use crate::transport::{IconConfig, IconRate, PaceScope};
use crate::ScenarioError;

pub const VARIANTS: &[&str] = &["icon", "ia_icon"];
pub const RATES: &[&str] = &["eq1", "fair_share"];
pub const SCOPES: &[&str] = &["all", "incast_only"];

pub fn icon(cx: &Ctx, t: &TransportSpec) -> Result<Option<IconConfig>, ScenarioError> {
    let Some(spec) = &t.icon else { return Ok(None) };
    if t.pacing == Some(true) {
        return Err(cx.err("pacing", "cannot be combined with [transport.icon], which paces by its own rule"));
    }
    let cx = cx.at("icon");
    let ignore_degree = cx.choice("variant", spec.variant.as_deref(), Some("icon"), VARIANTS)? == "ia_icon";
    let rate = match cx.choice("rate", spec.rate.as_deref(), Some("eq1"), RATES)? {
        "fair_share" => IconRate::FairShare,
        _ => IconRate::Eq1,
    };
    let scope = match cx.choice("pace_scope", spec.pace_scope.as_deref(), Some("all"), SCOPES)? {
        "incast_only" => PaceScope::IncastOnly,
        _ => PaceScope::All,
    };
    Ok(Some(IconConfig { ignore_degree, rate, scope }))
}
