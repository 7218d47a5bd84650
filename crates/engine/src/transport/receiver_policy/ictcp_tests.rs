//! ICTCP's rules with hand-computed numbers (split from `ictcp.rs` to keep it short).

use super::*;
use crate::units::PS_PER_US;

const MSS: u64 = 1460;
const TEN_G: u64 = 10_000_000_000;
const RTT: Time = 100 * PS_PER_US;

fn ictcp(cfg: IctcpConfig, conns: u32) -> Ictcp {
    let mut p = Ictcp::new(cfg, &[TEN_G], MSS);
    for c in 0..conns {
        p.open(FlowId(c), HostId(0), RTT, 0);
    }
    p
}

/// `bytes` reach connection `c` at `us` microseconds, its RTT `rtt_us`.
fn data(p: &mut Ictcp, c: u32, us: u64, bytes: u64, rtt_us: u64) {
    p.on_data(FlowId(c), bytes, Some(rtt_us * PS_PER_US), us * PS_PER_US);
}

fn close_to(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn available_bandwidth_is_alpha_c_minus_the_first_sub_slots_throughput() {
    // T = the base RTT, 100 us. 93,750 B in the first sub-slot: BW_T = 7.5 Gb/s, so
    // BW_A = 0.9 x 10 - 7.5 = 1.5 Gb/s, known from the first arrival at or after T.
    let mut p = ictcp(IctcpConfig::default(), 1);
    data(&mut p, 0, 0, 50_000, 100);
    data(&mut p, 0, 99, 43_750, 100);
    assert_eq!(p.available_bps(HostId(0)), None, "still in the first sub-slot");
    data(&mut p, 0, 100, 1, 100);
    assert!(close_to(p.available_bps(HostId(0)).unwrap(), 1.5e9));
    // A first sub-slot above 0.9 C leaves nothing: 120,000 B in 100 us is 9.6 Gb/s.
    let mut p = ictcp(IctcpConfig::default(), 1);
    data(&mut p, 0, 0, 120_000, 100);
    data(&mut p, 0, 100, 1, 100);
    assert_eq!(p.available_bps(HostId(0)), Some(0.0));
}

#[test]
fn measured_expected_and_difference() {
    // rwnd 10 MSS over RTT 100 us: 146 MB/s expected at most.
    let rwnd = 10 * MSS;
    // 7,300 B in the RTT: b_s = 73 MB/s = b_m (the first), b_e = 146 MB/s, d = 0.5.
    let m = measure(0.0, 73e6, 0.75, rwnd, RTT);
    assert!(close_to(m.b_m, 73e6) && close_to(m.b_e, 146e6) && close_to(m.d, 0.5), "{m:?}");
    // Then 3,650 B: b_s = 36.5 MB/s, b_m = max(36.5, 0.75 x 73 + 0.25 x 36.5 = 63.875),
    // d = (146 - 63.875) / 146 = 0.5625.
    let m = measure(m.b_m, 36.5e6, 0.75, rwnd, RTT);
    assert!(close_to(m.b_m, 63.875e6) && close_to(m.d, 0.5625), "{m:?}");
    // A sample above the average takes over at once: b_m = b_s = 200 MB/s = b_e, d = 0.
    let m = measure(m.b_m, 200e6, 0.75, rwnd, RTT);
    assert!(close_to(m.b_m, 200e6) && close_to(m.b_e, 200e6) && m.d == 0.0, "{m:?}");
}

#[test]
fn the_policy_keeps_b_m_from_its_samples() {
    // The same two samples through the policy: 7,300 B in [0, 100 us), 3,650 B in
    // [100, 200 us); d = 0.5 then 0.5625, neither above gamma2 nor at most gamma1.
    let mut p = ictcp(IctcpConfig::default(), 1);
    data(&mut p, 0, 0, 7_300, 100);
    data(&mut p, 0, 100, 3_650, 100);
    assert!(close_to(p.conns[0].b_m, 73e6));
    data(&mut p, 0, 200, 1, 100);
    assert!(close_to(p.conns[0].b_m, 63.875e6));
    assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (10 * MSS, 1));
}

