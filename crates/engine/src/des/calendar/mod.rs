//! A calendar queue (timing wheel) for the schedule: the near future is cut into buckets of
//! `2^shift` ps held in a wheel; the far future waits in a binary heap.
//!
//! Pushing appends to a bucket (no ordering work); a bucket is sorted by time once, when
//! the clock reaches it, and then popped in order. Events further away than the wheel's
//! span (timeouts, late flow starts) go to a binary heap and move into the wheel as the
//! clock approaches them. Against a radix heap on a k = 8 fat-tree it cut the engine's
//! instructions per packet-hop by a fifth (callgrind), and the sorted current bucket tells
//! the run loop which event comes next, so it can prefetch its data.
//!
//! Equal times pop in the order they were pushed, without a sequence number on the hot
//! path: all pending entries of one time are always in the same place (the current
//! bucket, one wheel bucket, or the far heap), in push order there. Buckets are appended
//! to and sorted stably; the current bucket takes a new entry after its equals; the far
//! heap alone numbers its entries (it does not keep order by itself), and hands an
//! entry to the wheel as soon as the wheel's span reaches its time, before anything of that
//! time can be pushed to the wheel directly. Entries are 16 bytes instead of 24.
//!
//! The bucket width follows the event density (as Brown's calendar queue resizes): a sparse
//! run (an incast whose events are one bottleneck serialization apart) would otherwise move
//! to a new bucket for almost every event (-10% instructions on `fanin bench` (a)). Every
//! `RETUNE_ADVANCES` bucket changes, or sooner if pushes keep landing in the bucket being
//! served, the width moves toward 6 to 16 pushes per bucket (never below its starting
//! width, unless a bucket holds over a thousand: then toward 512) and every entry is placed
//! again. Pop order is (time, sequence) whatever the
//! width, so retuning never changes a run.

mod width;

use super::bucket_sort;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Copy, Clone, Debug)]
struct Entry<T> {
    key: u64,
    value: T,
}

/// Buckets at least this long are sorted by radix (`bucket_sort`); shorter ones by
/// comparison, which is faster there.
const RADIX_MIN: usize = 512;

/// A far-heap entry: the heap orders by (key, push number).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Far<T> {
    key: u64,
    seq: u64,
    value: T,
}

/// Bucket changes between two looks at the event density.
const RETUNE_ADVANCES: u32 = 4096;
/// Entries served per bucket outside which the width changes. With few entries a bucket
/// change (the wheel scanned, a bucket moved in) costs more than sorting a few more
/// entries saves. Callgrind: 4 instead of 2 took bench (a) from 137.1 to 130.3 M
/// instructions; 6 instead of 4 (with `DENSE` 16 instead of 12, so a doubled width is not
/// narrowed again) took Uno's Fig 10 as one world 7,820 -> 7,791 M, as its two partitions
/// (half the events each, so sparser buckets) 8,365 -> 8,263 M, bench (b) 1,460 -> 1,429 M;
/// 8 was worse on Fig 10.
const SPARSE: u64 = 6;
const DENSE: u64 = 16;
/// Buckets at most 2^30 ps (1 ms) wide, at most 2^20 slots. They become narrower than the
/// width the calendar starts with only when `CROWDED`: narrower buckets mean more slots,
/// whose scattered storage costs a dense run (a k = 16 fat-tree) more in cache misses than
/// sorting saves.
const MAX_SHIFT: u32 = 30;
pub(super) const MAX_SLOTS_LOG2: u32 = 20;
/// Above this many entries a bucket, the width goes below the starting one (down to
/// `NARROWEST_SHIFT`): an entry pushed into the bucket being served moves the ones after it,
/// hundreds of them in a k = 32 fat-tree at 100 Gb/s (about 2,000 a bucket of 8 ns; halved,
/// its Poisson run's loop took 2.5-4% less time).
const CROWDED: u64 = 1024;
const NARROWEST_SHIFT: u32 = 10;
/// The fewest slots a wheel has (a revolution of small buckets still spans a link's delay).
pub(super) const MIN_SLOTS_LOG2: u32 = 10;

/// Entries of `none` kept past the end of the current bucket, so peeking up to this many
/// places ahead is one read with no bounds test (a test that goes either way at the end of
/// every bucket, mispredicted about once a packet-hop). Further peeks need the far padding.
const PAD: usize = 3;
/// The padding while the run loop looks far ahead (`Calendar::set_far_padding`), so that
/// its peeks, up to `FAR_PAD - 1` places ahead, are one read each (`peek_padded`). Only
/// then: 16 entries written at every bucket change would cost a sparse run more than the
/// clamp of a far peek saves.
pub const FAR_PAD: usize = 16;

