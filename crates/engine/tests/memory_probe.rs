//! How much memory this machine serves fast, for reading bench speeds across machines
//! (docs/performance.md, "k = 32 against k = 16: how much this machine keeps close" and
//! "The machine moved"): `cargo test --release --test memory_probe -- --ignored --nocapture`.
//!
//! Walks (`fanin_engine::machine::Walk`) over buffers of 2 MB to 256 MB, through every
//! 64-byte line of them or through one line per 4 KiB page, in nanoseconds per step; then
//! the first touch of a fresh huge page. `fanin bench` prints three of these figures.

use fanin_engine::machine::{fresh_huge_page_ms, Walk, LINE, PAGE};

#[test]
#[ignore]
fn latency_by_working_set() {
    println!("{:>8} {:>14} {:>16}", "MB", "every line ns", "a line a page ns");
    for mb in [2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 128, 256] {
        let bytes = mb << 20;
        let every = Walk::new(bytes, LINE, 1).ns_per_step(20_000_000);
        let paged = Walk::new(bytes, PAGE, 1).ns_per_step(20_000_000);
        println!("{mb:>8} {every:>14.1} {paged:>16.1}");
    }
    match fresh_huge_page_ms(256 << 20) {
        Some(ms) => println!("a fresh huge page, first touch: {ms:.2} ms"),
        None => println!("a fresh huge page: not measured here"),
    }
}
