//! The `flows` table's rows, and the rows of flows a streaming run has retired
//! (`[record] flows = "stream"`): kept as 112-byte rows until the caller takes them, not as
//! the flow's state (1,032 bytes plus its buffers).

use super::flow::{Flow, NEVER, NO_HOST, NO_INCAST};
use crate::ids::FlowId;
use crate::metrics::table::{Column, Table};
use crate::units::Time;

/// What the `flows` table says about one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowRow {
    pub id: FlowId,
    pub src: u32,
    pub dst: u32,
    /// `u64::MAX`: a flow without an end.
    pub size: u64,
    pub start: Time,
    pub recv_done: Time,
    pub finish: Time,
    pub ideal_fct: Time,
    pub bytes_acked: u64,
    pub retx_bytes: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub nacks: u64,
    pub nacks_sent: u64,
    pub via: u32,
    pub incast: u32,
    pub measured: bool,
}

const _: () = assert!(std::mem::size_of::<FlowRow>() == 112);

impl FlowRow {
    pub fn of(id: FlowId, f: &Flow, measured: bool) -> FlowRow {
        FlowRow {
            id,
            src: f.src.0,
            dst: f.dst.0,
            size: f.size,
            start: f.start,
            recv_done: f.recv_done,
            finish: f.finish,
            ideal_fct: f.ideal_fct,
            bytes_acked: f.sender.snd_una,
            retx_bytes: f.sender.retx_bytes,
            timeouts: f.sender.timeouts,
            fast_recoveries: f.sender.fast_recoveries,
            nacks: f.sender.nacks,
            nacks_sent: f.nacks_sent,
            via: f.via.0,
            incast: f.incast,
            measured,
        }
    }

    fn finished(&self) -> bool {
        self.finish != NEVER
    }

    fn fct(&self) -> Option<Time> {
        self.finished().then(|| self.finish - self.start)
    }
}

/// A time, or null for one that never came.
fn known(t: u64) -> Option<u64> {
    (t != NEVER).then_some(t)
}

/// The `flows` table of `rows`. `names`: the hosts' names by host number.
pub fn flows_table(rows: &[FlowRow], names: &[String]) -> Table {
    let col_u64 = |g: &dyn Fn(&FlowRow) -> u64| Column::U64(rows.iter().map(g).collect());
    let opt_u64 = |g: &dyn Fn(&FlowRow) -> Option<u64>| Column::OptU64(rows.iter().map(g).collect());
    let i64_or_none = |v: u32, none: u32| if v == none { -1 } else { v as i64 };
    let mut t = Table::new("flows");
    t.push("flow_id", col_u64(&|x| x.id.0 as u64))
        .push("src", Column::U32(rows.iter().map(|x| x.src).collect()))
        .push("dst", Column::U32(rows.iter().map(|x| x.dst).collect()))
        .push("src_name", Column::Str(rows.iter().map(|x| names[x.src as usize].clone()).collect()))
        .push("dst_name", Column::Str(rows.iter().map(|x| names[x.dst as usize].clone()).collect()))
        // A flow without an end (a long-running flow) has no size.
        .push("size_bytes", opt_u64(&|x| (x.size != u64::MAX).then_some(x.size)))
        .push("start_ps", col_u64(&|x| x.start))
        .push("recv_done_ps", opt_u64(&|x| known(x.recv_done)))
        .push("finish_ps", opt_u64(&|x| known(x.finish)))
        .push("fct_ps", opt_u64(&|x| x.fct()))
        .push("ideal_fct_ps", col_u64(&|x| x.ideal_fct))
        .push("slowdown", Column::OptF64(rows.iter().map(|x| x.fct().filter(|_| x.ideal_fct > 0).map(|t| t as f64 / x.ideal_fct as f64)).collect()))
        .push("bytes_acked", col_u64(&|x| x.bytes_acked))
        .push("retx_bytes", col_u64(&|x| x.retx_bytes))
        .push("timeouts", col_u64(&|x| x.timeouts))
        .push("fast_recoveries", col_u64(&|x| x.fast_recoveries))
        .push("nacks", col_u64(&|x| x.nacks))
        .push("nacks_sent", col_u64(&|x| x.nacks_sent))
        .push("via", Column::I64(rows.iter().map(|x| i64_or_none(x.via, NO_HOST.0)).collect()))
        .push("incast_id", Column::I64(rows.iter().map(|x| i64_or_none(x.incast, NO_INCAST)).collect()))
        .push("completed", Column::Bool(rows.iter().map(|x| x.finished()).collect()))
        .push("measured", Column::Bool(rows.iter().map(|x| x.measured).collect()));
    t
}

/// The summary's per-flow totals over retired flows (the live ones are added at the end).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowTotals {
    pub completed: u64,
    pub nacks_sent: u64,
    pub timeouts: u64,
    pub measured: u64,
    pub measured_completed: u64,
}

impl FlowTotals {
    pub fn add(&mut self, r: &FlowRow) {
        self.completed += r.finished() as u64;
        self.nacks_sent += r.nacks_sent;
        self.timeouts += r.timeouts;
        self.measured += r.measured as u64;
        self.measured_completed += (r.measured && r.finished()) as u64;
    }
}

/// A streaming run's retired flows: rows not yet taken, totals of all.
pub struct Retired {
    pub rows: Vec<FlowRow>,
    pub totals: FlowTotals,
    /// `rows` holds this many: the run loop returns so the caller can take them
    /// (`usize::MAX`: nobody takes rows during the run; they all come at the end).
    pub budget: usize,
    /// `rows` has reached `budget` (the run loop's test).
    pub ready: bool,
}

impl Default for Retired {
    fn default() -> Self {
        Retired { rows: Vec::new(), totals: FlowTotals::default(), budget: usize::MAX, ready: false }
    }
}

impl Retired {
    pub fn push(&mut self, row: FlowRow) {
        self.totals.add(&row);
        self.rows.push(row);
        self.ready = self.rows.len() >= self.budget;
    }

    pub fn take(&mut self) -> Vec<FlowRow> {
        self.ready = false;
        std::mem::take(&mut self.rows)
    }
}

impl super::world::World {
    /// Retires flow `f` if it is finished and can do nothing more: no packet of it in the
    /// network (a late duplicate would make its receiver ACK) and no delayed ACK due. Its
    /// row is kept; events still naming it find no flow and do nothing, as they would
    /// have done on the finished flow.
    #[inline(never)]
    pub(super) fn retire_if_done(&mut self, f: FlowId) {
        // A partition cannot tell alone; its run retires flows at epochs' ends
        // (`partition_stream.rs`).
        if self.partition.is_some() {
            return;
        }
        let flow = &self.flows[f.idx()];
        if flow.retired || !flow.finished() || flow.in_net != 0 || flow.dack_armed {
            return;
        }
        let row = FlowRow::of(flow.id, flow, self.measured(flow.start));
        self.retired.push(row);
        self.flows.retire(f);
    }
}
