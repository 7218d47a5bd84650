//! Tests of `erasure.rs`: block completion, the timer, and a coded flow's shared sender
//! and receiver joined without a network.

use super::*;

const MSS: u64 = 1000;
const SHAPE: BlockShape = BlockShape { data: 8, parity: 2 };
const BLOCK: u64 = 10 * MSS;

fn receiver(size: u64) -> BlockReceiver {
    BlockReceiver::new(SHAPE, MSS, size, 640, 2000, 7)
}

#[test]
fn the_flow_is_padded_to_whole_blocks() {
    // 5e6 B at 4096 B: ⌈5e6 / 32,768⌉ = 153 blocks of 40,960 B (the artifact's 6,266,880 B).
    assert_eq!(SHAPE.blocks(5_000_000, 4096), 153);
    assert_eq!(SHAPE.coded_bytes(5_000_000, 4096), 6_266_880);
    // One byte over 8 packets takes a second block; exactly 8 packets fit in one.
    assert_eq!(SHAPE.coded_bytes(8 * MSS, MSS), BLOCK);
    assert_eq!(SHAPE.coded_bytes(8 * MSS + 1, MSS), 2 * BLOCK);
    let r = receiver(8 * MSS + 1);
    assert_eq!((r.blocks(), r.parity_packets()), (2, 4));
    assert_eq!(r.block_range(BLOCK + 3 * MSS), (BLOCK, 2 * BLOCK));
}

/// MDS: every choice of 8 distinct packets out of 10, in any order, completes the block
/// at its 8th packet and not before.
#[test]
fn any_8_of_10_complete_a_block() {
    let mut subsets = 0;
    for missing in 0u32..(1 << 10) {
        if missing.count_ones() != 2 {
            continue;
        }
        subsets += 1;
        let present: Vec<u64> = (0..10).filter(|p| missing & (1 << p) == 0).collect();
        // Both orders: ascending and descending.
        for order in [present.clone(), present.iter().rev().copied().collect()] {
            let mut r = receiver(2 * 8 * MSS);
            for (k, &p) in order.iter().enumerate() {
                // Block 2 (id 2): bytes from 10 MSS on.
                let a = r.on_packet(BLOCK + p * MSS, false, 10 + k as u64);
                if k < 7 {
                    assert_eq!(a.decoded, None, "missing {missing:#b}: complete after {} packets", k + 1);
                } else {
                    assert_eq!(a.decoded, Some((BLOCK, 2 * BLOCK)));
                }
            }
            // Block 1 still waits: the flow is not complete.
            assert!(!r.complete());
        }
    }
    assert_eq!(subsets, 45);
}

#[test]
fn duplicates_do_not_count() {
    let mut r = receiver(8 * MSS);
    for _ in 0..3 {
        for p in 0..7 {
            assert_eq!(r.on_packet(p * MSS, false, 0).decoded, None);
        }
    }
    assert_eq!(r.on_packet(9 * MSS, true, 0).decoded, Some((0, BLOCK)));
    assert!(r.complete());
    // Packets of a complete block change nothing.
    assert_eq!(r.on_packet(8 * MSS, false, 5), Arrival::default());
}

/// The timer: armed at the block's first packet, one NACK at expiry with fewer than 8
/// packets and disarmed, re-armed by the next packet of the block; a block completed in
/// time costs nothing.
#[test]
fn an_incomplete_block_costs_one_nack_per_expiry() {
    let mut r = receiver(3 * 8 * MSS);
    // Block 1: 6 packets from t = 100; block 2: complete by t = 300; block 3: 1 packet at 500.
    for p in 0..6 {
        let a = r.on_packet(p * MSS, false, 100 + p);
        assert_eq!(a.armed, (p == 0).then_some(740), "armed at the first packet only");
    }
    for p in 0..8 {
        r.on_packet(BLOCK + p * MSS, false, 200 + p);
    }
    assert_eq!(r.on_packet(2 * BLOCK, false, 500).armed, Some(1140));
    let mut nacked = Vec::new();
    assert_eq!(r.expire(739, |s| nacked.push(s)), Some(740));
    assert!(nacked.is_empty());
    assert_eq!(r.expire(740, |s| nacked.push(s)), Some(1140));
    assert_eq!(nacked, [0], "one NACK, for block 1's first byte");
    // Disarmed: the timer does not NACK block 1 again...
    assert_eq!(r.expire(1000, |s| nacked.push(s)), Some(1140));
    // ...until another of its packets (here a retransmission) re-arms it.
    assert_eq!(r.on_packet(7 * MSS, true, 1100).armed, Some(1740));
    assert_eq!(r.expire(1140, |s| nacked.push(s)), Some(1740));
    assert_eq!(nacked, [0, 2 * BLOCK]);
    // Block 1 completed by the retransmission: not rebuilt by parity.
    assert_eq!(r.on_packet(8 * MSS, true, 1200).decoded, Some((0, BLOCK)));
    assert_eq!(r.rebuilt_blocks(), 0);
}

#[test]
fn a_block_first_heard_of_through_a_retransmission_waits_longer() {
    let mut r = receiver(8 * MSS);
    assert_eq!(r.on_packet(3 * MSS, true, 10).armed, Some(2010));
}