pub struct Calendar<T> {
    /// What a peek past the current bucket gives.
    none: T,
    shift: u32,
    min_shift: u32,
    mask: u64,
    /// Buckets by `(key >> shift) & mask`; only buckets ahead of `cur` hold entries.
    wheel: Vec<Vec<Entry<T>>>,
    /// Empty buckets' storage, for the next slot that gets its first entry: a served
    /// bucket's storage comes back here rather than stay in its slot, where a sparse run
    /// (a wheel of thousands of slots, most empty in a revolution) would leave it unused
    /// while pushes to other empty slots allocated anew (two allocations per bucket in the
    /// 200-flow Uno run). Last in, first out, so the storage reused is the warmest.
    spare: Vec<Vec<Entry<T>>>,
    /// One bit per wheel slot: non-empty.
    occupied: Vec<u64>,
    /// The absolute bucket number being served (`key >> shift`).
    cur: u64,
    /// First time beyond the wheel's span: `(cur + slots) << shift`.
    span_end: u64,
    /// The current bucket, sorted, served from `head`.
    ready: Vec<Entry<T>>,
    head: usize,
    /// How many entries of `none` follow the current bucket: `PAD` or `FAR_PAD`.
    padding: usize,
    /// Entries beyond the wheel's span, smallest first (pushes here are not monotone, so
    /// a radix heap would not do).
    far: BinaryHeap<Reverse<Far<T>>>,
    far_seq: u64,
    /// The second buffer of `sort_ready`'s passes, kept between buckets.
    radix_scratch: Vec<Entry<T>>,
    /// Bucket changes, the entries they served, and the pushes into the bucket being
    /// served, since the width was last looked at.
    advances: u32,
    served: u64,
    pushed_here: u64,
    retune_every: u32,
}

impl<T: Copy + Ord> Calendar<T> {
    /// Buckets of `2^shift` ps, a wheel of `2^slots_log2` buckets; peeks past the current
    /// bucket give `none`.
    pub fn new(shift: u32, slots_log2: u32, none: T) -> Self {
        let slots = 1usize << slots_log2;
        let mut cal = Calendar {
            none,
            shift,
            min_shift: shift,
            mask: slots as u64 - 1,
            wheel: (0..slots).map(|_| Vec::new()).collect(),
            spare: Vec::new(),
            occupied: vec![0; slots.div_ceil(64)],
            cur: 0,
            span_end: (slots as u64) << shift,
            ready: Vec::new(),
            head: 0,
            padding: PAD,
            far: BinaryHeap::new(),
            far_seq: 0,
            radix_scratch: Vec::new(),
            advances: 0,
            served: 0,
            pushed_here: 0,
            retune_every: RETUNE_ADVANCES,
        };
        cal.pad();
        cal
    }

    /// Writes `padding` entries of `none` past the current bucket's end (inside its
    /// capacity).
    fn pad(&mut self) {
        let n = self.padding;
        self.ready.reserve(n);
        let end = self.ready.len();
        let filler = Entry { key: u64::MAX, value: self.none };
        // SAFETY: `reserve` made room for `n` entries past `end`; they stay outside the
        // `Vec`'s length, written so that `peek_ahead` reads initialized memory.
        unsafe {
            let past = self.ready.as_mut_ptr().add(end);
            // The near padding's constant count (unrolled: a loop of `n` cost bench (a)
            // 1.6% more instructions), then the rest of the far one.
            for i in 0..PAD {
                past.add(i).write(filler);
            }
            for i in PAD..n {
                past.add(i).write(filler);
            }
        }
    }

    /// `FAR_PAD` entries of padding from now on (`far`), or `PAD`.
    pub fn set_far_padding(&mut self, far: bool) {
        self.padding = if far { FAR_PAD } else { PAD };
        self.pad();
    }

    /// The current bucket width, log2 of picoseconds.
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// Nothing is pending (a scan of the wheel: not for the hot path).
    pub fn is_empty(&self) -> bool {
        self.head == self.ready.len() && self.far.is_empty() && self.next_occupied().is_none()
    }

