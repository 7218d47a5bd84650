//! `fanin._native`: the thin PyO3 layer between the engine and the `fanin` Python package.
//!
//! It parses a scenario (resolving the files it names against search directories handed in
//! from Python), runs it with the GIL released in chunks of simulated time, and hands the
//! result tables back as raw little-endian column buffers that Python wraps without copying
//! row by row. A user's mistake becomes `ScenarioError(message_line, path, allowed)`; an
//! engine panic becomes `RuntimeError("internal error: ...; please report")`, never a Rust
//! panic trace.

mod workloads;

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant};

use fanin_engine::{parse_scenario, Column, Results, ScenarioError as EngineError, Simulation, Table};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

// Every block in huge pages, small ones from mimalloc: fewer TLB misses (k = 16 and k = 32
// fat-trees about 20% faster than with glibc's small blocks; docs/performance.md, "The
// allocator").
#[global_allocator]
static ALLOC: fanin_engine::huge_pages::HugePages = fanin_engine::huge_pages::HugePages;

create_exception!(
    fanin._native,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be run. args = (message_line, path, allowed)."
);

/// Simulated time per chunk when the caller passes 0 and the run has no known horizon.
const DEFAULT_CHUNK_PS: u64 = 100_000_000; // 100 us
/// With a known horizon and `progress_every_ps == 0`, report about this many times ...
const AUTO_CHUNKS: u64 = 200;
/// ... but at least once per simulated millisecond, so Ctrl-C is never far away.
const MAX_AUTO_CHUNK_PS: u64 = 1_000_000_000;
/// Chunks of a partitioned run (issue 23): 10 ms, 20 windows of Uno's 886.5 us WAN.
const PARTITIONED_MIN_CHUNK_PS: u64 = 10_000_000_000;
/// Finished flows' rows handed out at a time by a streaming run (about 17 MB as a table).
const STREAM_ROWS: usize = 1 << 17;

fn scenario_error(e: &EngineError) -> PyErr {
    ScenarioError::new_err((e.to_string(), e.path.clone(), e.allowed.clone()))
}

// ---------------------------------------------------------------- panics

thread_local! {
    /// True while this thread runs engine code; the panic hook then records instead of printing.
    static IN_ENGINE: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that, for panics raised inside [`guarded`] on the current
/// thread, records "message at file:line" instead of printing a trace; any other panic goes
/// to the previous hook unchanged.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if IN_ENGINE.with(Cell::get) {
                let msg = payload_text(info.payload());
                let text = match info.location() {
                    Some(l) => format!("{msg} at {}:{}", l.file(), l.line()),
                    None => msg,
                };
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
            } else {
                previous(info);
            }
        }));
    });
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-text payload".to_string()
    }
}

/// The engine failed an internal invariant: not the user's fault.
#[derive(Debug)]
struct InternalError(String);

impl From<InternalError> for PyErr {
    fn from(e: InternalError) -> PyErr {
        PyRuntimeError::new_err(format!("internal error: {}; please report", e.0))
    }
}

/// Runs engine code, turning a panic into an [`InternalError`].
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, InternalError> {
    IN_ENGINE.with(|c| c.set(true));
    let out = panic::catch_unwind(AssertUnwindSafe(f));
    IN_ENGINE.with(|c| c.set(false));
    out.map_err(|payload| {
        let recorded = LAST_PANIC.with(|p| p.borrow_mut().take());
        InternalError(recorded.unwrap_or_else(|| payload_text(payload.as_ref())))
    })
}

// ---------------------------------------------------------------- files

/// Reads a file the scenario names, only from inside `search_dirs` (the scenario's folder, the
/// user's data folders, fanin's data): a relative name in the first folder that holds it, an
/// absolute one if it lies inside one of them. Symlinks and `..` are followed before the
/// check, so neither leads out. (Python resolves and checks the names first and says which
/// field is at fault; this keeps the engine from opening anything else whatever it is given.)
fn load_file(search_dirs: &[String], name: &str) -> Result<String, String> {
    let roots: Vec<PathBuf> = search_dirs.iter().filter_map(|d| Path::new(d).canonicalize().ok()).collect();
    let inside = |p: &Path| p.canonicalize().ok().filter(|real| real.is_file() && roots.iter().any(|r| real.starts_with(r)));
    let path = Path::new(name);
    let found = if path.is_absolute() {
        inside(path)
    } else {
        search_dirs.iter().find_map(|dir| inside(&Path::new(dir).join(path)))
    };
    match found {
        Some(real) => std::fs::read_to_string(&real).map_err(|e| format!("{}: {e}", real.display())),
        None => Err(format!("not found in: {}", search_dirs.join(", "))),
    }
}

