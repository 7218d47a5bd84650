//! A radix heap: a priority queue for monotone integer keys (the clock never goes back).
//!
//! Bucket `b` holds keys whose highest bit differing from the last popped key is `b - 1`;
//! bucket 0 holds keys equal to it. Popping refills bucket 0 from the lowest non-empty
//! bucket. Equal keys always share a bucket and each bucket is filled in order, so equal
//! keys pop first-in first-out, which is the engine's tie-break rule. Measured 2x faster
//! than `BinaryHeap` at thousands of pending events (see DESIGN.md).

pub struct RadixHeap<T> {
    last: u64,
    len: usize,
    /// Read position in bucket 0, which is consumed front to back.
    head: usize,
    buckets: Vec<Vec<(u64, T)>>,
    /// The smallest key in each bucket, kept on push so a refill needs no search.
    mins: [u64; 65],
}

#[inline(always)]
fn bucket_of(key: u64, last: u64) -> usize {
    64 - (key ^ last).leading_zeros() as usize
}

impl<T: Copy> Default for RadixHeap<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> RadixHeap<T> {
    pub fn new() -> Self {
        RadixHeap { last: 0, len: 0, head: 0, buckets: (0..65).map(|_| Vec::new()).collect(), mins: [u64::MAX; 65] }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn push(&mut self, key: u64, value: T) {
        debug_assert!(key >= self.last, "radix heap keys must not decrease");
        let b = bucket_of(key, self.last);
        self.buckets[b].push((key, value));
        self.mins[b] = self.mins[b].min(key);
        self.len += 1;
    }

    /// The smallest key, refilling bucket 0 if needed.
    #[inline(always)]
    pub fn peek_key(&mut self) -> Option<u64> {
        if self.head < self.buckets[0].len() {
            return Some(self.last);
        }
        if self.len == 0 {
            return None;
        }
        self.refill();
        Some(self.last)
    }

    /// The next value if it is already in bucket 0 (no refill).
    #[inline(always)]
    pub fn peek_ready(&self) -> Option<T> {
        self.buckets[0].get(self.head).map(|(_, v)| *v)
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<(u64, T)> {
        if self.head >= self.buckets[0].len() {
            if self.len == 0 {
                return None;
            }
            self.refill();
        }
        let item = self.buckets[0][self.head];
        self.head += 1;
        self.len -= 1;
        Some(item)
    }

    #[cold]
    fn refill(&mut self) {
        self.buckets[0].clear();
        self.head = 0;
        let b = (1..65).find(|&b| !self.buckets[b].is_empty()).expect("non-empty heap");
        let mut bucket = std::mem::take(&mut self.buckets[b]);
        self.last = std::mem::replace(&mut self.mins[b], u64::MAX);
        for &(k, v) in &bucket {
            let t = bucket_of(k, self.last);
            self.buckets[t].push((k, v));
            self.mins[t] = self.mins[t].min(k);
        }
        bucket.clear();
        self.buckets[b] = bucket;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn pops_in_order_with_fifo_ties() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut heap = RadixHeap::new();
        let mut reference = Vec::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        for round in 0..200 {
            for _ in 0..rng.gen_range(0..50) {
                let key = now + rng.gen_range(0..(1u64 << (round % 40)));
                heap.push(key, seq);
                reference.push((key, seq));
                seq += 1;
            }
            reference.sort();
            for _ in 0..rng.gen_range(0..40) {
                let Some(got) = heap.pop() else { break };
                let want = reference.remove(0);
                assert_eq!(got, want);
                now = got.0;
            }
        }
        assert_eq!(heap.len(), reference.len());
    }
}
