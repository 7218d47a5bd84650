//! Path selection at the sender: which entropy each packet of a flow carries. Switches hash
//! the entropy with their own id to pick among equal-cost next hops, so a flow's entropies
//! are its paths.
//!
//! Each flow owns one [`Selector`], a closed enum over the schemes (one file each), and the
//! world calls it at the four moments a scheme can act on: a data packet leaves
//! ([`PathSelector::on_send`]), an ACK or NACK is sent back for one
//! ([`PathSelector::reply`]), an ACK reaches the sender with its ECE bit
//! ([`PathSelector::on_ack`]), and the sender learns of a loss: its retransmission timer,
//! a NACK ([`PathSelector::on_loss`]).
//!
//! | scheme | file | paths per flow | moves on |
//! |---|---|---|---|
//! | `ecmp` | `ecmp.rs` | one, the flow's hash | never |
//! | `spray` | `spray.rs` | 256, one drawn per packet | every packet |
//! | `unolb` | `unolb.rs` | one per subflow, in turn | timeouts, parity NACKs (Uno, SC '25) |
//! | `plb` | `plb.rs` | one | congested rounds, timeouts, NACKs (PLB, SIGCOMM '22) |

pub mod ecmp;
pub mod plb;
pub mod spray;
pub mod unolb;

pub use ecmp::Ecmp;
pub use plb::{Plb, PlbConfig};
pub use spray::{HostDraws, Spray, SprayConfig};
pub use unolb::{UnoLb, UnoLbConfig};

use crate::ids::HostId;
use crate::rng::splitmix64;
use crate::units::Time;

/// A load-balancing scheme, as `[routing] lb` names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    Ecmp,
    Spray,
    UnoLb,
    Plb,
}

/// Every scheme's name: the one place a name becomes a scheme (no fallback).
pub const SCHEMES: &[(&str, Scheme)] = &[("ecmp", Scheme::Ecmp), ("spray", Scheme::Spray), ("unolb", Scheme::UnoLb), ("plb", Scheme::Plb)];

/// A validated `[routing]` choice: the scheme and its settings, the same for every flow.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum LoadBalancing {
    /// Per-flow ECMP: one entropy per flow, one path per flow.
    #[default]
    Ecmp,
    /// Per-packet spraying.
    Spray(SprayConfig),
    /// Uno's subflows.
    UnoLb(UnoLbConfig),
    /// Protective Load Balancing.
    Plb(PlbConfig),
}

/// What a flow's selector starts from.
#[derive(Copy, Clone, Debug)]
pub struct FlowPaths {
    /// The flow's own 32-bit hash (its ECMP entropy).
    pub entropy: u32,
    /// The seed of the flow's own path stream (UnoLB's and PLB's draws).
    pub seed: u64,
    pub start: Time,
    /// The flow's unloaded RTT: UnoLB's reroute gate, PLB's round.
    pub base_rtt: Time,
}

/// What an ACK tells the sender's selector.
#[derive(Copy, Clone, Debug)]
pub struct AckSeen {
    /// The entropy the ACK echoes (the acknowledged data packet's).
    pub entropy: u32,
    /// Bytes it newly acknowledges (the cumulative ACK's advance).
    pub acked: u64,
    /// Its ECE bit: the receiver saw congestion marks.
    pub ece: bool,
}

/// A loss the sender learned of.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Loss {
    /// The retransmission timer, or a per-packet deadline, expired.
    Timeout,
    /// A trimmed segment's NACK (from the receiver or a relay).
    TrimNack,
    /// UnoRC's parity NACK for an erasure-coded block that cannot complete (`sim/erasure.rs`);
    /// UnoLB reroutes on it as on a timeout.
    ParityNack,
}

/// A path-selection scheme: how one flow picks its packets' entropies.
pub trait PathSelector {
    /// The entropy of the flow's next data packet, sent by host `src`. `draws` holds the
    /// hosts' own streams (spraying draws there).
    fn on_send(&mut self, draws: &mut HostDraws, src: HostId) -> u32;

    /// The entropy of an ACK or NACK host `from` sends back for a data packet that carried
    /// `echo`. Echoing it returns the ACK on the paths its entropy picks, and tells UnoLB
    /// which subflow was heard from.
    fn reply(&self, echo: u32, _draws: &mut HostDraws, _from: HostId) -> u32 {
        echo
    }

