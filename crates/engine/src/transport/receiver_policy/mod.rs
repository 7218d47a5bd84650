//! Receiver-side policies: the receiver of a connection decides the window its ACKs
//! advertise, from what it sees arriving (ICTCP; later receiver-driven schemes beside it).
//!
//! A policy is told when a connection opens and closes, and about every data packet that
//! reaches the receiver; the world asks it for the window each ACK carries. The sender
//! takes that window as a right edge (`ack + window`) that never moves back
//! ([`crate::transport::Sender::advertised`]); its congestion window still applies.
//!
//! On the wire the window rides in the ACK's `payload` field (an ACK carries no data), in
//! whole MSS: [`window_field`] and [`field_window`]. Zero means "no window advertised",
//! so runs without a policy send and read exactly what they did before.

pub mod ictcp;

pub use ictcp::{Ictcp, IctcpConfig};

use crate::ids::{FlowId, HostId};
use crate::units::Time;

/// The names of the policies, as a scenario spells their tables (`[transport.<kind>]`).
pub const KINDS: &[&str] = &["ictcp"];

/// What a receiver-side policy does. `conn` is the connection's flow id; `host` its
/// receiving host.
pub trait ReceiverPolicy {
    /// Connection `conn` opens at `host` at `now`; `base_rtt` is its path's base RTT,
    /// the RTT the policy assumes until the connection has a measured one.
    fn open(&mut self, conn: FlowId, host: HostId, base_rtt: Time, now: Time);
    /// A data packet of `payload_bytes` reached the receiver of `conn` at `now`. `rtt` is
    /// the connection's smoothed RTT (`None` before its first sample).
    fn on_data(&mut self, conn: FlowId, payload_bytes: u64, rtt: Option<Time>, now: Time);
    /// The window (bytes) the next ACK of `conn` advertises.
    fn window(&self, conn: FlowId) -> u64;
    /// Connection `conn` is over: it no longer counts at its host.
    fn close(&mut self, conn: FlowId);
}

/// Which policy a scenario runs, with its settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PolicyConfig {
    Ictcp(IctcpConfig),
}

impl PolicyConfig {
    pub fn kind(&self) -> &'static str {
        match self {
            PolicyConfig::Ictcp(_) => "ictcp",
        }
    }
}

/// The policies, dispatched by `match` (no `Box<dyn>` on the per-packet path).
#[derive(Clone, Debug)]
pub enum Policy {
    Ictcp(Ictcp),
}

impl Policy {
    /// One policy for the whole network. `host_capacity_bps`: each host's receive
    /// capacity (its interface C); `mss`: the segment size windows are counted in.
    pub fn new(cfg: &PolicyConfig, host_capacity_bps: &[u64], mss: u64) -> Self {
        match cfg {
            PolicyConfig::Ictcp(c) => Policy::Ictcp(Ictcp::new(*c, host_capacity_bps, mss)),
        }
    }
}

impl ReceiverPolicy for Policy {
    #[inline]
    fn open(&mut self, conn: FlowId, host: HostId, base_rtt: Time, now: Time) {
        match self {
            Policy::Ictcp(p) => p.open(conn, host, base_rtt, now),
        }
    }

    #[inline]
    fn on_data(&mut self, conn: FlowId, payload_bytes: u64, rtt: Option<Time>, now: Time) {
        match self {
            Policy::Ictcp(p) => p.on_data(conn, payload_bytes, rtt, now),
        }
    }

    #[inline]
    fn window(&self, conn: FlowId) -> u64 {
        match self {
            Policy::Ictcp(p) => p.window(conn),
        }
    }

    #[inline]
    fn close(&mut self, conn: FlowId) {
        match self {
            Policy::Ictcp(p) => p.close(conn),
        }
    }
}

/// The ACK field for a window of `bytes`: whole MSS, at least 1 (0 means "none"), at most
/// what 16 bits hold (65,535 MSS, 95 MB at MSS 1460: beyond any window here).
#[inline]
pub fn window_field(bytes: u64, mss: u64) -> u16 {
    (bytes / mss).clamp(1, u16::MAX as u64) as u16
}

/// The window (bytes) an ACK field carries.
#[inline]
pub fn field_window(field: u16, mss: u64) -> u64 {
    field as u64 * mss
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_policy_is_named_in_kinds() {
        let cfg = PolicyConfig::Ictcp(IctcpConfig::default());
        assert!(KINDS.contains(&cfg.kind()));
    }

    #[test]
    fn the_ack_field_carries_whole_segments() {
        assert_eq!(window_field(10 * 1460, 1460), 10);
        assert_eq!(field_window(10, 1460), 14_600);
        // Never 0 (that means no window), never wrapped past 16 bits.
        assert_eq!(window_field(100, 1460), 1);
        assert_eq!(window_field(1 << 40, 1460), u16::MAX);
    }
}
