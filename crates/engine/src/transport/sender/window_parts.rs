//! What a window sender (Uno's, or one paced by ICON) adds to the shared sender: its pacers
//! and per-packet RTO, kept behind one pointer so the other senders pay one test.

use super::super::cc::{Cc, CongestionControl, Window};
use super::super::icon::IconPacer;
use super::super::pacer::{PaceBy, Pacer};
use super::super::sub_packet::SubPacketPacer;
use crate::reliability::PacketRto;
use crate::units::Time;

/// What a window sender adds to the shared sender.
#[derive(Clone, Debug, Default)]
pub struct WindowParts {
    pub pacer: Option<Pacer>,
    /// ICON's pacing by incast degree (either pacer may be set; both hold a packet).
    pub icon: Option<IconPacer>,
    /// When the pacer held back a segment the window allowed: the time it may go.
    pub pace_wait: Option<Time>,
    /// Per-packet deadlines instead of the RFC 6298 timer (loss is found by them alone).
    pub packet_rto: Option<PacketRto>,
    /// Swift's pacing of windows below one segment (`None`: off).
    pub sub_packet: Option<SubPacketPacer>,
    pub(super) expired: Vec<u64>,
}

impl WindowParts {
    /// The earliest time the pacers let the next packet leave (0: no pacer holds it).
    #[inline]
    pub(super) fn release_time(&self, w: &Window, srtt: Option<Time>) -> Time {
        let base = self.pacer.as_ref().map_or(0, |p| p.next_send);
        let icon = self.icon.as_ref().map_or(0, |p| p.next_send(w.cwnd, w.mss, srtt));
        base.max(icon)
    }

    /// Whether the pacers hold a packet at `now`; if so, remembers when it may go.
    #[inline]
    pub(super) fn holds(&mut self, now: Time, w: &Window, srtt: Option<Time>) -> bool {
        let at = self.release_time(w, srtt);
        if now < at {
            self.pace_wait = Some(at);
        }
        now < at
    }

    /// A packet of `len` payload bytes left at `now`: the pacers count it.
    #[inline]
    pub(super) fn paced(&mut self, now: Time, len: u64, w: &Window, cc: &Cc) {
        if let Some(p) = &mut self.pacer {
            p.sent(now, len, || cc.pacing_rate_bps().map_or(PaceBy::Window(w.cwnd), PaceBy::Rate));
        }
        if let Some(p) = &mut self.icon {
            p.sent(now, len);
        }
    }
}
