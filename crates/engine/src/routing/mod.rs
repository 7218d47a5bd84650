//! Forwarding: per-node tables of equal-cost next hops toward every host, and per-flow ECMP.
pub mod fib;
pub mod table;

pub use fib::Fib;
pub use table::Routes;
