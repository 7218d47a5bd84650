//! `[switch.buffer]`: a switch-wide shared buffer ([`crate::net::buffer`]).

use super::fields::Ctx;
use super::spec::BufferSpec;
use crate::net::buffer::{BufferConfig, BufferSize};
use crate::net::queue::QueueConfig;
use crate::units::Size;
use crate::ScenarioError;

pub const BUFFER_KINDS: &[&str] = &["dynamic_threshold"];

/// The largest alpha_DT accepted (the papers use 1/16 to 16).
const MAX_ALPHA: f64 = 1e6;

/// `packet`: the bytes of a full-size packet on the wire (a buffer must hold one).
pub fn buffer(cx: &Ctx, b: Option<&BufferSpec>, switch_queue: &QueueConfig, packet: u64) -> Result<Option<BufferConfig>, ScenarioError> {
    let Some(b) = b else { return Ok(None) };
    cx.choice("kind", b.kind.as_deref(), None, BUFFER_KINDS)?;
    let alpha = cx.fraction("alpha", b.alpha, Some(1.0), 0.0, MAX_ALPHA)?;
    let size = match (cx.opt_size("size", &b.size)?, cx.opt_size("per_port", &b.per_port)?) {
        (Some(_), Some(_)) => return Err(cx.err("per_port", "give either size or per_port, not both")),
        (Some(s), None) => BufferSize::Total(positive(cx, "size", s, packet)?),
        (None, Some(s)) => BufferSize::PerPort(positive(cx, "per_port", s, packet)?),
        // The spec's B = #ports x the per-port limit.
        (None, None) if switch_queue.limit_pkts != u64::MAX => BufferSize::PerPort(Size::Packets(switch_queue.limit_pkts)),
        (None, None) => BufferSize::PerPort(Size::Bytes(switch_queue.limit_bytes)),
    };
    let update = match cx.opt_time("update", &b.update)? {
        Some(0) => return Err(cx.err("update", "must be a positive time, e.g. \"1ms\"")),
        t => t,
    };
    Ok(Some(BufferConfig { alpha, size, update }))
}

fn positive(cx: &Ctx, key: &str, s: Size, packet: u64) -> Result<Size, ScenarioError> {
    match s {
        Size::Packets(0) | Size::Bytes(0) => Err(cx.err(key, "must be positive")),
        Size::Bytes(b) if b < packet => Err(cx.err(key, format!("{b} B cannot hold one {packet}-byte packet"))),
        _ => Ok(s),
    }
}
