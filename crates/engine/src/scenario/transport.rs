//! `[transport]` and `[transport.dctcp]`.

use super::fields::Ctx;
use super::spec::TransportSpec;
use crate::transport::cc::DctcpConfig;
use super::window;
use crate::transport::{CcKind, EcnEcho, ReceiverConfig, RtoMode, SenderConfig, TransportConfig};
use crate::units::Size;
use crate::ScenarioError;

pub const ECHO_KINDS: &[&str] = &["dctcp", "classic"];

pub fn transport(cx: &Ctx, t: &TransportSpec) -> Result<TransportConfig, ScenarioError> {
    let kinds = window::cc_kinds(cx, &t.cc)?;
    let cc = kinds.0.clone();
    let window_sender = kinds.0.is_window_sender() || kinds.1.is_window_sender();
    if cc != CcKind::Dctcp && kinds.1 != CcKind::Dctcp && t.dctcp.is_some() {
        return Err(cx.err("dctcp", "applies only when cc = \"dctcp\""));
    }
    let mtu = cx.bytes("mtu", &t.mtu, "1500B")?;
    let header = cx.bytes("header", &t.header, "40B")?;
    if header == 0 || header >= mtu {
        return Err(cx.err("header", format!("must be positive and below mtu ({mtu} B), got {header} B")));
    }
    if mtu > 65_535 {
        return Err(cx.err("mtu", format!("must be at most 65535B, got {mtu} B")));
    }
    let framing = cx.bytes("framing", &t.framing, "0B")?;
    if framing > 1 << 20 {
        return Err(cx.err("framing", "must be at most 1MiB"));
    }
    let mss = mtu - header;
    let in_bytes = |s: Size| s.bytes(mss);
    let init_cwnd = in_bytes(cx.size("init_cwnd", &t.init_cwnd, "10pkt")?);
    let min_cwnd = in_bytes(cx.size("min_cwnd", &t.min_cwnd, "2pkt")?);
    if init_cwnd == 0 {
        return Err(cx.err("init_cwnd", "must be positive"));
    }
    if min_cwnd == 0 {
        return Err(cx.err("min_cwnd", "must be positive"));
    }
    let min_rto = cx.time("min_rto", &t.min_rto, "200ms")?;
    let initial_rto = cx.time("initial_rto", &t.initial_rto, "1s")?;
    let max_rto = cx.time("max_rto", &t.max_rto, "60s")?;
    if min_rto == 0 {
        return Err(cx.err("min_rto", "must be positive"));
    }
    if max_rto < min_rto {
        return Err(cx.err("max_rto", "must not be below min_rto"));
    }
    let rwnd = cx.opt_size("rwnd", &t.rwnd)?.map(in_bytes).unwrap_or(u64::MAX);
    if rwnd == 0 {
        return Err(cx.err("rwnd", "must be positive"));
    }
    let dctcp = match &t.dctcp {
        None => DctcpConfig::default(),
        Some(d) => {
            let dc = cx.at("dctcp");
            DctcpConfig { g: dc.fraction("g", d.g, Some(1.0 / 16.0), 0.0, 1.0)?, alpha_init: alpha_init(&dc, d.alpha_init)? }
        }
    };
    let ecn_cc = |k: &CcKind| *k != CcKind::NewReno;
    let ecn = t.ecn.unwrap_or(ecn_cc(&kinds.0) || ecn_cc(&kinds.1));
    if (cc == CcKind::Dctcp || kinds.1 == CcKind::Dctcp) && !ecn {
        return Err(cx.err("ecn", "DCTCP needs ECN; remove `ecn = false` or use cc = \"newreno\""));
    }
    // Window senders and DCTCP echo each packet's CE bit on its own ACK.
    let default_echo = if cc == CcKind::Dctcp || window_sender { "dctcp" } else { "classic" };
    let echo = match cx.choice("ecn_echo", t.ecn_echo.as_deref(), Some(default_echo), ECHO_KINDS)? {
        "dctcp" => EcnEcho::Dctcp,
        _ => EcnEcho::Classic,
    };
    let mut out = TransportConfig {
        cc,
        cc_inter: kinds.1.clone(),
        dctcp,
        uno: Default::default(),
        gemini: window::default_gemini(),
        mprdma: window::default_mprdma(),
        pacing: false,
        rto: RtoMode::Adaptive,
        base_rtt: None,
        base_rtt_inter: None,
        mtu,
        header,
        framing,
        ecn,
        sender: SenderConfig {
            mss,
            init_cwnd,
            min_cwnd,
            sack: t.sack.unwrap_or(true),
            dupthresh: cx.count("dupack_threshold", t.dupack_threshold, Some(3), 1, 1000)?,
            initial_rto,
            min_rto,
            max_rto,
            rto_granularity: cx.time("rto_granularity", &t.rto_granularity, "0s")?,
            rwnd,
        },
        receiver: ReceiverConfig { echo, delayed_ack: cx.count("delayed_ack", t.delayed_ack, Some(1), 1, 64)? as u32 },
        delayed_ack_timeout: cx.time("delayed_ack_timeout", &t.delayed_ack_timeout, "1ms")?,
    };
    window::window_fields(cx, t, &kinds, &mut out)?;
    Ok(out)
}

fn alpha_init(cx: &Ctx, v: Option<f64>) -> Result<f64, ScenarioError> {
    let a = v.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&a) {
        return Err(cx.err("alpha_init", format!("must be in [0, 1], got {a}")));
    }
    Ok(a)
}
