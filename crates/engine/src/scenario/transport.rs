//! `[transport]` and `[transport.dctcp]`.

use super::fields::Ctx;
use super::spec::TransportSpec;
use super::window;
use crate::transport::cc::{DctcpConfig, NackDecrease};
use crate::transport::recovery::RECOVERY_KINDS;
use crate::transport::{CcKind, EcnEcho, PathScaled, ReceiverConfig, Recovery, RtoMode, SackReport, SenderConfig, TransportConfig};
use crate::units::Size;
use crate::ScenarioError;

pub const ECHO_KINDS: &[&str] = &["dctcp", "classic"];
pub const NACK_DECREASES: &[&str] = &["mss", "as_mark", "halve"];

/// A quantity given in multiples of the flow's own path (`"1bdp"`, `"3rtt"`): the
/// multiple, or `None` when the value is an ordinary quantity.
fn path_multiple(cx: &Ctx, key: &str, v: &Option<String>, suffix: &str) -> Result<Option<f64>, ScenarioError> {
    let Some(s) = v.as_deref().map(str::trim) else { return Ok(None) };
    let Some(num) = s.strip_suffix(suffix) else { return Ok(None) };
    match num.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 1e6 => Ok(Some(x)),
        _ => Err(cx.err(key, format!("`{s}`: the multiple of the path's {suffix} must be a positive number up to 1e6"))),
    }
}

/// A field that may also be a multiple of the path's `suffix`: the plain string to parse
/// (the default when it is a multiple) and the multiple.
fn split_scaled(cx: &Ctx, key: &str, v: &Option<String>, suffix: &str) -> Result<(Option<String>, Option<f64>), ScenarioError> {
    let m = path_multiple(cx, key, v, suffix)?;
    Ok((if m.is_some() { None } else { v.clone() }, m))
}

