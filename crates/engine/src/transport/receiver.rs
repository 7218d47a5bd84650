//! The receiver: reassembly (cumulative point + out-of-order ranges), the SACK blocks to
//! report, delayed ACKs, and the two ECN echo styles.

use super::sack::{SackBlock, SackList, MAX_SACK_BLOCKS, NO_SACKS};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EcnEcho {
    /// DCTCP (RFC 8257): each ACK echoes exactly the CE bit of the data it acknowledges.
    Dctcp,
    /// RFC 3168: ECE stays set from a CE packet until a segment with CWR arrives.
    Classic,
}

/// Which SACK blocks an ACK carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SackReport {
    /// One block: the out-of-order range holding the segment that triggered the ACK, none
    /// for in-order data (fanin's first model, kept for `recovery = "basic"`).
    Triggering,
    /// RFC 2018: up to three blocks, the one holding the triggering segment first, then the
    /// most recently reported others. `dsack`: a duplicate segment is reported first (RFC
    /// 2883, as Linux does).
    Rfc2018 { dsack: bool },
    /// ns-3 3.44's `TcpRxBuffer` list: each stored out-of-order segment is pushed to the
    /// front as its own block and merged only with blocks it exactly touches; the list
    /// keeps four (the oldest is dropped, and what it covered is not reported again); a
    /// block leaves once the cumulative point passes its end; an ACK carries the first
    /// three. So the first block can be smaller than the range it lies in, and blocks
    /// already inside it can still follow.
    Ns3List,
}

/// ns-3's SACK list keeps this many blocks.
const NS3_SACK_LIST: usize = 4;

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub echo: EcnEcho,
    /// ACK every `delayed_ack` in-order segments (1 = every segment).
    pub delayed_ack: u32,
    pub sack: SackReport,
    /// A CE mark counts only on a segment above the last one whose mark counted; a mark on
    /// a retransmission or a late segment is taken as no mark (ns-3's `m_ecnCESeq`).
    pub ce_only_above_last: bool,
}

/// An ACK the receiver wants sent now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckToSend {
    pub ack: u64,
    pub sacks: SackList,
    pub ece: bool,
}

#[derive(Clone, Debug)]
pub struct Receiver {
    pub size: u64,
    pub rcv_nxt: u64,
    /// Out-of-order ranges above `rcv_nxt`, sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    /// Per range: when it last held a triggering segment (0: forgotten, never reported).
    recency: Vec<u64>,
    clock: u64,
    sack: SackReport,
    echo: EcnEcho,
    ece_latched: bool,
    delayed_ack: u32,
    /// In-order segments received since the last ACK.
    unacked: u32,
    /// CE state of the data not yet acknowledged (DCTCP echo with delayed ACKs).
    pending_ce: bool,
    ce_only_above_last: bool,
    /// The highest segment whose CE mark counted.
    last_ce_seq: Option<u64>,
    /// `SackReport::Ns3List`: the blocks, newest first.
    ns3_list: Vec<(u64, u64)>,
}

impl Receiver {
    pub fn new(size: u64, cfg: &ReceiverConfig) -> Self {
        Receiver {
            size,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recency: Vec::new(),
            clock: 0,
            sack: cfg.sack,
            echo: cfg.echo,
            ece_latched: false,
            delayed_ack: cfg.delayed_ack.max(1),
            unacked: 0,
            pending_ce: false,
            ce_only_above_last: cfg.ce_only_above_last,
            last_ce_seq: None,
            ns3_list: Vec::new(),
        }
    }

    /// Distinct bytes received so far, in order or not.
    pub fn bytes_received(&self) -> u64 {
        self.rcv_nxt + self.ooo.iter().map(|(s, e)| e - s).sum::<u64>()
    }

    /// Moves a complete stream to byte `seq` (the sender skips there too).
    pub fn skip_to(&mut self, seq: u64) {
        debug_assert!(self.complete() && seq >= self.size);
        self.size = seq;
        self.rcv_nxt = seq;
    }

    /// A persistent connection's next response: `bytes` more are expected.
    pub fn append(&mut self, bytes: u64) {
        self.size += bytes;
    }

    pub fn complete(&self) -> bool {
        self.rcv_nxt >= self.size
    }

