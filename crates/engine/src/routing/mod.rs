//! Forwarding: per-node tables of equal-cost next hops toward every host, and each flow's
//! path selector (ECMP, spraying, UnoLB, PLB: the senders' choice of entropy).
mod bfs;
mod cell;
#[cfg(test)]
mod dense;
mod closed;
mod graph;
mod twins;
pub mod fib;
pub mod select;
pub mod table;

pub use fib::Fib;
pub use select::{LoadBalancing, PathSelector, Selector};
pub use table::{Routes, TableShape};