    /// An ACK reached the sender at `now`.
    fn on_ack(&mut self, _now: Time, _ack: &AckSeen) {}

    /// The sender learned of a loss at `now`; `rto` is its retransmission timeout then.
    fn on_loss(&mut self, _now: Time, _rto: Time, _loss: Loss) {}
}

/// One flow's scheme. UnoLB and PLB keep their state behind a pointer, so a flow under
/// ECMP carries 8 bytes more than it used to, no more.
#[derive(Clone, Debug)]
pub enum Selector {
    Ecmp(Ecmp),
    Spray(Spray),
    UnoLb(Box<UnoLb>),
    Plb(Box<Plb>),
}

macro_rules! each_selector {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            Selector::Ecmp($s) => $body,
            Selector::Spray($s) => $body,
            Selector::UnoLb($s) => $body,
            Selector::Plb($s) => $body,
        }
    };
}

impl Selector {
    pub fn new(lb: &LoadBalancing, flow: &FlowPaths) -> Selector {
        match lb {
            LoadBalancing::Ecmp => Selector::Ecmp(Ecmp::new(flow.entropy)),
            LoadBalancing::Spray(cfg) => Selector::Spray(Spray::new(cfg, flow.entropy)),
            LoadBalancing::UnoLb(cfg) => Selector::UnoLb(Box::new(UnoLb::new(cfg, flow))),
            LoadBalancing::Plb(cfg) => Selector::Plb(Box::new(Plb::new(cfg, flow))),
        }
    }

    /// The path entropies the flow holds now (none when spraying).
    pub fn paths(&self) -> &[u32] {
        match self {
            Selector::Ecmp(s) => std::slice::from_ref(&s.entropy),
            Selector::Spray(_) => &[],
            Selector::UnoLb(s) => s.paths(),
            Selector::Plb(s) => std::slice::from_ref(s.path()),
        }
    }

    /// How many times the flow moved a path on a signal (UnoLB: per subflow).
    pub fn reroutes(&self) -> u64 {
        match self {
            Selector::Ecmp(_) | Selector::Spray(_) => 0,
            Selector::UnoLb(s) => s.reroutes,
            Selector::Plb(s) => s.repaths,
        }
    }
}

impl PathSelector for Selector {
    #[inline(always)]
    fn on_send(&mut self, draws: &mut HostDraws, src: HostId) -> u32 {
        each_selector!(self, s => s.on_send(draws, src))
    }
    #[inline(always)]
    fn reply(&self, echo: u32, draws: &mut HostDraws, from: HostId) -> u32 {
        each_selector!(self, s => s.reply(echo, draws, from))
    }
    #[inline(always)]
    fn on_ack(&mut self, now: Time, ack: &AckSeen) {
        each_selector!(self, s => s.on_ack(now, ack))
    }
    fn on_loss(&mut self, now: Time, rto: Time, loss: Loss) {
        each_selector!(self, s => s.on_loss(now, rto, loss))
    }
}

/// A flow's own stream of path entropies (splitmix64: a `u64` of state, no table).
#[derive(Clone, Debug)]
pub struct PathDraws {
    state: u64,
    /// Entropies are drawn from `[0, entropies)`.
    entropies: u32,
}

impl PathDraws {
    pub fn new(seed: u64, entropies: u32) -> Self {
        PathDraws { state: seed, entropies }
    }

    /// A path entropy, uniform in `[0, entropies)`.
    pub fn draw(&mut self) -> u32 {
        let x = splitmix64(self.state);
        self.state = self.state.wrapping_add(crate::rng::GOLDEN_GAMMA);
        below((x >> 32) as u32, self.entropies)
    }
}

/// A uniform 32-bit draw `x` scaled to `[0, n)` (multiply-shift, no division).
#[inline]
pub fn below(x: u32, n: u32) -> u32 {
    ((x as u64 * n as u64) >> 32) as u32
}

/// The value on the wire for path entropy `e` of the flow whose own hash is `flow`: the
/// switch hash then sees (flow, entropy), so two flows drawing the same small entropy
/// still take independent paths.
#[inline]
pub fn wire(flow: u32, e: u32) -> u32 {
    (splitmix64((flow as u64) << 32 | e as u64) >> 32) as u32
}
