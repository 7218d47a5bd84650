//! RTT estimation and the retransmission timeout (RFC 6298), in integer picoseconds.

use crate::units::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    /// Floor of the variance term (ns-3's clock granularity G; 0 for none).
    pub granularity: Time,
    initial_rto: Time,
    backoff: u32,
    pub min_rtt: Time,
    pub latest: Time,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time, granularity: Time) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            min_rto,
            max_rto,
            granularity,
            initial_rto,
            backoff: 0,
            min_rtt: Time::MAX,
            latest: 0,
        }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// Feeds one sample; a fresh sample also ends any exponential backoff.
    pub fn sample(&mut self, rtt: Time) {
        self.latest = rtt;
        self.min_rtt = self.min_rtt.min(rtt);
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(rtt);
                // rttvar = 3/4 rttvar + 1/4 |srtt - rtt|; srtt = 7/8 srtt + 1/8 rtt
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + rtt) / 8);
            }
        }
        self.backoff = 0;
    }

    /// The current timeout, with backoff applied.
    pub fn rto(&self) -> Time {
        let base = match self.srtt {
            None => self.initial_rto,
            Some(srtt) => srtt + (4 * self.rttvar).max(self.granularity),
        };
        let base = base.max(self.min_rto);
        base.saturating_mul(1 << self.backoff.min(20)).min(self.max_rto)
    }

    /// The timeout used before the first sample (a path-dependent start, set per flow).
    pub fn set_initial_rto(&mut self, rto: Time) {
        self.initial_rto = rto;
    }

    pub fn back_off(&mut self) {
        self.backoff += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{PS_PER_MS, PS_PER_US};

    #[test]
    fn rfc6298_arithmetic() {
        let mut e = RttEstimator::new(1000 * PS_PER_MS, 0, 60_000 * PS_PER_MS, 0);
        assert_eq!(e.rto(), 1000 * PS_PER_MS);
        e.sample(100 * PS_PER_US);
        // srtt = 100us, rttvar = 50us, rto = 100 + 200 = 300us
        assert_eq!(e.rto(), 300 * PS_PER_US);
        e.sample(100 * PS_PER_US);
        // rttvar = 37.5us, rto = 100 + 150
        assert_eq!(e.rto(), 250 * PS_PER_US);
        e.back_off();
        assert_eq!(e.rto(), 500 * PS_PER_US);
        e.min_rto = 200 * PS_PER_MS;
        assert_eq!(e.rto(), 400 * PS_PER_MS);
    }
}
