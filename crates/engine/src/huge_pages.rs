//! The allocator of the Python module and the Rust benches: every block in transparent huge
//! pages, small ones from mimalloc, large ones from the system allocator.
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
//! - **Large blocks** come from the system allocator, placed on a 2 MiB boundary and
//!   advised `MADV_HUGEPAGE` when made (where the kernel grants huge pages only on
//!   request, `/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`, as on these
//!   machines); a growing one is copied into a new block, so its pages come as huge ones
//!   when first touched. From mimalloc, a fresh 100,000-host incast set up in 0.42 s instead
//!   of 0.16 s and peaked at 521 MB instead of 384 (each large block new memory from the
//!   kernel, where glibc reuses the ones a set-up frees). Elsewhere (another OS, huge
//!   pages off) only the alignment is left of this.
//!
//! The engine does not install it: a binary opts in with
//! `#[global_allocator] static A: HugePages = HugePages;` (the Python module does).

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

/// Blocks below this come from mimalloc; a huge page of their own would be mostly waste.
const MIN_BYTES: usize = HUGE_PAGE;
const HUGE_PAGE: usize = 2 << 20;

pub struct HugePages;

/// A large block is aligned to a huge page, so each of its 2 MiB is one page (unaligned, a
/// 4 MiB block would hold one whole huge page and two pieces).
fn placed(layout: Layout) -> Layout {
    layout.align_to(HUGE_PAGE).unwrap_or(layout)
}

fn is_large(size: usize) -> bool {
    size >= MIN_BYTES
}

// SAFETY: a block's size decides where it comes from (mimalloc under `MIN_BYTES`, else
// `System` with the layout `placed` gives), and it goes back to the same place with the
// same layout; `advise` only adds a hint about memory the block owns.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !is_large(layout.size()) {
            return MiMalloc.alloc(layout);
        }
        let p = System.alloc(placed(layout));
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !is_large(layout.size()) {
            return MiMalloc.alloc_zeroed(layout);
        }
        let p = System.alloc_zeroed(placed(layout));
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !is_large(layout.size()) {
            return MiMalloc.dealloc(ptr, layout);
        }
        System.dealloc(ptr, placed(layout))
    }

    /// A large block grows by a copy into a new advised block, not in place: pages moved
    /// or kept in place would stay small, and a growing packet pool would keep its first
    /// half in 4 KiB pages.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !is_large(layout.size()) && !is_large(new_size) {
            return MiMalloc.realloc(ptr, layout, new_size);
        }
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let p = self.alloc(new_layout);
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        p
    }
}

/// Asks for huge pages over the 2 MiB pages wholly inside `[p, p + size)`.
fn advise(p: *mut u8, size: usize) {
    if p.is_null() || size < MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = (p as usize).next_multiple_of(HUGE_PAGE);
        let end = (p as usize + size) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: the range lies inside a block this allocator just handed out; the
            // advice changes no contents, and a refusal (huge pages off) is harmless.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

#[cfg(test)]
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
}
