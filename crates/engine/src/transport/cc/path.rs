//! What a flow's congestion control knows of its path, fixed for the flow's life, and the
//! fractional window the BDP-clamped window senders (UnoCC, Gemini, MPRDMA) share.

use super::Window;
use crate::units::{Time, PS_PER_SEC};

/// A flow's class and the base RTTs of both classes (Uno computes them per class, not
/// per path: a same-ToR flow uses the intra-datacenter value).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FlowPath {
    /// The flow crosses datacenters.
    pub inter: bool,
    /// Line rate of the sender's NIC.
    pub rate_bps: u64,
    pub base_rtt_intra: Time,
    pub base_rtt_inter: Time,
}

impl FlowPath {
    /// A flow inside one datacenter whose both reference RTTs are `base_rtt`.
    pub fn intra(rate_bps: u64, base_rtt: Time) -> Self {
        FlowPath { inter: false, rate_bps, base_rtt_intra: base_rtt, base_rtt_inter: base_rtt }
    }

    pub fn base_rtt(&self) -> Time {
        if self.inter {
            self.base_rtt_inter
        } else {
            self.base_rtt_intra
        }
    }

    /// Bytes in one base RTT at line rate.
    pub fn bdp_of(&self, rtt: Time) -> u64 {
        (rtt as u128 * self.rate_bps as u128 / (8 * PS_PER_SEC as u128)) as u64
    }

    pub fn bdp(&self) -> u64 {
        self.bdp_of(self.base_rtt())
    }

    pub fn bdp_intra(&self) -> u64 {
        self.bdp_of(self.base_rtt_intra)
    }

    pub fn bdp_inter(&self) -> u64 {
        self.bdp_of(self.base_rtt_inter)
    }
}

/// A window kept in fractional bytes (per-ACK increments are a few bytes) and clamped to
/// [1 MSS, BDP], mirrored into the sender's integer [`Window`].
#[derive(Clone, Debug)]
pub struct ClampedCwnd {
    pub cwnd: f64,
    pub min: f64,
    pub max: f64,
}

impl ClampedCwnd {
    pub fn new(mss: u64, bdp: u64) -> Self {
        let max = bdp.max(mss) as f64;
        ClampedCwnd { cwnd: max, min: mss as f64, max }
    }

    /// Picks up a change the sender made to the integer window (e.g. after recovery).
    #[inline]
    pub fn sync_from(&mut self, w: &Window) {
        if w.cwnd != self.cwnd as u64 {
            self.cwnd = w.cwnd as f64;
        }
    }

    /// Clamps and writes the window back.
    #[inline]
    pub fn store(&mut self, w: &mut Window) {
        self.cwnd = self.cwnd.clamp(self.min, self.max);
        w.cwnd = self.cwnd as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    #[test]
    fn uno_reference_bdps() {
        // Spec section 0: 14.02752 us and 1792.04128 us at 100 Gbps.
        let p = FlowPath { inter: true, rate_bps: 100_000_000_000, base_rtt_intra: 14_027_520, base_rtt_inter: 1_792_041_280 };
        assert_eq!(p.bdp_intra(), 175_344);
        assert_eq!(p.bdp_inter(), 22_400_516);
        assert_eq!(p.bdp(), p.bdp_inter());
        assert_eq!(FlowPath::intra(10_000_000_000, 8 * PS_PER_US).bdp(), 10_000);
    }
}
