//! Forwarding: per-node tables of equal-cost next hops toward every host, per-flow ECMP, and
//! the senders' choice of entropy (Uno's subflows).
pub mod fib;
pub mod subflows;
pub mod table;

pub use fib::Fib;
pub use subflows::{LoadBalancing, Subflows, UnoLbConfig};
pub use table::Routes;
