//! A stable sort of a calendar bucket by the low bits of its keys.
//!
//! Every entry of a bucket has the same bucket number (`key >> shift`), so ordering it by
//! the key's low `shift` bits orders it by the key. Counting passes of a byte each beat the
//! comparison sort once a bucket holds hundreds of entries (a k = 32 fat-tree at 100 Gb/s
//! fills 8 ns buckets with about 2,000); below that the comparison sort is faster.

/// At most this many low bits are sorted by counting (two passes).
pub(super) const MAX_BITS: u32 = 16;

/// Sorts `items` stably by the low `bits` (at most `MAX_BITS`) of `key`, using `scratch`
/// (kept by the caller between buckets, so a sort allocates only when a bucket is longer
/// than any before it).
pub(super) fn sort_by_low_bits<E: Copy>(items: &mut [E], scratch: &mut Vec<E>, bits: u32, key: impl Fn(&E) -> u64) {
    debug_assert!(bits <= MAX_BITS);
    let n = items.len();
    let Some(&first) = items.first() else { return };
    if scratch.len() < n {
        scratch.resize(n, first);
    }
    let scratch = &mut scratch[..n];
    counting_pass(items, scratch, |e| key(e));
    if bits > 8 {
        counting_pass(scratch, items, |e| key(e) >> 8);
    } else {
        items.copy_from_slice(scratch);
    }
}

/// One stable counting pass: `from` into `to`, ordered by the low byte of `digit`.
fn counting_pass<E: Copy>(from: &[E], to: &mut [E], digit: impl Fn(&E) -> u64) {
    let byte = |e: &E| (digit(e) & 0xff) as usize;
    let mut start = [0u32; 256];
    for e in from {
        start[byte(e)] += 1;
    }
    let mut sum = 0;
    for c in &mut start {
        (*c, sum) = (sum, sum + *c);
    }
    for e in from {
        let d = byte(e);
        to[start[d] as usize] = *e;
        start[d] += 1;
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    /// The same order as the standard stable sort, ties in their first order, at one and
    /// two passes, on buckets longer and shorter than the scratch left by the one before.
    #[test]
    fn orders_as_a_stable_sort_by_key() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut scratch = Vec::new();
        for (bits, n) in [(6, 700), (13, 2_000), (16, 50), (13, 0), (9, 1_000)] {
            let bucket = 5u64 << bits;
            // (key, position): few distinct keys, so most entries tie.
            let mut items: Vec<(u64, usize)> = (0..n).map(|i| (bucket + rng.gen_range(0..1u64 << bits) / 97 * 97, i)).collect();
            let mut want = items.clone();
            want.sort_by_key(|e| e.0);
            super::sort_by_low_bits(&mut items, &mut scratch, bits, |e| e.0);
            assert_eq!(items, want, "{bits} bits, {n} entries");
        }
    }
}