    /// Whether the CE mark (`ce`) of the segment at `seq` counts; call once per segment,
    /// before [`Receiver::ce_change_ack`] and [`Receiver::on_data`].
    pub fn counted_ce(&mut self, seq: u64, ce: bool) -> bool {
        if !ce || !self.ce_only_above_last {
            return ce;
        }
        if self.last_ce_seq.is_some_and(|s| seq <= s) {
            return false;
        }
        self.last_ce_seq = Some(seq);
        true
    }

    /// Takes in one data segment. Returns the ACK to send now, or `None` when the ACK is
    /// delayed (the caller arms the delayed-ACK timer and later calls [`Receiver::flush`]).
    pub fn on_data(&mut self, seq: u64, len: u64, ce: bool, cwr: bool) -> Option<AckToSend> {
        let end = seq + len;
        let in_order = seq <= self.rcv_nxt;
        let had_holes = !self.ooo.is_empty();
        let duplicate = len > 0 && (end <= self.rcv_nxt || self.ooo.iter().any(|&(s, e)| s <= seq && end <= e));
        if self.sack == SackReport::Ns3List {
            self.ns3_store(seq, end);
        }
        if end > self.rcv_nxt {
            if in_order {
                self.rcv_nxt = end;
                self.absorb_ooo();
                let nxt = self.rcv_nxt;
                self.ns3_list.retain(|&(_, e)| e > nxt);
            } else {
                self.insert_ooo(seq, end);
            }
        }
        if self.echo == EcnEcho::Classic {
            if cwr {
                self.ece_latched = false;
            }
            if ce {
                self.ece_latched = true;
            }
        }
        let sacks = self.report(seq, end, duplicate);
        self.unacked += 1;
        let immediate = self.delayed_ack == 1 || !in_order || had_holes || self.complete() || self.unacked >= self.delayed_ack;
        let ece = match self.echo {
            EcnEcho::Dctcp => ce,
            EcnEcho::Classic => self.ece_latched,
        };
        self.pending_ce = ce;
        if immediate {
            self.unacked = 0;
            Some(AckToSend { ack: self.rcv_nxt, sacks, ece })
        } else {
            None
        }
    }

    /// Bytes `[start, end)` are received without all their packets: an erasure-coded block
    /// was decoded (`reliability::erasure`). Call before [`Receiver::on_data`] of the packet
    /// that completed it, so its ACK covers the block. Coded flows run `basic` recovery,
    /// whose one SACK block is the range holding the triggering packet.
    pub fn decoded(&mut self, start: u64, end: u64) {
        debug_assert_eq!(self.sack, SackReport::Triggering);
        if end <= self.rcv_nxt {
            return;
        }
        if start <= self.rcv_nxt {
            self.rcv_nxt = end;
            self.absorb_ooo();
        } else {
            self.insert_ooo(start, end);
        }
    }

    /// DCTCP's echo state machine (RFC 8257, 3.2): when a segment's CE bit differs from the
    /// data still waiting for a delayed ACK, that data is acknowledged first with its own
    /// CE state, so every ACK covers data of one state. Call before [`Receiver::on_data`].
    pub fn ce_change_ack(&mut self, ce: bool) -> Option<AckToSend> {
        if self.echo == EcnEcho::Dctcp && self.unacked > 0 && ce != self.pending_ce {
            self.flush()
        } else {
            None
        }
    }

    /// The delayed-ACK timer fired: acknowledge what is pending, if anything.
    pub fn flush(&mut self) -> Option<AckToSend> {
        if self.unacked == 0 {
            return None;
        }
        self.unacked = 0;
        let ece = match self.echo {
            EcnEcho::Dctcp => self.pending_ce,
            EcnEcho::Classic => self.ece_latched,
        };
        let sacks = match self.sack {
            SackReport::Triggering => NO_SACKS,
            SackReport::Rfc2018 { .. } => self.most_recent(NO_SACKS, 0),
            SackReport::Ns3List => self.ns3_blocks(),
        };
        Some(AckToSend { ack: self.rcv_nxt, sacks, ece })
    }

