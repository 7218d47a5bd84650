//! Congestion control: one trait, one file per algorithm, dispatched through [`Cc`].
//!
//! An algorithm only moves the window. Loss detection, retransmission, timers and ECN echo
//! live in the shared sender/receiver; they call in here at the moments a window changes.

mod bbr;
mod dctcp;
mod delivery_rate;
mod gemini;
mod mprdma;
mod hotnets_dctcp;
mod newreno;
mod path;
mod uno;

pub use bbr::{Bbr, BbrConfig, BbrMode};
pub use dctcp::{Dctcp, DctcpConfig};
pub use gemini::{Gemini, GeminiConfig};
pub use mprdma::{Mprdma, MprdmaConfig};
pub use hotnets_dctcp::{HotnetsDctcp, NackDecrease};
pub use newreno::NewReno;
pub use path::FlowPath;
pub use uno::{UnoCc, UnoConfig};

use super::recovery::{Recovery, Reduction};
use crate::units::Time;

/// How Reno-style growth counts what an ACK acknowledged.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Growth {
    /// Byte counting (Linux's `tcp_slow_start` and `tcp_cong_avoid_ai`, in bytes): slow
    /// start by the bytes acknowledged, then one MSS per window of bytes.
    #[default]
    Bytes,
    /// ns-3's `TcpNewReno`: one MSS per ACK in slow start, `MSS²/cwnd` per ACK after.
    Ns3NewReno,
    /// ns-3's `TcpLinuxReno` (under its DCTCP): slow start by the segments acknowledged up to
    /// ssthresh (the rest dropped), then one MSS per window of segments.
    Ns3LinuxReno,
}

/// The window every algorithm moves, in bytes.
#[derive(Clone, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// Smallest window a reduction may leave (1 MSS lets incasts reach the degenerate point).
    pub min_cwnd: u64,
    /// Bytes acknowledged toward the next congestion-avoidance increment.
    ca_credit: u64,
    /// The algorithm reacted to an ECN echo (entered CWR) since the sender last looked:
    /// the next data segment carries CWR, even if the window was already at its floor.
    pub ecn_reacted: bool,
    /// The window the flow started with (some algorithms never grow beyond it).
    pub init_cwnd: u64,
    pub growth: Growth,
    /// Swift's sub-packet pacing is on: below one segment the window grows by the bytes
    /// acknowledged (Swift's `cwnd += ai x num_acked` with ai = 1 segment), whatever the
    /// growth rule (ns-3's NewReno would add MSS^2 / cwnd, many segments, per ACK there;
    /// ns-3's LinuxReno nothing for a short tail segment).
    pub sub_packet: bool,
}

impl Window {
    pub fn new(init_cwnd: u64, mss: u64, min_cwnd: u64) -> Self {
        Window { cwnd: init_cwnd, ssthresh: u64::MAX, mss, min_cwnd, ca_credit: 0, ecn_reacted: false, init_cwnd, growth: Growth::Bytes, sub_packet: false }
    }

    /// ns-3's algorithms grow the window by their own per-ACK rules.
    pub fn set_growth(&mut self, recovery: Recovery, cc: &Cc) {
        self.growth = match (recovery, cc) {
            (Recovery::Ns3, Cc::NewReno(_)) => Growth::Ns3NewReno,
            (Recovery::Ns3, Cc::Dctcp(_)) => Growth::Ns3LinuxReno,
            _ => Growth::Bytes,
        };
    }

    /// Reno growth by `acked` bytes, counted as [`Window::growth`] says.
    pub fn increase(&mut self, acked: u64) {
        if self.sub_packet && self.cwnd < self.mss {
            self.cwnd += acked;
            return;
        }
        match self.growth {
            Growth::Bytes => self.reno_increase(acked),
            Growth::Ns3NewReno => self.ns3_newreno_increase(acked / self.mss),
            Growth::Ns3LinuxReno => self.ns3_linux_reno_increase(acked / self.mss),
        }
    }

    fn ns3_newreno_increase(&mut self, segs: u64) {
        if segs == 0 {
            return;
        }
        let mut segs = segs;
        if self.cwnd < self.ssthresh {
            self.cwnd += self.mss;
            segs -= 1;
        }
        if self.cwnd >= self.ssthresh && segs > 0 {
            self.cwnd += (self.mss * self.mss / self.cwnd).max(1);
        }
    }