/// Rebuilt blocks count lost data packets parity stood in for; a lost parity packet, or
/// one merely late, is no repair.
#[test]
fn rebuilt_blocks_are_those_missing_a_data_packet() {
    let mut r = receiver(3 * 8 * MSS);
    let skip = |b: u64, missing: &[u64], r: &mut BlockReceiver| {
        for p in (0..10).filter(|p| !missing.contains(p)) {
            r.on_packet(b * BLOCK + p * MSS, false, 0);
        }
    };
    skip(0, &[3], &mut r); // data packet 3 lost: rebuilt
    skip(1, &[8, 9], &mut r); // both parity packets lost: every data packet arrived
    skip(2, &[0, 1], &mut r); // two data packets late...
    assert_eq!(r.rebuilt_blocks(), 2);
    r.on_packet(2 * BLOCK, false, 1);
    r.on_packet(2 * BLOCK + MSS, false, 1); // ...then arrived
    assert_eq!(r.rebuilt_blocks(), 1);
    assert!(r.complete());
}

/// A coded flow's shared sender, receiver and blocks joined without a network: what is
/// sent arrives at once, ACKs too, except the first transmissions of `lost` packets.
mod end_to_end {
    use super::*;
    use crate::transport::cc::{Cc, NewReno};
    use crate::transport::recovery::Recovery;
    use crate::transport::sender::tests::{config, drain};
    use crate::transport::{EcnEcho, Receiver, ReceiverConfig, SackReport, Sender};

    struct Coded {
        sender: Sender,
        receiver: Receiver,
        blocks: BlockReceiver,
        lost: Vec<u64>,
    }

    /// Two blocks' worth of data (16 MSS), a window of 30 packets: all 20 go at once.
    fn coded(lost_packets: &[u64]) -> Coded {
        let blocks = receiver(16 * MSS);
        let mut sender = Sender::new(blocks.coded_bytes(), &config(30 * MSS, true, Recovery::Basic), Cc::NewReno(NewReno::new(false)));
        sender.recover_by_blocks();
        let cfg = ReceiverConfig { echo: EcnEcho::Dctcp, delayed_ack: 1, sack: SackReport::Triggering, ce_only_above_last: false };
        let receiver = Receiver::new(blocks.coded_bytes(), &cfg);
        Coded { sender, receiver, blocks, lost: lost_packets.iter().map(|p| p * MSS).collect() }
    }

    impl Coded {
        /// Sends what the window allows at `now` and delivers it; returns how many went.
        fn round(&mut self, now: Time) -> usize {
            let segs = drain(&mut self.sender, now);
            for s in &segs {
                if !s.retransmission && self.lost.contains(&s.seq) {
                    continue;
                }
                let a = self.blocks.on_packet(s.seq, s.retransmission, now);
                if let Some((start, end)) = a.decoded {
                    self.receiver.decoded(start, end);
                }
                let ack = self.receiver.on_data(s.seq, s.len, false, false).expect("every packet is ACKed");
                self.sender.on_ack(now, ack.ack, &ack.sacks, false, now);
            }
            segs.len()
        }
    }

    #[test]
    fn one_lost_packet_costs_no_retransmission() {
        let mut c = coded(&[3]);
        assert_eq!(c.round(0), 20);
        assert!(c.sender.finished(), "block 1 decoded from 9 of its 10 packets");
        assert_eq!((c.sender.retx_bytes, c.sender.timeouts), (0, 0));
        assert_eq!(c.blocks.expire(10_000, |_| panic!("no NACK")), None);
        assert_eq!(c.blocks.rebuilt_blocks(), 1);
        // The cumulative ACK covered the lost packet: nothing is in flight.
        assert_eq!(c.sender.in_flight, 0);
    }

    #[test]
    fn three_lost_packets_cost_one_nack_and_a_resend() {
        let mut c = coded(&[1, 4, 7]);
        assert_eq!(c.round(0), 20);
        assert!(!c.sender.finished());
        // Block 2 is complete; block 1 holds 7 of the 8 it needs, and the 3 lost
        // packets are still in flight for the sender.
        assert_eq!(c.sender.snd_una, MSS);
        assert_eq!(c.sender.in_flight, 3 * MSS);
        assert_eq!(c.round(1), 0, "nothing to send until the NACK");
        let mut nacks = Vec::new();
        assert_eq!(c.blocks.expire(639, |s| nacks.push(s)), Some(640));
        assert_eq!(c.blocks.expire(640, |s| nacks.push(s)), None);
        assert_eq!(nacks, [0], "one parity NACK, for block 1");
        assert!(c.sender.on_parity_nack(0, BLOCK));
        assert_eq!(c.sender.in_flight, 0);
        // The resend: exactly the block's three unacknowledged packets.
        assert_eq!(c.round(700), 3);
        assert_eq!(c.sender.retx_bytes, 3 * MSS);
        assert!(c.sender.finished());
        assert_eq!(c.sender.timeouts, 0);
        // A late NACK of the block, now complete, changes nothing.
        assert!(!c.sender.on_parity_nack(0, BLOCK));
        assert_eq!(c.blocks.rebuilt_blocks(), 0, "block 2 lost nothing; block 1 was resent");
    }
}