    /// Drops every entry; the clock's bucket stays where it is.
    pub fn clear(&mut self) {
        self.ready.clear();
        self.head = 0;
        self.pad();
        self.each_occupied(|bucket| {
            bucket.clear();
            false
        });
        self.far.clear();
    }

    /// The clock moved to `t` (a bounded run stopped there): when nothing is due by then,
    /// the cursor follows, so that the next looks at the wheel start from the clock, not
    /// from the last event (a quiet stretch of seconds, run 100 us at a time, would scan
    /// ever more of the wheel at every step). Entries of `t`'s bucket become the current
    /// bucket; the far heap moves in as the span now reaches it.
    pub fn skip_to(&mut self, t: u64) {
        let b = t >> self.shift;
        if b <= self.cur || self.head != self.ready.len() || self.due_by(t) {
            return;
        }
        self.served = self.served.wrapping_add(self.ready.len() as u64);
        self.ready.clear();
        self.head = 0;
        self.set_cur(b);
        let slot = (b & self.mask) as usize;
        if self.occupied[slot / 64] & (1 << (slot % 64)) != 0 {
            self.serve_slot(slot);
        }
        self.pull_far();
        self.sort_ready();
        self.pad();
    }

    fn set_cur(&mut self, bucket: u64) {
        self.cur = bucket;
        self.span_end = (bucket + self.mask + 1) << self.shift;
    }

    #[inline(always)]
    pub fn push(&mut self, key: u64, value: T) {
        let e = Entry { key, value };
        let bucket = key >> self.shift;
        if bucket == self.cur {
            // Into the bucket being served: after its equals (it is usually short).
            let at = self.head + self.ready[self.head..].partition_point(|x| x.key <= key);
            self.ready.insert(at, e);
            self.pad();
            self.pushed_here += 1;
            if self.pushed_here > DENSE * self.retune_every as u64 {
                self.crowded();
            }
        } else if key < self.span_end {
            let slot = (bucket & self.mask) as usize;
            debug_assert!(slot < self.wheel.len() && slot / 64 < self.occupied.len());
            // SAFETY: `slot` is masked to the wheel's power-of-two size, and `occupied` has
            // one bit per slot.
            Self::push_into(unsafe { self.wheel.get_unchecked_mut(slot) }, &mut self.spare, e);
            // SAFETY: as above.
            unsafe {
                *self.occupied.get_unchecked_mut(slot / 64) |= 1 << (slot % 64);
            }
        } else {
            self.push_far(e);
        }
    }

    /// Sorts the bucket about to be served by time, equal times in push order: a long
    /// bucket of narrow width by radix on the low bits every entry does not share.
    fn sort_ready(&mut self) {
        if self.ready.len() < RADIX_MIN || self.shift > bucket_sort::MAX_BITS {
            self.ready.sort_by_key(|e| e.key);
            return;
        }
        debug_assert!(self.ready.iter().all(|e| e.key >> self.shift == self.cur), "a bucket holds one bucket number");
        bucket_sort::sort_by_low_bits(&mut self.ready, &mut self.radix_scratch, self.shift, |e| e.key);
    }

    /// Appends to a wheel bucket, giving it spare storage first if it has none.
    #[inline(always)]
    fn push_into(bucket: &mut Vec<Entry<T>>, spare: &mut Vec<Vec<Entry<T>>>, e: Entry<T>) {
        if bucket.len() == bucket.capacity() {
            Self::refill(bucket, spare);
        }
        bucket.push(e);
    }

    /// A full bucket about to take an entry: if it has no storage yet, a spare one.
    #[cold]
    #[inline(never)]
    fn refill(bucket: &mut Vec<Entry<T>>, spare: &mut Vec<Vec<Entry<T>>>) {
        if bucket.capacity() == 0 {
            if let Some(storage) = spare.pop() {
                *bucket = storage;
            }
        }
    }

    /// Makes `slot`'s bucket the current one; the current one's storage becomes spare.
    fn serve_slot(&mut self, slot: usize) {
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        let served = std::mem::replace(&mut self.ready, std::mem::take(&mut self.wheel[slot]));
        debug_assert!(served.is_empty());
        self.spare.push(served);
    }

