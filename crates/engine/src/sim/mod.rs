//! The simulation: a world built from a validated scenario, advanced by the run loop.

mod arrivals;
mod build;
mod endpoints;
mod erasure;
mod flow;
mod conservation;
mod flow_rows;
mod flow_table;
mod icon;
pub mod memory;
mod crossings;
pub mod partition;
mod partition_merge;
mod partition_stream;
mod paths;
mod grid;
mod hops;
mod pipeline;
mod prefetch;
mod proxy;
mod receiver_policy;
mod results;
mod rpc;
mod sack_rows;
mod sampling;
mod shared_buffer;
mod world;

pub use flow::{Flow, NEVER};
pub use flow_table::FlowTable;
pub use conservation::Conservation;
pub use world::World;

use crate::metrics::table::{Results, Table};
use crate::scenario::ValidSpec;
use crate::units::Time;
use crate::ScenarioError;

pub struct Simulation {
    engine: Engine,
    wall_s: f64,
    /// Why a run asked for several threads is one partition (`None`: it is partitioned, or
    /// one thread was asked for).
    whole_because: Option<String>,
    /// A finished partitioned run's `partition_balance`.
    balance: Option<partition::Balance>,
}

enum Engine {
    Whole(World),
    Parts(partition::Partitioned),
    /// A partitioned run's merged outcome, and its conservation before the merge (the
    /// merged world's packets are not its own).
    Merged(World, Conservation),
    /// Only while a finished partitioned run is being merged.
    Merging,
}

impl Simulation {
    /// Builds the world: topology, queues, flows and their start events; one thread.
    pub fn new(spec: &ValidSpec) -> Result<Simulation, ScenarioError> {
        Self::whole(spec)
    }

    /// Builds the run as one world on one thread, never partitioned: what one thread runs,
    /// and the reference a partitioned run is compared with.
    pub fn whole(spec: &ValidSpec) -> Result<Simulation, ScenarioError> {
        Ok(Simulation { engine: Engine::Whole(build::build(spec)?), wall_s: 0.0, whole_because: None, balance: None })
    }

    /// Builds the run on `threads` threads (at least 1). One thread runs one world, as
    /// before partitions existed (the fastest on one core: a partitioned run on one thread
    /// pays for its crossings and for switching worlds every window); more cut a
    /// `multi_dc` run per datacenter (`partitioned`), with the same tables. A scenario with
    /// `[partition]` is cut as it asks on any number of threads, one included.
    pub fn with_threads(spec: &ValidSpec, threads: usize) -> Result<Simulation, ScenarioError> {
        if threads == 1 && spec.partition.is_none() {
            return Self::whole(spec);
        }
        Self::partitioned(spec, threads)
    }

    /// Builds a `multi_dc` run cut into one partition per datacenter, or a run cut into
    /// parts of whole pods if the scenario asks (`[partition]`), whatever the number of
    /// threads (at least 1) that run them, so its tables are the same for every number (see
    /// `partition.rs`); other runs are one partition.
    pub fn partitioned(spec: &ValidSpec, threads: usize) -> Result<Simulation, ScenarioError> {
        if threads == 0 {
            return Err(ScenarioError::new("threads", "must be at least 1").with_allowed(["1", "2", "..."]));
        }
        // On two threads or more, and several datacenters, a second world is built beside
        // the first (the second partition's, unless the run stays whole: Fig 10's take 13 ms
        // each).
        let several_dcs = spec.topology.nodes.iter().any(|n| n.dc != crate::topology::NO_DC && n.dc > 0);
        let (world, mut second) = match threads > 1 && (several_dcs || spec.partition.is_some()) {
            false => (build::build(spec), None),
            true => std::thread::scope(|s| {
                let second = s.spawn(|| build::build(spec));
                let first = build::build(spec);
                (first, Some(second.join().expect("building a world does not panic")))
            }),
        };
        let world = world?;
        let mut build_part = || second.take().unwrap_or_else(|| build::build(spec));
        // A cut the scenario asks for must be made: its tables are its own (`[partition]`).
        let planned = match spec.partition {
            Some(cut) => Ok(partition::plan_pods(&world, cut.parts).map_err(|why| ScenarioError::new("partition.by", why))?),
            None => partition::plan(&world),
        };
        let (engine, whole_because) = match planned {
            Ok(plan) => (Engine::Parts(partition::Partitioned::new(world, plan, threads, &mut build_part)?), None),
            Err(why) => (Engine::Whole(world), (threads > 1).then_some(why)),
        };
        Ok(Simulation { engine, wall_s: 0.0, whole_because, balance: None })
    }

