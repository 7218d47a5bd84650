//! UnoRC's erasure-coded blocks (Uno, SC '25 §4.2; spec `uno_sc25.md` §1.3), the part any
//! congestion control can use.
//!
//! A coded flow's byte stream is cut into blocks of `data + parity` MSS packets (8 + 2 by
//! default): block id = 1 + ⌊seq / ((data + parity) · MSS)⌋. The sender pads the flow to
//! ⌈size / (data · MSS)⌉ whole blocks and sends every packet of the padded stream as an
//! ordinary packet; the code is MDS, so any `data` distinct packets of a block rebuild all
//! of it. The receiver then treats the whole block as received (it has decoded it): its
//! cumulative ACK and SACK block cover it, which is how an ACK carries "the highest
//! contiguous completed block" (the cumulative point, ⌊ack / block bytes⌋) and "the block
//! this packet just completed" (the SACK range holding the packet) in the existing fields.
//!
//! A block that does not complete within `ec_wait` of its first packet costs one parity
//! NACK (the timer is disarmed; another packet of the block re-arms it); the sender then
//! retransmits the block's packets not yet acknowledged. Nothing here touches a packet:
//! [`BlockReceiver`] is the receiver's bookkeeping, told each arrival and the time.

use crate::units::Time;

/// No deadline: a block's timer is disarmed.
const NEVER: Time = Time::MAX;

/// Packets per block: `data` carry the flow's bytes (the last block's may be padding), the
/// `parity` more repair any `parity` losses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockShape {
    pub data: u32,
    pub parity: u32,
}

impl BlockShape {
    /// The block's packet masks are 32 bits wide.
    pub const MAX_PACKETS: u32 = 32;

    pub fn packets(self) -> u32 {
        self.data + self.parity
    }

    /// Blocks a flow of `size` bytes needs.
    pub fn blocks(self, size: u64, mss: u64) -> u64 {
        size.div_ceil(self.data as u64 * mss)
    }

    /// Bytes of the coded (padded) stream of a `size`-byte flow: its blocks, every packet
    /// a full MSS.
    pub fn coded_bytes(self, size: u64, mss: u64) -> u64 {
        self.blocks(size, mss) * self.packets() as u64 * mss
    }
}

/// Which flows are coded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErasureScope {
    /// Flows whose endpoints lie in different datacenters (the paper's use).
    Inter,
    /// Every flow.
    All,
}

/// `[transport.erasure]`, resolved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ErasureConfig {
    pub shape: BlockShape,
    pub scope: ErasureScope,
    /// How long a block may stay incomplete after its first packet, for intra- and
    /// inter-datacenter flows (the artifact's 5 Ql_intra, and 5 Ql_intra + 3 Ql_inter).
    pub ec_wait: Time,
    pub ec_wait_inter: Time,
}

/// What the receiver knows of one block.
#[derive(Copy, Clone, Debug)]
struct BlockRx {
    /// Positions received (any copy), and those whose original transmission arrived.
    got: u32,
    originals: u32,
    /// When the block's timer expires (`NEVER`: disarmed).
    deadline: Time,
    flags: u8,
}

/// `BlockRx::flags`.
const SEEN: u8 = 1;
/// The block's first packet was a retransmission: its timer runs `retx_wait`.
const RETX_FIRST: u8 = 2;
/// A retransmission added a packet before the block completed.
const RETX_USED: u8 = 4;
const COMPLETE: u8 = 8;

impl Default for BlockRx {
    fn default() -> Self {
        BlockRx { got: 0, originals: 0, deadline: NEVER, flags: 0 }
    }
}

/// What one data packet did at the receiver.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// The packet completed its block: these bytes `[start, end)` are now received.
    pub decoded: Option<(u64, u64)>,
    /// The block's timer was (re)armed to expire then.
    pub armed: Option<Time>,
}

/// The receiver's side of a coded flow: per block, the packets received and its timer.
#[derive(Clone, Debug)]
pub struct BlockReceiver {
    shape: BlockShape,
    mss: u64,
    /// Blocks of the flow; their states are made at the first packet.
    count: u64,
    blocks: Vec<BlockRx>,
    /// The lowest block not complete (every block below it is), and one past the highest
    /// block a packet arrived for: the timers to look at lie in between.
    low: u64,
    high: u64,
    wait: Time,
    /// A block first heard of through a retransmission waits this long instead (the
    /// artifact stamps retransmissions with `target_rtt`, 1.05 base RTT).
    retx_wait: Time,
    /// The flow's one pending timer event (`NEVER`: none) and its generation.
    pub event_at: Time,
    pub event_gen: u32,
    /// Parity NACKs sent, and those that made the sender resend (counted by the world).
    pub nacks_sent: u64,
    pub nacks_acted: u64,
    /// Seeds the NACKs' random entropies (the artifact picks a random path for each).
    nack_seed: u64,
}