/// Parses and builds a scenario (building catches errors that need the topology, such as a
/// port name that does not exist).
fn build(
    toml: &str,
    search_dirs: &[String],
    memory_limit: Option<u64>,
    threads: usize,
) -> Result<Result<(String, u64, Simulation), EngineError>, InternalError> {
    guarded(|| {
        let spec = parse_scenario(toml, &|name: &str| load_file(search_dirs, name))?;
        if let Some(limit) = memory_limit {
            fanin_engine::sim::memory::check(&spec, limit).map_err(|mut e| {
                e.message.push_str(" (FANIN_MEMORY_LIMIT or memory_limit= sets it)");
                e
            })?;
        }
        let sim = Simulation::with_threads(&spec, threads)?;
        Ok((spec.name.clone(), spec.seed, sim))
    })
}

// ---------------------------------------------------------------- functions

/// Checks a scenario; returns `{"name": str, "seed": int}` or raises `ScenarioError`. With
/// `memory_limit` (bytes), a scenario estimated to need more is refused before it is built.
#[pyfunction]
#[pyo3(signature = (toml, search_dirs, memory_limit=None))]
fn validate<'py>(
    py: Python<'py>,
    toml: &str,
    search_dirs: Vec<String>,
    memory_limit: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let built =
        py.allow_threads(|| build(toml, &search_dirs, memory_limit, 1).map(|r| r.map(|(n, s, _sim)| (n, s))))?;
    let (name, seed) = built.map_err(|e| scenario_error(&e))?;
    let out = PyDict::new(py);
    out.set_item("name", name)?;
    out.set_item("seed", seed)?;
    Ok(out)
}

