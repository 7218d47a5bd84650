//! Forwarding: per-node tables of equal-cost next hops toward every host, per-flow ECMP,
//! per-packet spraying, and Uno's subflows (the senders' choice of entropy).
pub mod fib;
pub mod spray;
pub mod subflows;
pub mod table;

pub use fib::Fib;
pub use spray::{LoadBalancing, Spray};
pub use subflows::{Subflows, UnoLbConfig};
pub use table::Routes;