    fn ns3_linux_reno_increase(&mut self, segs: u64) {
        if self.cwnd < self.ssthresh {
            if segs > 0 {
                self.cwnd = (self.cwnd + segs * self.mss).min(self.ssthresh);
            }
            return;
        }
        // ca_credit counts segments here (ns-3's m_cWndCnt).
        let w = (self.cwnd / self.mss).max(1);
        if self.ca_credit >= w {
            self.ca_credit = 0;
            self.cwnd += self.mss;
        }
        self.ca_credit += segs;
        if self.ca_credit >= w {
            let delta = self.ca_credit / w;
            self.ca_credit -= delta * w;
            self.cwnd += delta * self.mss;
        }
    }

    /// Reno growth: slow start below ssthresh (one byte per byte ACKed), then one MSS per
    /// window of ACKed bytes.
    pub fn reno_increase(&mut self, acked: u64) {
        let mut acked = acked;
        if self.cwnd < self.ssthresh {
            let grow = acked.min(self.ssthresh - self.cwnd);
            self.cwnd += grow;
            acked -= grow;
        }
        if acked > 0 && self.cwnd >= self.ssthresh {
            self.ca_credit += acked;
            while self.ca_credit >= self.cwnd {
                self.ca_credit -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    /// The reduction for an ECN echo (RFC 3168's CWR): like [`Window::reduce_to`], and the
    /// sender will signal CWR.
    pub fn ecn_cut(&mut self, target: u64) {
        self.reduce_to(target);
        self.ecn_reacted = true;
    }

    /// Sets ssthresh and cwnd to `target`, never below the floor.
    pub fn reduce_to(&mut self, target: u64) {
        self.ssthresh = target.max(self.min_cwnd);
        self.cwnd = self.ssthresh;
        self.ca_credit = 0;
    }
}

/// What an ACK tells the congestion control.
#[derive(Copy, Clone, Debug, Default)]
pub struct AckSignal {
    pub now: Time,
    /// Bytes newly delivered (cumulatively or by SACK).
    pub delivered: u64,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The window may grow on this ACK (the sender is not reducing it, and under the Linux
    /// model the ACK advanced snd.una while the flow was cwnd-limited).
    pub may_grow: bool,
    /// The algorithm may cut the window itself on an ECN echo (fanin's basic model; the
    /// others enter CWR in the shared sender, which asks [`CongestionControl::ssthresh`]).
    pub may_cut: bool,
    pub rtt: Option<Time>,
    /// This ACK's RTT sample (now - the echoed send time), 0 when it carries none.
    pub rtt_sample: Time,
    /// Send time of the data packet this ACK answers (the echoed timestamp).
    pub sent_at: Time,
    /// Bytes sent and neither acknowledged nor deemed lost, after this ACK.
    pub in_flight: u64,
}

pub trait CongestionControl {
    /// Every ACK that delivers data or echoes congestion.
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal);
    /// Loss detected by duplicate ACKs or SACK: set ssthresh and cwnd for recovery (the
    /// basic model, which cuts at once).
    fn on_loss(&mut self, w: &mut Window);
    /// The slow-start threshold a reduction sets, before the window's floor, as the
    /// recovery model's reference computes it; `flight` is the pipe. The Linux and ns-3
    /// models reach the window through it gradually (PRR).
    fn ssthresh(&self, w: &Window, _why: Reduction, _flight: u64, _style: Recovery) -> u64 {
        w.cwnd / 2
    }
    /// Retransmission timeout: set ssthresh; the sender restarts from one segment.
    fn on_timeout(&mut self, w: &mut Window) {
        w.ssthresh = (w.cwnd / 2).max(w.min_cwnd);
        w.cwnd = w.mss;
    }
    /// Per-packet deadlines expired at `now` (window senders; one call per batch). The
    /// algorithms that rate-limit their reaction to timeouts need the time.
    fn on_packet_timeout(&mut self, w: &mut Window, _now: Time) {
        self.on_timeout(w)
    }
    /// A NACK: a trimming queue cut one of this flow's segments. The shared sender has
    /// already marked it lost; algorithms that know nothing of trimming leave the window.
    fn on_nack(&mut self, _w: &mut Window, _nack: &AckSignal) {}
    /// Whether data segments are sent ECN-capable.
    fn ecn_capable(&self) -> bool;
    /// A data packet of `bytes` payload left the sender (window senders count epochs here).
    #[inline(always)]
    fn on_send(&mut self, _w: &mut Window, _now: Time, _bytes: u64) {}
    /// The rate the pacer should use instead of cwnd / base RTT (rate-based algorithms).
    fn pacing_rate_bps(&self) -> Option<u64> {
        None
    }
}

/// The algorithms, dispatched by `match` (no `Box<dyn>` on the hot path). The window
/// senders' larger states are boxed (one allocation per flow) so that every flow's sender
/// stays as small as DCTCP's.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(NewReno),
    Dctcp(Dctcp),
    Uno(Box<UnoCc>),
    Gemini(Box<Gemini>),
    Mprdma(Box<Mprdma>),
    Bbr(Box<Bbr>),
    HotnetsDctcp(HotnetsDctcp),
}

/// Calls `$body` with `$c` bound to the algorithm inside a [`Cc`].
macro_rules! each_cc {
    ($self:expr, $c:ident => $body:expr) => {
        match $self {
            Cc::NewReno($c) => $body,
            Cc::Dctcp($c) => $body,
            Cc::Uno($c) => $body,
            Cc::Gemini($c) => $body,
            Cc::Mprdma($c) => $body,
            Cc::Bbr($c) => $body,
            Cc::HotnetsDctcp($c) => $body,
        }
    };
}

impl Cc {
    /// DCTCP's alpha; NaN for an algorithm without one.
    pub fn alpha(&self) -> f64 {
        match self {
            Cc::Dctcp(c) => c.alpha,
            _ => f64::NAN,
        }
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        each_cc!(self, c => c.on_ack(w, ack))
    }
    fn on_loss(&mut self, w: &mut Window) {
        each_cc!(self, c => c.on_loss(w))
    }
    fn ssthresh(&self, w: &Window, why: Reduction, flight: u64, style: Recovery) -> u64 {
        each_cc!(self, c => c.ssthresh(w, why, flight, style))
    }
    fn on_timeout(&mut self, w: &mut Window) {
        each_cc!(self, c => c.on_timeout(w))
    }
    fn on_packet_timeout(&mut self, w: &mut Window, now: Time) {
        each_cc!(self, c => c.on_packet_timeout(w, now))
    }
    fn on_nack(&mut self, w: &mut Window, nack: &AckSignal) {
        each_cc!(self, c => c.on_nack(w, nack))
    }
    fn ecn_capable(&self) -> bool {
        each_cc!(self, c => c.ecn_capable())
    }
    #[inline(always)]
    fn on_send(&mut self, w: &mut Window, now: Time, bytes: u64) {
        each_cc!(self, c => c.on_send(w, now, bytes))
    }
    fn pacing_rate_bps(&self) -> Option<u64> {
        each_cc!(self, c => c.pacing_rate_bps())
    }
}

impl Cc {
    /// The window an algorithm starts from, when it chooses one (window senders start at
    /// their own BDP).
    pub fn initial_cwnd(&self) -> Option<u64> {
        match self {
            Cc::Uno(c) => Some(c.initial_cwnd()),
            Cc::Gemini(c) => Some(c.initial_cwnd()),
            Cc::Mprdma(c) => Some(c.initial_cwnd()),
            Cc::Bbr(c) => Some(c.initial_cwnd()),
            Cc::NewReno(_) | Cc::Dctcp(_) | Cc::HotnetsDctcp(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_linear_growth() {
        let mut w = Window::new(10 * 1000, 1000, 1000);
        w.ssthresh = 20_000;
        w.reno_increase(5_000);
        assert_eq!(w.cwnd, 15_000);
        w.reno_increase(10_000); // 5,000 to reach ssthresh, 5,000 of credit
        assert_eq!(w.cwnd, 20_000);
        w.reno_increase(15_000); // 20,000 of credit: one MSS
        assert_eq!(w.cwnd, 21_000);
        w.reduce_to(500);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 1000));
    }
}
