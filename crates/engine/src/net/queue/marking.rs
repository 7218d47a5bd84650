//! Marking policies: what a queue does to an arriving packet before admission.

use super::red::{Red, RedConfig};
use super::Backlog;
use crate::units::{Size, Time};
use rand_xoshiro::Xoshiro256PlusPlus;

#[derive(Clone, Debug, PartialEq)]
pub enum MarkingConfig {
    None,
    /// DCTCP: mark CE when the backlog ahead of the packet has reached K.
    Step { threshold: Size },
    Red(RedConfig),
    /// RED at dequeue on the instantaneous or a phantom queue (a queue feature, see
    /// [`super::DequeueRed`]); nothing happens at arrival.
    Dequeue(super::DequeueRedConfig),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Mark,
    Drop,
}

pub enum Marking {
    None,
    Step { threshold: Size },
    Red(Box<Red>),
}

impl Marking {
    pub fn new(config: &MarkingConfig, rate_bps: u64, mean_pkt_bytes: u64, rng: Xoshiro256PlusPlus) -> Self {
        match config {
            MarkingConfig::None | MarkingConfig::Dequeue(_) => Marking::None,
            MarkingConfig::Step { threshold } => Marking::Step { threshold: *threshold },
            MarkingConfig::Red(c) => Marking::Red(Box::new(Red::new(c.clone(), rate_bps, mean_pkt_bytes, rng))),
        }
    }

    #[inline(always)]
    pub fn on_arrival(&mut self, backlog: Backlog, size: u64, now: Time) -> Verdict {
        match self {
            Marking::None => Verdict::Pass,
            Marking::Step { threshold } => {
                if backlog.reached(*threshold) {
                    Verdict::Mark
                } else {
                    Verdict::Pass
                }
            }
            Marking::Red(red) => red.on_arrival(backlog, size, now),
        }
    }

    #[inline(always)]
    pub fn on_idle(&mut self, now: Time) {
        if let Marking::Red(red) = self {
            red.on_idle(now);
        }
    }

    /// RED drops a packet it would mark if the packet is not ECN-capable; a DCTCP step
    /// marker lets it through.
    #[inline(always)]
    pub fn drops_non_ect(&self) -> bool {
        matches!(self, Marking::Red(_))
    }
}
