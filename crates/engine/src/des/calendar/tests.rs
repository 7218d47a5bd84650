//! Tests of the calendar: pop order, bucket widths, skipping quiet stretches.

use super::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn clear_drops_entries_of_every_place() {
    let mut cal = Calendar::new(4, 3, u64::MAX);
    // The current bucket, the wheel and the far heap.
    for (key, v) in [(1, 0), (3, 1), (40, 2), (90, 3), (10_000, 4)] {
        cal.push(key, v);
    }
    assert_eq!(cal.pop(), Some((1, 0)));
    cal.clear();
    assert!(cal.is_empty());
    assert_eq!(cal.pop(), None);
    // Still usable afterwards, in order.
    cal.push(20_000, 5);
    cal.push(5, 6);
    assert_eq!((cal.pop(), cal.pop(), cal.pop()), (Some((5, 6)), Some((20_000, 5)), None));
}

#[test]
fn a_bounded_run_in_steps_moves_the_cursor_and_keeps_the_order() {
    // Buckets of 16 ps, 8 slots (span 128 ps). A run stepped 10 ps at a time through
    // a quiet stretch: the cursor follows the clock, entries of the bucket it lands in
    // (60 and 61 in bucket 3) become the current bucket, far ones (500) move in when the
    // span reaches them, equal times keep their push order.
    let mut cal = Calendar::new(4, 3, u64::MAX);
    for (key, v) in [(2, 0), (61, 1), (60, 2), (60, 3), (500, 4), (500, 5)] {
        cal.push(key, v);
    }
    assert_eq!(cal.pop_until(10), Some((2, 0)));
    let mut t = 10;
    let mut got = Vec::new();
    while t < 600 {
        while let Some(e) = cal.pop_until(t) {
            got.push(e);
        }
        t += 10;
        cal.skip_to(t);
        assert!(cal.cur <= t >> cal.shift, "the cursor never passes the clock");
        if t == 40 {
            assert_eq!(cal.cur, 2, "nothing due by 40 ps: the cursor is at the clock's bucket");
        }
    }
    assert_eq!(got, vec![(60, 2), (60, 3), (61, 1), (500, 4), (500, 5)]);
    assert!(cal.is_empty());
    // Nothing due before the clock is skipped: an entry of bucket 40 is still pending
    // when the clock is moved past it, and the cursor stays.
    cal.push(650, 6);
    let cur = cal.cur;
    cal.skip_to(700);
    assert_eq!((cal.cur, cal.pop()), (cur, Some((650, 6))));
}

#[test]
fn pops_in_time_then_push_order() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    // Tiny buckets and wheel so that every path (current bucket, wheel, far) is used.
    let mut cal = Calendar::new(4, 3, u64::MAX);
    let mut reference = Vec::new();
    let mut seq = 0u64;
    let mut now = 0u64;
    for round in 0..400 {
        for _ in 0..rng.gen_range(0..30) {
            let span = 1u64 << (round % 12);
            let key = now + rng.gen_range(0..span);
            cal.push(key, seq);
            reference.push((key, seq));
            seq += 1;
        }
        reference.sort();
        for _ in 0..rng.gen_range(0..30) {
            let Some(got) = cal.pop() else { break };
            let want = reference.remove(0);
            assert_eq!(got, want, "round {round}");
            now = got.0;
        }
    }
    while let Some(got) = cal.pop() {
        assert_eq!(got, reference.remove(0));
    }
    assert!(reference.is_empty());
}

