//! How much memory this machine serves fast, for reading bench speeds across machines
//! (docs/performance.md, "k = 32 against k = 16: how much this machine keeps close"):
//! `cargo test --release --test memory_probe -- --ignored --nocapture`.
//!
//! A random walk over buffers of 2 MB to 256 MB, through every 64-byte line of them or
//! through one line per 4 KiB page, in nanoseconds per step. Each step's address is read
//! in the step before, so no two misses overlap: a step costs the latency of wherever its
//! line is (L2, L3, memory), plus a page walk when the TLB does not hold its page. The
//! buffers are in transparent huge pages, as the engine's large blocks are.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::time::Instant;

const LINE: usize = 64;
const PAGE: usize = 4096;
const HUGE_PAGE: usize = 2 << 20;

/// A buffer whose visited lines each hold the offset of the next one, in one cycle.
struct Walk {
    buf: *mut u8,
    layout: Layout,
    start: usize,
}

impl Walk {
    /// One visited line every `spacing` bytes of `bytes`, shuffled, each linked to the next
    /// and the last to the first: one cycle, so a walk of any length never settles in a
    /// loop smaller than the buffer.
    fn new(bytes: usize, spacing: usize, seed: u64) -> Walk {
        let layout = Layout::from_size_align(bytes, HUGE_PAGE).unwrap();
        // SAFETY: a non-zero size; freed in `drop` with the same layout.
        let buf = unsafe { alloc_zeroed(layout) };
        assert!(!buf.is_null());
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
        Walk { buf, layout, start: order[0] }
    }

    /// Takes `steps` steps from the start; returns where it ended.
    fn steps(&self, steps: usize) -> usize {
        let mut at = self.start;
        for _ in 0..steps {
            // SAFETY: every offset in the cycle is a line inside the buffer.
            at = unsafe { self.buf.add(at).cast::<usize>().read_volatile() };
        }
        at
    }

    /// The line after `at`.
    fn steps_from(&self, at: usize) -> usize {
        // SAFETY: as in `steps`.
        unsafe { self.buf.add(at).cast::<usize>().read() }
    }

    fn ns_per_step(&self, lines: usize) -> f64 {
        self.steps(2 * lines); // every visited line in cache or memory as the walk leaves it
        let steps = 20_000_000;
        let t = Instant::now();
        std::hint::black_box(self.steps(steps));
        t.elapsed().as_secs_f64() * 1e9 / steps as f64
    }
}

impl Drop for Walk {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.buf, self.layout) };
    }
}

#[test]
fn the_walk_is_one_cycle_through_every_visited_line() {
    for spacing in [LINE, PAGE] {
        let w = Walk::new(HUGE_PAGE, spacing, 7);
        let lines = HUGE_PAGE / spacing;
        let mut at = w.start;
        let mut seen = vec![false; lines];
        for _ in 0..lines {
            assert!(!seen[at / spacing], "line {at} visited twice before the cycle closed");
            seen[at / spacing] = true;
            at = w.steps_from(at);
        }
        assert_eq!(at, w.start, "the cycle closes after every line");
        assert_eq!(w.steps(lines), w.start);
    }
}

#[test]
#[ignore]
fn latency_by_working_set() {
    println!("{:>8} {:>14} {:>16}", "MB", "every line ns", "a line a page ns");
    for mb in [2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128, 256] {
        let bytes = mb << 20;
        let every = Walk::new(bytes, LINE, 1).ns_per_step(bytes / LINE);
        let paged = Walk::new(bytes, PAGE, 1).ns_per_step(bytes / PAGE);
        println!("{mb:>8} {every:>14.1} {paged:>16.1}");
    }
}
