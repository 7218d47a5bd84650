//! Forwarding: per-node tables of equal-cost next hops toward every host, and per-flow ECMP.
pub mod table;

pub use table::Routes;
