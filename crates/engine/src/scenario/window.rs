//! The window senders' part of `[transport]` (Uno's evaluation): `cc` per flow class,
//! `pacing`, `timestamp`, `rto`, `rto_margin(_inter)`, `base_rtt(_inter)`, `[transport.uno]`,
//! `[transport.gemini]`, `[transport.mprdma]`, `[transport.bbr]`.

use super::fields::Ctx;
use super::spec::{CcSpec, TransportSpec};
use crate::net::queue::QueueConfig;
use crate::transport::cc::{BbrConfig, GeminiConfig, MprdmaConfig, UnoConfig};
use crate::transport::{CcKind, RtoMode, TransportConfig};
use crate::units::{serialization_ps, Time, PS_PER_MS};
use crate::ScenarioError;

pub const CC_KINDS: &[&str] = &["newreno", "dctcp", "hotnets_dctcp", "uno", "gemini", "mprdma", "bbr"];
pub const RTO_KINDS: &[&str] = &["adaptive", "per_packet"];
pub const TIMESTAMP_KINDS: &[&str] = &["sender", "first_switch"];
pub const MPRDMA_VARIANTS: &[&str] = &["a", "b"];

fn kind(cx: &Ctx, key: &str, v: Option<&str>, default: &str) -> Result<CcKind, ScenarioError> {
    Ok(match cx.choice(key, v, Some(default), CC_KINDS)? {
        "newreno" => CcKind::NewReno,
        "hotnets_dctcp" => CcKind::HotnetsDctcp,
        "uno" => CcKind::Uno,
        "gemini" => CcKind::Gemini,
        "mprdma" => CcKind::Mprdma,
        "bbr" => CcKind::Bbr,
        _ => CcKind::Dctcp,
    })
}

/// `cc`: the algorithm of intra- and of inter-datacenter flows.
pub fn cc_kinds(cx: &Ctx, cc: &Option<CcSpec>) -> Result<(CcKind, CcKind), ScenarioError> {
    match cc {
        None => Ok((CcKind::Dctcp, CcKind::Dctcp)),
        Some(CcSpec::One(s)) => {
            let k = kind(cx, "cc", Some(s), "dctcp")?;
            Ok((k.clone(), k))
        }
        Some(CcSpec::ByClass(c)) => {
            let cc = cx.at("cc");
            let intra = kind(&cc, "intra", c.intra.as_deref(), "dctcp")?;
            let inter = kind(&cc, "inter", c.inter.as_deref(), c.intra.as_deref().unwrap_or("dctcp"))?;
            Ok((intra, inter))
        }
    }
}

/// Whether any flow class runs `k`.
fn uses(kinds: &(CcKind, CcKind), k: CcKind) -> bool {
    kinds.0 == k || kinds.1 == k
}

