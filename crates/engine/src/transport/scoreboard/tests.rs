//! The scoreboard's unit tests: SACK runs, loss marking by count and by RACK, the slots.

use super::*;

#[test]
fn the_known_sacked_run_grows_and_is_dropped_when_a_segment_leaves_it() {
    let mut b = board(10);
    assert_eq!(b.unsacked_parts(0, 8), [(0, 8), (8, 8)]);
    for s in 2..5 {
        b.set(s, Seg::Sacked);
    }
    b.sacked_through(2, 5);
    assert_eq!(b.unsacked_parts(0, 8), [(0, 2), (5, 8)]);
    assert_eq!(b.unsacked_parts(3, 5), [(3, 3), (5, 5)]);
    // A block one segment longer, as a receiver with a hole sends: the run grows.
    b.set(5, Seg::Sacked);
    b.sacked_through(2, 6);
    assert_eq!(b.unsacked_parts(2, 7), [(2, 2), (6, 7)]);
    // A disjoint block replaces it; SackedRetx -> Sacked keeps it.
    b.set(8, Seg::SackedRetx);
    b.sacked_through(8, 9);
    b.set(8, Seg::Sacked);
    assert_eq!(b.unsacked_parts(0, 10), [(0, 8), (9, 10)]);
    // A segment of the run that stops being SACKed (any path) empties it.
    b.sacked_through(2, 6);
    b.set(4, Seg::Lost);
    assert_eq!(b.unsacked_parts(0, 10), [(0, 10), (10, 10)]);
}

#[test]
fn a_slot_holds_every_state_beside_any_time_a_run_reaches() {
    use crate::units::MAX_TIME;
    for state in [Seg::Sent, Seg::Sacked, Seg::Lost, Seg::Retx, Seg::RetxDup, Seg::SackedRetx] {
        for t in [0, 1, MAX_TIME - 1, MAX_TIME] {
            let slot = Slot::new(t, state);
            assert_eq!((slot.state(), slot.sent_at()), (state, t));
        }
    }
    let mut b = board(100); // segment i sent at 10 i
    b.retransmit(50, Seg::Retx, MAX_TIME);
    assert_eq!((b.state(50), b.xmit_time(50)), (Some(Seg::Retx), MAX_TIME));
    assert_eq!((b.state(51), b.xmit_time(51)), (Some(Seg::Sent), 510));
    b.set(50, Seg::SackedRetx); // a new state keeps the time
    assert_eq!((b.state(50), b.xmit_time(50)), (Some(Seg::SackedRetx), MAX_TIME));
}

fn board(n: u64) -> Scoreboard {
    let mut b = Scoreboard::new(true);
    for i in 0..n {
        b.push_sent(i * 10);
    }
    b
}

#[test]
fn sack_marks_holes_lost_after_dupthresh() {
    let mut b = board(10);
    // Segment 2 dropped; 3, 4, 5 SACKed.
    for s in 3..6 {
        b.set(s, Seg::Sacked);
    }
    let mut lost = Vec::new();
    b.mark_losses(3, |s| lost.push(s));
    assert_eq!(lost, vec![0, 1, 2]);
    // 0 and 1 were delivered (cumulative ACK to 2) before being retransmitted.
    b.advance_to(2, |_, _, _| {});
    assert_eq!(b.lost, 1);
    assert_eq!(b.first_lost(), Some(2));
    b.retransmit(2, Seg::Retx, 100);
    assert_eq!(b.first_lost(), None);
    b.mark_all_lost(|_, _| {});
    assert_eq!(b.lost, 5); // 2 (retx) and 6..10
}

