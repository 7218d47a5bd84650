//! Deterministic random streams, one per component, derived from (seed, kind, id), so that
//! adding a component never shifts another component's draws.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Component kinds that own a stream.
#[derive(Copy, Clone, Debug)]
#[repr(u64)]
pub enum Stream {
    Queue = 1,
    Workload = 2,
    Flow = 3,
    Spray = 4,
    /// Random topologies (Jellyfish's wiring).
    Topology = 5,
    /// A port's link failures and drop models (`net::faults`).
    Faults = 6,
}

/// splitmix64's increment: a generator whose state steps by it gives `splitmix64(state)`.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(GOLDEN_GAMMA);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

pub fn stream(seed: u64, kind: Stream, id: u64) -> Xoshiro256PlusPlus {
    let s = splitmix64(splitmix64(splitmix64(seed) ^ kind as u64) ^ id);
    Xoshiro256PlusPlus::seed_from_u64(s)
}

/// A 32-bit value from (seed, kind, id) without building a generator (flow entropy).
pub fn hash32(seed: u64, kind: Stream, id: u64) -> u32 {
    (hash64(seed, kind, id) >> 32) as u32
}

/// A 64-bit value from (seed, kind, id): the seed of a small per-component generator.
pub fn hash64(seed: u64, kind: Stream, id: u64) -> u64 {
    splitmix64(splitmix64(splitmix64(seed) ^ kind as u64) ^ id)
}
