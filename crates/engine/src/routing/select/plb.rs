//! Protective Load Balancing (PLB, Qureshi et al., SIGCOMM '22), as Uno's evaluation runs
//! it (SC '25, spec §1.5): a flow keeps one path and moves it (a fresh random entropy from
//! `[0, entropies)`) when the path looks congested or broken.
//!
//! - **Congestion.** Time is cut into rounds of the flow's base RTT. A round is congested
//!   when the bytes its ECE-marked ACKs acknowledge exceed `cong_thresh` (0.25) of all the
//!   bytes its ACKs acknowledge. After `rehash_rounds` (2: "more than one") congested
//!   rounds in a row the flow repaths, and counts its rounds afresh.
//! - **Loss.** A timeout or a NACK repaths at once, but at most once per RTO: a burst of
//!   timeouts from one outage moves the flow once, not once per lost packet.
//!
//! A round closes at the first ACK at or after its end (its own base RTT after it
//! opened), before that ACK is counted, which opens the next. A round in which nothing was
//! acknowledged says nothing: it neither counts as congested nor breaks a run of them.
//! Bytes acknowledged are the cumulative ACK's advance, so SACKed data counts once the
//! hole before it is filled.

use super::{wire, AckSeen, FlowPaths, HostDraws, Loss, PathDraws, PathSelector};
use crate::ids::HostId;
use crate::units::Time;

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PlbConfig {
    /// Path entropies are drawn from `[0, entropies)` (250 in Uno's evaluation).
    pub entropies: u32,
    /// A round is congested when more than this fraction of its acknowledged bytes were
    /// ECE-marked (0.25).
    pub cong_thresh: f64,
    /// Congested rounds in a row that move the flow (2).
    pub rehash_rounds: u32,
}

#[derive(Clone, Debug)]
pub struct Plb {
    flow_entropy: u32,
    /// The path entropy, and its value on the wire.
    path: u32,
    wire: u32,
    base_rtt: Time,
    cong_thresh: f64,
    rehash_rounds: u32,
    /// The open round: when it ends, bytes acknowledged in it, of which ECE-marked.
    round_end: Time,
    delivered: u64,
    marked: u64,
    /// Congested rounds in a row, up to the last closed one.
    congested: u32,
    /// The last repath a loss caused (`None`: none yet).
    last_loss_repath: Option<Time>,
    draws: PathDraws,
    /// Repaths so far, for any reason; rounds closed with bytes acknowledged, and how
    /// many of them were congested.
    pub repaths: u64,
    pub rounds: u64,
    pub congested_total: u64,
}

impl Plb {
    /// Draws the flow's first path; its first round opens with its first ACK.
    pub fn new(cfg: &PlbConfig, flow: &FlowPaths) -> Plb {
        let mut p = Plb {
            flow_entropy: flow.entropy,
            path: 0,
            wire: 0,
            base_rtt: flow.base_rtt,
            cong_thresh: cfg.cong_thresh,
            rehash_rounds: cfg.rehash_rounds,
            round_end: 0,
            delivered: 0,
            marked: 0,
            congested: 0,
            last_loss_repath: None,
            draws: PathDraws::new(flow.seed, cfg.entropies),
            repaths: 0,
            rounds: 0,
            congested_total: 0,
        };
        p.draw_path();
        p.repaths = 0;
        p
    }

    /// The current path entropy.
    pub fn path(&self) -> &u32 {
        &self.path
    }

    /// Congested rounds in a row so far.
    pub fn congested_rounds(&self) -> u32 {
        self.congested
    }

    fn draw_path(&mut self) {
        self.path = self.draws.draw();
        self.wire = wire(self.flow_entropy, self.path);
        self.repaths += 1;
        // The rounds seen were the old path's.
        self.congested = 0;
    }

    /// Closes the open round at `now` and opens the next.
    fn close_round(&mut self, now: Time) {
        if self.delivered > 0 {
            self.rounds += 1;
            if self.marked as f64 > self.cong_thresh * self.delivered as f64 {
                self.congested_total += 1;
                self.congested += 1;
                if self.congested >= self.rehash_rounds {
                    self.draw_path();
                }
            } else {
                self.congested = 0;
            }
        }
        self.delivered = 0;
        self.marked = 0;
        self.round_end = now + self.base_rtt;
    }
}

impl PathSelector for Plb {
    #[inline]
    fn on_send(&mut self, _draws: &mut HostDraws, _src: HostId) -> u32 {
        self.wire
    }

    fn on_ack(&mut self, now: Time, ack: &AckSeen) {
        if now >= self.round_end {
            self.close_round(now);
        }
        self.delivered += ack.acked;
        if ack.ece {
            self.marked += ack.acked;
        }
    }