impl BlockReceiver {
    /// The receiver of a flow of `size` bytes (the application's, before padding).
    pub fn new(shape: BlockShape, mss: u64, size: u64, wait: Time, retx_wait: Time, nack_seed: u64) -> Self {
        BlockReceiver {
            shape,
            mss,
            count: shape.blocks(size, mss),
            blocks: Vec::new(),
            low: 0,
            high: 0,
            wait,
            retx_wait,
            event_at: NEVER,
            event_gen: 0,
            nacks_sent: 0,
            nacks_acted: 0,
            nack_seed,
        }
    }

    /// Bytes of one block.
    pub fn block_bytes(&self) -> u64 {
        self.shape.packets() as u64 * self.mss
    }

    /// The byte range `[start, end)` of the block holding byte `seq`.
    pub fn block_range(&self, seq: u64) -> (u64, u64) {
        let start = seq / self.block_bytes() * self.block_bytes();
        (start, start + self.block_bytes())
    }

    /// Blocks of the flow.
    pub fn blocks(&self) -> u64 {
        self.count
    }

    /// Bytes of the coded stream the sender sends (whole blocks).
    pub fn coded_bytes(&self) -> u64 {
        self.count * self.block_bytes()
    }

    /// The entropy of the next NACK: a random path, a pure function of the flow's seed and
    /// the NACK's number.
    pub fn nack_entropy(&self) -> u32 {
        (crate::rng::hash64(self.nack_seed, crate::rng::Stream::Flow, self.nacks_sent) >> 32) as u32
    }

    /// Parity packets in the coded stream (each sent at least once).
    pub fn parity_packets(&self) -> u64 {
        self.count * self.shape.parity as u64
    }

    /// Every block is complete.
    pub fn complete(&self) -> bool {
        self.low >= self.count
    }

    /// A data packet for byte `seq` arrived at `now` (`retx`: a retransmission).
    pub fn on_packet(&mut self, seq: u64, retx: bool, now: Time) -> Arrival {
        let b = seq / self.block_bytes();
        if b >= self.count {
            return Arrival::default();
        }
        if self.blocks.is_empty() {
            self.blocks = vec![BlockRx::default(); self.count as usize];
        }
        self.high = self.high.max(b + 1);
        let bit = 1u32 << ((seq / self.mss) % self.shape.packets() as u64);
        let (wait, retx_wait, data) = (self.wait, self.retx_wait, self.shape.data);
        let blk = &mut self.blocks[b as usize];
        if !retx {
            blk.originals |= bit;
        }
        if blk.flags & COMPLETE != 0 {
            blk.got |= bit;
            return Arrival::default();
        }
        let mut out = Arrival::default();
        if blk.flags & SEEN == 0 {
            blk.flags |= SEEN | if retx { RETX_FIRST } else { 0 };
        }
        // Armed at the block's first packet; after a NACK, at the next packet of the block.
        if blk.deadline == NEVER {
            blk.deadline = now + if blk.flags & RETX_FIRST != 0 { retx_wait } else { wait };
            out.armed = Some(blk.deadline);
        }
        if blk.got & bit == 0 {
            blk.got |= bit;
            if retx {
                blk.flags |= RETX_USED;
            }
            if blk.got.count_ones() >= data {
                blk.flags |= COMPLETE;
                blk.deadline = NEVER;
                out.armed = None;
                out.decoded = Some((b * self.block_bytes(), (b + 1) * self.block_bytes()));
                self.advance_low();
            }
        }
        out
    }

    fn advance_low(&mut self) {
        while self.low < self.count && self.blocks[self.low as usize].flags & COMPLETE != 0 {
            self.low += 1;
        }
    }

    /// The timer at `now`: every incomplete block whose deadline passed gets one NACK (its
    /// first byte is passed to `nack`) and its timer disarmed. Returns the next deadline.
    pub fn expire(&mut self, now: Time, mut nack: impl FnMut(u64)) -> Option<Time> {
        let mut next = NEVER;
        let block_bytes = self.block_bytes();
        for b in self.low..self.high {
            let blk = &mut self.blocks[b as usize];
            if blk.flags & COMPLETE != 0 || blk.deadline == NEVER {
                continue;
            }
            if blk.deadline <= now {
                blk.deadline = NEVER;
                nack(b * block_bytes);
            } else {
                next = next.min(blk.deadline);
            }
        }
        (next != NEVER).then_some(next)
    }

    /// Blocks whose lost data packets parity rebuilt: complete, no retransmission among the
    /// packets that completed them, and some data packet whose original never arrived (by
    /// now; a packet only late is counted once it arrives).
    pub fn rebuilt_blocks(&self) -> u64 {
        let data_mask = if self.shape.data >= 32 { u32::MAX } else { (1u32 << self.shape.data) - 1 };
        let rebuilt = |b: &&BlockRx| b.flags & COMPLETE != 0 && b.flags & RETX_USED == 0 && b.originals & data_mask != data_mask;
        self.blocks.iter().filter(rebuilt).count() as u64
    }
}

#[cfg(test)]
#[path = "erasure_tests.rs"]
mod tests;
