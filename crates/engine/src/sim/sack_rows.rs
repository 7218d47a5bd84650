//! An ACK's SACK blocks beyond the first: the packet's line has room for one block, and
//! the others (under the recovery models that send more than one) go in a row beside the
//! packet's slot (`World::sack_extra`).

use super::world::World;
use crate::packet::{Packet, PacketRef};
use crate::transport::{ExtraSacks, Recovery, SackBlock, SackList, NO_SACKS};

impl World {
    /// The blocks beyond the first go beside the packet, in its slot's row. The rows grow
    /// only for an ACK with a second block: a row past their end reads as empty
    /// (`extra_sacks`). Most ACKs that carry a block carry one (bench (d): 67 of 1.32 M
    /// ACKs carry a block, none a second), and growing the rows to each one's slot wrote
    /// 40 MB of empty rows, fresh pages, during (d)'s run.
    #[inline(never)]
    pub(super) fn keep_extra_sacks(&mut self, r: PacketRef, extra: &ExtraSacks) {
        let i = r as usize;
        if i >= self.sack_extra.len() {
            if extra[0].is_empty() {
                return;
            }
            self.sack_extra.resize(i + 1, Default::default());
        }
        self.sack_extra[i] = *extra;
    }

    /// The blocks beyond the first of the ACK in slot `r` (whose first is not empty).
    #[inline(always)]
    pub(super) fn extra_sacks(&self, r: PacketRef) -> ExtraSacks {
        self.sack_extra.get(r as usize).copied().unwrap_or_default()
    }

    /// The SACK blocks an ACK in slot `r` carries.
    #[inline(always)]
    pub(super) fn sacks_of(&self, r: PacketRef, pkt: &Packet) -> SackList {
        let mut sacks = NO_SACKS;
        sacks[0] = SackBlock::new(pkt.sack_start, pkt.sack_end());
        if !sacks[0].is_empty() && self.transport.sender.recovery != Recovery::Basic {
            sacks[1..].copy_from_slice(&self.extra_sacks(r));
        }
        sacks
    }
}

#[cfg(test)]
mod tests {
    use super::super::Simulation;
    use crate::transport::SackBlock;

    /// An ACK's blocks beyond the first take a row beside its slot only when there is a
    /// second block; a row past the end reads as empty, and a slot's next ACK never reads
    /// the row an earlier ACK in the same slot left.
    #[test]
    fn rows_grow_only_for_a_second_block() {
        let toml = include_str!("../../tests/fixtures/fat_tree_k4_permutation.toml");
        let spec = crate::parse_scenario(toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(&spec).unwrap();
        let w = sim.whole_mut();
        let one = [SackBlock::EMPTY; 2];
        let two = [SackBlock::new(10, 20), SackBlock::EMPTY];
        w.keep_extra_sacks(500, &one);
        assert!(w.sack_extra.is_empty(), "an ACK with one block grew the rows");
        assert_eq!(w.extra_sacks(500), one);
        w.keep_extra_sacks(300, &two);
        assert_eq!(w.sack_extra.len(), 301);
        assert_eq!(w.extra_sacks(300), two);
        w.keep_extra_sacks(300, &one);
        assert_eq!(w.extra_sacks(300), one, "an ACK with one block read an earlier ACK's second");
        w.keep_extra_sacks(1_000, &one);
        assert_eq!(w.sack_extra.len(), 301);
    }
}
