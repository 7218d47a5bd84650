//! `trim`, `trim_header` and `control` in a queue section: the control queue for
//! header-only packets and trimming into it.

use super::fields::Ctx;
use super::spec::QueueSpec;
use crate::net::queue::{ControlConfig, Service};
use crate::units::Size;
use crate::ScenarioError;

pub const SERVICES: &[&str] = &["strict", "wrr"];
const DEFAULT_TRIM_HEADER: &str = "64B";
const DEFAULT_WRR_WEIGHT: i64 = 20;

/// The control queue a section asks for, if any. `data_limit` is the data queue's limit
/// (`None`: unlimited); the control queue holds twice as much unless told otherwise.
pub fn control(cx: &Ctx, q: &QueueSpec, data_limit: Option<Size>, packet: u64) -> Result<Option<ControlConfig>, ScenarioError> {
    let trim = q.trim.unwrap_or(false);
    if !trim && q.trim_header.is_some() {
        return Err(cx.err("trim_header", "needs trim = true"));
    }
    if !trim && q.control.is_none() {
        return Ok(None);
    }
    let trim_header_bytes = if trim {
        let h = cx.bytes("trim_header", &q.trim_header, DEFAULT_TRIM_HEADER)?;
        if h == 0 || h >= packet {
            return Err(cx.err("trim_header", format!("must be between 1 B and a full packet ({packet} B), got {h} B")));
        }
        Some(h as u32)
    } else {
        None
    };
    let c = q.control.clone().unwrap_or_default();
    let ccx = cx.at("control");
    let limit = match &c.limit {
        Some(l) if l == "unlimited" => Size::Bytes(u64::MAX),
        Some(_) => match ccx.size("limit", &c.limit, "0B")? {
            Size::Bytes(0) | Size::Packets(0) => return Err(ccx.err("limit", "must be positive")),
            s => s,
        },
        None => match data_limit {
            Some(Size::Bytes(b)) => Size::Bytes(b.saturating_mul(2)),
            Some(Size::Packets(p)) => Size::Packets(p.saturating_mul(2)),
            None => Size::Bytes(u64::MAX),
        },
    };
    let service = match ccx.choice("service", c.service.as_deref(), Some("strict"), SERVICES)? {
        "strict" => {
            ccx.reject("strict", &[("weight", c.weight.is_some())])?;
            Service::Strict
        }
        _ => Service::Wrr { high: ccx.count("weight", c.weight, Some(DEFAULT_WRR_WEIGHT), 1, 1_000_000)? as u32 },
    };
    Ok(Some(ControlConfig { limit, service, trim_header_bytes }))
}
