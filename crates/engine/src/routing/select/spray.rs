//! Per-packet spraying (RPS): every packet, data or ACK, carries a fresh entropy drawn
//! uniformly from `[0, entropies)` (256, as Uno's evaluation sprays) at its sending host,
//! combined with the flow's own hash as UnoLB's path entropies are (`super::wire`), and
//! switches hash it exactly as they hash a flow's entropy for ECMP: each packet takes one
//! of the flow's `entropies` paths, uniformly, at no extra cost per hop. Each host draws
//! from its own stream, derived from (seed, host), which all its flows share: the draws are
//! the host's, the flow only says to make them.

use super::{below, wire, PathSelector};
use crate::ids::HostId;
use crate::rng::{stream, Stream};
use rand::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SprayConfig {
    /// Entropies a packet draws from (256).
    pub entropies: u32,
}

/// A flow that sprays.
#[derive(Copy, Clone, Debug)]
pub struct Spray {
    flow_entropy: u32,
    entropies: u32,
}

impl Spray {
    pub fn new(cfg: &SprayConfig, flow_entropy: u32) -> Self {
        Spray { flow_entropy, entropies: cfg.entropies }
    }

    #[inline(always)]
    fn draw(&self, draws: &mut HostDraws, h: HostId) -> u32 {
        wire(self.flow_entropy, below(draws.next(h), self.entropies))
    }
}

impl PathSelector for Spray {
    #[inline(always)]
    fn on_send(&mut self, draws: &mut HostDraws, src: HostId) -> u32 {
        self.draw(draws, src)
    }

    /// ACKs and NACKs are sprayed too, from the answering host's stream.
    #[inline(always)]
    fn reply(&self, _echo: u32, draws: &mut HostDraws, from: HostId) -> u32 {
        self.draw(draws, from)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_draw_from_the_flows_entropies() {
        let mut draws = HostDraws::new(1, 2);
        let mut a = Spray::new(&SprayConfig { entropies: 256 }, 7);
        let b = Spray::new(&SprayConfig { entropies: 256 }, 8);
        let own: Vec<u32> = (0..256).map(|e| wire(7, e)).collect();
        let mut seen = [0u32; 256];
        for _ in 0..25_600 {
            let w = a.on_send(&mut draws, HostId(0));
            seen[own.iter().position(|&o| o == w).expect("one of the flow's 256")] += 1;
        }
        // Uniform: 100 each on average; a count outside 50-160 is a 5-sigma event.
        assert!(seen.iter().all(|&c| (50..=160).contains(&c)), "{:?}", (seen.iter().min(), seen.iter().max()));
        // Another flow has its own 256 (with at most a chance overlap); its ACKs, sprayed
        // from their own host, take one of them whatever they echo.
        let theirs: Vec<u32> = (0..256).map(|e| wire(8, e)).collect();
        assert!(own.iter().filter(|w| theirs.contains(w)).count() <= 1);
        assert!(theirs.contains(&b.reply(own[0], &mut draws, HostId(1))));
        let one = Spray::new(&SprayConfig { entropies: 1 }, 7);
        assert_eq!(one.reply(123, &mut draws, HostId(1)), wire(7, 0));
    }
}
