//! `marking = { kind = "dequeue_red", min, max, phantom = { size, slowdown | drain_rate } }`.

use super::fields::Ctx;
use super::spec::MarkingSpec;
use crate::net::queue::{DequeueRedConfig, MarkingConfig, PhantomConfig, PhantomDrain};
use crate::units::Size;
use crate::ScenarioError;

/// Uno's Table 2: the phantom queue drains at 0.9x line rate unless told otherwise.
const DEFAULT_SLOWDOWN_PERCENT: f64 = 10.0;

/// Kmin and Kmax of a RED marker: required, one unit, `max >= min`.
pub fn thresholds(cx: &Ctx, m: &MarkingSpec) -> Result<(Size, Size), ScenarioError> {
    let min = cx.opt_size("min", &m.min)?.ok_or_else(|| cx.err("min", "is required for RED"))?;
    let max = cx.opt_size("max", &m.max)?.ok_or_else(|| cx.err("max", "is required for RED"))?;
    let (lo, hi) = match (min, max) {
        (Size::Bytes(a), Size::Bytes(b)) | (Size::Packets(a), Size::Packets(b)) => (a, b),
        _ => return Err(cx.err("max", "must use the same unit as min (both bytes or both pkt)")),
    };
    if hi < lo {
        return Err(cx.err("max", "must not be below min"));
    }
    Ok((min, max))
}

pub fn dequeue_red(cx: &Ctx, m: &MarkingSpec) -> Result<MarkingConfig, ScenarioError> {
    let kind = "dequeue_red";
    cx.reject(kind, &[("threshold", m.threshold.is_some()), ("p_max", m.p_max.is_some()), ("weight", m.weight.is_some()), ("gentle", m.gentle.is_some()), ("wait", m.wait.is_some())])?;
    let (min, max) = thresholds(cx, m)?;
    let phantom = match &m.phantom {
        None => None,
        Some(p) => {
            if matches!(min, Size::Packets(_)) {
                return Err(cx.err("min", "must be in bytes when marking from a phantom queue (it counts bytes)"));
            }
            let pcx = cx.at("phantom");
            let size_bytes = pcx.opt_bytes("size", &p.size)?.ok_or_else(|| pcx.err("size", "is required (the counter's cap, e.g. \"22400515B\")"))?;
            if size_bytes == 0 {
                return Err(pcx.err("size", "must be positive"));
            }
            let drain = match (p.slowdown, &p.drain_rate) {
                (Some(_), Some(_)) => return Err(pcx.err("drain_rate", "give either slowdown or drain_rate, not both")),
                (_, Some(_)) => PhantomDrain::RateBps(pcx.rate("drain_rate", &p.drain_rate, "1Gbps")?),
                (s, None) => {
                    let s = s.unwrap_or(DEFAULT_SLOWDOWN_PERCENT);
                    if !(0.0..=1000.0).contains(&s) {
                        return Err(pcx.err("slowdown", format!("must be a percentage in [0, 1000], got {s}")));
                    }
                    PhantomDrain::SlowdownPercent(s)
                }
            };
            Some(PhantomConfig { size_bytes, drain })
        }
    };
    Ok(MarkingConfig::Dequeue(DequeueRedConfig { min, max, phantom }))
}
