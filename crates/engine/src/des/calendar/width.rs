//! The bucket width following the event density (see the module's header): counted at
//! every bucket change, retuned every `RETUNE_ADVANCES` of them or when a bucket crowds, and
//! every entry placed again in the wheel of the new width.

use super::{Calendar, Entry, CROWDED, DENSE, MAX_SHIFT, MAX_SLOTS_LOG2, MIN_SLOTS_LOG2, NARROWEST_SHIFT, SPARSE};

impl<T: Copy + Ord> Calendar<T> {
    /// Events keep landing in the current bucket, far denser than the width was tuned for
    /// (the bucket is served like a sorted list): retune now rather than at the next bucket
    /// change.
    #[cold]
    #[inline(never)]
    pub(super) fn crowded(&mut self) {
        if self.shift > self.min_shift || (self.per_bucket() > CROWDED && self.shift > NARROWEST_SHIFT) {
            self.retune();
        } else {
            self.restart_counts();
        }
    }

    /// Widens the buckets when fewer than `SPARSE` pushes came per bucket change, narrows
    /// them (with more slots, so the wheel spans as long) above `DENSE`, then places every
    /// entry again.
    pub(super) fn retune(&mut self) {
        // Counting what the current bucket served so far (a crowded bucket may never end).
        let served = self.served.wrapping_add(self.head as u64);
        let advances = self.advances.max(1) as u64;
        let per_bucket = self.per_bucket();
        self.restart_counts();
        let slots_log2 = (self.mask + 1).trailing_zeros();
        let (shift, slots_log2) = if per_bucket < SPARSE && self.shift < MAX_SHIFT {
            // Density grows about linearly with the width: at least double it, aiming at 8
            // or more per bucket. With fewer slots, so the wheel spans as long as before: a
            // span grown with the width (Uno's 2^18 slots of 2 us: 0.5 s) is never gone round
            // within a run, so every bucket would be a slot never used before, with a new
            // allocation, where a wheel that turns reuses its buckets' storage.
            let step = (8 * advances / served.max(1)).max(2).ilog2().min(MAX_SHIFT - self.shift);
            (self.shift + step, slots_log2.saturating_sub(step).max(MIN_SLOTS_LOG2.min(slots_log2)))
        } else if per_bucket > DENSE && self.shift > self.min_shift {
            let step = (per_bucket / 4).ilog2().min(self.shift - self.min_shift);
            (self.shift - step, (slots_log2 + step).min(MAX_SLOTS_LOG2))
        } else if per_bucket > CROWDED && self.shift > NARROWEST_SHIFT {
            // Below the starting width, but only toward `CROWDED / 2` a bucket: what a
            // push into the bucket being served moves halves with the width, and the radix
            // sort still takes the buckets.
            let step = (per_bucket / (CROWDED / 2)).ilog2().min(self.shift - NARROWEST_SHIFT);
            (self.shift - step, (slots_log2 + step).min(MAX_SLOTS_LOG2))
        } else {
            return;
        };
        self.rebuild(shift, slots_log2);
    }

    /// Entries served per bucket change since the counts restarted, the current bucket's too.
    fn per_bucket(&self) -> u64 {
        self.served.wrapping_add(self.head as u64) / self.advances.max(1) as u64
    }

    fn restart_counts(&mut self) {
        self.advances = 0;
        // What the current bucket served before now is not counted (`advance` adds it all).
        self.served = 0u64.wrapping_sub(self.head as u64);
        self.pushed_here = 0;
    }

    /// Re-places the current bucket's rest and the wheel's entries (keeping the push order
    /// of equal times) in a wheel of `2^slots_log2` buckets of `2^shift` ps whose current
    /// bucket holds the old one's start; the far heap gives up what the new span reaches.
    ///
    /// The far heap stays as it is: its keys are all at or past the old span's end, later
    /// than any entry of the wheel, so no time is split between the two. Sorting it at every
    /// retune (as this once did) cost a 99,999-to-1 incast, whose 100,000-180,000 timers wait
    /// there, 7% of its run loop, and re-pushing it into a fresh heap faulted that heap's
    /// pages in again.
    pub(super) fn rebuild(&mut self, shift: u32, slots_log2: u32) {
        // The current bucket's rest and the wheel: disjoint times, each in push order.
        let mut near: Vec<Entry<T>> = self.ready.drain(self.head..).collect();
        for b in &mut self.wheel {
            near.append(b);
        }
        self.ready.clear();
        self.head = 0;
        let start = self.cur << self.shift;
        let slots = 1usize << slots_log2;
        self.shift = shift;
        self.mask = slots as u64 - 1;
        self.wheel.resize_with(slots, Vec::new);
        self.occupied = vec![0; slots.div_ceil(64)];
        self.set_cur(start >> shift);
        // Past a narrower span, an entry joins the far heap, after everything of its time
        // there (nothing: it is earlier than the old span's end).
        for e in near {
            self.place(e);
        }
        self.pull_far();
        self.sort_ready();
        self.pad();
    }
}
