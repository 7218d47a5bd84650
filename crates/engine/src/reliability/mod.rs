//! Reliability pieces shared by every transport.
pub mod erasure;
pub mod packet_rto;
pub mod rtt;

pub use erasure::{BlockReceiver, BlockShape, ErasureConfig, ErasureScope};
pub use packet_rto::{PacketRto, SegState};
pub use rtt::RttEstimator;
