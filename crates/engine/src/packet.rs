//! Packets: small `Copy` headers living in one pool and travelling by index.
//!
//! A packet's slot is reused: the receiver turns a data packet into its ACK in place, and a
//! dropped or delivered packet's slot returns to the free list. Queues and wires thread
//! their FIFOs through `next`, so enqueueing never allocates.

use crate::ids::{FlowId, HostId};
use crate::units::Time;

/// Index of a packet slot in the pool.
pub type PacketRef = u32;
pub const NIL: PacketRef = u32::MAX;
/// The pool's slot 0, never handed out (see [`PacketPool`]).
pub const SCRATCH: PacketRef = 0;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum PacketKind {
    #[default]
    Data = 0,
    Ack = 1,
    /// An application message from a receiver to a sender of a request/response incast:
    /// a request (`flags::REQUEST`) and/or a window grant (`flags::GRANT`).
    Control = 2,
    /// Negative acknowledgement of one trimmed data segment (`seq`, `payload` name it).
    Nack = 3,
    /// ICON's incast degree update: the receiver tells a sender on a persistent
    /// connection the degree of its next incast (`seq` carries n).
    Degree = 4,
    /// A parity NACK of an erasure-coded block (`reliability::erasure`): the receiver asks
    /// for the block holding byte `seq`, which did not complete within `ec_wait`.
    ParityNack = 5,
}

/// ECN and TCP flag bits.
pub mod flags {
    /// ECN-capable transport (ECT(0)).
    pub const ECT: u8 = 1 << 0;
    /// Congestion experienced, set by a marking queue.
    pub const CE: u8 = 1 << 1;
    /// ECN echo on an ACK.
    pub const ECE: u8 = 1 << 2;
    /// Congestion window reduced: the sender acknowledges an echo (RFC 3168).
    pub const CWR: u8 = 1 << 3;
    /// This data segment is a retransmission (Millisampler counts these bytes).
    pub const RETX: u8 = 1 << 4;
    /// A data packet cut to its header by a trimming queue: `payload` still names the
    /// segment's length, but none of its bytes arrive (the receiver answers with a NACK).
    pub const TRIMMED: u8 = 1 << 5;
    /// Control: a request for the burst's response.
    pub const REQUEST: u8 = 1 << 6;
    /// Control: the receiver grants the connection its scheduler's window (a token).
    pub const GRANT: u8 = 1 << 7;
}

/// One cache line: the fields are ordered so the struct packs into 64 bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Packet {
    /// Data: first byte's sequence number. ACK: cumulative acknowledgement.
    pub seq: u64,
    /// Send timestamp of the data segment, echoed by its ACK (RTT sample, RFC 7323 style).
    pub ts: Time,
    /// On a wire: when the packet behind this one arrives (the wire's head arrival is in
    /// its event), so finding the next arrival never touches another packet.
    pub arrive_at: Time,
    /// ACK: one SACK block `[sack_start, sack_start + sack_len)` (see [`Packet::sack_end`]).
    pub sack_start: u64,
    pub sack_len: u32,
    /// On a wire to a switch: the port that switch forwards the packet behind this one on,
    /// chosen when that one started (routing is fixed). The wire's head's is in its arrival
    /// event, as for `arrive_at`, so the run loop can prefetch the egress port with the
    /// arriving one, before the packet's own line is in. (In a crossing between partitions:
    /// the packet's own.)
    pub next_hop: u32,
    pub flow: FlowId,
    /// Destination host: what switches route on.
    pub dst: HostId,
    /// Per-flow ECMP entropy.
    pub entropy: u32,
    /// Intrusive FIFO link (queue or wire).
    pub next: PacketRef,
    /// Bytes on the wire: payload + headers + framing.
    pub wire_bytes: u32,
    /// Transport payload bytes (0 for an ACK); the MTU is at most 65,535 bytes.
    pub payload: u16,
    pub kind: PacketKind,
    pub flags: u8,
}

impl Packet {
    #[inline(always)]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    pub fn sack_end(&self) -> u64 {
        self.sack_start + self.sack_len as u64
    }

    /// The SACK block `[start, end)`, cut to the first 4 GiB (a part of a block is still a
    /// true report; no window comes near).
    pub fn set_sack(&mut self, start: u64, end: u64) {
        self.sack_start = start;
        self.sack_len = u32::try_from(end - start).unwrap_or(u32::MAX);
    }
}

