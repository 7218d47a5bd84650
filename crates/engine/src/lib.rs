//! # fanin-engine
//!
//! A deterministic packet-level network simulator for incast studies. The layers, bottom up:
//!
//! - [`units`], [`ids`]: integer picoseconds, bits per second, bytes; typed dense indices.
//! - [`des`]: the event queue (integer time, equal times in insertion order) and timers
//!   cancelled by generation counters.
//! - [`packet`]: a small `Copy` header, pooled and moved by index.
//! - [`net`]: links (serialization + propagation), output queues composed from policies
//!   (drop-tail, ECN step, RED, RED at dequeue, phantom queues, a control queue with
//!   trimming), switches and host NICs.
//! - [`topology`], [`routing`]: builders (dumbbell, leaf-spine, fat-tree, multi-datacenter)
//!   and per-node forwarding tables; each flow's path selector (ECMP, spraying, UnoLB,
//!   PLB) picks the entropy its packets carry.
//! - [`transport`]: one reliable byte-stream sender/receiver shared by every congestion
//!   control; [`transport::cc`] holds one file per algorithm behind one trait.
//! - [`workload`]: incasts, periodic bursts, Poisson-from-CDF, permutation.
//! - [`proxy`]: inter-DC incasts relayed through a naive (split) or streamlined proxy.
//! - [`metrics`]: flow and incast records, queue series, Millisampler-style host counters,
//!   all returned as columns.
//! - [`scenario`]: TOML -> `Spec` -> `validate()` -> `ValidSpec` -> [`sim::Simulation`].
//!
//! The engine reads no files and knows nothing of Python: whatever a scenario refers to
//! (a CDF file) is handed in by the caller through a loader function.

pub mod error;
pub mod huge_pages;
pub mod ids;
pub mod machine;
pub mod metrics;
pub mod routing;
pub mod topology;
pub mod units;

pub use error::ScenarioError;
pub use metrics::table::{Column, Results, Table};
pub mod des;
pub mod net;
pub mod packet;
pub mod proxy;
pub mod reliability;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod workload;

pub use scenario::{parse_scenario, ValidSpec};
pub use sim::Simulation;
