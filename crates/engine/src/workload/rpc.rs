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
}
