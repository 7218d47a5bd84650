//! NewReno (RFC 6582 window arithmetic): halve on loss, Reno growth otherwise. With ECN on
//! it halves at most once per window on an echo, as RFC 3168 asks.

use super::{AckSignal, CongestionControl, Window};
use crate::transport::recovery::{Recovery, Reduction};

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    pub ecn: bool,
    /// ECN reductions are suppressed until snd_una passes this point (one per window).
    cwr_until: u64,
}

impl NewReno {
    pub fn new(ecn: bool) -> Self {
        NewReno { ecn, cwr_until: 0 }
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        if ack.ece && self.ecn && ack.snd_una > self.cwr_until && ack.may_cut {
            w.ecn_cut(w.cwnd / 2);
            self.cwr_until = ack.snd_nxt;
            return;
        }
        if ack.may_grow {
            w.increase(ack.delivered);
        }
    }

    fn on_loss(&mut self, w: &mut Window) {
        w.reduce_to(w.cwnd / 2);
    }

    /// Linux's Reno halves the window; ns-3's NewReno halves the flight, at least 2 MSS.
    fn ssthresh(&self, w: &Window, _why: Reduction, flight: u64, style: Recovery) -> u64 {
        match style {
            Recovery::Ns3 => (flight / 2).max(2 * w.mss),
            Recovery::Linux | Recovery::Basic => w.cwnd / 2,
        }
    }

    fn ecn_capable(&self) -> bool {
        self.ecn
    }
}
