//! The allocator of the Python module and the Rust benches: every block in transparent huge
//! pages, small ones from mimalloc, large ones mapped on their own.
//!
//! A run touches its memory at random, one or two places per packet-hop: the packet pool,
//! the ports and the flows (large blocks), and each sender's scoreboard and buffers, each
//! receiver's, the calendar's buckets (small ones, thousands of them). In 4 KiB pages most
//! of those touches miss the TLB; in 2 MiB pages the same memory is a handful of entries.
//!
//! - **Small blocks** (under `MIN_BYTES`) come from mimalloc, which keeps blocks of one size
//!   together in segments and asks Linux for huge pages on them (its default). glibc's heap
//!   stays in small pages unless the process starts with
//!   `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, which a Python module cannot set.
//! - **Large blocks** are mappings of their own, placed on a 2 MiB boundary and advised
//!   `MADV_HUGEPAGE` when made (where the kernel grants huge pages only on request,
//!   `/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`, as on these machines). A
//!   growing one keeps its pages and gains new ones after them, which a helper thread
//!   faults in ahead of the writes (see `large`). From
//!   mimalloc, a fresh 100,000-host incast set up in 0.42 s instead of 0.16 s and peaked at
//!   521 MB instead of 384. Elsewhere (another OS) every block is mimalloc's.
//!
//! The engine does not install it: a binary opts in with
//! `#[global_allocator] static A: HugePages = HugePages;` (the Python module does).

use std::alloc::{GlobalAlloc, Layout};

use mimalloc::MiMalloc;

/// Blocks below this come from mimalloc; a huge page of their own would be mostly waste.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MIN_BYTES: usize = HUGE_PAGE;
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const HUGE_PAGE: usize = 2 << 20;

pub struct HugePages;

/// Whether a block is a mapping of its own (`large`); every other block is mimalloc's (on
/// other systems, all of them).
#[cfg(target_os = "linux")]
fn is_large(size: usize, align: usize) -> bool {
    size >= MIN_BYTES && align <= HUGE_PAGE
}

// SAFETY: a block's layout decides where it comes from (`is_large`: a mapping of its own,
// else mimalloc), and it goes back to the same place with the same layout; the alignment
// never changes, so in `realloc` the sizes decide.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        #[cfg(target_os = "linux")]
        if is_large(layout.size(), layout.align()) {
            return large::map(large::span(layout.size()));
        }
        MiMalloc.alloc(layout)
    }

    /// A fresh mapping reads as zeros.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        #[cfg(target_os = "linux")]
        if is_large(layout.size(), layout.align()) {
            return large::map(large::span(layout.size()));
        }
        MiMalloc.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        #[cfg(target_os = "linux")]
        if is_large(layout.size(), layout.align()) {
            return large::unmap(ptr, large::span(layout.size()));
        }
        MiMalloc.dealloc(ptr, layout)
    }

    /// A large block grows where its pages are (`large::resize`); a block crossing
    /// `MIN_BYTES` is copied between the two sources.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        #[cfg(target_os = "linux")]
        match (is_large(layout.size(), layout.align()), is_large(new_size, layout.align())) {
            (false, false) => {}
            (true, true) => return large::resize(ptr, large::span(layout.size()), large::span(new_size)),
            _ => {
                let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                let p = self.alloc(new_layout);
                if !p.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                return p;
            }
        }
        MiMalloc.realloc(ptr, layout, new_size)
    }
}

/// Large blocks (Linux): each its own mapping, starting on a huge page and a whole number
/// of huge pages long, advised `MADV_HUGEPAGE`.
///
/// Growing one moves its pages (`mremap`) instead of copying them into a new block: a copy
/// touches every page of the new block for the first time, and on these virtual machines a
/// fresh huge page costs 3-5 ms to fault in (0.3 ms when the kernel still has it from a
/// recent free), so a packet pool or flow table doubling its way up paid for twice its
/// final size in fresh pages, plus the copy. Moved pages stay huge: both ends are aligned.
#[cfg(target_os = "linux")]
mod large {
    use super::HUGE_PAGE;

    /// The mapping's length for a block of `size` bytes.
    pub(super) fn span(size: usize) -> usize {
        size.next_multiple_of(HUGE_PAGE)
    }

    pub(super) unsafe fn unmap(p: *mut u8, len: usize) {
        libc::munmap(p.cast(), len);
    }