    /// How many partitions the run is cut into (1: it runs whole, on one thread).
    pub fn partitions(&self) -> usize {
        match &self.engine {
            Engine::Parts(p) => p.parts(),
            _ => 1,
        }
    }

    /// How evenly a partitioned run's work falls over its partitions (`None`: a whole run).
    pub fn partition_balance(&self) -> Option<partition::Balance> {
        match &self.engine {
            Engine::Parts(p) => Some(p.balance()),
            _ => self.balance,
        }
    }

    /// Times each window of a partitioned run from now on (a diagnostic: two system calls a
    /// window), so `partition_balance` has CPU figures.
    pub fn time_windows(&mut self) {
        if let Engine::Parts(p) = &mut self.engine {
            p.time_windows();
        }
    }

    /// Why a run asked for more than one thread runs whole (`None`: it does not).
    pub fn whole_because(&self) -> Option<&str> {
        self.whole_because.as_deref()
    }

    /// Runs until simulated time `t_ps` (inclusive) or the end; true when the run is over.
    pub fn run_until(&mut self, t_ps: Time) -> bool {
        let t0 = std::time::Instant::now();
        let done = match &mut self.engine {
            Engine::Whole(w) | Engine::Merged(w, _) => w.run_until(t_ps),
            Engine::Parts(p) => p.run_until(t_ps),
            Engine::Merging => unreachable!("merging is never left half done"),
        };
        if done && matches!(self.engine, Engine::Parts(_)) {
            if let Engine::Parts(p) = std::mem::replace(&mut self.engine, Engine::Merging) {
                let kept = p.conservation();
                self.balance = Some(p.balance());
                self.engine = Engine::Merged(p.merge(), kept);
            }
        }
        self.wall_s += t0.elapsed().as_secs_f64();
        done
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.run_until(Time::MAX);
    }

    pub fn now_ps(&self) -> Time {
        match &self.engine {
            Engine::Parts(p) => p.now(),
            _ => self.world().sched.now(),
        }
    }

    /// The scenario's duration, when it sets one.
    pub fn horizon_ps(&self) -> Option<Time> {
        match &self.engine {
            Engine::Parts(p) => p.first().duration,
            _ => self.world().duration,
        }
    }

    /// The run's world: a whole run's at any time, a partitioned run's once it is over (its
    /// partitions merged). While a partitioned run is under way there is no one world: a
    /// test that looks inside a run builds it with [`Simulation::whole`].
    pub fn world(&self) -> &World {
        match &self.engine {
            Engine::Whole(w) | Engine::Merged(w, _) => w,
            Engine::Parts(_) => panic!("a partitioned run has one world only once it is over (Simulation::whole runs as one)"),
            Engine::Merging => unreachable!("merging is never left half done"),
        }
    }

    /// Bytes injected, delivered, dropped and in flight right now.
    pub fn conservation(&self) -> Conservation {
        match &self.engine {
            Engine::Whole(w) => w.conservation(),
            Engine::Merged(_, kept) => *kept,
            Engine::Parts(p) => p.conservation(),
            Engine::Merging => unreachable!("merging is never left half done"),
        }
    }

    #[cfg(test)]
    pub(crate) fn whole_mut(&mut self) -> &mut World {
        match &mut self.engine {
            Engine::Whole(w) => w,
            _ => panic!("not a whole run"),
        }
    }

