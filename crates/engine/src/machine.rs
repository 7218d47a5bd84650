//! What the machine under a run serves fast, so that bench speeds taken on different
//! machines, or on one virtual machine at different hours, can be read side by side
//! (docs/performance.md, "The machine moved"). Nothing here touches a simulation.
//!
//! - [`walk_ns`]: a random walk through every 64-byte line of a buffer (or one line per
//!   4 KiB page), each step's address read in the step before, so no two misses overlap:
//!   a step costs the latency of wherever its line is (L2, L3, memory), plus a page walk
//!   when the TLB does not hold its page. The buffer is in transparent huge pages, as the
//!   engine's large blocks are.
//! - [`fresh_huge_page_ms`]: the first touch of a huge page of fresh memory, which a
//!   virtual machine whose host takes free memory back pays many times over.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::time::Instant;

/// A cache line, the walk's step.
pub const LINE: usize = 64;
/// A small page: a walk of one line per page misses the TLB as a full walk would.
pub const PAGE: usize = 4096;
const HUGE_PAGE: usize = 2 << 20;

/// A buffer whose visited lines each hold the offset of the next one, in one cycle.
pub struct Walk {
    buf: *mut u8,
    layout: Layout,
    start: usize,
    lines: usize,
}

impl Walk {
    /// One visited line every `spacing` bytes of `bytes` (at least one huge page), shuffled
    /// by `seed`, each linked to the next and the last to the first: one cycle, so a walk
    /// of any length never settles in a loop smaller than the buffer.
    pub fn new(bytes: usize, spacing: usize, seed: u64) -> Walk {
        assert!(spacing >= LINE && spacing.is_power_of_two(), "a spacing of whole lines");
        let bytes = bytes.max(HUGE_PAGE).next_multiple_of(HUGE_PAGE);
        let layout = Layout::from_size_align(bytes, HUGE_PAGE).expect("a huge page's alignment");
        // SAFETY: a non-zero size; freed in `drop` with the same layout.
        let buf = unsafe { alloc_zeroed(layout) };
        assert!(!buf.is_null(), "out of memory for a {bytes}-byte walk");
        #[cfg(target_os = "linux")]
        // SAFETY: advice on memory this walk owns; a refusal only leaves small pages.
        unsafe {
            libc::madvise(buf.cast(), bytes, libc::MADV_HUGEPAGE);
        }
        let mut order: Vec<usize> = (0..bytes / spacing).map(|i| i * spacing).collect();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.gen_range(0..=i));
        }
        for (i, &at) in order.iter().enumerate() {
            let next = order[(i + 1) % order.len()];
            // SAFETY: `at` is a line inside the buffer, aligned for a `usize`.
            unsafe { buf.add(at).cast::<usize>().write(next) };
        }
        Walk { buf, layout, start: order[0], lines: order.len() }
    }

    /// Where the cycle starts, and how many lines it visits.
    pub fn start(&self) -> usize {
        self.start
    }

    pub fn lines(&self) -> usize {
        self.lines
    }

    /// Takes `steps` steps from the start; returns where it ended.
    pub fn steps(&self, steps: usize) -> usize {
        let mut at = self.start;
        for _ in 0..steps {
            // SAFETY: every offset in the cycle is a line inside the buffer.
            at = unsafe { self.buf.add(at).cast::<usize>().read_volatile() };
        }
        at
    }

    /// The line after `at`, which must be a line of the cycle.
    pub fn next(&self, at: usize) -> usize {
        assert!(at < self.layout.size() && at.is_multiple_of(LINE), "{at} is not a line of the walk");
        // SAFETY: a line inside the buffer, aligned for a `usize`.
        unsafe { self.buf.add(at).cast::<usize>().read() }
    }

    /// Nanoseconds a step, over `steps` steps after a pass through every line twice (so
    /// each is wherever the walk leaves it: in cache or in memory).
    pub fn ns_per_step(&self, steps: usize) -> f64 {
        self.steps(2 * self.lines);
        let t = Instant::now();
        std::hint::black_box(self.steps(steps));
        t.elapsed().as_secs_f64() * 1e9 / steps.max(1) as f64
    }
}

impl Drop for Walk {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.buf, self.layout) };
    }
}

/// Nanoseconds a step of a walk through every line of `bytes` (`steps` steps timed).
pub fn walk_ns(bytes: usize, steps: usize) -> f64 {
    Walk::new(bytes, LINE, 1).ns_per_step(steps)
}

/// Milliseconds the first write to each huge page of a fresh `bytes`-byte mapping takes,
/// on average (the kernel clears the page; a virtual machine's host may first have to
/// back it). `None` where the system has no such mapping (not Linux, or refused).
pub fn fresh_huge_page_ms(bytes: usize) -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let bytes = bytes.max(HUGE_PAGE).next_multiple_of(HUGE_PAGE);
        // A mapping of our own, not the allocator's: its large blocks may be faulted in
        // ahead by a helper thread, which would hide what this measures. One huge page
        // more, so the touched ones can start on a huge page boundary.
        let len = bytes + HUGE_PAGE;
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        // SAFETY: a fresh anonymous mapping, unmapped below; nothing else refers to it.
        unsafe {
            let map = libc::mmap(std::ptr::null_mut(), len, prot, flags, -1, 0);
            if map == libc::MAP_FAILED {
                return None;
            }
            libc::madvise(map, len, libc::MADV_HUGEPAGE);
            let first = (map as usize).next_multiple_of(HUGE_PAGE) as *mut u8;
            let t = Instant::now();
            for page in 0..bytes / HUGE_PAGE {
                first.add(page * HUGE_PAGE).write_volatile(1);
            }
            let ms = t.elapsed().as_secs_f64() * 1e3 / (bytes / HUGE_PAGE) as f64;
            libc::munmap(map, len);
            Some(ms)
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = bytes;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_is_one_cycle_through_every_visited_line() {
        for spacing in [LINE, PAGE] {
            let w = Walk::new(HUGE_PAGE, spacing, 7);
            assert_eq!(w.lines(), HUGE_PAGE / spacing);
            let mut at = w.start();
            let mut seen = vec![false; w.lines()];
            for _ in 0..w.lines() {
                assert!(!seen[at / spacing], "line {at} visited twice before the cycle closed");
                seen[at / spacing] = true;
                at = w.next(at);
            }
            assert_eq!(at, w.start(), "the cycle closes after every line");
            assert_eq!(w.steps(w.lines()), w.start());
        }
    }

    #[test]
    fn a_walk_is_never_smaller_than_a_huge_page() {
        let w = Walk::new(1000, LINE, 3);
        assert_eq!(w.lines(), HUGE_PAGE / LINE);
        assert_eq!(w.steps(w.lines()), w.start());
    }

    #[test]
    fn the_probes_give_positive_finite_figures() {
        let ns = walk_ns(HUGE_PAGE, 1000);
        assert!(ns.is_finite() && ns > 0.0, "{ns}");
        if let Some(ms) = fresh_huge_page_ms(4 << 20) {
            assert!(ms.is_finite() && ms >= 0.0, "{ms}");
        }
    }
}
