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

/// No marking is a step at a level never reached, so the plain path has one variant test.
pub enum Marking {
    /// Mark once the backlog ahead has reached `level`, in packets or in bytes.
    Step { level: u64, packets: bool },
    Red(Box<Red>),
}

const NEVER: Marking = Marking::Step { level: u64::MAX, packets: false };

impl Marking {
    pub fn new(config: &MarkingConfig, rate_bps: u64, mean_pkt_bytes: u64, rng: Xoshiro256PlusPlus) -> Self {
        match config {
            MarkingConfig::None | MarkingConfig::Dequeue(_) => NEVER,
            MarkingConfig::Step { threshold: Size::Bytes(b) } => Marking::Step { level: *b, packets: false },
            MarkingConfig::Step { threshold: Size::Packets(p) } => Marking::Step { level: *p, packets: true },
            MarkingConfig::Red(c) => Marking::Red(Box::new(Red::new(c.clone(), rate_bps, mean_pkt_bytes, rng))),
        }
    }

    #[inline(always)]
    pub fn on_arrival(&mut self, backlog: Backlog, size: u64, now: Time) -> Verdict {
        match self {
            Marking::Step { level, packets } => {
                if (if *packets { backlog.pkts } else { backlog.bytes }) >= *level {
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