    fn push_far(&mut self, e: Entry<T>) {
        self.far_seq += 1;
        self.far.push(Reverse(Far { key: e.key, seq: self.far_seq, value: e.value }));
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<(u64, T)> {
        self.pop_until(u64::MAX)
    }

    /// Pops the smallest entry if its key is at most `limit` (one look at the next entry:
    /// this runs once per event).
    #[inline(always)]
    pub fn pop_until(&mut self, limit: u64) -> Option<(u64, T)> {
        let e = *self.next(limit)?;
        if e.key > limit {
            return None;
        }
        self.head += 1;
        Some((e.key, e.value))
    }

    /// The smallest entry, moving to the next bucket when the current one is spent.
    #[inline(always)]
    fn next(&mut self, limit: u64) -> Option<&Entry<T>> {
        if self.head == self.ready.len() && !self.advance(limit) {
            return None;
        }
        debug_assert!(self.head < self.ready.len());
        // SAFETY: `advance` leaves the current bucket non-empty with `head` at its start,
        // and otherwise `head < ready.len()` was just tested.
        Some(unsafe { self.ready.get_unchecked(self.head) })
    }

    /// The value `k` (below `PAD`) places after the next one if it is in the current
    /// bucket, else `none`. A constant `k`, so the assertion folds away.
    #[inline(always)]
    pub fn peek_ahead(&self, k: usize) -> T {
        assert!(k < PAD, "a peek {k} ahead needs the far padding (`peek_padded`)");
        // SAFETY: `k` is below `PAD`, never more than the padding.
        unsafe { self.peek_padded(k) }
    }

    /// `peek_ahead` within the padding: one read, no clamp.
    ///
    /// # Safety
    /// `k` is below the padding: `PAD`, or `FAR_PAD` after `set_far_padding(true)`.
    #[inline(always)]
    pub unsafe fn peek_padded(&self, k: usize) -> T {
        debug_assert!(k < self.padding && self.head <= self.ready.len());
        // SAFETY: `head <= len`, and the `padding` entries past `len` are written after
        // every change to the current bucket, so `head + k < len + padding` is written.
        unsafe { (*self.ready.as_ptr().add(self.head + k)).value }
    }

    /// Moves to the next non-empty bucket (from the wheel or the far heap) and sorts it;
    /// false when nothing is left.
    ///
    /// Never past the bucket of `limit`: the wheel's cursor stays at or before the clock, so
    /// an entry pushed after a bounded pop (the clock stopped at `limit`, the caller schedules
    /// something before the next event) lands in a bucket still ahead, not behind the
    /// cursor, where it would wait a whole revolution.
    #[cold]
    fn advance(&mut self, limit: u64) -> bool {
        if !self.due_by(limit) {
            return false;
        }
        let found = self.next_bucket();
        self.pad();
        found
    }

    /// Whether the next non-empty bucket starts at or before `limit`. The wheel is scanned
    /// only as far as `limit`'s bucket: a caller that runs in short steps over a long quiet
    /// stretch (the Python binding runs 100 us at a time; a 10,000-flow incast can wait
    /// seconds for backed-off RTOs) would otherwise scan the whole wheel, up to 2^14 words,
    /// at every step.
    #[inline(always)]
    fn due_by(&self, limit: u64) -> bool {
        let last = limit >> self.shift;
        if self.far.peek().is_some_and(|e| e.0.key >> self.shift <= last) {
            return true;
        }
        let words = (last.saturating_sub(self.cur) / 64).saturating_add(1);
        self.next_occupied_within(words.min(usize::MAX as u64) as usize).is_some_and(|b| b <= last)
    }

    fn next_bucket(&mut self) -> bool {
        self.served = self.served.wrapping_add(self.ready.len() as u64);
        self.ready.clear();
        self.head = 0;
        self.advances += 1;
        if self.advances == self.retune_every {
            self.retune();
            if !self.ready.is_empty() {
                return true;
            }
        }
        loop {
            let wheel_next = self.next_occupied();
            let far_next = self.far.peek().map(|e| e.0.key >> self.shift);
            let b = match (wheel_next, far_next) {
                (Some(w), Some(f)) => w.min(f),
                (Some(w), None) => w,
                (None, Some(f)) => f,
                (None, None) => return false,
            };
            self.set_cur(b);
            if wheel_next == Some(b) {
                self.serve_slot((b & self.mask) as usize);
            }
            self.pull_far();
            if !self.ready.is_empty() {
                self.sort_ready();
                return true;
            }
        }
    }

    /// Puts an entry where its key belongs: the current bucket (unsorted: the caller
    /// sorts), the wheel or the far heap. Entries of one time must come in push order.
    fn place(&mut self, e: Entry<T>) {
        let bucket = e.key >> self.shift;
        if bucket == self.cur {
            self.ready.push(e);
        } else if e.key < self.span_end {
            let slot = (bucket & self.mask) as usize;
            Self::push_into(&mut self.wheel[slot], &mut self.spare, e);
            self.occupied[slot / 64] |= 1 << (slot % 64);
        } else {
            self.push_far(e);
        }
    }

    /// Moves far entries that now fall within the wheel's span into it (or into `ready`).
    fn pull_far(&mut self) {
        let end = self.span_end;
        while let Some(Reverse(top)) = self.far.peek() {
            if top.key >= end {
                break;
            }
            let Reverse(f) = self.far.pop().unwrap();
            self.place(Entry { key: f.key, value: f.value });
        }
    }

    /// The smallest pending key, without moving anything (a partitioned run's look at when
    /// each partition next has work; not for the hot path).
    pub fn peek_key(&self) -> Option<u64> {
        let ready = self.ready[self.head..].first().map(|e| e.key);
        let wheel = self.next_occupied().map(|b| {
            let slot = (b & self.mask) as usize;
            self.wheel[slot].iter().map(|e| e.key).min().expect("an occupied slot has entries")
        });
        let far = self.far.peek().map(|e| e.0.key);
        [ready, wheel, far].into_iter().flatten().min()
    }

    /// Keeps only the entries `keep` accepts, each where it was (so equal keys keep their
    /// push order): a partition drops the events another partition owns.
    pub fn retain(&mut self, mut keep: impl FnMut(u64, &T) -> bool) {
        let head = self.head;
        let mut i = 0;
        self.ready.retain(|e| {
            i += 1;
            i <= head || keep(e.key, &e.value)
        });
        self.each_occupied(|bucket| {
            bucket.retain(|e| keep(e.key, &e.value));
            !bucket.is_empty()
        });
        let far = std::mem::take(&mut self.far).into_vec();
        self.far = far.into_iter().filter(|f| keep(f.0.key, &f.0.value)).collect();
        self.pad();
    }

    /// Calls `f` on every occupied wheel bucket (not the empty slots, of which a sparse run
    /// has hundreds of thousands); a bucket stays marked occupied if `f` says so.
    fn each_occupied(&mut self, mut f: impl FnMut(&mut Vec<Entry<T>>) -> bool) {
        for (word, bits) in self.occupied.iter_mut().enumerate() {
            let mut left = *bits;
            while left != 0 {
                let slot = word * 64 + left.trailing_zeros() as usize;
                left &= left - 1;
                if !f(&mut self.wheel[slot]) {
                    *bits &= !(1 << (slot % 64));
                }
            }
        }
    }

    /// The absolute bucket number of the first occupied slot after `cur`, if any.
    #[inline(always)]
    fn next_occupied(&self) -> Option<u64> {
        self.next_occupied_within(usize::MAX)
    }

    /// [`Calendar::next_occupied`], looking at most `max_words` words of the wheel past
    /// `cur`'s (`None` also when nothing is that close).
    #[inline(always)]
    fn next_occupied_within(&self, max_words: usize) -> Option<u64> {
        let start = (self.cur & self.mask) as usize;
        // Usually a later slot in the same word (a dense run has a bucket every few slots).
        let here = self.occupied[start / 64] & (!0u64 << (start % 64));
        if here != 0 {
            return Some(self.cur - (start % 64) as u64 + here.trailing_zeros() as u64);
        }
        self.next_occupied_scan(start, max_words)
    }

    fn next_occupied_scan(&self, start: usize, max_words: usize) -> Option<u64> {
        let slots = self.mask + 1;
        let words = self.occupied.len();
        // Scan one revolution starting at `cur`'s slot (the slot itself is empty now).
        // `words` is a power of two (the wheel's slots are): mask, don't divide.
        debug_assert!(words.is_power_of_two());
        for i in 0..=words.min(max_words) {
            let w = (start / 64 + i) & (words - 1);
            let mut bits = self.occupied[w];
            if i == 0 {
                bits &= !0u64 << (start % 64);
            }
            if i == words {
                bits &= !(!0u64 << (start % 64));
            }
            if bits != 0 {
                let slot = (w * 64 + bits.trailing_zeros() as usize) as u64;
                let ahead = (slot + slots - (self.cur & self.mask)) & self.mask;
                return Some(self.cur + ahead);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