/// Buckets of hundreds of entries, as in a large fabric at 100 Gb/s: they are sorted by
/// radix (one pass of a byte at widths up to 2^8 ps, two up to 2^16) and take entries
/// pushed into them while they are served. Many equal times, so a pass that is not stable,
/// or an insert before an equal, shows. With the far padding, the far peeks see the same.
#[test]
fn dense_buckets_pop_in_time_then_push_order() {
    for (shift, far) in [(6, false), (13, false), (16, false), (13, true)] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(shift as u64);
        let mut cal = Calendar::new(shift, 4, u64::MAX);
        cal.set_far_padding(far);
        let padding = if far { FAR_PAD } else { PAD };
        let width = 1u64 << shift;
        let mut reference = Vec::new();
        let (mut seq, mut now) = (0u64, 0u64);
        let mut radix_buckets = 0;
        for round in 0..300 {
            for _ in 0..rng.gen_range(0..400) {
                // A few distinct times per bucket, so most entries tie with others.
                let key = now + rng.gen_range(0..40) * width / 16 + rng.gen_range(0..2);
                cal.push(key, seq);
                reference.push((key, seq));
                seq += 1;
            }
            reference.sort();
            for _ in 0..rng.gen_range(0..400) {
                if cal.head == cal.ready.len() && cal.ready.len() >= RADIX_MIN {
                    radix_buckets += 1;
                }
                let Some(got) = cal.pop() else { break };
                let want = reference.remove(0);
                assert_eq!(got, want, "width 2^{shift} ps, round {round}");
                now = got.0;
                // The next entries of the bucket, as the run loop peeks them.
                for k in 0..padding {
                    // SAFETY: `k` is below the padding set above.
                    let (i, peeked) = (cal.head + k, unsafe { cal.peek_padded(k) });
                    let want = if i < cal.ready.len() { reference[k].1 } else { u64::MAX };
                    assert_eq!(peeked, want, "peek {k} after {got:?}");
                    if k < PAD {
                        assert_eq!(cal.peek_ahead(k), want);
                    }
                }
            }
        }
        while let Some(got) = cal.pop() {
            assert_eq!(got, reference.remove(0));
        }
        assert!(reference.is_empty());
        assert!(radix_buckets > 10, "width 2^{shift}: {radix_buckets} long buckets");
    }
}

/// A bounded pop leaves the cursor at or before the limit: what the caller pushes after
/// it, between the limit and the next entry, still comes out first (it once waited a
/// revolution of the wheel and came out after later entries).
#[test]
fn a_push_after_a_bounded_pop_is_not_behind_the_cursor() {
    // Buckets of 16 ps, 8 slots: the wheel spans 128 ps.
    let mut cal = Calendar::new(4, 3, u64::MAX);
    for (key, v) in [(1, 0), (100, 1), (5_000, 2)] {
        cal.push(key, v);
    }
    assert_eq!(cal.pop_until(10), Some((1, 0)));
    assert_eq!(cal.pop_until(10), None, "the next entry is at 100");
    cal.push(40, 3); // the clock stands at 10: 40 is in the future
    assert_eq!(cal.pop_until(4_000), Some((40, 3)));
    assert_eq!(cal.pop_until(4_000), Some((100, 1)));
    assert_eq!(cal.pop_until(4_000), None, "the far entry is past the limit");
    cal.push(4_001, 4);
    assert_eq!((cal.pop(), cal.pop(), cal.pop()), (Some((4_001, 4)), Some((5_000, 2)), None));
}

/// Peeks see the current bucket's next entries in order and `none` past its end, also
/// after an entry joins the bucket being served.
#[test]
fn peeks_stop_at_the_bucket_end() {
    let mut cal = Calendar::new(10, 4, u64::MAX);
    for (key, v) in [(5, 50), (3, 30), (7, 70), (2000, 9)] {
        cal.push(key, v);
    }
    assert_eq!(cal.pop(), Some((3, 30)));
    assert_eq!([0, 1, 2].map(|k| cal.peek_ahead(k)), [50, 70, u64::MAX]);
    cal.push(6, 60);
    assert_eq!([0, 1, 2].map(|k| cal.peek_ahead(k)), [50, 60, 70]);
    cal.pop();
    assert_eq!([0, 1, 2].map(|k| cal.peek_ahead(k)), [60, 70, u64::MAX]);
    while cal.pop().is_some() {}
    assert_eq!(cal.peek_ahead(0), u64::MAX);
}

