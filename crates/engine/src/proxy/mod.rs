//! Relaying an inter-datacenter incast through a proxy in the sending datacenter (Zhou et
//! al., "Mitigating Inter-datacenter Incast with a Proxy", HotNets '25).
//!
//! - [`ProxyScheme::Baseline`]: every sender talks straight to the remote receiver.
//! - [`ProxyScheme::Naive`]: split connections. proxy_R terminates each sender's connection
//!   and ACKs it at once; proxy_S opens its own connection per flow to the receiver, with
//!   its own congestion control, and can send only bytes proxy_R has received in order
//!   (the per-flow queue is unbounded and holds only a byte count); by default proxy_S
//!   serves those connections in turn, one packet whenever its NIC is free
//!   ([`round_robin`]). The incast completes when the last proxy_S connection has its last
//!   byte acknowledged.
//! - [`ProxyScheme::Streamlined`]: each connection is routed through the proxy and not
//!   terminated; the proxy turns a header trimmed before it into a NACK to the sender and
//!   forwards everything else unchanged (`sim/proxy.rs`).
//!
//! The world glue lives in `sim` (`proxy.rs` for the relay, `build.rs` for the flows);
//! this module holds the workload's description.

pub mod round_robin;

pub use round_robin::Turns;

use crate::ids::HostId;
use crate::workload::IncastSpec;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProxyScheme {
    Baseline,
    Naive,
    Streamlined,
}

pub const SCHEMES: &[&str] = &["baseline", "naive", "streamlined"];
/// How a naive proxy_S shares its NIC among its connections (`proxy_order`).
pub const PROXY_ORDERS: &[&str] = &["round_robin", "arrival"];

/// An incast relayed (or not) through `proxy`.
#[derive(Clone, Debug, PartialEq)]
pub struct ProxyIncastSpec {
    pub incast: IncastSpec,
    pub proxy: HostId,
    pub scheme: ProxyScheme,
    /// Naive only: proxy_S serves its connections in turn when its NIC is free (`true`,
    /// the spec's assumption), or each connection sends whatever its window allows into
    /// the NIC's FIFO as proxy_R's bytes arrive (`false`).
    pub round_robin: bool,
}
