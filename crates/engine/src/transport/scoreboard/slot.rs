//! A segment's slot on the board: its state and last send time in one word.

use super::Seg;
use crate::units::Time;

/// One segment's state and when it was last sent (0 when times are not tracked), in one word.
#[derive(Copy, Clone, Debug)]
pub(super) struct Slot(u64);

/// The state's place in the word. Every time a run reaches, its end included, is at most
/// `MAX_TIME` (10^6 s, under 2^60 ps), so the low 60 bits hold any send time exactly.
const STATE_SHIFT: u32 = 60;
const TIME_MASK: u64 = (1 << STATE_SHIFT) - 1;
const _: () = assert!(crate::units::MAX_TIME <= TIME_MASK);

impl Slot {
    #[inline(always)]
    pub(super) fn new(sent_at: Time, state: Seg) -> Slot {
        debug_assert!(sent_at <= TIME_MASK);
        Slot((state as u64) << STATE_SHIFT | (sent_at & TIME_MASK))
    }
    #[inline(always)]
    pub(super) fn state(self) -> Seg {
        // By discriminant: the order `Seg` declares them in.
        const STATES: [Seg; 6] = [Seg::Sent, Seg::Sacked, Seg::Lost, Seg::Retx, Seg::RetxDup, Seg::SackedRetx];
        STATES[(self.0 >> STATE_SHIFT) as usize]
    }
    #[inline(always)]
    pub(super) fn sent_at(self) -> Time {
        self.0 & TIME_MASK
    }
}