/// Runs a scenario with the GIL released, `progress_every_ps` of simulated time at a time
/// (0: about 200 chunks over a known horizon, at most 1 ms each; 100 us without a horizon).
/// The summary gains `wall_s` (seconds spent in the run loop, unless the engine reports it)
/// and `setup_wall_s` (parsing and building). Between chunks it calls
/// `progress(now_ps, horizon_ps)` and checks for Ctrl-C. Returns `(tables, summary)`.
/// `memory_limit` as in `validate`. `threads` (at least 1; 1 runs one world): a `multi_dc` run is cut per
/// datacenter and its partitions run on up to that many threads, with the same results for
/// every number; a run that cannot be cut warns (`UserWarning`) when more than one is asked.
///
/// `on_flows(columns)`: a scenario with `[record] flows = "stream"` hands the rows of its
/// finished flows to it, `flow_rows` at a time, as the run goes (`columns` as one table of
/// `tables`); the final `flows` table then holds only the flows left at the end.
#[pyfunction]
#[pyo3(signature = (toml, search_dirs, progress=None, progress_every_ps=0, memory_limit=None, threads=1, on_flows=None, flow_rows=STREAM_ROWS))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    toml: &str,
    search_dirs: Vec<String>,
    progress: Option<Bound<'py, PyAny>>,
    progress_every_ps: u64,
    memory_limit: Option<u64>,
    threads: usize,
    on_flows: Option<Bound<'py, PyAny>>,
    flow_rows: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    let setup = Instant::now();
    let built = py.allow_threads(|| build(toml, &search_dirs, memory_limit, threads))?;
    let (_name, _seed, mut sim) = built.map_err(|e| scenario_error(&e))?;
    if let Some(why) = sim.whole_because() {
        let msg = std::ffi::CString::new(format!("threads={threads}: this run is not partitioned ({why}); it runs on one thread"))
            .expect("no NUL in the message");
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &msg, 1)?;
    }
    let setup_wall = setup.elapsed();
    let mut run_wall = Duration::ZERO;
    let horizon = sim.horizon_ps();
    let chunk = match (progress_every_ps, horizon) {
        (0, Some(h)) if h > 0 => h.div_ceil(AUTO_CHUNKS).min(MAX_AUTO_CHUNK_PS),
        (0, _) => DEFAULT_CHUNK_PS,
        (c, _) => c,
    };
    // Every chunk's end is a barrier for a partitioned run's threads: no shorter than a few
    // of its windows, or the chunks, not the windows, would set how evenly they share work.
    let chunk = if sim.partitions() > 1 { chunk.max(PARTITIONED_MIN_CHUNK_PS) } else { chunk };
    let stream = on_flows.as_ref().filter(|_| sim.streams_flows());
    let streaming = stream.is_some();
    if streaming {
        sim.hand_out_flows_every(flow_rows);
    }
    let mut target = 0u64;
    loop {
        // A return to hand out rows comes before the target: the same target again.
        if sim.now_ps() >= target {
            target = target.saturating_add(chunk);
        }
        let (done, now, took, rows) = py.allow_threads(|| {
            guarded(|| {
                let t0 = Instant::now();
                let done = sim.run_until(target);
                let took = t0.elapsed();
                let rows = if streaming { sim.take_flow_rows() } else { None };
                (done, sim.now_ps(), took, rows)
            })
        })?;
        run_wall += took;
        if let (Some(cb), Some(rows)) = (stream, rows) {
            cb.call1((table_to_py(py, &rows)?,))?;
        }
        if let Some(cb) = &progress {
            cb.call1((now, horizon))?;
        }
        py.check_signals()?;
        if done {
            break;
        }
    }
    let mut results = py.allow_threads(|| guarded(move || sim.finish()))?;
    // The flows left at the end are the stream's last chunk.
    if let Some(cb) = stream {
        if let Some(i) = results.tables.iter().position(|t| t.name == "flows") {
            cb.call1((table_to_py(py, &results.tables.remove(i))?,))?;
        }
    }
    let tables = tables_to_py(py, &results)?;
    let summary = PyDict::new(py);
    for (name, value) in &results.summary {
        summary.set_item(name, *value)?;
    }
    // Wall-clock time of the run loop alone (not parsing, building or collecting results),
    // unless the engine measured it itself; and of parsing + building.
    if !summary.contains("wall_s")? {
        summary.set_item("wall_s", run_wall.as_secs_f64())?;
    }
    summary.set_item("setup_wall_s", setup_wall.as_secs_f64())?;
    PyTuple::new(py, [tables.into_any(), summary.into_any()])
}

/// The version of the native module (the crate's version).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Nanoseconds a step of a random walk through every line of `bytes` (`steps` timed), and
/// milliseconds the first touch of a fresh huge page takes (`None` where not measured):
/// the machine beside `fanin bench`'s figures (`fanin_engine::machine`).
#[pyfunction]
fn machine_walk_ns(py: Python<'_>, bytes: usize, steps: usize) -> f64 {
    py.allow_threads(|| fanin_engine::machine::walk_ns(bytes, steps))
}

#[pyfunction]
fn machine_fresh_huge_page_ms(py: Python<'_>, bytes: usize) -> Option<f64> {
    py.allow_threads(|| fanin_engine::machine::fresh_huge_page_ms(bytes))
}

// ---------------------------------------------------------------- columns

/// `{table: [(column, dtype, data), ...]}`; dtype is one of u8, i8, u4, f8, bool, str, str64,
/// u8?, f8? (`python/fanin/_native.pyi`).
fn tables_to_py<'py>(py: Python<'py>, results: &Results) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for table in &results.tables {
        out.set_item(&table.name, table_to_py(py, table)?)?;
    }
    Ok(out)
}

/// `[(column, dtype, data), ...]`
fn table_to_py<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyList>> {
    let cols = PyList::empty(py);
    for (name, column) in &table.columns {
        let (dtype, data) = column_to_py(py, column)?;
        cols.append((name.as_str(), dtype, data))?;
    }
    Ok(cols)
}

fn le_bytes<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = PyBytes::new_with(py, values.len() * N, |buf| {
        for (dst, v) in buf.chunks_exact_mut(N).zip(values) {
            dst.copy_from_slice(&to_le(*v));
        }
        Ok(())
    })?;
    Ok(bytes.into_any())
}