/// With the far padding (the run loop's far lead), a peek anywhere below `FAR_PAD` is the
/// bucket's entry there or `none` past its end, however far it looks: after a pop, after an entry joins the bucket being served, after
/// a bucket change, and once the padding is back to the near one for the near peeks.
#[test]
fn far_padding_answers_every_peek_below_it() {
    let mut cal = Calendar::new(10, 4, u64::MAX);
    cal.set_far_padding(true);
    for key in 0..20u64 {
        cal.push(key, 100 + key);
    }
    cal.push(5000, 1);
    let peeks = |cal: &Calendar<u64>| -> Vec<u64> {
        // SAFETY: every k is below `FAR_PAD`, the padding set above.
        let far: Vec<u64> = (0..FAR_PAD).map(|k| unsafe { cal.peek_padded(k) }).collect();
        assert_eq!([0, 1, 2].map(|k| cal.peek_ahead(k)), far[..3], "the near peeks agree");
        far
    };
    let bucket = |from: u64, to: u64| -> Vec<u64> {
        (0..FAR_PAD as u64).map(|k| if from + k < to { 100 + from + k } else { u64::MAX }).collect()
    };
    assert_eq!(cal.pop(), Some((0, 100)));
    assert_eq!(peeks(&cal), bucket(1, 20));
    for _ in 0..10 {
        cal.pop();
    }
    assert_eq!(peeks(&cal), bucket(11, 20));
    cal.push(15, 7);
    let mut want = bucket(11, 20);
    want.insert(5, 7);
    want.truncate(FAR_PAD);
    assert_eq!(peeks(&cal), want);
    while cal.pop().is_some_and(|e| e.0 < 5000) {}
    assert_eq!(peeks(&cal), vec![u64::MAX; FAR_PAD]);
    cal.set_far_padding(false);
    cal.push(6000, 2);
    cal.push(6001, 3);
    assert_eq!(cal.pop(), Some((6000, 2)));
    // SAFETY: below the near padding.
    assert_eq!([0, 1, 2].map(|k| unsafe { cal.peek_padded(k) }), [3, u64::MAX, u64::MAX]);
}

/// Widths follow the density both ways, and retuning never changes the pop order.
#[test]
fn retunes_to_the_density_and_keeps_the_order() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut cal = Calendar::new(10, 4, u64::MAX);
    cal.retune_every = 64;
    let mut reference = std::collections::BTreeSet::new();
    let (mut now, mut seq) = (0u64, 0u64);
    let mut shifts = Vec::new();
    // 300 events pending, microseconds apart, then picoseconds apart, then again far apart.
    for gap in [1u64 << 20, 1 << 2, 1 << 22] {
        for _ in 0..20_000 {
            while reference.len() < 300 {
                let key = now + rng.gen_range(0..300 * gap);
                cal.push(key, seq);
                reference.insert((key, seq));
                seq += 1;
            }
            let got = cal.pop().unwrap();
            assert_eq!(got, reference.pop_first().unwrap());
            now = got.0;
        }
        shifts.push(cal.shift());
    }
    assert!(shifts[0] > 13, "widened for sparse events: {shifts:?}");
    assert_eq!(shifts[1], 10, "narrowed for dense events: {shifts:?}");
    assert!(shifts[2] > shifts[1], "widened again: {shifts:?}");
    while let Some(got) = cal.pop() {
        assert_eq!(got, reference.pop_first().unwrap());
    }
}

/// Thousands of entries a bucket narrow the buckets below the starting width, toward
/// `CROWDED / 2` a bucket and never below `NARROWEST_SHIFT`; hundreds leave the starting
/// width as it is. The pop order holds through it.
#[test]
fn a_crowded_calendar_narrows_below_its_starting_width() {
    // (ps between entries on average, entries pending, the width it settles at)
    for (gap, pending, settles) in [(2u64, 20_000u64, 10u32), (32, 2_000, 13)] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(gap);
        let mut cal = Calendar::new(13, 10, u64::MAX);
        cal.retune_every = 8;
        let mut reference = std::collections::BTreeSet::new();
        let (mut now, mut seq) = (0u64, 0u64);
        for _ in 0..100_000 {
            while (reference.len() as u64) < pending {
                let key = now + rng.gen_range(0..pending * gap);
                cal.push(key, seq);
                reference.insert((key, seq));
                seq += 1;
            }
            let got = cal.pop().unwrap();
            assert_eq!(got, reference.pop_first().unwrap(), "{gap} ps apart");
            now = got.0;
        }
        assert_eq!(cal.shift(), settles, "{} entries a starting bucket", (1u64 << 13) / gap);
        while let Some(got) = cal.pop() {
            assert_eq!(got, reference.pop_first().unwrap());
        }
    }
}

