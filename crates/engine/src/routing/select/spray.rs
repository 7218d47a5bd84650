//! Per-packet spraying (RPS): every packet, data or ACK, carries a fresh uniform random
//! entropy drawn at its sending host, and switches hash it exactly as they hash a flow's
//! entropy for ECMP, so each hop picks a uniform random equal-cost next hop at no extra
//! cost per hop. Each host draws from its own stream, derived from (seed, host), which all
//! its flows share: the draws are the host's, the flow only says to make them.

use super::PathSelector;
use crate::ids::HostId;
use crate::rng::{stream, Stream};
use rand::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A flow that sprays: no state of its own.
#[derive(Copy, Clone, Debug)]
pub struct Spray;

impl PathSelector for Spray {
    #[inline(always)]
    fn on_send(&mut self, draws: &mut HostDraws, src: HostId) -> u32 {
        draws.next(src)
    }

    /// ACKs and NACKs are sprayed too, from the answering host's stream.
    #[inline(always)]
    fn reply(&self, _echo: u32, draws: &mut HostDraws, from: HostId) -> u32 {
        draws.next(from)
    }
}

/// The hosts' own random streams, one per host (none unless some flow sprays).
#[derive(Default)]
pub struct HostDraws {
    rngs: Vec<Xoshiro256PlusPlus>,
}

impl HostDraws {
    pub fn new(seed: u64, hosts: usize) -> Self {
        HostDraws { rngs: (0..hosts).map(|h| stream(seed, Stream::Spray, h as u64)).collect() }
    }

    /// Host `h`'s next 32-bit draw.
    #[inline]
    pub fn next(&mut self, h: HostId) -> u32 {
        self.rngs[h.idx()].next_u32()
    }
}
