//! `[[workload]] kind = "rpc_incast"`: the request/response incast on persistent connections.

use super::fields::Ctx;
use super::spec::WorkloadSpec;
use super::parties::incast_parties;
use super::MAX_TIME;
use crate::topology::Topology;
use crate::units::Time;
use crate::workload::{Remember, RpcIncastSpec, RwndStrategy, REMEMBER_RULES, RWND_STRATEGIES};
use crate::ScenarioError;

pub fn rpc_incast(cx: &Ctx, w: &WorkloadSpec, topo: &Topology, seed: u64, index: usize, start: Time) -> Result<RpcIncastSpec, ScenarioError> {
    let (receiver, senders, response_bytes) = incast_parties(cx, w, topo, seed, index, None)?;
    let count = cx.count("count", w.count, Some(1), 1, 1_000_000)? as u32;
    let gap = cx.time("gap", &w.gap, "1s")?;
    let request_jitter = cx.time("request_jitter", &w.request_jitter, "0s")?;
    let response_jitter = cx.time("response_jitter", &w.response_jitter, "0s")?;
    for (key, t) in [("start", start), ("gap", gap), ("request_jitter", request_jitter), ("response_jitter", response_jitter)] {
        if t > MAX_TIME {
            return Err(cx.err(key, "is beyond the longest time a scenario may name"));
        }
    }
    let request_bytes = cx.bytes("request_bytes", &w.request_bytes, "4B")?;
    if request_bytes == 0 || request_bytes > 60_000 {
        return Err(cx.err("request_bytes", "must be in 1 B ... 60 kB (one segment)"));
    }
    let tokens = cx.count("tokens", w.tokens, Some(0), 0, 1 << 20)? as u32;
    if tokens == 0 && w.token_window.is_some() {
        return Err(cx.err("token_window", "applies only with tokens > 0"));
    }
    let token_window = cx.bytes("token_window", &w.token_window, "64KB")?;
    if token_window == 0 {
        return Err(cx.err("token_window", "must be positive"));
    }
    let remember = match cx.choice("remember", w.remember.as_deref(), Some("off"), REMEMBER_RULES)? {
        "mean_cwnd" => Remember::MeanCwnd,
        _ => Remember::Off,
    };
    let rwnd_strategy = match cx.choice("rwnd_strategy", w.rwnd_strategy.as_deref(), Some("none"), RWND_STRATEGIES)? {
        "bdp+connections" => RwndStrategy::BdpConnections,
        "predicted" => RwndStrategy::Predicted,
        _ => RwndStrategy::None,
    };
    if rwnd_strategy == RwndStrategy::None && w.rwnd_floor.is_some() {
        return Err(cx.err("rwnd_floor", "applies only with rwnd_strategy = \"bdp+connections\" or \"predicted\""));
    }
    if rwnd_strategy != RwndStrategy::None && tokens > 0 {
        return Err(cx.err("rwnd_strategy", "applies only with tokens = 0 (the token scheduler sets the windows itself)"));
    }
    let degree = senders.len() as i64;
    let degree_min = cx.count("degree_min", w.degree_min, Some(degree), 1, degree)? as u32;
    let rwnd_floor = cx.bytes("rwnd_floor", &w.rwnd_floor, "2KiB")?;
    if rwnd_floor == 0 {
        return Err(cx.err("rwnd_floor", "must be positive (1B and up)"));
    }
    Ok(RpcIncastSpec {
        receiver,
        senders,
        response_bytes,
        request_bytes,
        start,
        gap,
        count,
        request_jitter,
        response_jitter,
        tokens,
        token_window,
        remember,
        rwnd_strategy,
        rwnd_floor,
        degree_min,
    })
}
