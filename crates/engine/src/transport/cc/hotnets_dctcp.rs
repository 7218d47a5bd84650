//! The "DCTCP-like" sender of the inter-datacenter proxy paper (Zhou et al., HotNets '25),
//! as htsim's `dctcp.cpp` and UEC source run it with trimming:
//!
//! - once per window of data: `alpha <- (1 - g) alpha + g F` (F = fraction of the window's
//!   bytes echoed CE) and, if any byte was marked, `cwnd <- cwnd (1 - alpha / 2)`;
//! - every unmarked ACK: `cwnd += MSS * delivered / cwnd` (slow start below ssthresh);
//!   the window-end cut is applied first and the increase after it, so a flow at the floor
//!   still grows;
//! - a NACK (`nack_decrease`): `cwnd -= 1 MSS` (UEC-htsim's `decrease_on_nack = 1`), or
//!   the NACK counts as one marked MSS toward the window's F, or it is a loss that halves
//!   cwnd once per window of data (htsim's TCP/DCTCP `deflate_window` on a loss);
//! - a timeout: ssthresh = cwnd / 2, cwnd = 1 MSS, slow start;
//! - the window never exceeds the one the flow started with (one BDP of its own path).

use super::{AckSignal, CongestionControl, Window};

/// What a NACK does to the window.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NackDecrease {
    /// cwnd -= 1 MSS, floor min_cwnd.
    Mss,
    /// The NACK is one marked MSS in the current window's ECN fraction.
    AsMark,
    /// The NACK is a loss: the first one of a window halves cwnd (floor min_cwnd), the
    /// next cut waits until everything sent before it is acknowledged (htsim's TCP and
    /// DCTCP sources react so to a loss: `deflate_window`, once per recovery).
    Halve,
}

#[derive(Clone, Debug)]
pub struct HotnetsDctcp {
    g: f64,
    pub alpha: f64,
    nack: NackDecrease,
    acked_bytes: u64,
    ecn_bytes: u64,
    /// The observation window ends when snd_una reaches this sequence number.
    window_end: u64,
    /// `Halve`: NACKs cut nothing more until snd_una reaches this sequence number.
    nack_recover: u64,
}

impl HotnetsDctcp {
    pub fn new(g: f64, alpha_init: f64, nack: NackDecrease) -> Self {
        HotnetsDctcp { g, alpha: alpha_init, nack, acked_bytes: 0, ecn_bytes: 0, window_end: 0, nack_recover: 0 }
    }