/// RFC 6675 IsLost counts SACKed segments, FACK counts every segment above: with holes
/// at 0, 1 and 2, FACK calls 0 lost at the first SACK (3), the count rule only at the
/// third (5), and then all three at once.
#[test]
fn is_lost_counts_sacked_segments_not_distance() {
    let mut fack = board(10);
    let mut count = board(10);
    for s in 3..6 {
        fack.set(s, Seg::Sacked);
        count.set(s, Seg::Sacked);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        fack.mark_losses(3, |x| a.push(x));
        count.mark_losses_by_count(3, |x, _| b.push(x));
        match s {
            3 => assert_eq!((a, b), (vec![0], vec![])),
            4 => assert_eq!((a, b), (vec![1], vec![])),
            _ => assert_eq!((a, b), (vec![2], vec![0, 1, 2])),
        }
    }
    assert_eq!(count.sacked, 3);
    // A rule-3 copy below the bound becomes a lost segment whose copy is in flight.
    let mut b = board(10);
    b.retransmit(0, Seg::RetxDup, 200);
    for s in [1, 2, 3] {
        b.set(s, Seg::Sacked);
    }
    let mut seen = Vec::new();
    b.mark_losses_by_count(3, |x, old| seen.push((x, old)));
    assert_eq!(seen, vec![(0, Seg::RetxDup)]);
    assert_eq!(b.state(0), Some(Seg::Retx));
    assert_eq!(b.rule3_candidate(), None);
}

/// RFC 8985's reordering window: a segment sent before the delivered one is lost only
/// once RACK.rtt + reo_wnd has passed since it was sent; until then RACK reports how
/// long to wait.
#[test]
fn rack_waits_out_the_reordering_window() {
    let mut b = board(5); // sent at 0, 10, 20, 30, 40
    b.set(3, Seg::Sacked); // delivered: sent at 30, at now = 130 (RACK.rtt 100)
    let mut lost = Vec::new();
    let wait = b.rack_mark_losses(30, 3, 130, 100 + 25, |s, _| lost.push(s));
    // 0 is due at 125: lost. 1 at 135, 2 at 145: the timer must wait 15 ps.
    assert_eq!(lost, vec![0]);
    assert_eq!(wait, Some(15));
    // With no window (three SACKs seen, or in recovery) both go at once; 4 was sent
    // after the delivered segment and stays.
    let wait = b.rack_mark_losses(30, 3, 130, 100, |s, _| lost.push(s));
    assert_eq!((lost, wait), (vec![0, 1, 2], None));
    assert_eq!(b.state(4), Some(Seg::Sent));
}

/// The one-slot answer agrees with the full pass: on a clean board RACK has nothing to
/// judge after an original's ACK, but after a retransmission's ACK (sent later than the
/// originals still out) it does, and the quick answer must say so.
#[test]
fn rack_quick_answer_agrees_with_the_full_pass() {
    let mut b = board(6); // sent at 0, 10, .., 50
    b.advance_to(2, |_, _, _| {});
    // Delivered: segment 1, sent at 10. Segment 2 (sent at 20) is not before it.
    assert!(b.rack_has_nothing_before(10, 1));
    let mut lost = Vec::new();
    assert_eq!(b.rack_mark_losses(10, 1, 1000, 100, |s, _| lost.push(s)), None);
    assert!(lost.is_empty());
    // Delivered: a retransmission of segment 1 sent at 35: segments 2 and 3 were sent
    // before it.
    assert!(!b.rack_has_nothing_before(35, 1));
    b.rack_mark_losses(35, 1, 1000, 100, |s, _| lost.push(s));
    assert_eq!(lost, vec![2, 3]);
    // Equal times break by segment; a board with a SACK gets the full pass.
    let mut b = board(4);
    assert!(!b.rack_has_nothing_before(0, 1), "segment 0, sent at 0 too, is before segment 1");
    b.set(3, Seg::Sacked);
    assert!(!b.rack_has_nothing_before(0, 0));
}

/// A retransmission is judged like any transmission: once a segment sent after it is
/// delivered, the lost retransmission is found without waiting for the RTO.
#[test]
fn rack_finds_a_lost_retransmission() {
    let mut b = board(4);
    b.set(0, Seg::Lost);
    b.retransmit(0, Seg::Retx, 50);
    b.push_sent(60); // segment 4, sent after the retransmission
    b.set(4, Seg::Sacked);
    let mut lost = Vec::new();
    let wait = b.rack_mark_losses(60, 4, 200, 100, |s, old| lost.push((s, old)));
    // 1..3 (sent at 10..30) and the retransmission of 0 (sent at 50) are all due.
    assert_eq!(lost, vec![(1, Seg::Sent), (2, Seg::Sent), (3, Seg::Sent), (0, Seg::Retx)]);
    assert_eq!(wait, None);
    assert_eq!(b.first_lost(), Some(0));
}
