//! Swift-style pacing of a fractional window (IMC '24 section 5.2; Swift, SIGCOMM '20,
//! section 3.5): a sender whose window is below one segment sends one segment every
//! `k = MSS / window` smoothed RTTs, so an incast of O(10k) flows can keep its total
//! window near the BDP instead of at one segment per flow.
//!
//! Rules (the paper gives only "one packet every several RTTs"; the rest is fanin's):
//! * the window that counts is `max(cwnd, min_cwnd)` within the receive window; at or
//!   above one MSS the pacer does nothing and the ordinary window rules apply;
//! * below one MSS, at most one segment is out and the next leaves `gap = base RTT x MSS /
//!   window` after the previous one. Swift divides its measured RTT; fanin takes the
//!   path's base RTT, because a connection of an O(10k) incast gets only a few RTT samples
//!   per burst and the smoothed RTT a congested burst leaves behind (10-50x the base)
//!   would slow the next burst that much;
//! * a write on an idle persistent connection does not send at once: its first segment
//!   waits `phase x gap`, with the connection's own phase in [0, 1) drawn from its hash,
//!   so the senders of one incast spread over one gap instead of all sending at its start.
//!
//! Integer picoseconds; the gap is computed in `u128` and saturates at `u64::MAX`.

use crate::units::Time;

/// Phases are fractions of 2^16.
const PHASE_ONE: u64 = 1 << 16;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubPacketPacer {
    /// The earliest time the next segment may leave.
    pub next_send: Time,
    /// This connection's place in the gap for a write's first segment, of 2^16.
    phase: u64,
    /// The path's base RTT.
    base_rtt: Time,
    mss: u64,
}

impl SubPacketPacer {
    pub fn new(base_rtt: Time, mss: u64, hash: u32) -> Self {
        SubPacketPacer { next_send: 0, phase: (hash >> 16) as u64, base_rtt, mss }
    }

    /// Whether a window of `window` bytes is paced (below one segment, not a zero window).
    #[inline]
    pub fn engaged(&self, window: u64) -> bool {
        window > 0 && window < self.mss
    }

    /// `base RTT x MSS / window`: k = MSS / window base RTTs between segments.
    pub fn gap(&self, window: u64) -> Time {
        (self.base_rtt as u128 * self.mss as u128 / window.max(1) as u128).min(u64::MAX as u128) as Time
    }

    /// The application wrote at `now` on an idle connection: the first segment waits
    /// its phase of the gap.
    pub fn on_write(&mut self, now: Time, window: u64) {
        if self.engaged(window) {
            let wait = (self.gap(window) as u128 * self.phase as u128 / PHASE_ONE as u128) as Time;
            self.next_send = self.next_send.max(now.saturating_add(wait));
        }
    }

    /// A segment left at `now` under a window of `window` bytes.
    pub fn sent(&mut self, now: Time, window: u64) {
        if self.engaged(window) {
            self.next_send = now.saturating_add(self.gap(window));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::PS_PER_US;

    #[test]
    fn a_window_of_a_tenth_of_a_segment_sends_every_ten_rtts() {
        // MSS 1448 B, window 144.8 B -> 144 B (integer bytes): k = 1448 / 144 = 10.06 RTTs.
        let mut p = SubPacketPacer::new(32_700_000, 1448, 0);
        assert!(p.engaged(144) && !p.engaged(1448) && !p.engaged(0));
        // Base RTT 32.7 us: gap = 32.7 us x 1448 / 144 = 328.816... us, in whole ps.
        assert_eq!(p.gap(144), 328_816_666);
        p.sent(1_000, 144);
        assert_eq!(p.next_send, 1_000 + 328_816_666);
        // Half a segment: two base RTTs.
        assert_eq!(p.gap(724), 65_400_000);
        // At a whole segment the pacer steps aside and leaves next_send alone.
        p.sent(5_000, 1448);
        assert_eq!(p.next_send, 1_000 + 328_816_666);
    }

    #[test]
    fn a_write_waits_its_phase_of_the_gap() {
        // Phase 0x4000 / 0x10000 = 1/4; window 15 B (~1/96 segment): gap = 30 us x 1448 / 15
        // = 2.896 ms, so the first segment waits 724 us after the write.
        let mut p = SubPacketPacer::new(30 * PS_PER_US, 1448, 0x4000_0000);
        p.on_write(10 * PS_PER_US, 15);
        assert_eq!(p.next_send, 10 * PS_PER_US + 724 * PS_PER_US);
        // A connection with phase 0 sends at once; a full window is not paced at all.
        let mut q = SubPacketPacer::new(30 * PS_PER_US, 1448, 0xffff);
        q.on_write(7, 15);
        assert_eq!(q.next_send, 7);
        let mut r = SubPacketPacer::new(30 * PS_PER_US, 1448, 0x8000_0000);
        r.on_write(7, 3000);
        assert_eq!(r.next_send, 0);
    }
}
