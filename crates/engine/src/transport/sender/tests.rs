//! Tests of the shared sender, and the builders the recovery models' tests share.

use super::*;
use crate::transport::cc::{HotnetsDctcp, NackDecrease};
use crate::transport::sack::{SackBlock, SackList, NO_SACKS};

pub const MSS: u64 = 1000;

pub fn config(init_cwnd: u64, fast_retransmit: bool, recovery: Recovery) -> SenderConfig {
    SenderConfig {
        mss: MSS,
        init_cwnd,
        min_cwnd: MSS,
        sack: true,
        dupthresh: 3,
        initial_rto: 1_000_000,
        min_rto: 1_000,
        max_rto: u64::MAX / 4,
        rto_granularity: 0,
        rwnd: u64::MAX,
        fast_retransmit,
        recovery,
        sub_packet_pacing: false,
    }
}

fn sender(size: u64, init_cwnd: u64, fast_retransmit: bool) -> Sender {
    let cfg = config(init_cwnd, fast_retransmit, Recovery::Basic);
    Sender::new(size, &cfg, Cc::HotnetsDctcp(HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss)))
}

pub fn drain(s: &mut Sender, now: Time) -> Vec<Segment> {
    let out: Vec<Segment> = std::iter::from_fn(|| s.next_segment(now)).collect();
    s.end_burst(now, out.len() as u32);
    out
}

/// A SACK list of one block.
pub fn one(start: u64, end: u64) -> SackList {
    let mut l = NO_SACKS;
    l[0] = SackBlock::new(start, end);
    l
}

#[test]
fn a_nacked_segment_leaves_flight_and_goes_first() {
    let mut s = sender(10 * MSS, 4 * MSS, false);
    assert_eq!(drain(&mut s, 0).len(), 4);
    assert!(s.on_nack(10, MSS, 0));
    assert_eq!(s.nacks, 1);
    assert_eq!(s.in_flight, 3 * MSS);
    assert_eq!(s.window.cwnd, 3 * MSS, "cwnd -= 1 MSS");
    // The window (3 MSS) is full again with 3 in flight: nothing leaves...
    assert!(s.next_segment(0).is_none());
    // ...until an ACK frees room; then the NACKed segment goes before new data.
    s.on_ack(20, MSS, &NO_SACKS, false, 0);
    let seg = s.next_segment(0).unwrap();
    assert_eq!((seg.seq, seg.retransmission), (MSS, true));
    // The same segment NACKed again (its retransmission trimmed) is NACKed anew.
    assert!(s.on_nack(30, MSS, 25));
    // A NACK for data already acknowledged, or already marked lost, is stale.
    assert!(!s.on_nack(31, 0, 0));
    assert!(!s.on_nack(32, MSS, 25));
    assert_eq!(s.nacks, 2);
}

#[test]
fn a_nack_older_than_the_last_timeout_is_stale() {
    let mut s = sender(10 * MSS, 4 * MSS, false);
    drain(&mut s, 0);
    s.on_timeout(500);
    let retx = drain(&mut s, 500);
    assert_eq!(retx.len(), 1, "one segment after a timeout");
    // The NACK of the original transmission (sent at 0) arrives late: ignored.
    assert!(!s.on_nack(600, 0, 0));
    // The NACK of the retransmission (sent at 500) acts.
    assert!(s.on_nack(700, 0, 500));
}

#[test]
fn without_fast_retransmit_sack_gaps_are_not_losses() {
    // Sprayed packets arrive out of order: SACKs above a hole are not a loss signal.
    for (fr, lost) in [(true, true), (false, false)] {
        let mut s = sender(10 * MSS, 8 * MSS, fr);
        drain(&mut s, 0);
        for k in 1..6 {
            s.on_ack(10, 0, &one(k * MSS, (k + 1) * MSS), false, 0);
        }
        assert_eq!(s.fast_recoveries > 0, lost, "fast_retransmit = {fr}");
    }
}