    /// The mapping at `p` from `old` to `new` bytes (both from `span`); a shrunk one gives
    /// its tail back.
    pub(super) unsafe fn resize(p: *mut u8, old: usize, new: usize) -> *mut u8 {
        if new < old {
            unmap(p.add(new), old - new);
        }
        if new <= old {
            return p;
        }
        grow(p, old, new)
    }

/// `len` bytes (a multiple of `HUGE_PAGE`) mapped on a huge-page boundary: a mapping one
    /// huge page longer, its unaligned ends given back.
    pub(super) unsafe fn map(len: usize) -> *mut u8 {
        let Some(padded) = len.checked_add(HUGE_PAGE) else { return std::ptr::null_mut() };
        let raw = libc::mmap(
            std::ptr::null_mut(),
            padded,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if raw == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        let raw = raw as usize;
        let start = raw.next_multiple_of(HUGE_PAGE);
        if start > raw {
            libc::munmap(raw as *mut libc::c_void, start - raw);
        }
        let tail = raw + padded - (start + len);
        if tail > 0 {
            libc::munmap((start + len) as *mut libc::c_void, tail);
        }
        // A refusal (huge pages off) is harmless: the block is then in small pages.
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        start as *mut u8
    }

    /// Grows the mapping at `p` from `old` to `new` bytes: in place if the address space
    /// after it is free, else its pages move to the start of a new aligned mapping.
    unsafe fn grow(p: *mut u8, old: usize, new: usize) -> *mut u8 {
        let in_place = libc::mremap(p.cast(), old, new, 0);
        if in_place != libc::MAP_FAILED {
            libc::madvise(p.add(old).cast(), new - old, libc::MADV_HUGEPAGE);
            populate::ask(p as usize + old, new - old);
            return p;
        }
        let q = map(new);
        if q.is_null() {
            return q;
        }
        let flags = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED;
        if libc::mremap(p.cast(), old, old, flags, q) == libc::MAP_FAILED {
            // Not expected; a copy is still correct.
            std::ptr::copy_nonoverlapping(p, q, old);
            libc::munmap(p.cast(), old);
        }
        populate::ask(q as usize + old, new - old);
        q
    }

    /// The pages a block grew by, faulted in on another core.
    ///
    /// A growing block (the packet pool, a flow table) is about to be written page by page
    /// by the run loop, each first write a fault that clears a huge page (on these machines
    /// 0.3 ms, 3-5 ms for memory the kernel had handed back). A helper thread asks the
    /// kernel to fault the new pages in (`MADV_POPULATE_WRITE`, which writes nothing), so a
    /// one-thread run does that work on the otherwise idle core: bench (d), k = 32, +9%,
    /// (f) +45%, for 40-50 MB more peak memory (the doubled block's unused end). The advice
    /// never changes contents; a range unmapped meanwhile fails harmlessly. Asking never
    /// blocks the allocating thread: a request that finds the list busy or full is dropped.
    mod populate {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::{Condvar, Mutex};

        const SLOTS: usize = 16;
        /// Ranges (start, length) waiting, and how many.
        static PENDING: Mutex<([(usize, usize); SLOTS], usize)> = Mutex::new(([(0, 0); SLOTS], 0));
        static WAKE: Condvar = Condvar::new();
        static STARTED: AtomicBool = AtomicBool::new(false);

        pub(super) fn ask(start: usize, len: usize) {
            if !STARTED.swap(true, Ordering::Relaxed) {
                start_helper();
            }
            let Ok(mut q) = PENDING.try_lock() else { return };
            let n = q.1;
            if n < SLOTS {
                q.0[n] = (start, len);
                q.1 = n + 1;
                WAKE.notify_one();
            }
        }

        /// Starts the helper with every signal blocked (a thread inherits its creator's
        /// mask), so a signal sent to the process is never taken on it. Python runs its
        /// handlers on the main thread when that thread sees the signal: one taken here
        /// reached it late, and a SIGTERM that arrived while a child process started was
        /// lost (`tests/test_cleanup.py`). Without the helper (no thread to be had)
        /// requests only pile up and are dropped.
        fn start_helper() {
            // SAFETY: the sets are initialised by `sigfillset` and `pthread_sigmask`
            // before they are read; the caller's mask is put back at once.
            unsafe {
                let (mut all, mut before) = (std::mem::zeroed(), std::mem::zeroed());
                libc::sigfillset(&mut all);
                libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut before);
                let _ = std::thread::Builder::new().name("fanin-populate".into()).spawn(serve);
                libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
            }
        }

        fn serve() {
            loop {
                let (start, len) = {
                    let mut q = PENDING.lock().unwrap_or_else(|e| e.into_inner());
                    while q.1 == 0 {
                        q = WAKE.wait(q).unwrap_or_else(|e| e.into_inner());
                    }
                    q.1 -= 1;
                    q.0[q.1]
                };
                // SAFETY: advice about address space only: it faults pages in without
                // writing them, and fails on a range no longer mapped.
                unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) };
            }
        }
    }
}

