//! SACK blocks as an ACK carries them (RFC 2018), and D-SACK (RFC 2883).
//!
//! A TCP header with the timestamp option has room for three SACK blocks, so an ACK reports
//! at most [`MAX_SACK_BLOCKS`]. Blocks are byte ranges `[start, end)`; an empty block
//! (`start == end`) ends the list.

/// Blocks per ACK: 40 bytes of options, 10 (+2 padding) taken by timestamps, 2 + 8 per block.
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

impl SackBlock {
    pub const EMPTY: SackBlock = SackBlock { start: 0, end: 0 };

    pub fn new(start: u64, end: u64) -> Self {
        SackBlock { start, end }
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// The blocks of one ACK, most important first (RFC 2018: the block holding the segment that
/// triggered the ACK, then the most recently reported others); a D-SACK block, when there is
/// one, comes first of all.
pub type SackList = [SackBlock; MAX_SACK_BLOCKS];

pub const NO_SACKS: SackList = [SackBlock::EMPTY; MAX_SACK_BLOCKS];

/// A list's blocks beyond the first (which a packet carries in its own line).
pub type ExtraSacks = [SackBlock; MAX_SACK_BLOCKS - 1];

/// The non-empty blocks of a list, in order.
pub fn blocks(list: &SackList) -> impl Iterator<Item = &SackBlock> {
    list.iter().take_while(|b| !b.is_empty())
}

/// RFC 2883: the first block reports a duplicate when it lies below the cumulative ACK, or
/// inside the second block.
pub fn is_dsack(list: &SackList, ack: u64) -> bool {
    let first = list[0];
    !first.is_empty() && (first.end <= ack || (first.start >= list[1].start && first.end <= list[1].end && !list[1].is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsack_below_the_ack_or_inside_the_second_block() {
        let mut l = NO_SACKS;
        l[0] = SackBlock::new(1000, 2000);
        assert!(is_dsack(&l, 3000), "below the cumulative ACK");
        assert!(!is_dsack(&l, 1000), "above it, alone: an ordinary block");
        l[1] = SackBlock::new(500, 2500);
        assert!(is_dsack(&l, 0), "inside the second block");
        l[1] = SackBlock::new(4000, 5000);
        assert!(!is_dsack(&l, 0));
        assert_eq!(blocks(&l).count(), 2);
    }
}
