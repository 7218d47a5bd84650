//! `[measure]`: the window of flow and incast starts a study measures. Open-loop arrivals
//! go on past it, so the measured flows meet the load they were offered until they end.

use super::fields::Ctx;
use super::spec::MeasureSpec;
use crate::units::Time;
use crate::workload::Workload;
use crate::ScenarioError;

/// Flows and incasts starting in `[from, until)` are measured.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MeasureWindow {
    pub from: Time,
    pub until: Time,
}

impl MeasureWindow {
    pub fn contains(&self, t: Time) -> bool {
        self.from <= t && t < self.until
    }
}

/// The window, checked against the run's end (`duration`, else `max_duration`).
pub fn window(cx: &Ctx, spec: Option<&MeasureSpec>, end: Time) -> Result<Option<MeasureWindow>, ScenarioError> {
    let Some(m) = spec else { return Ok(None) };
    let from = cx.opt_time("from", &m.from)?.ok_or_else(|| cx.err("from", "is required: the measured window is [from, until)"))?;
    let until = cx.opt_time("until", &m.until)?.ok_or_else(|| cx.err("until", "is required: the measured window is [from, until)"))?;
    if until <= from {
        return Err(cx.err("until", "must be after from"));
    }
    if until > end {
        return Err(cx.err("until", "must not be after the run's end (duration, else max_duration)"));
    }
    Ok(Some(MeasureWindow { from, until }))
}

/// Request/response connections carry burst after burst, so a start time does not say
/// which burst a connection's completion belongs to.
pub fn check_workloads(cx: &Ctx, workloads: &[Workload]) -> Result<(), ScenarioError> {
    match workloads.iter().position(|w| matches!(w, Workload::RpcIncast(_))) {
        Some(i) => Err(ScenarioError::new(cx.path.clone(), format!("does not apply with an rpc_incast workload (workload[{i}]): its connections carry several bursts"))),
        None => Ok(()),
    }
}
