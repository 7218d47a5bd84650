//! The `fanin bench` scenarios (all but (e), whose matrix is not shipped) run straight
//! from Rust, for profiling the engine without Python (`cargo test --release --test
//! bench_smoke -- --ignored --nocapture`, or under perf / callgrind). They print speed and
//! assert nothing about it: timings are not tests.
mod common;

// As in the Python module, so profiles here see the same memory.
#[global_allocator]
static ALLOC: fanin_engine::huge_pages::HugePages = fanin_engine::huge_pages::HugePages;

fn run_bench(file: &str) {
    let path = format!("{}/../../python/fanin/bench/{file}", env!("CARGO_MANIFEST_DIR"));
    let toml = std::fs::read_to_string(&path).unwrap();
    let r = common::run(&toml);
    let wall = r.scalar("wall_s").unwrap();
    let hops = r.scalar("packet_hops").unwrap();
    let events = r.scalar("events").unwrap();
    println!("{file}: {events} events, {hops} packet-hops, {wall:.3} s: Mhops/s {:.2} Mev/s {:.2}", hops / wall / 1e6, events / wall / 1e6);
}

#[test]
#[ignore]
fn bench_a() {
    run_bench("a_incast64.toml");
}

#[test]
#[ignore]
fn bench_b() {
    run_bench("b_fattree8.toml");
}

#[test]
#[ignore]
fn bench_c() {
    run_bench("c_fattree16.toml");
}

#[test]
#[ignore]
fn bench_d() {
    run_bench("d_fattree32.toml");
}

#[test]
#[ignore]
fn bench_f() {
    run_bench("f_incast100k.toml");
}
