//! Traffic-matrix helpers for `fanin.workloads`: read a `.cm` file's text and draw the
//! `mixed_poisson` generator's flows outside a run (to write them as a `.cm`).

use fanin_engine::ids::HostId;
use fanin_engine::workload::{matrix, Cdf, MixedPoissonSpec};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Parses `.cm` text; returns `{"src", "dst", "id", "start_ps", "size_bytes"}` as lists.
/// A malformed file raises `ValueError("line N, field `F`: ...")`.
#[pyfunction]
pub fn parse_cm<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let flows = matrix::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let out = PyDict::new(py);
    out.set_item("src", flows.iter().map(|f| f.src).collect::<Vec<_>>())?;
    out.set_item("dst", flows.iter().map(|f| f.dst).collect::<Vec<_>>())?;
    out.set_item("id", flows.iter().map(|f| f.id).collect::<Vec<_>>())?;
    out.set_item("start_ps", flows.iter().map(|f| f.start_ps).collect::<Vec<_>>())?;
    out.set_item("size_bytes", flows.iter().map(|f| f.size_bytes).collect::<Vec<_>>())?;
    Ok(out)
}

/// `.cm` text for flows given as parallel lists (ids 1, 2, ... in order).
#[pyfunction]
pub fn format_cm(nodes: usize, src: Vec<u32>, dst: Vec<u32>, start_ps: Vec<u64>, size_bytes: Vec<u64>) -> PyResult<String> {
    let n = src.len();
    if dst.len() != n || start_ps.len() != n || size_bytes.len() != n {
        return Err(PyValueError::new_err("src, dst, start_ps and size_bytes must have the same length"));
    }
    let flows: Vec<_> = (0..n).map(|i| (src[i], dst[i], start_ps[i], size_bytes[i])).collect();
    Ok(matrix::to_text(nodes, &flows))
}

/// The `mixed_poisson` workload's flows, as `[[workload]]` number `index` of a run with
/// `seed` would draw them: `dc_of` gives each host's datacenter, `nic_bps` each host's rate.
#[pyfunction]
#[pyo3(signature = (dc_of, nic_bps, load, intra_fraction, intra_cdf, inter_cdf, flows, seed, index=0, start_ps=0))]
#[allow(clippy::too_many_arguments)]
pub fn mixed_poisson<'py>(
    py: Python<'py>,
    dc_of: Vec<u32>,
    nic_bps: u64,
    load: f64,
    intra_fraction: f64,
    intra_cdf: &str,
    inter_cdf: &str,
    flows: usize,
    seed: u64,
    index: usize,
    start_ps: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let cdf = |what: &str, text: &str| Cdf::parse(text, None).map_err(|e| PyValueError::new_err(format!("{what} CDF {e}")));
    let spec = MixedPoissonSpec {
        hosts: (0..dc_of.len() as u32).map(HostId).collect(),
        nic_bps: vec![nic_bps; dc_of.len()],
        dc_of,
        load,
        intra_fraction,
        intra_sizes: cdf("intra", intra_cdf)?,
        inter_sizes: cdf("inter", inter_cdf)?,
        flows,
        start: start_ps,
    };
    let drawn = py.allow_threads(|| spec.flows_for(seed, index));
    let out = PyDict::new(py);
    out.set_item("src", drawn.iter().map(|f| f.src.0).collect::<Vec<_>>())?;
    out.set_item("dst", drawn.iter().map(|f| f.dst.0).collect::<Vec<_>>())?;
    out.set_item("start_ps", drawn.iter().map(|f| f.start).collect::<Vec<_>>())?;
    out.set_item("size_bytes", drawn.iter().map(|f| f.bytes).collect::<Vec<_>>())?;
    Ok(out)
}
