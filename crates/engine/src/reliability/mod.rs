//! Reliability pieces shared by every transport.
pub mod rtt;

pub use rtt::RttEstimator;