    fn absorb_ooo(&mut self) {
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
            self.recency.remove(0);
        }
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|&(_, end)| end < s);
        let mut start = s;
        let mut end = e;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= end {
            start = start.min(self.ooo[j].0);
            end = end.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((start, end)));
        self.recency.splice(i..j, std::iter::once(0));
    }

    /// The blocks for an ACK triggered by segment `[seq, end)`.
    fn report(&mut self, seq: u64, end: u64, duplicate: bool) -> SackList {
        let dsack = match self.sack {
            SackReport::Triggering => {
                let mut out = NO_SACKS;
                out[0] = self.block_containing(seq);
                return out;
            }
            SackReport::Rfc2018 { dsack } => dsack,
            SackReport::Ns3List => return self.ns3_blocks(),
        };
        if self.ooo.is_empty() && !(dsack && duplicate) {
            return NO_SACKS;
        }
        // The range holding the triggering segment becomes the most recent.
        if let Some(i) = self.ooo.iter().position(|&(s, e)| s <= seq && seq < e) {
            self.clock += 1;
            self.recency[i] = self.clock;
        }
        let mut out = NO_SACKS;
        let mut n = 0;
        if dsack && duplicate {
            out[0] = SackBlock::new(seq, end);
            n = 1;
        }
        self.most_recent(out, n)
    }

    /// Fills `out` from slot `n` on with the most recently reported ranges, newest first.
    fn most_recent(&self, mut out: SackList, mut n: usize) -> SackList {
        let mut below = u64::MAX;
        while n < MAX_SACK_BLOCKS {
            let next = self.recency.iter().enumerate().filter(|&(_, &r)| r > 0 && r < below).max_by_key(|&(_, &r)| r);
            let Some((i, &r)) = next else { break };
            out[n] = SackBlock::new(self.ooo[i].0, self.ooo[i].1);
            below = r;
            n += 1;
        }
        out
    }

    /// `TcpRxBuffer::Add` for the SACK list: the part of `[seq, end)` not held yet (ns-3
    /// trims the segment against what it stores), if above the cumulative point, becomes a
    /// block (`UpdateSackList`). Call before the segment is taken in.
    fn ns3_store(&mut self, seq: u64, end: u64) {
        let (mut head, mut tail) = (seq.max(self.rcv_nxt), end);
        for &(s, e) in &self.ooo {
            if s > tail {
                break;
            }
            if e <= head || (s > head && e < tail) {
                continue;
            }
            if s <= head {
                head = e;
            }
            if e >= tail {
                tail = s;
            }
        }
        if head < tail && head > self.rcv_nxt {
            self.ns3_update_list(head, tail);
        }
    }

    /// `TcpRxBuffer::UpdateSackList`: the new block goes first; it absorbs every block it
    /// exactly touches (rescanning after each merge); beyond four, the last is dropped.
    fn ns3_update_list(&mut self, head: u64, tail: u64) {
        let list = &mut self.ns3_list;
        list.insert(0, (head, tail));
        let mut i = 1;
        while i < list.len() {
            let (first, cur) = (list[0], list[i]);
            let merged = if first.0 == cur.1 {
                Some((cur.0, first.1))
            } else if first.1 == cur.0 {
                Some((first.0, cur.1))
            } else {
                None
            };
            match merged {
                Some(m) => {
                    list.remove(i);
                    list[0] = m;
                    i = 1;
                }
                None => i += 1,
            }
        }
        if list.len() > NS3_SACK_LIST {
            list.pop();
        }
    }

    /// The first three blocks of ns-3's list (what fits beside the timestamp option).
    fn ns3_blocks(&self) -> SackList {
        let mut out = NO_SACKS;
        for (slot, &(s, e)) in out.iter_mut().zip(&self.ns3_list) {
            *slot = SackBlock::new(s, e);
        }
        out
    }

    /// The SACK block holding `seq` (RFC 2018: the first block reports the latest segment).
    fn block_containing(&self, seq: u64) -> SackBlock {
        self.ooo.iter().find(|&&(s, e)| s <= seq && seq < e).map_or(SackBlock::EMPTY, |&(s, e)| SackBlock::new(s, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(echo: EcnEcho, delayed: u32) -> Receiver {
        Receiver::new(10_000, &ReceiverConfig { echo, delayed_ack: delayed, sack: SackReport::Triggering, ce_only_above_last: false })
    }

    fn rfc2018(dsack: bool) -> Receiver {
        receiver(SackReport::Rfc2018 { dsack })
    }

    fn receiver(sack: SackReport) -> Receiver {
        Receiver::new(100_000, &ReceiverConfig { echo: EcnEcho::Dctcp, delayed_ack: 1, sack, ce_only_above_last: false })
    }

    /// The non-empty blocks as (start, end) pairs, in kB.
    fn kb(a: AckToSend) -> Vec<(u64, u64)> {
        super::super::sack::blocks(&a.sacks).map(|b| (b.start / 1000, b.end / 1000)).collect()
    }

    #[test]
    fn reassembly_and_sack() {
        let mut r = rx(EcnEcho::Dctcp, 1);
        assert_eq!(r.on_data(0, 1000, false, false).unwrap().ack, 1000);
        let a = r.on_data(2000, 1000, false, false).unwrap();
        assert_eq!((a.ack, kb(a)), (1000, vec![(2, 3)]));
        let a = r.on_data(3000, 1000, false, false).unwrap();
        assert_eq!((a.ack, kb(a)), (1000, vec![(2, 4)]));
        let a = r.on_data(1000, 1000, false, false).unwrap();
        assert_eq!((a.ack, kb(a)), (4000, vec![]));
        // A duplicate counts no bytes twice.
        r.on_data(2000, 1000, false, false);
        assert_eq!(r.bytes_received(), 4000);
        r.on_data(6000, 1000, false, false);
        r.on_data(5500, 1000, false, false);
        assert_eq!(r.bytes_received(), 5500);
    }

    #[test]
    fn rfc2018_reports_the_triggering_block_then_the_most_recent_others() {
        let mut r = rfc2018(false);
        r.on_data(0, 1000, false, false);
        // Holes at 1, 3, 5, 7: blocks 2, 4, 6, 8 arrive in that order.
        for k in [2, 4, 6, 8] {
            r.on_data(k * 1000, 1000, false, false);
        }
        assert_eq!(kb(r.on_data(8000, 0, false, false).unwrap()), vec![(8, 9), (6, 7), (4, 5)]);
        // Extending an older block makes it the first; the others follow by recency.
        assert_eq!(kb(r.on_data(4000, 1000, false, false).unwrap()), vec![(4, 5), (8, 9), (6, 7)]);
        assert_eq!(kb(r.on_data(2500, 500, false, false).unwrap()), vec![(2, 3), (4, 5), (8, 9)]);
        // An in-order segment that advances the ACK reports no block of its own.
        let a = r.on_data(1000, 1000, false, false).unwrap();
        assert_eq!((a.ack, kb(a)), (3000, vec![(4, 5), (8, 9), (6, 7)]));
        // Filling the last hole but one: only the blocks still above the ACK remain.
        let a = r.on_data(3000, 1000, false, false).unwrap();
        assert_eq!((a.ack, kb(a)), (5000, vec![(8, 9), (6, 7)]));
    }

    #[test]
    fn dsack_reports_a_duplicate_first() {
        let mut r = rfc2018(true);
        r.on_data(0, 1000, false, false);
        r.on_data(2000, 1000, false, false);
        // A duplicate below the cumulative ACK.
        assert_eq!(kb(r.on_data(0, 1000, false, false).unwrap()), vec![(0, 1), (2, 3)]);
        // A duplicate inside an out-of-order block: that block follows it.
        r.on_data(5000, 1000, false, false);
        let a = r.on_data(2000, 1000, false, false).unwrap();
        assert_eq!(kb(a), vec![(2, 3), (2, 3), (5, 6)]);
        assert!(super::super::sack::is_dsack(&a.sacks, a.ack));
        // Without D-SACK the duplicate is not reported.
        let mut r = rfc2018(false);
        r.on_data(0, 1000, false, false);
        assert_eq!(kb(r.on_data(0, 1000, false, false).unwrap()), vec![]);
    }

    #[test]
    fn a_receiver_that_remembers_four_blocks_forgets_the_oldest() {
        // ns-3's list keeps four blocks: the fifth pushes the oldest (2) out for good. Once
        // the holes between the others fill, one block is left to report beside it; an RFC
        // 2018 receiver that remembers every block (Linux) still reports 2-3.
        for (sack, expect) in [(SackReport::Ns3List, vec![(4, 11)]), (SackReport::Rfc2018 { dsack: false }, vec![(4, 11), (2, 3)])] {
            let mut r = receiver(sack);
            for k in [2, 4, 6, 8, 10, 9, 7] {
                r.on_data(k * 1000, 1000, false, false);
            }
            assert_eq!(kb(r.on_data(5000, 1000, false, false).unwrap()), expect, "{sack:?}");
        }
    }

    #[test]
    fn ns3_counts_a_mark_only_above_the_last_counted_one() {
        let cfg = ReceiverConfig { echo: EcnEcho::Dctcp, delayed_ack: 1, sack: SackReport::Triggering, ce_only_above_last: true };
        let mut r = Receiver::new(10_000, &cfg);
        assert!(r.counted_ce(0, true));
        assert!(r.counted_ce(3000, true));
        // A marked retransmission of 1000, below the last counted mark: no echo.
        assert!(!r.counted_ce(1000, true));
        assert!(!r.counted_ce(2000, false));
        assert!(r.counted_ce(4000, true));
        let mut linux = rx(EcnEcho::Dctcp, 1);
        assert!(linux.counted_ce(3000, true) && linux.counted_ce(1000, true));
    }

    #[test]
    fn classic_echo_latches_until_cwr() {
        let mut r = rx(EcnEcho::Classic, 1);
        assert!(r.on_data(0, 1000, true, false).unwrap().ece);
        assert!(r.on_data(1000, 1000, false, false).unwrap().ece);
        assert!(!r.on_data(2000, 1000, false, true).unwrap().ece);
        let mut d = rx(EcnEcho::Dctcp, 1);
        assert!(d.on_data(0, 1000, true, false).unwrap().ece);
        assert!(!d.on_data(1000, 1000, false, false).unwrap().ece);
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = rx(EcnEcho::Dctcp, 2);
        assert!(r.on_data(0, 1000, false, false).is_none());
        assert_eq!(r.on_data(1000, 1000, false, false).unwrap().ack, 2000);
        assert!(r.on_data(2000, 1000, false, false).is_none());
        assert_eq!(r.flush().unwrap().ack, 3000);
        assert!(r.flush().is_none());
        // A CE change first acknowledges the pending data with its own (clear) state.
        assert!(r.on_data(3000, 1000, false, false).is_none());
        let pre = r.ce_change_ack(true).unwrap();
        assert_eq!((pre.ack, pre.ece), (4000, false));
        assert!(r.on_data(4000, 1000, true, false).is_none());
        assert_eq!(r.flush().map(|a| (a.ack, a.ece)), Some((5000, true)));
        assert!(r.ce_change_ack(true).is_none());
    }

    /// ns-3's list: blocks per stored segment, merged only when they touch; four kept, the
    /// oldest dropped for good; three reported.
    #[test]
    fn ns3_sack_list() {
        let mut r = receiver(SackReport::Ns3List);
        let mut seg = |k: u64| kb(r.on_data(k * 1000, 1000, false, false).unwrap());
        assert_eq!(seg(2), vec![(2, 3)]);
        assert_eq!(seg(4), vec![(4, 5), (2, 3)]);
        // 3 touches both: merged with 4-5, then (rescanning) with 2-3.
        assert_eq!(seg(3), vec![(2, 5)]);
        for k in [6, 8, 10] {
            seg(k);
        }
        // 2-5 is dropped from the list (four kept); 6-7 is kept but not reported.
        assert_eq!(seg(12), vec![(12, 13), (10, 11), (8, 9)]);
        // 7 touches 8-9, and the merged block touches 6-7.
        assert_eq!(seg(7), vec![(6, 9), (12, 13), (10, 11)]);
        // A duplicate stores nothing and changes nothing.
        assert_eq!(seg(7), vec![(6, 9), (12, 13), (10, 11)]);
        // 0-2 arrives: the cumulative point jumps to 5 (2-5 was received, though no
        // longer in the list); every block lies above it.
        assert_eq!(kb(r.on_data(0, 2000, false, false).unwrap()), vec![(6, 9), (12, 13), (10, 11)]);
        let a = r.on_data(5000, 1000, false, false).unwrap();
        assert_eq!((a.ack / 1000, kb(a)), (9, vec![(12, 13), (10, 11)]));
    }
}
