//! Per-packet spraying (RPS): every packet, data or ACK, carries a fresh uniform random
//! entropy drawn at its sending host, and switches hash it exactly as they hash a flow's
//! entropy for ECMP, so each hop picks a uniform random equal-cost next hop at no extra
//! cost per hop. Each host draws from its own stream, derived from (seed, host).

use crate::ids::HostId;
use crate::rng::{stream, Stream};
use rand::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;

/// How switches spread packets over equal-cost next hops.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum LoadBalancing {
    /// Per-flow ECMP: one entropy per flow, one path per flow.
    #[default]
    Ecmp,
    /// Per-packet spraying.
    Spray,
    /// Uno's subflows (`routing/subflows.rs`).
    UnoLb(super::UnoLbConfig),
}

pub struct Spray {
    rngs: Vec<Xoshiro256PlusPlus>,
}

impl Spray {
    pub fn new(seed: u64, hosts: usize) -> Self {
        Spray { rngs: (0..hosts).map(|h| stream(seed, Stream::Spray, h as u64)).collect() }
    }

    /// The entropy of the next packet host `h` sends.
    #[inline]
    pub fn entropy(&mut self, h: HostId) -> u32 {
        self.rngs[h.idx()].next_u32()
    }
}