/// The pool: a `Vec` of slots with a free list; grows only while the network fills up.
/// Slot 0 (`SCRATCH`) is never handed out: the run loop's prefetches read it for an empty
/// FIFO (`Fifo::head_or_zero`), so they need no branch on whether a port has packets.
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketRef>,
}

impl Default for PacketPool {
    fn default() -> Self {
        PacketPool { slots: vec![Packet::default()], free: Vec::new() }
    }
}

impl PacketPool {
    #[inline(always)]
    pub fn alloc(&mut self, p: Packet) -> PacketRef {
        match self.free.pop() {
            Some(r) => {
                self.slots[r as usize] = p;
                r
            }
            None => {
                if self.slots.len() >= self.slots.capacity() / 4 * 3 {
                    self.grow_early();
                }
                self.slots.push(p);
                (self.slots.len() - 1) as PacketRef
            }
        }
    }

    /// Doubles the slots' storage while a quarter of it is still free. A large block's new
    /// pages are faulted in by a helper thread on another core (`huge_pages`); grown only
    /// when full, the run wrote the first new slots at once and cleared their huge pages
    /// itself, racing the helper page by page. A quarter early, the helper has them in
    /// by the time they are used.
    #[cold]
    #[inline(never)]
    fn grow_early(&mut self) {
        self.slots.reserve(self.slots.capacity().max(64));
    }

    /// Slots ever handed out (the most packets alive at once), the scratch slot included.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    #[inline(always)]
    pub fn free(&mut self, r: PacketRef) {
        self.free.push(r);
    }

    #[inline(always)]
    pub fn get(&self, r: PacketRef) -> &Packet {
        debug_assert!((r as usize) < self.slots.len());
        // SAFETY: a `PacketRef` only ever comes from `alloc`, and slots are never removed,
        // so every ref in circulation is in bounds (checked in debug builds).
        unsafe { self.slots.get_unchecked(r as usize) }
    }

    #[inline(always)]
    pub fn get_mut(&mut self, r: PacketRef) -> &mut Packet {
        debug_assert!((r as usize) < self.slots.len());
        // SAFETY: as in `get`.
        unsafe { self.slots.get_unchecked_mut(r as usize) }
    }

    /// The slot the allocation after next will take, if one is free (for prefetching).
    #[inline(always)]
    pub fn free_after_next(&self) -> Option<PacketRef> {
        self.free.len().checked_sub(2).map(|i| self.free[i])
    }

    /// The address of a slot (for prefetching); out-of-range indices give a dangling but
    /// never dereferenced pointer.
    #[inline(always)]
    pub fn slot_ptr(&self, r: PacketRef) -> *const u8 {
        self.slots.as_ptr().wrapping_add(r as usize) as *const u8
    }
}

/// A FIFO threaded through the pool's `next` links.
#[derive(Copy, Clone, Debug)]
pub struct Fifo {
    pub head: PacketRef,
    pub tail: PacketRef,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo { head: NIL, tail: NIL }
    }
}

impl Fifo {
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }

    /// The head, or the pool's scratch slot if empty (a prefetch target chosen without a
    /// branch).
    #[inline(always)]
    pub fn head_or_zero(&self) -> PacketRef {
        if self.is_empty() { SCRATCH } else { self.head }
    }

    #[inline(always)]
    pub fn push(&mut self, pool: &mut PacketPool, r: PacketRef) {
        pool.get_mut(r).next = NIL;
        if self.tail == NIL {
            self.head = r;
        } else {
            pool.get_mut(self.tail).next = r;
        }
        self.tail = r;
    }

    #[inline(always)]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PacketRef> {
        if self.head == NIL {
            return None;
        }
        let r = self.head;
        self.head = pool.get(r).next;
        if self.head == NIL {
            self.tail = NIL;
        }
        Some(r)
    }

    /// Iterates the FIFO front to back (for accounting, not the hot path).
    pub fn iter<'a>(&self, pool: &'a PacketPool) -> impl Iterator<Item = PacketRef> + 'a {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let r = cur;
            cur = pool.get(r).next;
            Some(r)
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Packet>(), 64);
    }

    #[test]
    fn a_sack_block_past_4_gib_is_cut_not_wrapped() {
        let mut p = super::Packet::default();
        p.set_sack(10, 1_000);
        assert_eq!((p.sack_start, p.sack_end()), (10, 1_000));
        p.set_sack(1 << 40, (1 << 40) + (5 << 30));
        assert_eq!(p.sack_end(), (1 << 40) + u32::MAX as u64);
    }
}
