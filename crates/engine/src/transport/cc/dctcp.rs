//! DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257). Once per window of data,
//! `alpha <- (1 - g) alpha + g F`, where F is the fraction of bytes ACKed with ECN-Echo.
//! On an echo, at most once per window, `cwnd <- cwnd (1 - alpha / 2)`. Loss is handled as
//! in Reno.

use super::{AckSignal, CongestionControl, Window};
use crate::transport::recovery::{Recovery, Reduction};

#[derive(Clone, Debug, PartialEq)]
pub struct DctcpConfig {
    /// EWMA gain; 1/16 by default (DCTCP's bound for 10G, K = 65).
    pub g: f64,
    pub alpha_init: f64,
    /// The first observation window ends one window after the first ACK (ns-3's
    /// `TcpDctcp`), not at it (Linux, whose window starts before any data is sent).
    pub defer_first_update: bool,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, alpha_init: 1.0, defer_first_update: false }
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    pub alpha: f64,
    acked_bytes: u64,
    ecn_bytes: u64,
    /// The observation window ends when snd_una reaches this sequence number.
    window_end: u64,
    /// No further cut until snd_una passes this point.
    cwr_until: u64,
    /// `defer_first_update` and no ACK seen yet.
    awaiting_first_ack: bool,
}

impl Dctcp {
    pub fn new(cfg: &DctcpConfig) -> Self {
        Dctcp { g: cfg.g, alpha: cfg.alpha_init, acked_bytes: 0, ecn_bytes: 0, window_end: 0, cwr_until: 0, awaiting_first_ack: cfg.defer_first_update }
    }
}