/// A density just under `SPARSE` per bucket doubles the width once, and the doubled width
/// (just under twice as dense, below `DENSE`) stays: no narrowing back and forth.
#[test]
fn a_doubled_width_stays() {
    let mut cal = Calendar::new(10, 6, u64::MAX);
    cal.retune_every = 64;
    // One event every `gap` ps, 300 pending: 2^10 / gap = 5.5 per starting bucket.
    let gap = (1u64 << 10) * 2 / 11;
    let mut shifts = std::collections::BTreeSet::new();
    for seq in 0..60_000u64 {
        cal.push(seq * gap, seq);
        if seq >= 300 {
            assert_eq!(cal.pop(), Some(((seq - 300) * gap, seq - 300)));
        }
        if seq >= 10_000 {
            shifts.insert(cal.shift());
        }
    }
    assert_eq!(shifts.into_iter().collect::<Vec<_>>(), vec![11], "one doubling, then steady");
}

/// Pops `pops` entries from `cal`, keeping four pending, each pushed up to `within` ps
/// after the clock.
fn keep_four_pending(cal: &mut Calendar<u64>, seed: u64, pops: u64, within: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut now, mut pending) = (0, 0);
    for seq in 0..pops {
        while pending < 4 {
            cal.push(now + rng.gen_range(1..within), seq);
            pending += 1;
        }
        now = cal.pop().unwrap().0;
        pending -= 1;
    }
}

#[test]
fn widening_keeps_the_span() {
    // Events about 5 ns apart on a wheel of 2^16 slots of 1 ns: the buckets widen and the
    // slots become fewer, so the wheel still spans 2^26 ps (not 2^16 wider buckets' worth).
    let mut cal = Calendar::new(10, 16, u64::MAX);
    cal.retune_every = 64;
    keep_four_pending(&mut cal, 3, 50_000, 20_000);
    assert!(cal.shift() > 12, "widened for sparse events: {}", cal.shift());
    assert_eq!((cal.mask + 1) << cal.shift(), 1 << 26, "the wheel spans as long as it did");
}

#[test]
fn buckets_reuse_the_storage_of_buckets_served() {
    // A few entries pending at a time, spread over a wheel of 4,096 slots that turns
    // hundreds of times: every slot gets an entry some time, but a bucket's storage comes
    // from the buckets served, so the buffers in use stay near the entries pending.
    let mut cal = Calendar::new(10, 12, u64::MAX);
    cal.retune_every = u32::MAX;
    keep_four_pending(&mut cal, 4, 200_000, 3_000_000);
    let buffers = cal.wheel.iter().filter(|b| b.capacity() > 0).count() + cal.spare.len();
    assert!(buffers < 16, "{buffers} buffers for 4 entries pending");
}

/// A retune leaves the far heap in place: when the new span reaches some of its entries,
/// they move into the wheel at once, so an entry pushed later at the same time still comes
/// out after them; when the span shrinks, wheel entries beyond it join the far heap ahead
/// of later pushes of their time.
#[test]
fn a_retune_keeps_the_order_across_the_far_heap() {
    // Buckets of 16 ps, 8 slots: the wheel spans 128 ps.
    let mut cal = Calendar::new(4, 3, u64::MAX);
    for (key, v) in [(1, 0), (1_000, 1), (200, 2)] {
        cal.push(key, v);
    }
    cal.rebuild(8, 3); // buckets of 256 ps: the span reaches 2,048 ps
    for (key, v) in [(1_000, 3), (200, 4), (5_000, 5)] {
        cal.push(key, v);
    }
    let popped: Vec<_> = std::iter::from_fn(|| cal.pop()).collect();
    assert_eq!(popped, [(1, 0), (200, 2), (200, 4), (1_000, 1), (1_000, 3), (5_000, 5)]);

    let mut cal = Calendar::new(8, 3, u64::MAX);
    for (key, v) in [(1, 0), (1_000, 1), (1_000, 2), (9_000, 3)] {
        cal.push(key, v);
    }
    cal.rebuild(4, 3); // back to 128 ps: 1,000 is past the span again
    cal.push(1_000, 4);
    let popped: Vec<_> = std::iter::from_fn(|| cal.pop()).collect();
    assert_eq!(popped, [(1, 0), (1_000, 1), (1_000, 2), (1_000, 4), (9_000, 3)]);
}
