//! Relaying an inter-datacenter incast through a proxy in the sending datacenter (Zhou et
//! al., "Mitigating Inter-datacenter Incast with a Proxy", HotNets '25). The schemes
//! ([`crate::workload::ProxyScheme`]):
//!
//! - `Baseline`: every sender talks straight to the remote receiver.
//! - `Naive`: split connections. proxy_R terminates each sender's connection and ACKs it at
//!   once; proxy_S opens its own connection per flow to the receiver, with its own
//!   congestion control, and can send only bytes proxy_R has received in order (the
//!   per-flow queue is unbounded and holds only a byte count); by default proxy_S serves
//!   those connections in turn, one packet whenever its NIC is free ([`round_robin`]). The
//!   incast completes when the last proxy_S connection has its last byte acknowledged.
//! - `Streamlined`: each connection is routed through the proxy and not terminated; the
//!   proxy turns a header trimmed before it into a NACK to the sender and forwards
//!   everything else unchanged (`sim/proxy.rs`).
//!
//! The world glue lives in `sim` (`proxy.rs` for the relay, `build.rs` for the flows); the
//! workload's description is [`crate::workload::ProxyIncastSpec`]; this module holds the
//! naive proxy's turn-taking.

pub mod round_robin;

pub use round_robin::Turns;