#[test]
fn increases_wait_for_the_second_sub_slot_and_double_while_the_quota_allows() {
    // Base RTT 100 us (T = 100 us), measured RTT 50 us: a measurement every 50 us.
    let mut p = ictcp(IctcpConfig::default(), 1);
    data(&mut p, 0, 0, 14_600, 50);
    data(&mut p, 0, 50, 14_600, 50);
    // d = 0 at 50 us (292 MB/s both measured and expected), but in the first sub-slot.
    assert_eq!(p.rwnd(FlowId(0)), 10 * MSS);
    // At 100 us: BW_T = 29,200 B / 100 us = 292 MB/s, BW_A = 1,125 - 292 = 833 MB/s;
    // doubling costs rwnd / RTT = 14,600 B / 50 us = 292 MB/s: 20 MSS, 541 MB/s left.
    data(&mut p, 0, 100, 29_200, 50);
    assert_eq!(p.rwnd(FlowId(0)), 20 * MSS);
    assert!(close_to(p.ifaces[0].quota, 541e6));
    // At 150 us d = 0 again (29,200 B in 50 us = 20 MSS / RTT), but the last change was
    // one measurement ago: no change, slow start goes on.
    data(&mut p, 0, 150, 29_200, 50);
    assert_eq!(p.rwnd(FlowId(0)), 20 * MSS);
    assert!(p.conns[0].slow_start);
    // At 200 us, d = 0 and two measurements since: but a new slot begins (T = 50 us,
    // the traffic's RTT), its first sub-slot has no quota, whatever the last one left.
    data(&mut p, 0, 200, 1, 50);
    assert_eq!((p.ifaces[0].slot_start, p.ifaces[0].t), (200 * PS_PER_US, 50 * PS_PER_US));
    assert_eq!(p.rwnd(FlowId(0)), 20 * MSS);
    assert!(p.conns[0].slow_start);
}

#[test]
fn a_short_quota_switches_to_one_mss_and_none_holds() {
    // 100,000 B in the first sub-slot: BW_T = 1,000 MB/s, BW_A = 125 MB/s. Doubling
    // 10 MSS over 100 us costs 146 MB/s: too much; +1 MSS costs 14.6 MB/s.
    let mut p = ictcp(IctcpConfig::default(), 1);
    data(&mut p, 0, 0, 100_000, 100);
    data(&mut p, 0, 100, 1, 100);
    assert_eq!(p.rwnd(FlowId(0)), 11 * MSS);
    assert!(close_to(p.ifaces[0].quota, 125e6 - 14.6e6));
    assert!(!p.conns[0].slow_start, "slow start is over for good");
    // BW_T above 0.9 C: no quota at all, not even for 1 MSS.
    let mut p = ictcp(IctcpConfig::default(), 1);
    data(&mut p, 0, 0, 120_000, 100);
    data(&mut p, 0, 100, 1, 100);
    assert_eq!(p.rwnd(FlowId(0)), 10 * MSS);
}

#[test]
fn three_measurements_with_d_above_gamma2_shrink_the_window_two_do_not() {
    // 1,460 B per RTT against 10 MSS: d = 0.9 every time.
    let mut p = ictcp(IctcpConfig::default(), 1);
    for t in 0..3 {
        data(&mut p, 0, 100 * t, MSS, 100);
    }
    assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (10 * MSS, 2));
    data(&mut p, 0, 300, MSS, 100);
    assert_eq!(p.rwnd(FlowId(0)), 9 * MSS);
    assert!(!p.conns[0].slow_start, "a decrease ends slow start");
}

#[test]
fn a_measurement_with_d_at_most_gamma2_starts_the_count_again() {
    // [0, 100 us): 1,460 B, d = 0.9 (count 1); [100, 200 us): 10 MSS, d = 0 (count 0).
    // Then 1 B per RTT: b_m decays by beta, 146 -> 109.5 -> 82.1 -> 61.6 -> 46.2 MB/s,
    // d = 0.25, 0.44, then 0.58, 0.68, 0.74 (above 0.5 from 500 us): the third in a
    // row is at 700 us, not at 400 us.
    let mut p = ictcp(IctcpConfig::default(), 1);
    data(&mut p, 0, 0, MSS, 100);
    data(&mut p, 0, 100, 10 * MSS, 100);
    for t in 2..=6 {
        data(&mut p, 0, 100 * t, 1, 100);
    }
    assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (10 * MSS, 2));
    data(&mut p, 0, 700, 1, 100);
    assert_eq!(p.rwnd(FlowId(0)), 9 * MSS);
}

#[test]
fn the_window_never_falls_below_min_rwnd() {
    let cfg = IctcpConfig { init_rwnd_pkts: 3, ..Default::default() };
    let mut p = ictcp(cfg, 1);
    for t in 0..=6 {
        data(&mut p, 0, 100 * t, 1, 100);
    }
    // Three slow measurements (100-300 us): 3 -> 2 MSS; three more (400-600 us): 2 MSS.
    assert_eq!(p.rwnd(FlowId(0)), 2 * MSS);
    assert_eq!(p.conns[0].since_adjust, 3, "the floor is no change: the last was at 300 us");
}