/// Fills the window-sender fields of `out` (margins are resolved later, with the queues).
pub fn window_fields(cx: &Ctx, t: &TransportSpec, kinds: &(CcKind, CcKind), out: &mut TransportConfig) -> Result<(), ScenarioError> {
    let window = kinds.0.is_window_sender() || kinds.1.is_window_sender();
    out.pacing = t.pacing.unwrap_or(window);
    out.stamp_at_first_switch = cx.choice("timestamp", t.timestamp.as_deref(), Some("sender"), TIMESTAMP_KINDS)? == "first_switch";
    let per_packet = cx.choice("rto", t.rto.as_deref(), Some(if window { "per_packet" } else { "adaptive" }), RTO_KINDS)? == "per_packet";
    for (key, given) in [("rto_margin", t.rto_margin.is_some()), ("rto_margin_inter", t.rto_margin_inter.is_some())] {
        if given && !per_packet {
            return Err(cx.err(key, "applies only with rto = \"per_packet\""));
        }
    }
    out.rto = if per_packet { RtoMode::PerPacket { margin: 0, margin_inter: 0 } } else { RtoMode::Adaptive };
    out.base_rtt = positive(cx, "base_rtt", &t.base_rtt)?;
    out.base_rtt_inter = positive(cx, "base_rtt_inter", &t.base_rtt_inter)?;
    let only = |key: &str, k: CcKind, given: bool| {
        if given && !uses(kinds, k.clone()) {
            return Err(cx.err(key, format!("applies only when a flow class runs cc = \"{}\"", key)));
        }
        Ok(())
    };
    only("uno", CcKind::Uno, t.uno.is_some())?;
    only("gemini", CcKind::Gemini, t.gemini.is_some())?;
    only("mprdma", CcKind::Mprdma, t.mprdma.is_some())?;
    only("bbr", CcKind::Bbr, t.bbr.is_some())?;
    if let Some(u) = &t.uno {
        out.uno = UnoConfig { g: cx.at("uno").fraction("g", u.g, Some(0.5), 0.0, 1.0)? };
    }
    if let Some(g) = &t.gemini {
        let gc = cx.at("gemini");
        out.gemini = GeminiConfig { t: gc.time("t", &g.t, "5ms")?, h: gc.fraction("h", g.h, Some(0.00024), 0.0, 1.0)? };
    }
    if let Some(m) = &t.mprdma {
        let variant = cx.at("mprdma").choice("variant", m.variant.as_deref(), Some("a"), MPRDMA_VARIANTS)?;
        out.mprdma = MprdmaConfig { decrease: if variant == "a" { 0.5 } else { 0.15 } };
    }
    if let Some(b) = &t.bbr {
        let bc = cx.at("bbr");
        out.bbr = BbrConfig { initial_bw: bc.rate("initial_bw", &b.initial_bw, "10Gbps")?, pacing_floor: bc.rate("pacing_floor", &b.pacing_floor, "3Gbps")? };
    }
    Ok(())
}

fn positive(cx: &Ctx, key: &str, v: &Option<String>) -> Result<Option<u64>, ScenarioError> {
    let t = cx.opt_time(key, v)?;
    if t == Some(0) {
        return Err(cx.err(key, "must be positive"));
    }
    Ok(t)
}

pub fn default_gemini() -> GeminiConfig {
    GeminiConfig { t: 5 * PS_PER_MS, h: 0.00024 }
}

pub fn default_mprdma() -> MprdmaConfig {
    MprdmaConfig { decrease: 0.5 }
}

/// Ql_intra and Ql_inter: the switch queue limit (always finite) and the inter ports' one,
/// drained at the host link rate (Uno's unit of timeouts and `ec_wait`).
pub fn queue_latencies(out: &TransportConfig, switch_queue: &QueueConfig, inter_queue: &QueueConfig, host_rate_bps: u64) -> (Time, Time) {
    let packet = out.mtu + out.framing;
    let ql = |q: &QueueConfig| serialization_ps(q.limit_bytes.min(q.limit_pkts.saturating_mul(packet)), host_rate_bps);
    (ql(switch_queue), ql(inter_queue))
}

/// The per-packet RTO margins: the scenario's, else Uno's 5 Ql (intra) and 3 more Ql
/// (inter), Ql = the switch queue limit (always finite) drained at the host link rate.
/// Ql_intra comes from `[switch.queue]`, Ql_inter from the inter ports' queues (Uno Fig 12
/// sizes them apart).
pub fn resolve_rto(cx: &Ctx, t: &TransportSpec, out: &mut TransportConfig, (ql_intra, ql_inter): (Time, Time)) -> Result<(), ScenarioError> {
    let RtoMode::PerPacket { .. } = out.rto else { return Ok(()) };
    let margin = |key: &str, v: &Option<String>, times: u64, ql: u64| -> Result<u64, ScenarioError> { Ok(cx.opt_time(key, v)?.unwrap_or(times * ql)) };
    out.rto = RtoMode::PerPacket { margin: margin("rto_margin", &t.rto_margin, 5, ql_intra)?, margin_inter: margin("rto_margin_inter", &t.rto_margin_inter, 3, ql_inter)? };
    Ok(())
}