    fn on_loss(&mut self, now: Time, rto: Time, _loss: Loss) {
        if self.last_loss_repath.is_some_and(|t| now - t < rto) {
            return;
        }
        self.last_loss_repath = Some(now);
        self.draw_path();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Time = 10_000;
    const CFG: PlbConfig = PlbConfig { entropies: 250, cong_thresh: 0.25, rehash_rounds: 2 };

    fn plb() -> Plb {
        Plb::new(&CFG, &FlowPaths { entropy: 7, seed: 11, start: 0, base_rtt: RTT })
    }

    /// Rounds of ten 1,000-byte ACKs spread over the round, `marked[i]` of them with ECE in
    /// round i, then the first ACK of the next round (which closes the last one); returns
    /// the repaths after each round closed.
    fn rounds(p: &mut Plb, marked: &[u64]) -> Vec<u64> {
        let mut after = Vec::new();
        let mut t = 1;
        for (i, &m) in marked.iter().enumerate() {
            for k in 0..10 {
                p.on_ack(t, &AckSeen { entropy: 0, acked: 1000, ece: k < m });
                if i > 0 && k == 0 {
                    after.push(p.repaths);
                }
                t += RTT / 10;
            }
        }
        p.on_ack(t, &AckSeen { entropy: 0, acked: 1000, ece: false });
        after.push(p.repaths);
        after
    }

    #[test]
    fn two_congested_rounds_in_a_row_repath_on_the_second() {
        let mut p = plb();
        let first = p.wire;
        // 30 % marked twice: > 25 % each time; the second closes with a new path.
        assert_eq!(rounds(&mut p, &[3, 3]), [0, 1]);
        assert_ne!(p.wire, first);
        assert_eq!(p.congested_rounds(), 0);
    }

    #[test]
    fn a_calm_round_between_breaks_the_run() {
        let mut p = plb();
        // 30 %, 20 %, 30 %: never two in a row.
        assert_eq!(rounds(&mut p, &[3, 2, 3]), [0, 0, 0]);
        assert_eq!(p.congested_rounds(), 1);
    }

    #[test]
    fn a_quarter_marked_is_not_congested() {
        let mut p = plb();
        let ack = |p: &mut Plb, t: Time, acked: u64, ece: bool| p.on_ack(t, &AckSeen { entropy: 0, acked, ece });
        // Two rounds with exactly 2,500 of 10,000 bytes marked, closed at 2 RTT.
        for r in 0..2 {
            ack(&mut p, r * RTT, 2500, true);
            ack(&mut p, r * RTT + 1, 7500, false);
        }
        ack(&mut p, 2 * RTT, 2501, true);
        assert_eq!((p.congested_rounds(), p.repaths), (0, 0));
        // One byte more than a quarter is congested.
        ack(&mut p, 2 * RTT + 1, 7499, false);
        ack(&mut p, 3 * RTT, 0, false);
        assert_eq!(p.congested_rounds(), 1);
    }

    #[test]
    fn rounds_count_afresh_after_a_repath() {
        let mut p = plb();
        assert_eq!(rounds(&mut p, &[3, 3, 3, 3, 3]), [0, 1, 1, 2, 2]);
    }

    #[test]
    fn an_empty_round_neither_counts_nor_breaks_the_run() {
        let mut p = plb();
        p.on_ack(0, &AckSeen { entropy: 0, acked: 1000, ece: true });
        // Its round [0, RTT) is all marked. A duplicate ACK at 1.5 RTT closes it and opens
        // a round in which nothing is acknowledged; the ACK at 4 RTT closes that one.
        p.on_ack(RTT + RTT / 2, &AckSeen { entropy: 0, acked: 0, ece: true });
        assert_eq!(p.congested_rounds(), 1);
        p.on_ack(4 * RTT, &AckSeen { entropy: 0, acked: 1000, ece: true });
        assert_eq!((p.congested_rounds(), p.repaths), (1, 0));
        // That marked ACK's round closes congested: the second in a row.
        p.on_ack(5 * RTT, &AckSeen { entropy: 0, acked: 1000, ece: false });
        assert_eq!(p.repaths, 1);
    }

    #[test]
    fn losses_repath_at_most_once_per_rto() {
        let mut p = plb();
        let rto = 5 * RTT;
        let first = p.wire;
        p.on_loss(100, rto, Loss::Timeout);
        let second = p.wire;
        assert_eq!(p.repaths, 1);
        assert_ne!(second, first);
        // Another timeout, and a NACK, within one RTO of the first: no move.
        p.on_loss(100 + rto - 1, rto, Loss::Timeout);
        p.on_loss(100 + rto / 2, rto, Loss::TrimNack);
        assert_eq!((p.repaths, p.wire), (1, second));
        // One RTO after it, a NACK moves the flow again.
        p.on_loss(100 + rto, rto, Loss::ParityNack);
        assert_eq!(p.repaths, 2);
    }

    #[test]
    fn every_packet_takes_the_one_path() {
        let mut p = plb();
        let mut draws = HostDraws::default();
        assert_eq!(p.on_send(&mut draws, HostId(0)), wire(7, *p.path()));
        assert_eq!(p.on_send(&mut draws, HostId(0)), p.on_send(&mut draws, HostId(3)));
        assert!(*p.path() < 250);
    }
}
