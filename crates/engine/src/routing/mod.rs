//! Forwarding: per-node tables of equal-cost next hops toward every host, per-flow ECMP and
//! per-packet spraying.
pub mod fib;
pub mod spray;
pub mod table;

pub use fib::Fib;
pub use spray::{LoadBalancing, Spray};
pub use table::Routes;
