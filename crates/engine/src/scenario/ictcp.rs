//! `[transport.ictcp]`: ICTCP's receiver windows (spec `icon.md` §1.3). The table's
//! presence turns it on; an empty table runs the paper's values.

use super::fields::Ctx;
use super::spec::TransportSpec;
use crate::transport::receiver_policy::ictcp::MAX_RWND_PKTS;
use crate::transport::{IctcpConfig, PolicyConfig};
use crate::ScenarioError;

pub fn ictcp(cx: &Ctx, t: &TransportSpec, mss: u64) -> Result<Option<PolicyConfig>, ScenarioError> {
    let Some(spec) = &t.ictcp else { return Ok(None) };
    let cx = cx.at("ictcp");
    let d = IctcpConfig::default();
    let alpha = cx.fraction("alpha", spec.alpha, Some(d.alpha), 0.0, 1.0)?;
    let beta = spec.beta.unwrap_or(d.beta);
    if !(0.0..1.0).contains(&beta) {
        return Err(cx.err("beta", format!("must be in [0, 1), got {beta}")));
    }
    let gamma1 = cx.fraction("gamma1", spec.gamma1, Some(d.gamma1), 0.0, 1.0)?;
    let gamma2 = cx.fraction("gamma2", spec.gamma2, Some(d.gamma2), 0.0, 1.0)?;
    if gamma2 <= gamma1 {
        return Err(cx.err("gamma2", format!("must be above gamma1 ({gamma1}), got {gamma2}")));
    }
    let min_rwnd_pkts = packets(&cx, "min_rwnd", &spec.min_rwnd, "2pkt", 1, mss)?;
    let init_rwnd_pkts = packets(&cx, "init_rwnd", &spec.init_rwnd, "10pkt", min_rwnd_pkts, mss)?;
    Ok(Some(PolicyConfig::Ictcp(IctcpConfig { alpha, beta, gamma1, gamma2, init_rwnd_pkts, min_rwnd_pkts })))
}

/// A window in whole MSS, from `min` to the most an ACK carries ("10pkt", or bytes that
/// are a multiple of the MSS).
fn packets(cx: &Ctx, key: &str, v: &Option<String>, default: &str, min: u64, mss: u64) -> Result<u64, ScenarioError> {
    let bytes = cx.size(key, v, default)?.bytes(mss);
    let pkts = bytes / mss;
    if bytes % mss != 0 || !(min..=MAX_RWND_PKTS).contains(&pkts) {
        let floor = if key == "init_rwnd" { " (and at least min_rwnd)" } else { "" };
        return Err(cx.err(key, format!("must be a whole number of packets from {min} to {MAX_RWND_PKTS}{floor} (MSS = {mss} B), got {bytes} B")));
    }
    Ok(pkts)
}
