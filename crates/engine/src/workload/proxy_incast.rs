//! An incast relayed through a proxy in the sending datacenter (HotNets '25): what the
//! scenario asks for. The mechanism is in `proxy` and `sim/proxy.rs`.

use super::IncastSpec;
use crate::ids::HostId;

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
