//! How a cut run's time is cut into windows and epochs (`pipeline.rs` runs them;
//! `partition.rs` chooses a grid with each plan).

use crate::units::Time;

/// How a cut run's time is gridded: windows per lookahead, and how many windows a partition
/// may run ahead of the others (`slack`, less than `windows_per_lookahead`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Grid {
    pub windows_per_lookahead: u64,
    pub slack: u64,
}

/// Per datacenter: windows of 1/8 of the WAN's lookahead (110 us for Uno), a slack of two.
pub(super) const DC_GRID: Grid = Grid { windows_per_lookahead: 8, slack: 2 };
/// By pod, whose 1 us links make windows of nanoseconds: what a window costs besides its
/// events weighs more there than the slack gains, so windows are twice as long (250 ns) and
/// the slack one (bench (c2): 0.306 -> 0.282 s, medians of 3; docs/performance.md).
pub(super) const POD_GRID: Grid = Grid { windows_per_lookahead: 4, slack: 1 };
// A window shorter than the lookahead is what lets the sending side of a link between
// partitions run no arrivals there (`partition.rs`, "A link between partitions").
const _: () = assert!(DC_GRID.holds() && POD_GRID.holds());

impl Grid {
    /// Windows shorter than the lookahead, and a slack below their number.
    const fn holds(self) -> bool {
        self.windows_per_lookahead > 1 && self.slack < self.windows_per_lookahead
    }
}

/// An epoch's end waits for the slowest partition's last windows (up to `slack` + 1 of
/// them): Fig 10 on two threads ran 3% faster with epochs of 512 windows than of 64, and a
/// quiet stretch costs at most one epoch of empty windows (a few microseconds each).
const EPOCH_WINDOWS: u64 = 512;
/// A streaming run retires its finished flows at epochs' ends (`partition_stream.rs`), so
/// its epochs last at most this long: every flow that arrives over an epoch may wait for
/// its end (10 us of a k = 32 fat-tree's 3 G flows/s: 31,000 flows of 1 KiB in each
/// partition).
pub(super) const STREAMING_EPOCH_PS: Time = 10_000_000;

/// Windows of `window` ps an epoch lasts.
pub(super) fn epoch_windows(window: Time, streaming: bool) -> u64 {
    match streaming {
        true => (STREAMING_EPOCH_PS / window).clamp(1, EPOCH_WINDOWS),
        false => EPOCH_WINDOWS,
    }
}