/// Two connections; A (0) doubles to 20 MSS at 100 us, B (1) stays at 10. Then B
/// brings `b_bytes` in the next slot's first sub-slot [200, 300 us), A 1,460 B.
fn fairness_run(b_bytes: u64) -> Ictcp {
    let mut p = ictcp(IctcpConfig::default(), 2);
    data(&mut p, 0, 0, 14_600, 100);
    data(&mut p, 1, 0, MSS, 100);
    data(&mut p, 0, 100, MSS, 100);
    assert_eq!((p.rwnd(FlowId(0)), p.rwnd(FlowId(1))), (20 * MSS, 10 * MSS));
    data(&mut p, 0, 200, MSS, 100);
    data(&mut p, 1, 200, b_bytes, 100);
    // At 300 us A takes its second measurement since it grew, 1,460 B against 20 MSS
    // (d = 0.70, the second such in a row: no decrease of its own).
    data(&mut p, 0, 300, MSS, 100);
    p
}

#[test]
fn below_a_fifth_of_c_windows_above_the_mean_lose_one_mss() {
    // 93,750 B in 100 us: BW_T = 937.5 MB/s, BW_A = 187.5 MB/s = 0.15 C < 0.2 C.
    // A (20 MSS) is above the mean (15): 19 MSS. B (10) is not.
    let p = fairness_run(93_750 - MSS);
    assert!(close_to(p.available_bps(HostId(0)).unwrap(), 1.5e9));
    assert_eq!((p.rwnd(FlowId(0)), p.rwnd(FlowId(1))), (19 * MSS, 10 * MSS));
    // With 10,000 B from B instead, BW_A = 1,010.4 MB/s: A keeps its 20 MSS.
    let p = fairness_run(10_000);
    assert_eq!((p.rwnd(FlowId(0)), p.conns[0].high_d), (20 * MSS, 2), "two slow RTTs alone cut nothing");
}

#[test]
fn closed_connections_leave_the_mean_and_the_slot_length() {
    let mut p = ictcp(IctcpConfig::default(), 2);
    p.open(FlowId(2), HostId(0), 400 * PS_PER_US, 0);
    assert_eq!(p.ifaces[0].idle_t(), 200 * PS_PER_US, "mean of 100, 100, 400 us");
    p.close(FlowId(2));
    p.close(FlowId(2));
    assert_eq!((p.ifaces[0].conns, p.ifaces[0].rwnd_sum, p.ifaces[0].idle_t()), (2, 20 * MSS, RTT));
    // A closed connection's data changes nothing.
    data(&mut p, 2, 0, 1_000_000, 100);
    assert_eq!(p.ifaces[0].slot_start, NEVER);
}

#[test]
fn the_slot_length_follows_the_traffic_weighted_rtt() {
    // Slot [0, 200 us): A brings 3,000 B at RTT 100 us, B 1,000 B at 500 us: the next
    // T = (3,000 x 100 + 1,000 x 500) / 4,000 = 200 us.
    let mut p = ictcp(IctcpConfig::default(), 2);
    data(&mut p, 0, 0, 3_000, 100);
    data(&mut p, 1, 150, 1_000, 500);
    data(&mut p, 0, 200, 1, 100);
    assert_eq!((p.ifaces[0].slot_start, p.ifaces[0].t), (200 * PS_PER_US, 200 * PS_PER_US));
    // Silent through the next slot's first sub-slot: a fresh slot at the arrival.
    data(&mut p, 0, 900, 1, 100);
    assert_eq!(p.ifaces[0].slot_start, 900 * PS_PER_US);
}

#[test]
fn the_senders_right_edge_never_moves_back_when_ictcp_shrinks() {
    use crate::transport::cc::{Cc, NewReno};
    use crate::transport::recovery::Recovery;
    use crate::transport::sender::tests::{config, drain, MSS as SMSS};
    use crate::transport::sender::Sender;
    use crate::transport::NO_SACKS;
    // ICTCP's window in the sender's MSS: 10, then 9 after three slow measurements.
    let mut p = Ictcp::new(IctcpConfig::default(), &[TEN_G], SMSS);
    p.open(FlowId(0), HostId(0), RTT, 0);
    let mut s = Sender::new(40 * SMSS, &config(30 * SMSS, false, Recovery::Basic), Cc::NewReno(NewReno::new(false)));
    s.advertised(0, p.window(FlowId(0)));
    assert_eq!(drain(&mut s, 0).len(), 10, "the first flight is the initial window");
    for t in 0..4 {
        p.on_data(FlowId(0), 1, Some(RTT), t * RTT);
    }
    assert_eq!(p.window(FlowId(0)), 9 * SMSS);
    // The ACK of the first segment advertises 9: edge 1 + 9 = 10 MSS, not behind the
    // 10 already allowed; one more segment only when the ACK of the second comes.
    s.on_ack(RTT, SMSS, &NO_SACKS, false, 0);
    s.advertised(SMSS, p.window(FlowId(0)));
    assert!(drain(&mut s, RTT).is_empty());
    s.on_ack(RTT, 2 * SMSS, &NO_SACKS, false, 0);
    s.advertised(2 * SMSS, p.window(FlowId(0)));
    assert_eq!(drain(&mut s, RTT).len(), 1);
    assert_eq!(s.snd_nxt, 11 * SMSS);
}