pub fn transport(cx: &Ctx, t: &TransportSpec) -> Result<TransportConfig, ScenarioError> {
    let kinds = window::cc_kinds(cx, &t.cc)?;
    let cc = kinds.0.clone();
    let window_sender = kinds.0.is_window_sender() || kinds.1.is_window_sender();
    let either = |k: CcKind| kinds.0 == k || kinds.1 == k;
    let dctcp_like = either(CcKind::Dctcp) || either(CcKind::HotnetsDctcp);
    if !dctcp_like && t.dctcp.is_some() {
        return Err(cx.err("dctcp", "applies only when cc = \"dctcp\" or \"hotnets_dctcp\""));
    }
    let nack_decrease = match cx.choice("nack_decrease", t.nack_decrease.as_deref(), Some("mss"), NACK_DECREASES)? {
        "as_mark" => NackDecrease::AsMark,
        "halve" => NackDecrease::Halve,
        _ => NackDecrease::Mss,
    };
    if !either(CcKind::HotnetsDctcp) && t.nack_decrease.is_some() {
        return Err(cx.err("nack_decrease", "applies only when cc = \"hotnets_dctcp\""));
    }
    let mtu = cx.bytes("mtu", &t.mtu, "1500B")?;
    let header = cx.bytes("header", &t.header, "40B")?;
    let ack_size = cx.opt_bytes("ack_size", &t.ack_size)?;
    // A zero header (payload = the whole packet, htsim's convention) needs an explicit ACK size.
    if (header == 0 && ack_size.is_none()) || header >= mtu {
        return Err(cx.err("header", format!("must be positive and below mtu ({mtu} B) (0 B only with ack_size set), got {header} B")));
    }
    if mtu > 65_535 {
        return Err(cx.err("mtu", format!("must be at most 65535B, got {mtu} B")));
    }
    let framing = cx.bytes("framing", &t.framing, "0B")?;
    if framing > 1 << 20 {
        return Err(cx.err("framing", "must be at most 1MiB"));
    }
    let ack_bytes = ack_size.unwrap_or(header + framing);
    if ack_bytes == 0 || ack_bytes > 65_535 {
        return Err(cx.err("ack_size", format!("must be between 1 and 65535 bytes, got {ack_bytes} B")));
    }
    let mss = mtu - header;
    let in_bytes = |s: Size| s.bytes(mss);
    let (init_cwnd_fixed, init_cwnd_bdp) = split_scaled(cx, "init_cwnd", &t.init_cwnd, "bdp")?;
    let (min_rto_fixed, min_rto_rtts) = split_scaled(cx, "min_rto", &t.min_rto, "rtt")?;
    let (initial_rto_fixed, initial_rto_rtts) = split_scaled(cx, "initial_rto", &t.initial_rto, "rtt")?;
    let init_cwnd = in_bytes(cx.size("init_cwnd", &init_cwnd_fixed, "10pkt")?);
    let min_cwnd = in_bytes(cx.size("min_cwnd", &t.min_cwnd, "2pkt")?);
    if init_cwnd == 0 {
        return Err(cx.err("init_cwnd", "must be positive"));
    }
    if min_cwnd == 0 {
        return Err(cx.err("min_cwnd", "must be positive"));
    }
    let min_rto = cx.time("min_rto", &min_rto_fixed, "200ms")?;
    let initial_rto = cx.time("initial_rto", &initial_rto_fixed, "1s")?;
    let max_rto = cx.time("max_rto", &t.max_rto, "60s")?;
    if min_rto == 0 {
        return Err(cx.err("min_rto", "must be positive"));
    }
    if max_rto < min_rto {
        return Err(cx.err("max_rto", "must not be below min_rto"));
    }
    let sub_packet_pacing = t.sub_packet_pacing.unwrap_or(false);
    if sub_packet_pacing && !(kinds.0 == kinds.1 && matches!(kinds.0, CcKind::Dctcp | CcKind::NewReno)) {
        return Err(cx.err("sub_packet_pacing", "applies only when cc = \"dctcp\" or \"newreno\""));
    }
    let rwnd = cx.opt_size("rwnd", &t.rwnd)?.map(in_bytes).unwrap_or(u64::MAX);
    if rwnd == 0 {
        return Err(cx.err("rwnd", "must be positive"));
    }
    let dctcp = match &t.dctcp {
        None => DctcpConfig::default(),
        Some(d) => {
            let dc = cx.at("dctcp");
            DctcpConfig { g: dc.fraction("g", d.g, Some(1.0 / 16.0), 0.0, 1.0)?, alpha_init: alpha_init(&dc, d.alpha_init)?, ..Default::default() }
        }
    };
    let ecn_cc = |k: &CcKind| *k != CcKind::NewReno;
    let ecn = t.ecn.unwrap_or(ecn_cc(&kinds.0) || ecn_cc(&kinds.1));
    if dctcp_like && !ecn {
        return Err(cx.err("ecn", "DCTCP needs ECN; remove `ecn = false` or use cc = \"newreno\""));
    }
    // Window senders and DCTCP echo each packet's CE bit on its own ACK.
    let default_echo = if dctcp_like || window_sender { "dctcp" } else { "classic" };
    let echo = match cx.choice("ecn_echo", t.ecn_echo.as_deref(), Some(default_echo), ECHO_KINDS)? {
        "dctcp" => EcnEcho::Dctcp,
        _ => EcnEcho::Classic,
    };
    let recovery = recovery(cx, t, &kinds)?;
    let sack_report = match recovery {
        Recovery::Basic => SackReport::Triggering,
        Recovery::Linux => SackReport::Rfc2018 { dsack: true },
        Recovery::Ns3 => SackReport::Ns3List,
    };
    // The SACK option beside a timestamp option, over the header's 12 B of timestamp
    // (10 B padded to 4): ns-3 packs kind and length right after its 10-B timestamp, into
    // the 2 B that were padding (10 + 2 + 8n is aligned), so only the blocks add bytes;
    // Linux aligns both options with NOPs (4 + 8n more). With `header = 0` (htsim's
    // packets) there are no options to carry.
    let sack_option = match recovery {
        _ if header == 0 => (0, 0),
        Recovery::Basic => (0, 0),
        Recovery::Ns3 => (0, 8),
        Recovery::Linux => (4, 8),
    };
    let mut out = TransportConfig {
        cc,
        cc_inter: kinds.1.clone(),
        dctcp,
        nack_decrease,
        path_scaled: PathScaled { init_cwnd_bdp, min_rto_rtts, initial_rto_rtts },
        uno: Default::default(),
        gemini: window::default_gemini(),
        mprdma: window::default_mprdma(),
        bbr: Default::default(),
        pacing: false,
        icon: super::icon::icon(cx, t)?,
        receiver_policy: super::ictcp::ictcp(cx, t, mtu - header)?,
        erasure: None,
        stamp_at_first_switch: false,
        rto: RtoMode::Adaptive,
        base_rtt: None,
        base_rtt_inter: None,
        mtu,
        header,
        framing,
        ack_bytes,
        sack_option,
        ecn,
        whole_segments: t.whole_segments.unwrap_or(false),
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
            fast_retransmit: t.fast_retransmit.unwrap_or(true),
            recovery,
            sub_packet_pacing,
        },
        receiver: ReceiverConfig {
            echo,
            delayed_ack: cx.count("delayed_ack", t.delayed_ack, Some(1), 1, 64)? as u32,
            sack: sack_report,
            ce_only_above_last: recovery == Recovery::Ns3,
        },
        delayed_ack_timeout: cx.time("delayed_ack_timeout", &t.delayed_ack_timeout, "1ms")?,
    };
    window::window_fields(cx, t, &kinds, &mut out)?;
    out.erasure = super::erasure::erasure(cx, t, &out)?;
    Ok(out)
}

/// Linux-like recovery for the kernel's algorithms, fanin's first model for the others
/// (the htsim-modelled senders, which recover by NACKs and per-packet timeouts).
fn recovery(cx: &Ctx, t: &TransportSpec, kinds: &(CcKind, CcKind)) -> Result<Recovery, ScenarioError> {
    let kernel = |k: &CcKind| matches!(k, CcKind::NewReno | CcKind::Dctcp);
    let both_kernel = kernel(&kinds.0) && kernel(&kinds.1);
    let default = if both_kernel { "linux" } else { "basic" };
    let r = match cx.choice("recovery", t.recovery.as_deref(), Some(default), RECOVERY_KINDS)? {
        "linux" => Recovery::Linux,
        "ns3" => Recovery::Ns3,
        _ => Recovery::Basic,
    };
    if r != Recovery::Basic && !both_kernel {
        return Err(cx.err("recovery", format!("`{}` applies only when cc is newreno or dctcp (allowed here: basic)", r.name())));
    }
    Ok(r)
}

fn alpha_init(cx: &Ctx, v: Option<f64>) -> Result<f64, ScenarioError> {
    let a = v.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&a) {
        return Err(cx.err("alpha_init", format!("must be in [0, 1], got {a}")));
    }
    Ok(a)
}
