//! Open-loop arrivals, drawn one at a time as the run goes (one pending `Arrival` event per
//! workload), and the end of a run with a `[measure]` window.

use super::flow::NO_INCAST;
use super::world::{World, MEASURE_CHECK};
use crate::des::{Event, EventKind};
use crate::ids::{FlowId, HostId};
use crate::units::Time;
use crate::workload::{AggregatorIncastSpec, IncastEvent, PoissonIncastSpec, PoissonSpec};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a Poisson workload brings at each arrival.
pub enum Arrivals {
    Flows(PoissonSpec),
    Incasts(PoissonIncastSpec),
    Aggregators(AggregatorIncastSpec),
}

/// A Poisson workload's running state.
pub struct PoissonRun {
    pub arrivals: Arrivals,
    pub rng: Xoshiro256PlusPlus,
    /// Its `[[workload]]` index, and the incast events it has made.
    pub workload: u32,
    pub events: u32,
}

/// One arrival's traffic.
enum Drawn {
    Flow(HostId, HostId, u64),
    Incast(IncastEvent),
}

impl PoissonRun {
    fn window(&self) -> (Time, Time) {
        match &self.arrivals {
            Arrivals::Flows(p) => (p.start, p.stop),
            Arrivals::Incasts(p) => (p.start, p.stop),
            Arrivals::Aggregators(p) => (p.start, p.stop),
        }
    }

    /// The gap to the first arrival. A flow workload draws a whole arrival and keeps only its
    /// gap (what it always did: its runs stay as they were).
    fn first_gap(&mut self) -> Time {
        match &self.arrivals {
            Arrivals::Flows(p) => p.draw(&mut self.rng).0,
            Arrivals::Incasts(p) => p.draw_gap(&mut self.rng),
            Arrivals::Aggregators(p) => p.draw_gap(&mut self.rng),
        }
    }

    /// The traffic arriving at `now`, and the gap to the next arrival.
    fn draw(&mut self, now: Time) -> (Time, Drawn) {
        match &self.arrivals {
            Arrivals::Flows(p) => {
                let (gap, src, dst, size) = p.draw(&mut self.rng);
                (gap, Drawn::Flow(src, dst, size))
            }
            Arrivals::Incasts(p) => {
                let gap = p.draw_gap(&mut self.rng);
                (gap, Drawn::Incast(p.draw_event(now, &mut self.rng)))
            }
            Arrivals::Aggregators(p) => {
                let gap = p.draw_gap(&mut self.rng);
                (gap, Drawn::Incast(p.draw_event(now, &mut self.rng)))
            }
        }
    }
}

impl World {
    /// Starts a Poisson workload: its first arrival, if it comes before its stop.
    pub(super) fn add_arrivals(&mut self, w: usize, arrivals: Arrivals, rng: Xoshiro256PlusPlus) {
        let idx = self.poisson.len();
        let mut run = PoissonRun { arrivals, rng, workload: w as u32, events: 0 };
        let (start, stop) = run.window();
        let gap = run.first_gap();
        if start + gap < stop {
            self.pending_arrivals += 1;
            self.sched.at(start + gap, Event::new(EventKind::Arrival, idx as u32));
        }
        self.poisson.push(run);
    }

    pub(super) fn poisson_arrival(&mut self, w: usize) {
        let now = self.sched.now();
        self.pending_arrivals -= 1;
        self.replicated_arrival();
        let run = &mut self.poisson[w];
        let (gap, drawn) = run.draw(now);
        let (_, stop) = run.window();
        match drawn {
            Drawn::Flow(src, dst, size) => {
                let f = self.add_flow(src, dst, size, now, NO_INCAST);
                if self.starts_here(f) {
                    self.pending_starts += 1;
                    self.flow_start(f);
                }
            }
            Drawn::Incast(event) => {
                let (workload, burst) = (run.workload as usize, run.events);
                run.events += 1;
                self.add_incast(workload, burst, &event, None);
            }
        }
        if now + gap < stop {
            self.pending_arrivals += 1;
            self.sched.at(now + gap, Event::new(EventKind::Arrival, w as u32));
        }
    }

    /// A flow finished: with a `[measure]` window, the run may end once the window has
    /// closed and no measured flow is left. The end is an event of its own, so the handler
    /// that finished the flow completes first.
    pub(super) fn measured_flow_finished(&mut self, f: FlowId) {
        let Some(m) = self.measure else { return };
        if !m.contains(self.flows[f.idx()].start) {
            return;
        }
        self.measured_open -= 1;
        let now = self.sched.now();
        if self.measured_open == 0 && now >= m.until {
            self.sched.at(now, Event::new(EventKind::Arrival, MEASURE_CHECK));
        }
    }

    /// At the window's end, or after the last measured flow: with nothing measured left
    /// running, the run ends here; arrivals still due and unmeasured flows are cut off.
    pub(super) fn measure_check(&mut self) {
        if self.measured_open == 0 {
            self.sched.clear();
        }
    }
}
