//! Proportional Rate Reduction (RFC 6937, RFC 9937): while a window is being reduced (fast
//! recovery, or ECN's CWR), each ACK lets out data in proportion to what it delivered, so
//! that the data in flight falls smoothly to ssthresh instead of stopping the ACK clock.
//!
//! Two arithmetics, as the two references run it:
//! - Linux (`tcp_cwnd_reduction`): in whole packets; RecoverFS is cwnd at the start; the
//!   slow-start reduction bound gives one packet more only on an ACK that advances snd.una
//!   and marks nothing new lost (RFC 9937's SafeACK).
//! - ns-3 (`TcpPrrRecovery`): in bytes; RecoverFS is the pipe at the start; each duplicate
//!   ACK counts one extra segment as delivered while prr_delivered < RecoverFS; the bound
//!   gives one segment more only when a retransmission was cumulatively acknowledged; and
//!   the proportional part's 32-bit product wraps (ns-3 3.44's bug, kept).
//!
//! Both set `cwnd = pipe + sndcnt` after every ACK that delivered data.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// The flight (or window) the reduction starts from.
    pub recover_fs: u64,
    /// Bytes delivered to the receiver since the reduction started.
    pub delivered: u64,
    /// Bytes sent since the reduction started.
    pub out: u64,
}

impl Prr {
    pub fn enter(&mut self, recover_fs: u64) {
        *self = Prr { recover_fs, delivered: 0, out: 0 };
    }

