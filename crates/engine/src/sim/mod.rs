//! The simulation: a world built from a validated scenario, advanced by the run loop.

mod build;
mod endpoints;
mod flow;
mod proxy;
mod results;
mod rpc;
mod world;

pub use flow::{Flow, NEVER};
pub use build::choose_senders;
pub use world::{Conservation, World};

use crate::metrics::table::Results;
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

    pub fn finish(self) -> Results {
        results::collect(&self.world, self.wall_s)
    }
}