// What they check is the mappings, which exist on Linux only.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_keep_their_contents_through_growth() {
        let a = HugePages;
        let small = Layout::from_size_align(1 << 10, 8).unwrap();
        let big = Layout::from_size_align(MIN_BYTES + 12345, 64).unwrap();
        // SAFETY: layouts are non-zero; each block is freed once with its own layout.
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            p.write_bytes(7, small.size());
            let q = a.realloc(p, small, big.size());
            assert!(!q.is_null() && q as usize % 8 == 0);
            assert!((0..small.size()).all(|i| *q.add(i) == 7));
            q.add(big.size() - 1).write(9);
            assert_eq!(q as usize % HUGE_PAGE, 0, "large blocks start on a huge page");
            let r = a.realloc(q, Layout::from_size_align(big.size(), 8).unwrap(), small.size());
            assert!((0..small.size()).all(|i| *r.add(i) == 7));
            let q = a.realloc(r, small, big.size());
            let z = a.alloc_zeroed(big);
            assert!((0..big.size()).step_by(4096).all(|i| *z.add(i) == 0));
            a.dealloc(z, big);
            a.dealloc(q, Layout::from_size_align(big.size(), 8).unwrap());
        }
    }

    /// A large block doubling its way up, as a packet pool does, beside other large blocks
    /// that take the address space after it (so it grows both in place and by moving):
    /// every byte written stays, every block starts on a huge page, and shrinking keeps the
    /// head.
    #[test]
    fn a_growing_large_block_keeps_its_pages() {
        let a = HugePages;
        let mut size = MIN_BYTES;
        let mut p = unsafe { a.alloc(Layout::from_size_align(size, 8).unwrap()) };
        let mut others = Vec::new();
        let mut moved = 0;
        for step in 0..5u8 {
            // SAFETY: `p` holds `size` bytes; each block is freed once with its own layout.
            unsafe {
                (0..size).step_by(4096).for_each(|i| p.add(i).write(step ^ (i >> 12) as u8));
                let other = Layout::from_size_align(MIN_BYTES * (1 + step as usize), 8).unwrap();
                others.push((a.alloc(other), other));
                let q = a.realloc(p, Layout::from_size_align(size, 8).unwrap(), size * 2);
                assert_eq!(q as usize % HUGE_PAGE, 0, "large blocks start on a huge page");
                assert!((0..size).step_by(4096).all(|i| *q.add(i) == step ^ (i >> 12) as u8));
                moved += usize::from(q != p);
                (p, size) = (q, size * 2);
            }
        }
        assert!(moved > 0, "the blocks beside it never made it move");
        // SAFETY: as above.
        unsafe {
            let q = a.realloc(p, Layout::from_size_align(size, 8).unwrap(), MIN_BYTES + 1);
            assert!((0..MIN_BYTES).step_by(4096).all(|i| *q.add(i) == 4 ^ (i >> 12) as u8));
            a.dealloc(q, Layout::from_size_align(MIN_BYTES + 1, 8).unwrap());
            others.into_iter().for_each(|(o, l)| a.dealloc(o, l));
        }
    }

    /// The pages a large block grew by are faulted in by the helper, without a write. A
    /// request that finds the helper's list busy or full is dropped (the allocating thread
    /// never waits), as it may be while other tests grow blocks: so a block that stays cold
    /// is freed and another grown, up to ten times.
    #[test]
    fn the_pages_a_block_grew_by_come_in_on_their_own() {
        let a = HugePages;
        let (small, big) = (MIN_BYTES, 32 * MIN_BYTES);
        let pages = (big - small) / 4096;
        // Grows a block and waits up to 2 s for its new pages: whether they all came in.
        let grown_block_comes_in = || {
            // SAFETY: the block is freed once with its own layout; `mincore` only reads the
            // residency of pages this block owns.
            unsafe {
                let p = a.alloc(Layout::from_size_align(small, 8).unwrap());
                p.write(1);
                let q = a.realloc(p, Layout::from_size_align(small, 8).unwrap(), big);
                let mut resident = vec![0u8; pages];
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
                let mut all_in = false;
                while !all_in && std::time::Instant::now() < deadline {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    libc::mincore(q.add(small).cast(), big - small, resident.as_mut_ptr());
                    all_in = resident.iter().all(|r| r & 1 == 1);
                }
                if all_in {
                    assert!((small..big).step_by(4096).all(|i| *q.add(i) == 0), "populated pages read as zeros");
                    assert_eq!(*q, 1);
                }
                a.dealloc(q, Layout::from_size_align(big, 8).unwrap());
                all_in
            }
        };
        assert!((0..10).any(|_| grown_block_comes_in()), "no grown block's new pages were faulted in without a write, in ten tries");
    }

    /// The helper takes no signal meant for the process (they are the main thread's to
    /// handle): it blocks SIGTERM and SIGINT from its start.
    #[test]
    fn the_populate_helper_blocks_signals() {
        let a = HugePages;
        // SAFETY: the block is freed once with its own layout.
        unsafe {
            let layout = Layout::from_size_align(MIN_BYTES, 8).unwrap();
            let p = a.alloc(layout);
            a.dealloc(a.realloc(p, layout, 2 * MIN_BYTES), Layout::from_size_align(2 * MIN_BYTES, 8).unwrap());
        }
        let helper = std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| t.ok())
            .find(|t| std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "fanin-populate"))
            .expect("the helper thread runs once a large block has grown");
        let status = std::fs::read_to_string(helper.path().join("status")).unwrap();
        let blocked = status.lines().find_map(|l| l.strip_prefix("SigBlk:")).map(|m| u64::from_str_radix(m.trim(), 16).unwrap()).unwrap();
        for signal in [libc::SIGTERM, libc::SIGINT] {
            assert_ne!(blocked & 1 << (signal - 1), 0, "signal {signal} not blocked: {blocked:x}");
        }
    }
}