    /// Whether finished flows leave memory as the run goes (`[record] flows = "stream"`, in
    /// a scenario that allows it: see `World::can_retire`). Only a cut by pod partitions
    /// such a run (`partition_stream.rs`).
    pub fn streams_flows(&self) -> bool {
        match &self.engine {
            Engine::Whole(w) => w.retire,
            Engine::Parts(p) => p.stream.is_some(),
            _ => false,
        }
    }

    /// Streaming: `run_until` also returns (not over) once `rows` finished flows' rows wait,
    /// for the caller to take with `take_flow_rows`. Without a caller taking rows, they all
    /// come in the `flows` table at the end.
    pub fn hand_out_flows_every(&mut self, rows: usize) {
        let retired = match &mut self.engine {
            Engine::Whole(w) => &mut w.retired,
            Engine::Parts(p) => match &mut p.stream {
                Some(s) => &mut s.retired,
                None => return,
            },
            _ => return,
        };
        retired.budget = rows.max(1);
    }

    /// The rows of the flows retired since the last time, in the order they were retired,
    /// once there are `hand_out_flows_every` of them (`None` before: Parquet row groups stay
    /// large). The final `flows` table holds the rest and the flows alive at the end.
    pub fn take_flow_rows(&mut self) -> Option<Table> {
        let retired = match &mut self.engine {
            Engine::Whole(w) => &mut w.retired,
            Engine::Parts(p) => &mut p.stream.as_mut()?.retired,
            _ => return None,
        };
        if !retired.ready {
            return None;
        }
        let rows = retired.take();
        let names = match &self.engine {
            Engine::Parts(p) => results::host_names(p.first()),
            _ => results::host_names(self.world()),
        };
        Some(flow_rows::flows_table(&rows, &names))
    }

    /// Flow slots in use or free: what flow state takes, against `world().flows.len()` flows
    /// made so far (every partition of a partitioned run holds a slot for every flow).
    pub fn flow_slots(&self) -> usize {
        match &self.engine {
            Engine::Parts(p) => p.parts.iter().map(|w| w.flows.slots()).max().unwrap_or(0),
            _ => self.world().flows.slots(),
        }
    }

    pub fn finish(self) -> Results {
        let wall_s = self.wall_s;
        match self.engine {
            Engine::Whole(w) | Engine::Merged(w, _) => results::collect(&w, wall_s),
            Engine::Parts(p) => results::collect(&p.merge(), wall_s),
            Engine::Merging => unreachable!("merging is never left half done"),
        }
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
        // `far`: how many packet slots beyond the ports and flows switch to the far lead.
        let run = |above: Option<usize>, far: Option<usize>| {
            let mut sim = Simulation::new(&spec).unwrap();
            let fixed = sim.whole_mut().ports.len() * std::mem::size_of::<crate::net::PortState>()
                + sim.whole_mut().flows.slots() * std::mem::size_of::<flow::Flow>();
            sim.whole_mut().far_lead_above_bytes = far.map_or(usize::MAX, |slots| fixed + slots * 64);
            // `None`: switch on once the pool has handed out 100 slots, with ports warm.
            sim.whole_mut().prefetch_above_bytes = above.unwrap_or(fixed + 100 * 64);
            // In chunks, so the choice is made again at every call.
            let mut t = 0;
            while !sim.run_until(t) {
                t += 37_000_000;
            }
            let slots = sim.whole_mut().pool.slots();
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
        let (never, slots) = run(Some(usize::MAX), None);
        assert!(slots > 200, "the pool must grow past the switch-over point ({slots} slots)");
        assert!(never.table("flows").unwrap().rows() == 16);
        assert!(run(Some(0), None).0 == never, "prefetching packets and ports changed a result");
        assert!(run(None, None).0 == never, "starting to prefetch mid-run changed a result");
        assert!(run(Some(0), Some(0)).0 == never, "prefetching further ahead changed a result");
        assert!(run(None, Some(150)).0 == never, "moving to the far lead mid-run changed a result");
    }
}

