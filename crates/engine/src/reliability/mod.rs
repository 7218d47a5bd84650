//! Reliability pieces shared by every transport.
pub mod packet_rto;
pub mod rtt;

pub use packet_rto::{PacketRto, SegState};
pub use rtt::RttEstimator;