fn nullable<'py, T: Copy + Default, const N: usize>(
    py: Python<'py>,
    values: &[Option<T>],
    to_le: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = PyBytes::new_with(py, values.len() * (N + 1), |buf| {
        let (data, valid) = buf.split_at_mut(values.len() * N);
        for ((dst, ok), v) in data.chunks_exact_mut(N).zip(valid.iter_mut()).zip(values) {
            dst.copy_from_slice(&to_le(v.unwrap_or_default()));
            *ok = u8::from(v.is_some());
        }
        Ok(())
    })?;
    Ok(bytes.into_any())
}

/// Strings in Arrow's layout, `(offsets, utf8)`: row i is `utf8[offsets[i]..offsets[i + 1]]`,
/// the offsets little-endian i32 ("str") or, past 2 GiB of text, i64 ("str64"). Python
/// wraps the two buffers as they are, so no row becomes a Python object.
fn strings<'py>(py: Python<'py>, values: &[String]) -> PyResult<(&'static str, Bound<'py, PyAny>)> {
    let total: usize = values.iter().map(String::len).sum();
    let utf8 = PyBytes::new_with(py, total, |buf| {
        let mut at = 0;
        for v in values {
            buf[at..at + v.len()].copy_from_slice(v.as_bytes());
            at += v.len();
        }
        Ok(())
    })?;
    let ends = std::iter::once(0).chain(values.iter().scan(0u64, |end, v| {
        *end += v.len() as u64;
        Some(*end)
    }));
    let (dtype, offsets) = match i32::try_from(total) {
        Ok(_) => ("str", le_bytes(py, &ends.map(|e| e as i32).collect::<Vec<_>>(), i32::to_le_bytes)?),
        Err(_) => ("str64", le_bytes(py, &ends.map(|e| e as i64).collect::<Vec<_>>(), i64::to_le_bytes)?),
    };
    Ok((dtype, (offsets, utf8).into_pyobject(py)?.into_any()))
}

fn column_to_py<'py>(
    py: Python<'py>,
    column: &Column,
) -> PyResult<(&'static str, Bound<'py, PyAny>)> {
    Ok(match column {
        Column::U64(v) => ("u8", le_bytes(py, v, u64::to_le_bytes)?),
        Column::I64(v) => ("i8", le_bytes(py, v, i64::to_le_bytes)?),
        Column::U32(v) => ("u4", le_bytes(py, v, u32::to_le_bytes)?),
        Column::F64(v) => ("f8", le_bytes(py, v, f64::to_le_bytes)?),
        Column::Bool(v) => ("bool", le_bytes(py, v, |b| [u8::from(b)])?),
        Column::Str(v) => strings(py, v)?,
        // Values (0 where missing) then one validity byte per row.
        Column::OptU64(v) => ("u8?", nullable(py, v, u64::to_le_bytes)?),
        Column::OptF64(v) => ("f8?", nullable(py, v, f64::to_le_bytes)?),
    })
}

/// Quantities in the scenario files' grammar, for the Python side (one grammar, here):
/// raise `ValueError` naming the accepted units.
fn unit_value(parsed: Result<u64, fanin_engine::units::UnitError>) -> PyResult<u64> {
    parsed.map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// A size ("8GB", "64KiB", "1500B") in bytes.
#[pyfunction]
fn parse_bytes(text: &str) -> PyResult<u64> {
    unit_value(fanin_engine::units::parse_bytes(text))
}

/// A time ("1.5ms", "200us") in picoseconds.
#[pyfunction]
fn parse_time(text: &str) -> PyResult<u64> {
    unit_value(fanin_engine::units::parse_time(text))
}

/// A rate ("10Gbps", "25G") in bits per second.
#[pyfunction]
fn parse_rate(text: &str) -> PyResult<u64> {
    unit_value(fanin_engine::units::parse_rate(text))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(machine_walk_ns, m)?)?;
    m.add_function(wrap_pyfunction!(machine_fresh_huge_page_ms, m)?)?;
    for f in [wrap_pyfunction!(parse_bytes, m)?, wrap_pyfunction!(parse_time, m)?, wrap_pyfunction!(parse_rate, m)?] {
        m.add_function(f)?;
    }
    for f in [wrap_pyfunction!(workloads::parse_cm, m)?, wrap_pyfunction!(workloads::format_cm, m)?, wrap_pyfunction!(workloads::mixed_poisson, m)?] {
        m.add_function(f)?;
    }
    Ok(())
}
