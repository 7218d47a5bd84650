//! A request/response incast on persistent connections (the IMC '24 study's application).
//!
//! The receiver keeps one connection to each sender for the whole run, so congestion
//! state (cwnd, ssthresh, DCTCP's alpha, the RTT estimate) carries from burst to burst:
//! there is no slow-start restart after idle. Each burst, the receiver sends every sender
//! a small request after its own jitter; a sender that gets one waits another jitter and
//! writes its response in one call. A burst ends when the receiver has every byte of every
//! response; the next starts `gap` later.

use crate::ids::HostId;
use crate::units::Time;

#[derive(Clone, Debug, PartialEq)]
pub struct RpcIncastSpec {
    pub receiver: HostId,
    pub senders: Vec<HostId>,
    pub response_bytes: u64,
    /// Payload bytes of a request (a data segment on the reverse path).
    pub request_bytes: u64,
    /// When the first burst starts.
    pub start: Time,
    /// From a burst's end (last byte received) to the next burst's start.
    pub gap: Time,
    pub count: u32,
    /// Each request leaves U[0, request_jitter) after the burst start.
    pub request_jitter: Time,
    /// Each response is written U[0, response_jitter) after its request arrives.
    pub response_jitter: Time,
    /// The receiver-driven scheduler: at most `tokens` responses may send at a time, each
    /// with `token_window` bytes of receive window; the rest get a zero window until a
    /// token is released. 0: no scheduler.
    pub tokens: u32,
    pub token_window: u64,
    /// What a connection keeps of a burst for the next one (IMC '24 section 5.1).
    pub remember: Remember,
    /// A receive-window clamp set at every burst's start (the artifact's `rwndStrategy`).
    pub rwnd_strategy: RwndStrategy,
    /// The clamp's floor in bytes (the artifact's `SafelySetRwnd` refuses below 2 KB).
    pub rwnd_floor: u64,
    /// The fewest connections that answer a burst: each burst n ~ U[degree_min, N] of
    /// them answer, a uniformly random subset (N: every burst has all of them).
    pub degree_min: u32,
}

/// What a connection keeps of a burst for the next one, set when its sender has the
/// last ACK of its response.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Remember {
    /// Everything as it ends (the artifact: cwnd carries over, stragglers' growth too).
    Off,
    /// cwnd becomes the time-weighted mean of the connection's cwnd over the response
    /// (from its write to its last ACK), never below the floor: the tail's growth, and a
    /// timeout's collapse, are averaged away.
    MeanCwnd,
}

pub const REMEMBER_RULES: &[&str] = &["off", "mean_cwnd"];

/// How the receiver clamps every connection's window at a burst's start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RwndStrategy {
    /// No clamp beyond `transport.rwnd`.
    None,
    /// `max(floor, BDP / N)` with N the connections that answer this burst (the
    /// artifact's `bdp+connections`, which knows N).
    BdpConnections,
    /// `max(floor, BDP / p99)` with p99 the 99th percentile (nearest rank) of the flow
    /// counts of the previous bursts (IMC '24 section 3.3: the counts are stable, so
    /// history predicts them); the first burst has no history and runs unclamped.
    Predicted,
}

pub const RWND_STRATEGIES: &[&str] = &["none", "bdp+connections", "predicted"];

impl RwndStrategy {
    /// The clamp for this burst: `bdp` bytes over the flow count, at least `floor`;
    /// `u64::MAX` (none) without a count.
    pub fn clamp(self, bdp: u64, floor: u64, degree: u32, history: &[u32]) -> u64 {
        let n = match self {
            RwndStrategy::None => return u64::MAX,
            RwndStrategy::BdpConnections => degree,
            RwndStrategy::Predicted => match p99(history) {
                Some(n) => n,
                None => return u64::MAX,
            },
        };
        (bdp / n.max(1) as u64).max(floor)
    }
}

/// The 99th percentile by nearest rank: the ceil(0.99 n)-th smallest of `counts`.
pub fn p99(counts: &[u32]) -> Option<u32> {
    if counts.is_empty() {
        return None;
    }
    let mut v = counts.to_vec();
    v.sort_unstable();
    let rank = (99 * v.len()).div_ceil(100);
    Some(v[rank - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p99_is_the_nearest_rank() {
        assert_eq!(p99(&[]), None);
        assert_eq!(p99(&[7]), Some(7));
        // 100 counts 1..=100: rank ceil(99) = 99 -> 99; 101 counts: rank ceil(99.99) = 100.
        let c: Vec<u32> = (1..=100).collect();
        assert_eq!(p99(&c), Some(99));
        let c: Vec<u32> = (1..=101).rev().collect();
        assert_eq!(p99(&c), Some(100));
    }

    #[test]
    fn bdp_over_connections_with_the_artifacts_floor() {
        // BDP 37,500 B (30 us x 10 Gb/s). N = 10: 3750 B; N = 100: 375 B -> floor 2048 B.
        let s = RwndStrategy::BdpConnections;
        assert_eq!(s.clamp(37_500, 2048, 10, &[]), 3750);
        assert_eq!(s.clamp(37_500, 2048, 100, &[]), 2048);
        // No floor (sub-packet pacing): N = 10,000 -> 3 B (37,500 / 10,000, rounded down).
        assert_eq!(s.clamp(37_500, 1, 10_000, &[]), 3);
        // Predicted: no history -> no clamp; history [8, 12, 10] -> p99 = 12 -> 3125 B.
        let p = RwndStrategy::Predicted;
        assert_eq!(p.clamp(37_500, 2048, 10, &[]), u64::MAX);
        assert_eq!(p.clamp(37_500, 2048, 10, &[8, 12, 10]), 3125);
        assert_eq!(RwndStrategy::None.clamp(37_500, 2048, 10, &[10]), u64::MAX);
    }
}
