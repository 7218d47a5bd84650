//! Topology graph and builders.
pub mod graph;

pub use graph::{Link, Node, NodeKind, Port, Topology};