    pub fn sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// Linux: the window after an ACK that delivered `delivered` bytes, with `pipe` bytes in
    /// flight after it. `safe`: the ACK advanced snd.una and marked nothing new lost.
    /// `None` when the ACK delivered nothing (the window stays).
    pub fn linux_cwnd(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, safe: bool) -> Option<u64> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let pkts = |b: u64| b.div_ceil(mss);
        let (prr_delivered, prr_out) = (pkts(self.delivered), pkts(self.out));
        let ssthresh_pkts = (ssthresh / mss).max(1);
        let prior = (self.recover_fs / mss).max(1);
        let in_flight = pkts(pipe);
        let sndcnt = if in_flight > ssthresh_pkts {
            (ssthresh_pkts * prr_delivered).div_ceil(prior).saturating_sub(prr_out)
        } else {
            let mut limit = prr_delivered.saturating_sub(prr_out).max(pkts(delivered));
            if safe {
                limit += 1;
            }
            limit.min(ssthresh_pkts - in_flight)
        };
        // A fast retransmit is always allowed on entering recovery.
        let sndcnt = if self.out == 0 { sndcnt.max(1) } else { sndcnt };
        Some(pipe + sndcnt * mss)
    }

    /// ns-3's `TcpPrrRecovery::DoRecovery`. `dupack`: the ACK did not advance snd.una (or
    /// this is the entry into recovery, which ns-3 treats as one). `safe`: a retransmitted
    /// segment was cumulatively acknowledged.
    pub fn ns3_cwnd(&mut self, delivered: u64, dupack: bool, pipe: u64, ssthresh: u64, mss: u64, safe: bool) -> Option<u64> {
        let mut delivered = delivered;
        if dupack && self.delivered < self.recover_fs {
            delivered += mss;
        }
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // ns-3 multiplies two 32-bit counters before it turns to floating point, so the
            // product wraps past 4 GiB (`m_prrDelivered * tcb->m_ssThresh * 1.0`): in a
            // large recovery the proportional share collapses and nothing is sent until the
            // flight falls to ssthresh. Kept: this model is ns-3's.
            let product = (self.delivered as u32).wrapping_mul(ssthresh as u32) as f64;
            // A recovery entered with nothing in flight divides by zero; the double that
            // is not an `int` converts to INT_MIN on x86, as any out of range.
            let share = (product / self.recover_fs as f64).ceil() - self.out as f64;
            if share.is_finite() && share >= f64::from(i32::MIN) && share <= f64::from(i32::MAX) {
                share as i64
            } else {
                i64::from(i32::MIN)
            }
        } else {
            // ns-3 subtracts the 32-bit counters unsigned (`m_prrDelivered - m_prrOut`): once
            // more has been sent than delivered (the safe-ACK segments) the difference wraps,
            // wins the `max`, and turns negative as an `int`: nothing is sent on that ACK.
            let ahead = (self.delivered as u32).wrapping_sub(self.out as u32);
            let mut limit = ahead.max(delivered as u32) as i32;
            if safe {
                limit = limit.wrapping_add(mss as i32);
            }
            i64::from(limit.min((ssthresh as i64 - pipe as i64) as i32))
        };
        let sndcnt = sndcnt.max(if self.out > 0 { 0 } else { mss as i64 });
        Some((pipe as i64 + sndcnt).max(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9937, section 8, example 1: cwnd = inflight = 20 segments, segment 0 lost,
    /// ssthresh 10, limited transmit sends two new segments on ACKs 1 and 2, recovery
    /// starts at ACK 3. The RFC's inflight and cwnd rows for ACKs 3 to 18, while the flight
    /// is above ssthresh; afterwards the flight stays at ssthresh.
    #[test]
    fn rfc9937_single_loss() {
        let mss = 1000;
        let mut prr = Prr::default();
        prr.enter(20 * mss);
        let inflight = [18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11];
        let cwnd = [19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11];
        let mut sent_on = Vec::new();
        for (k, (&i, &c)) in inflight.iter().zip(&cwnd).enumerate() {
            let got = prr.linux_cwnd(mss, i * mss, 10 * mss, mss, false).unwrap();
            assert_eq!(got / mss, c, "cwnd after ACK {}", k + 3);
            for _ in 0..(got - i * mss) / mss {
                prr.sent(mss);
                sent_on.push(k + 3);
            }
        }
        // One segment on every other ACK: the retransmission on ACK 3, new data on 5, 7, ...
        assert_eq!(sent_on, vec![3, 5, 7, 9, 11, 13, 15, 17]);
        // Once the flight has fallen to ssthresh, each ACK replaces what it delivered.
        assert_eq!(prr.linux_cwnd(mss, 10 * mss, 10 * mss, mss, false), Some(10 * mss));
        assert_eq!(prr.linux_cwnd(mss, 9 * mss, 10 * mss, mss, false), Some(10 * mss));
    }

    /// RFC 6937 / RFC 9937's second scenario: 15 consecutive losses, so the flight falls to
    /// 4 segments (of ssthresh 10) at the third duplicate ACK. With the slow-start bound
    /// on every ACK (RFC 6937's PRR-SSRB) each ACK sends 2; RFC 9937 and Linux allow the
    /// extra segment only on a safe ACK (these duplicate ACKs are not), so each sends 1.
    #[test]
    fn burst_loss_reduction_bound() {
        let mss = 1000;
        for (safe, per_ack) in [(true, 2), (false, 1)] {
            let mut prr = Prr::default();
            prr.enter(20 * mss);
            let mut pipe = 4 * mss;
            for ack in 0..3 {
                let cwnd = prr.linux_cwnd(mss, pipe, 10 * mss, mss, safe).unwrap();
                let send = (cwnd - pipe) / mss;
                assert_eq!(send, per_ack, "safe {safe}, ACK {ack}");
                prr.sent(send * mss);
                pipe += send * mss - mss; // the next duplicate ACK takes one out
            }
        }
    }

    /// ns-3 computes prr_delivered x ssthresh in 32 bits: past 4 GiB the product wraps and
    /// the proportional part collapses to nothing. With ssthresh 74,572 B and RecoverFS
    /// 149,144 B (a recovery measured in `fanin crosscheck tcp`), the 20th duplicate ACK
    /// (prr_delivered 57,920 B) is the first to wrap; ns-3 then sends nothing.
    #[test]
    fn ns3_proportional_part_wraps_in_32_bits() {
        let (mss, ssthresh, fs) = (1448, 74_572, 149_144);
        let mut prr = Prr::default();
        prr.enter(fs);
        let mut pipe = fs;
        for ack in 0..20 {
            let cwnd = prr.ns3_cwnd(mss, true, pipe, ssthresh, mss, false).unwrap();
            let send = cwnd.saturating_sub(pipe);
            assert_eq!(send, if ack < 19 { mss } else { 0 }, "duplicate ACK {ack}");
            prr.sent(send);
            pipe = pipe + send - 2 * mss;
        }
    }

    /// ns-3 counts one more segment per duplicate ACK and works in bytes: the entry into
    /// recovery lets out one segment (its forced fast retransmit), and the proportional
    /// part is rounded up in bytes, not packets.
    #[test]
    fn ns3_arithmetic() {
        let mss = 1000;
        let mut prr = Prr::default();
        prr.enter(18 * mss);
        // Entry (counted as a duplicate ACK): delivered 1 MSS + 1 for the dupack.
        let c = prr.ns3_cwnd(mss, true, 18 * mss, 9 * mss, mss, false).unwrap();
        assert_eq!(c, 18 * mss + 1000, "ceil(2000 * 9 / 18) = 1000 bytes");
        prr.sent(mss);
        let c = prr.ns3_cwnd(mss, true, 18 * mss, 9 * mss, mss, false).unwrap();
        assert_eq!(c, 18 * mss + 1000, "ceil(4000 / 2) - 1000");
        // A partial ACK (not a dupack) counts only what it delivered.
        prr.sent(mss);
        let c = prr.ns3_cwnd(mss, false, 17 * mss, 9 * mss, mss, false).unwrap();
        assert_eq!(c, 17 * mss + 500, "ceil(5000 * 9 / 18) - 2000");
    }

    /// PRR-CRB once more was sent than delivered: ns-3's unsigned `m_prrDelivered -
    /// m_prrOut` wraps, wins the `max`, and is negative as an `int`: the window is the
    /// pipe, nothing goes out (a signed difference would allow one more segment).
    #[test]
    fn ns3_reduction_bound_wraps_when_more_was_sent_than_delivered() {
        let mss = 1000;
        let mut prr = Prr::default();
        prr.enter(10 * mss);
        prr.sent(3 * mss);
        let c = prr.ns3_cwnd(mss, false, 5 * mss, 9 * mss, mss, true).unwrap();
        assert_eq!(c, 5 * mss);
        // Delivered ahead of sent: the bound is what was delivered, plus a segment if safe.
        let mut prr = Prr::default();
        prr.enter(10 * mss);
        let c = prr.ns3_cwnd(2 * mss, false, 5 * mss, 9 * mss, mss, true).unwrap();
        assert_eq!(c, 8 * mss);
    }

    /// A recovery entered with nothing in flight: no duplicate-ACK bonus (0 < 0 fails) and,
    /// were the pipe to exceed ssthresh, a division by zero whose result converts to
    /// INT_MIN, so only the forced first segment can go.
    #[test]
    fn ns3_recovery_from_an_empty_pipe() {
        let mss = 1000;
        let mut prr = Prr::default();
        prr.enter(0);
        let c = prr.ns3_cwnd(mss, true, 0, 2 * mss, mss, false).unwrap();
        assert_eq!(c, mss, "delivered 1 MSS, no bonus: the forced segment alone");
        prr.sent(mss);
        let c = prr.ns3_cwnd(mss, true, 3 * mss, 2 * mss, mss, false).unwrap();
        assert_eq!(c, 3 * mss, "inf converts to INT_MIN: nothing more");
    }
}
