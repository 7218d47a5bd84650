//! What partitions send each other (issue 23, `partition.rs`): per window, a batch of the
//! packets put on links to another partition, each with its arrival time and link, and the
//! mailbox that carries batches one way and hands them back empty the other.

use std::collections::VecDeque;

use crate::ids::PortId;
use crate::packet::Packet;
use crate::transport::ExtraSacks;
use crate::units::Time;

/// The packets one partition sent another in a window, in the order they started. Each is
/// one cache line: its wire fields, which the far side sets afresh, carry the crossing's
/// arrival time (`arrive_at`) and link (`next`). The few ACKs with SACK blocks beyond the
/// first keep them aside, by position (two lines a packet if kept inline).
#[derive(Default)]
pub(super) struct Crossings {
    packets: Vec<Packet>,
    /// (position in `packets`, blocks), in order of position.
    sacks: Vec<(u32, ExtraSacks)>,
}

impl Crossings {
    #[inline]
    pub(super) fn push(&mut self, at: Time, port: PortId, pkt: Packet, sacks: Option<ExtraSacks>) {
        if let Some(blocks) = sacks {
            let position = u32::try_from(self.packets.len()).expect("fewer than 2^32 crossings a window");
            self.sacks.push((position, blocks));
        }
        self.packets.push(Packet { arrive_at: at, next: port.0, ..pkt });
    }

    /// The `i`th packet, if there is one (to prefetch it).
    pub(super) fn get(&self, i: usize) -> Option<&Packet> {
        self.packets.get(i)
    }

    pub(super) fn len(&self) -> usize {
        self.packets.len()
    }

    /// Room for `n` packets: a batch filled again grows at most once, not by doubling from
    /// empty (each step fresh memory).
    pub(super) fn reserve(&mut self, n: usize) {
        self.packets.reserve(n);
    }

    pub(super) fn clear(&mut self) {
        self.packets.clear();
        self.sacks.clear();
    }

    /// Bytes on the wire they are (for byte accounting: not the hot path).
    pub(super) fn wire_bytes(&self) -> u64 {
        self.packets.iter().map(|p| p.wire_bytes as u64).sum()
    }

    /// When the earliest of them arrives.
    pub(super) fn first_arrival(&self) -> Option<Time> {
        self.packets.iter().map(|p| p.arrive_at).min()
    }

    /// Each packet, in order, with the SACK blocks kept aside for it.
    pub(super) fn entries(&self) -> impl Iterator<Item = (&Packet, Option<ExtraSacks>)> {
        let mut sacks = self.sacks.iter().peekable();
        self.packets.iter().enumerate().map(move |(i, p)| (p, sacks.next_if(|s| s.0 as usize == i).map(|s| s.1)))
    }
}

/// The batches one partition sent another, and those the other has taken in, to be
/// filled again: a new batch per window, allocated on one thread and freed on the other,
/// was pages to clear each time (38% of a partitioned Fig 10's page faults).
#[derive(Default)]
pub(super) struct Mailbox {
    /// Batches of one window each, oldest first.
    pub(super) sent: VecDeque<(u64, Crossings)>,
    pub(super) emptied: Vec<Crossings>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::SackBlock;

    /// A batch hands each packet back in order with its own arrival time, link and SACK
    /// blocks, the packet otherwise as it left; an emptied batch keeps nothing.
    #[test]
    fn a_batch_keeps_each_crossing_whole() {
        let mut bag = Crossings::default();
        let block = |s: u64| SackBlock { start: s, end: s + 10 };
        let sacks = |s: u64| -> ExtraSacks { [block(s); 2] };
        let pkt = |seq: u64| Packet { seq, next: 7, arrive_at: 9, dst: crate::ids::HostId(3), ..Packet::default() };
        bag.push(1_000, PortId(4), pkt(1), None);
        bag.push(2_000, PortId(5), pkt(2), Some(sacks(10)));
        bag.push(1_500, PortId(6), pkt(3), None);
        bag.push(3_000, PortId(4), pkt(4), Some(sacks(20)));
        let got: Vec<_> = bag.entries().map(|(p, s)| (p.seq, p.arrive_at, p.next, p.dst.0, s.map(|b| b[0].start))).collect();
        assert_eq!(got, [(1, 1_000, 4, 3, None), (2, 2_000, 5, 3, Some(10)), (3, 1_500, 6, 3, None), (4, 3_000, 4, 3, Some(20))]);
        assert_eq!((bag.len(), bag.first_arrival()), (4, Some(1_000)));
        bag.clear();
        bag.push(5, PortId(1), pkt(5), None);
        assert_eq!(bag.entries().map(|(p, s)| (p.seq, s.is_some())).collect::<Vec<_>>(), [(5, false)]);
    }
}