impl Dctcp {
    fn alpha_cut(&self, w: &Window) -> u64 {
        (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, ack: &AckSignal) {
        if std::mem::take(&mut self.awaiting_first_ack) {
            self.window_end = ack.snd_nxt;
        }
        self.acked_bytes += ack.delivered;
        if ack.ece {
            self.ecn_bytes += ack.delivered;
        }
        // A window ends when snd.una reaches its end even if this window counted no bytes
        // (an ACK that left a timeout's recovery acknowledges none): alpha decays then, in
        // Linux (`dctcp_update_alpha`) and in ns-3 (`TcpDctcp::PktsAcked`) alike.
        if ack.snd_una >= self.window_end {
            let f = if self.acked_bytes > 0 { self.ecn_bytes as f64 / self.acked_bytes as f64 } else { 0.0 };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.acked_bytes = 0;
            self.ecn_bytes = 0;
            self.window_end = ack.snd_nxt;
        }
        if ack.ece && ack.may_cut && ack.snd_una > self.cwr_until {
            w.ecn_cut(self.alpha_cut(w));
            self.cwr_until = ack.snd_nxt;
            return;
        }
        if ack.may_grow {
            w.increase(ack.delivered);
        }
    }

    fn on_loss(&mut self, w: &mut Window) {
        w.reduce_to(w.cwnd / 2);
    }

    /// The echo's cut, `cwnd (1 - alpha/2)`, serves ns-3 for every reduction; Linux halves
    /// the window on loss (`dctcp_react_to_loss`).
    fn ssthresh(&self, w: &Window, why: Reduction, _flight: u64, style: Recovery) -> u64 {
        match (style, why) {
            (Recovery::Ns3, _) | (_, Reduction::Cwr) => self.alpha_cut(w),
            _ => w.cwnd / 2,
        }
    }

    fn ecn_capable(&self) -> bool {
        true
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(delivered: u64, ece: bool, una: u64, nxt: u64) -> AckSignal {
        AckSignal { delivered, ece, snd_una: una, snd_nxt: nxt, may_grow: true, may_cut: true, ..Default::default() }
    }

    #[test]
    fn alpha_is_updated_once_per_window() {
        let mut d = Dctcp::new(&DctcpConfig { g: 1.0 / 16.0, alpha_init: 0.0, ..Default::default() });
        let mut w = Window::new(10_000, 1000, 1000);
        w.ssthresh = 1000;
        // First ACK closes the empty initial window: F = 1 (all marked).
        d.on_ack(&mut w, &ack(1000, true, 1000, 10_000));
        assert!((d.alpha - 1.0 / 16.0).abs() < 1e-12);
        // Cut by alpha/2 once.
        assert_eq!(w.cwnd, (10_000.0 * (1.0 - 1.0 / 32.0)) as u64);
        let after_cut = w.cwnd;
        // Within the same window: accumulate, no alpha update, no second cut.
        d.on_ack(&mut w, &ack(1000, true, 2000, 11_000));
        assert!((d.alpha - 1.0 / 16.0).abs() < 1e-12);
        assert_eq!(w.cwnd, after_cut);
        for i in 3..=10 {
            d.on_ack(&mut w, &ack(1000, false, i * 1000, 11_000));
        }
        // Window closed at 10,000: F = 2/9 of the bytes since the last update were marked? No:
        // the bytes counted since the update are 9,000 ACKed, 1,000 of them with ECE.
        let expected = (15.0 / 16.0) * (1.0 / 16.0) + (1.0 / 16.0) * (1.0 / 9.0);
        assert!((d.alpha - expected).abs() < 1e-12, "alpha {}", d.alpha);
    }

    #[test]
    fn one_cut_per_window_of_data() {
        let mut d = Dctcp::new(&DctcpConfig { g: 1.0 / 16.0, alpha_init: 1.0, ..Default::default() });
        let mut w = Window::new(10_000, 1000, 1000);
        w.ssthresh = 1000;
        d.on_ack(&mut w, &ack(1000, true, 1000, 10_000));
        assert_eq!(w.cwnd, 5_000);
        // The ACK covering the last byte sent before the cut still reports pre-cut data:
        // no second cut (Linux holds CWR until snd_una passes high_seq).
        d.on_ack(&mut w, &ack(1000, true, 10_000, 10_000));
        assert_eq!(w.cwnd, 5_000);
        // Data sent after the cut comes back marked: the next window's cut.
        d.on_ack(&mut w, &ack(1000, true, 11_000, 14_000));
        assert!(w.cwnd < 5_000);
    }

    #[test]
    fn ns3_waits_one_window_before_the_first_update() {
        let cfg = DctcpConfig { g: 1.0 / 16.0, alpha_init: 1.0, defer_first_update: true };
        let mut d = Dctcp::new(&cfg);
        let mut w = Window::new(10_000, 1000, 1000);
        d.on_ack(&mut w, &ack(1000, false, 1000, 10_000));
        assert_eq!(d.alpha, 1.0, "the first window ends at 10,000");
        d.on_ack(&mut w, &ack(9000, false, 10_000, 20_000));
        assert_eq!(d.alpha, 15.0 / 16.0);
    }

    #[test]
    fn cut_respects_min_cwnd() {
        let mut d = Dctcp::new(&DctcpConfig::default());
        let mut w = Window::new(1500, 1500, 1500);
        d.on_ack(&mut w, &ack(1500, true, 1500, 3000));
        assert_eq!(w.cwnd, 1500);
    }

    #[test]
    fn an_echo_at_the_floor_still_enters_cwr() {
        // RFC 3168: the sender answers every echo it reacts to with CWR, even when the
        // window cannot shrink; otherwise a latched (classic) receiver echoes forever.
        let mut d = Dctcp::new(&DctcpConfig::default());
        let mut w = Window::new(1500, 1500, 1500);
        d.on_ack(&mut w, &ack(1500, true, 1500, 3000));
        assert_eq!(w.cwnd, 1500);
        assert!(w.ecn_reacted);
    }

    #[test]
    fn echoes_after_a_timeout_do_not_cut_until_recovered() {
        let mut d = Dctcp::new(&DctcpConfig::default());
        let mut w = Window::new(1000, 1000, 1000);
        let mut a = ack(1000, true, 1000, 5000);
        a.may_cut = false;
        d.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 2000, "slow start goes on");
        assert!(!w.ecn_reacted);
    }

    /// A window that ends on an ACK which counted no bytes still updates alpha (F = 0), as
    /// Linux and ns-3 do; the next window starts there.
    #[test]
    fn a_window_without_acknowledged_bytes_still_decays_alpha() {
        let mut d = Dctcp::new(&DctcpConfig { g: 1.0 / 16.0, alpha_init: 1.0, ..Default::default() });
        let mut w = Window::new(10_000, 1000, 1000);
        w.ssthresh = 1000;
        d.on_ack(&mut w, &ack(0, false, 5000, 9000));
        assert!((d.alpha - 15.0 / 16.0).abs() < 1e-12, "alpha {}", d.alpha);
        d.on_ack(&mut w, &ack(1000, false, 6000, 9000));
        assert!((d.alpha - 15.0 / 16.0).abs() < 1e-12, "inside the new window: no update");
    }
}