#[test]
fn the_advertised_right_edge_limits_new_data_and_never_moves_back() {
    let mut s = sender(20 * MSS, 10 * MSS, false);
    s.advertised(0, 3 * MSS);
    assert_eq!(drain(&mut s, 0).len(), 3, "the window, not cwnd (10), limits");
    // A smaller window on the next ACK: the edge stays at 3 MSS, nothing new goes.
    s.on_ack(10, MSS, &NO_SACKS, false, 0);
    s.advertised(MSS, MSS);
    assert!(drain(&mut s, 10).is_empty());
    // A larger one opens room up to ack + window.
    s.on_ack(20, 2 * MSS, &NO_SACKS, false, 0);
    s.advertised(2 * MSS, 4 * MSS);
    assert_eq!(drain(&mut s, 20).len(), 3);
    assert_eq!(s.snd_nxt, 6 * MSS);
}

#[test]
fn a_sub_packet_window_sends_one_segment_every_mss_over_window_base_rtts() {
    // A receive window of 375 B (BDP / N for 37.5 kB and 100 flows) under MSS 1000:
    // gap = base RTT 32.61408 us x 1000 / 375 = 86.97088 us.
    let mut cfg = config(10 * MSS, false, Recovery::Basic);
    (cfg.sub_packet_pacing, cfg.min_cwnd, cfg.rwnd) = (true, 1, 375);
    let mut s = Sender::new(3 * MSS, &cfg, Cc::HotnetsDctcp(HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss)));
    s.pace_sub_packet(SubPacketPacer::new(32_614_080, MSS, 0));
    s.on_write(0);
    assert_eq!(drain(&mut s, 0).len(), 1, "one segment, not 10 (cwnd) nor 0 (375 B < MSS)");
    assert!(drain(&mut s, 1).is_empty(), "at most one out");
    s.on_ack(50_000_000, MSS, &NO_SACKS, false, 0);
    assert!(drain(&mut s, 50_000_000).is_empty(), "acknowledged, but the gap has not passed");
    assert_eq!(s.take_pace_wait(), Some(86_970_880));
    assert!(drain(&mut s, 86_970_879).is_empty());
    assert_eq!(drain(&mut s, 86_970_880).len(), 1);
    // Without the pacer a window below one MSS still sends one segment whenever
    // nothing is out (the basic model's rule), with no gap.
    cfg.sub_packet_pacing = false;
    let mut u = Sender::new(3 * MSS, &cfg, Cc::HotnetsDctcp(HotnetsDctcp::new(1.0 / 16.0, 0.0, NackDecrease::Mss)));
    drain(&mut u, 0);
    u.on_ack(50_000_000, MSS, &NO_SACKS, false, 0);
    assert_eq!(drain(&mut u, 50_000_000).len(), 1);
}

#[test]
fn a_sub_packet_window_grows_by_the_bytes_acknowledged() {
    // Swift's ai x num_acked with ai = one segment: 300 B + 1000 B acked = 1300 B, where
    // ns-3's NewReno would add MSS^2 / cwnd = 3333 B for the one segment.
    let mut w = Window::new(300, MSS, 1);
    w.ssthresh = 300;
    w.sub_packet = true;
    w.increase(MSS);
    assert_eq!(w.cwnd, 1300);
    let mut reno = Window::new(300, MSS, 1);
    (reno.ssthresh, reno.growth) = (300, crate::transport::cc::Growth::Ns3NewReno);
    reno.increase(MSS);
    assert_eq!(reno.cwnd, 300 + 3333);
}

#[test]
fn a_relay_sends_only_what_it_has() {
    let mut s = sender(10 * MSS, 8 * MSS, false);
    s.available = 0;
    assert!(s.next_segment(0).is_none());
    s.available = 2 * MSS;
    assert_eq!(drain(&mut s, 0).len(), 2);
    s.available = 10 * MSS;
    assert_eq!(drain(&mut s, 0).len(), 6);
}
