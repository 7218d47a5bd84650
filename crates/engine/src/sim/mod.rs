//! The simulation: a world built from a validated scenario, advanced by the run loop.

mod arrivals;
mod build;
mod endpoints;
mod erasure;
mod flow;
mod flow_rows;
mod flow_table;
mod icon;
pub mod memory;
mod proxy;
mod receiver_policy;
mod results;
mod rpc;
mod shared_buffer;
mod world;

pub use flow::{Flow, NEVER};
pub use flow_table::FlowTable;
pub use build::choose_senders;
pub use world::{Conservation, World};

use crate::metrics::table::{Results, Table};
use crate::scenario::ValidSpec;
use crate::units::Time;
use crate::ScenarioError;

pub struct Simulation {
    world: World,
    wall_s: f64,
}

impl Simulation {
    /// Builds the world: topology, queues, flows and their start events.
    pub fn new(spec: &ValidSpec) -> Result<Simulation, ScenarioError> {
        Ok(Simulation { world: build::build(spec)?, wall_s: 0.0 })
    }

    /// Runs until simulated time `t_ps` (inclusive) or the end; true when the run is over.
    pub fn run_until(&mut self, t_ps: Time) -> bool {
        let t0 = std::time::Instant::now();
        let done = self.world.run_until(t_ps);
        self.wall_s += t0.elapsed().as_secs_f64();
        done
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.run_until(Time::MAX);
    }

    pub fn now_ps(&self) -> Time {
        self.world.sched.now()
    }

    /// The scenario's duration, when it sets one.
    pub fn horizon_ps(&self) -> Option<Time> {
        self.world.duration
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// Bytes injected, delivered, dropped and in flight right now.
    pub fn conservation(&self) -> Conservation {
        self.world.conservation()
    }

    /// Whether finished flows leave memory as the run goes (`[record] flows = "stream"`, in
    /// a scenario that allows it: see `World::can_retire`).
    pub fn streams_flows(&self) -> bool {
        self.world.retire
    }

    /// Streaming: `run_until` also returns (not over) once `rows` finished flows' rows wait,
    /// for the caller to take with `take_flow_rows`. Without a caller taking rows, they all
    /// come in the `flows` table at the end.
    pub fn hand_out_flows_every(&mut self, rows: usize) {
        self.world.retired.budget = rows.max(1);
    }

    /// The rows of the flows retired since the last time, in the order they were retired,
    /// once there are `hand_out_flows_every` of them (`None` before: Parquet row groups stay
    /// large). The final `flows` table holds the rest and the flows alive at the end.
    pub fn take_flow_rows(&mut self) -> Option<Table> {
        if !self.world.retired.ready {
            return None;
        }
        let rows = self.world.retired.take();
        let names = results::host_names(&self.world);
        Some(flow_rows::flows_table(&|| rows.iter().copied(), &names))
    }

    /// Flow slots in use or free: what flow state takes, against `world().flows.len()` flows
    /// made so far.
    pub fn flow_slots(&self) -> usize {
        self.world.flows.slots()
    }

    pub fn finish(self) -> Results {
        results::collect(&self.world, self.wall_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::table::Column;

    /// Prefetching is only a hint: whether the loop prefetches nothing, packets only, or
    /// packets and ports, and when it starts to, no result changes.
    #[test]
    fn prefetching_never_changes_a_result() {
        let toml = concat!(
            include_str!("../../tests/fixtures/fat_tree_k4_permutation.toml"),
            "[record]\nflows = true\nqueues = { interval = \"10us\", ports = \"all\" }\n"
        );
        let spec = crate::parse_scenario(toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"));
        let run = |above: Option<usize>| {
            let mut sim = Simulation::new(&spec).unwrap();
            let fixed = sim.world.ports.len() * std::mem::size_of::<crate::net::PortState>()
                + sim.world.flows.slots() * std::mem::size_of::<flow::Flow>();
            // `None`: switch on once the pool has handed out 100 slots, with ports warm.
            sim.world.prefetch_above_bytes = above.unwrap_or(fixed + 100 * 64);
            // In chunks, so the choice is made again at every call.
            let mut t = 0;
            while !sim.run_until(t) {
                t += 37_000_000;
            }
            let slots = sim.world.pool.slots();
            let mut r = sim.finish();
            r.summary.retain(|(k, _)| k != "wall_s");
            for t in &mut r.tables {
                for (_, c) in t.columns.iter_mut() {
                    if let Column::F64(v) = c {
                        *c = Column::U64(v.iter().map(|x| x.to_bits()).collect());
                    }
                }
            }
            (r, slots)
        };
        let (never, slots) = run(Some(usize::MAX));
        assert!(slots > 200, "the pool must grow past the switch-over point ({slots} slots)");
        assert!(never.table("flows").unwrap().rows() == 16);
        assert!(run(Some(0)).0 == never, "prefetching packets and ports changed a result");
        assert!(run(None).0 == never, "starting to prefetch mid-run changed a result");
    }
}