    /// Closes the observation window when snd_una passes its end: alpha, then the cut.
    fn end_of_window(&mut self, w: &mut Window, s: &AckSignal) {
        if s.snd_una < self.window_end || self.acked_bytes == 0 {
            return;
        }
        let f = self.ecn_bytes as f64 / self.acked_bytes as f64;
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        if self.ecn_bytes > 0 {
            let cut = (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
            w.ssthresh = cut.max(w.min_cwnd);
            w.cwnd = w.ssthresh;
        }
        self.acked_bytes = 0;
        self.ecn_bytes = 0;
        self.window_end = s.snd_nxt;
    }
}

impl CongestionControl for HotnetsDctcp {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        self.acked_bytes += ack.delivered;
        if ack.ece {
            self.ecn_bytes += ack.delivered;
        }
        self.end_of_window(w, ack);
        if ack.ece || ack.delivered == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            w.cwnd += ack.delivered.min(w.ssthresh - w.cwnd);
        } else {
            w.cwnd += (w.mss * ack.delivered).div_ceil(w.cwnd.max(1)).max(1);
        }
        w.cwnd = w.cwnd.min(w.init_cwnd);
    }

    fn on_loss(&mut self, w: &mut Window) {
        w.reduce_to(w.cwnd / 2);
    }

    fn on_nack(&mut self, w: &mut Window, nack: &AckSignal) {
        match self.nack {
            NackDecrease::Mss => w.cwnd = w.cwnd.saturating_sub(w.mss).max(w.min_cwnd),
            NackDecrease::AsMark => {
                self.acked_bytes += w.mss;
                self.ecn_bytes += w.mss;
                self.end_of_window(w, nack);
            }
            NackDecrease::Halve => {
                if nack.snd_una >= self.nack_recover {
                    w.reduce_to(w.cwnd / 2);
                    self.nack_recover = nack.snd_nxt;
                }
            }
        }
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(delivered: u64, ece: bool, una: u64, nxt: u64) -> AckSignal {
        AckSignal { delivered, ece, snd_una: una, snd_nxt: nxt, ..Default::default() }
    }

    fn at_floor() -> Window {
        let mut w = Window::new(100 * MSS, MSS, MSS);
        w.ssthresh = MSS;
        w.cwnd = MSS;
        w
    }

    #[test]
    fn unmarked_ack_adds_mss_squared_over_cwnd_up_to_the_initial_window() {
        let mut c = HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss);
        let mut w = Window::new(10 * MSS, MSS, MSS);
        w.ssthresh = 0;
        w.cwnd = 4 * MSS;
        c.on_ack(&mut w, &ack(MSS, false, MSS, 5 * MSS));
        assert_eq!(w.cwnd, 4 * MSS + MSS / 4);
        for i in 0..1000 {
            c.on_ack(&mut w, &ack(MSS, false, (i + 2) * MSS, (i + 6) * MSS));
        }
        assert_eq!(w.cwnd, 10 * MSS);
    }

    #[test]
    fn a_flow_at_the_floor_still_grows_when_every_ack_closes_a_window() {
        // At 1 MSS each ACK ends a window; a marked window cuts (to the floor) and the next
        // unmarked ACK must still add its increment after the cut.
        let mut c = HotnetsDctcp::new(1.0 / 16.0, 1.0, NackDecrease::Mss);
        let mut w = at_floor();
        c.on_ack(&mut w, &ack(MSS, true, MSS, 2 * MSS));
        assert_eq!(w.cwnd, MSS);
        c.on_ack(&mut w, &ack(MSS, false, 2 * MSS, 3 * MSS));
        assert_eq!(w.cwnd, 2 * MSS, "the floor's ssthresh means congestion avoidance: +MSS^2/cwnd");
    }

    #[test]
    fn nack_rules() {
        let mut c = HotnetsDctcp::new(1.0 / 16.0, 1.0, NackDecrease::Mss);
        let mut w = Window::new(10 * MSS, MSS, MSS);
        c.on_nack(&mut w, &ack(0, false, 0, 10 * MSS));
        assert_eq!(w.cwnd, 9 * MSS);
        let mut w = at_floor();
        c.on_nack(&mut w, &ack(0, false, 0, MSS));
        assert_eq!(w.cwnd, MSS);
        // As a mark: the window's end cuts by alpha / 2 (alpha = 1 here: by half).
        let mut c = HotnetsDctcp::new(1.0 / 16.0, 1.0, NackDecrease::AsMark);
        let mut w = Window::new(10 * MSS, MSS, MSS);
        c.on_nack(&mut w, &ack(0, false, 0, 10 * MSS));
        assert_eq!(w.cwnd, 5 * MSS);
        // Within the same window a second NACK does not cut again.
        c.on_nack(&mut w, &ack(0, false, 0, 10 * MSS));
        assert_eq!(w.cwnd, 5 * MSS);
    }

    #[test]
    fn halving_nacks_cut_once_per_window_of_data() {
        let mut c = HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Halve);
        let mut w = Window::new(16 * MSS, MSS, MSS);
        // The first NACK halves; NACKs for data sent before that cut change nothing.
        c.on_nack(&mut w, &ack(0, false, 0, 16 * MSS));
        assert_eq!((w.cwnd, w.ssthresh), (8 * MSS, 8 * MSS));
        c.on_nack(&mut w, &ack(0, false, 10 * MSS, 20 * MSS));
        assert_eq!(w.cwnd, 8 * MSS);
        // Once everything sent before the cut is acknowledged, a NACK halves again, down to
        // the floor.
        c.on_nack(&mut w, &ack(0, false, 16 * MSS, 24 * MSS));
        assert_eq!(w.cwnd, 4 * MSS);
        for end in [30, 40, 50, 60] {
            c.on_nack(&mut w, &ack(0, false, end * MSS, (end + 1) * MSS));
        }
        assert_eq!(w.cwnd, MSS);
    }

    #[test]
    fn marked_window_cuts_once_by_alpha_over_two() {
        let mut c = HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss);
        let mut w = Window::new(16 * MSS, MSS, MSS);
        w.ssthresh = 0;
        c.on_ack(&mut w, &ack(MSS, true, MSS, 16 * MSS));
        let alpha = 1.0 / 16.0;
        assert_eq!(w.cwnd, (16.0 * MSS as f64 * (1.0 - alpha / 2.0)) as u64);
        let after = w.cwnd;
        c.on_ack(&mut w, &ack(MSS, true, 2 * MSS, 16 * MSS));
        assert_eq!(w.cwnd, after, "one cut per window");
    }
}
