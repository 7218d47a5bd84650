//! The receiver: reassembly (cumulative point + out-of-order ranges), the SACK block to
//! report, delayed ACKs, and the two ECN echo styles.

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EcnEcho {
    /// DCTCP (RFC 8257): each ACK echoes exactly the CE bit of the data it acknowledges.
    Dctcp,
    /// RFC 3168: ECE stays set from a CE packet until a segment with CWR arrives.
    Classic,
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub echo: EcnEcho,
    /// ACK every `delayed_ack` in-order segments (1 = every segment).
    pub delayed_ack: u32,
}

/// An ACK the receiver wants sent now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckToSend {
    pub ack: u64,
    pub sack_start: u64,
    pub sack_end: u64,
    pub ece: bool,
}

#[derive(Clone, Debug)]
pub struct Receiver {
    pub size: u64,
    pub rcv_nxt: u64,
    /// Out-of-order ranges above `rcv_nxt`, sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    echo: EcnEcho,
    ece_latched: bool,
    delayed_ack: u32,
    /// In-order segments received since the last ACK.
    unacked: u32,
    /// CE state of the data not yet acknowledged (DCTCP echo with delayed ACKs).
    pending_ce: bool,
}

impl Receiver {
    pub fn new(size: u64, cfg: &ReceiverConfig) -> Self {
        Receiver {
            size,
            rcv_nxt: 0,
            ooo: Vec::new(),
            echo: cfg.echo,
            ece_latched: false,
            delayed_ack: cfg.delayed_ack.max(1),
            unacked: 0,
            pending_ce: false,
        }
    }

    /// Distinct bytes received so far, in order or not.
    pub fn bytes_received(&self) -> u64 {
        self.rcv_nxt + self.ooo.iter().map(|(s, e)| e - s).sum::<u64>()
    }

    /// Moves a complete stream to byte `seq` (the sender skips there too).
    pub fn skip_to(&mut self, seq: u64) {
        debug_assert!(self.complete() && seq >= self.size);
        self.size = seq;
        self.rcv_nxt = seq;
    }

    /// A persistent connection's next response: `bytes` more are expected.
    pub fn append(&mut self, bytes: u64) {
        self.size += bytes;
    }

    pub fn complete(&self) -> bool {
        self.rcv_nxt >= self.size
    }

    /// Takes in one data segment. Returns the ACK to send now, or `None` when the ACK is
    /// delayed (the caller arms the delayed-ACK timer and later calls [`Receiver::flush`]).
    pub fn on_data(&mut self, seq: u64, len: u64, ce: bool, cwr: bool) -> Option<AckToSend> {
        let end = seq + len;
        let in_order = seq <= self.rcv_nxt;
        let had_holes = !self.ooo.is_empty();
        if end > self.rcv_nxt {
            if in_order {
                self.rcv_nxt = end;
                self.absorb_ooo();
            } else {
                self.insert_ooo(seq, end);
            }
        }
        if self.echo == EcnEcho::Classic {
            if cwr {
                self.ece_latched = false;
            }
            if ce {
                self.ece_latched = true;
            }
        }
        let (sack_start, sack_end) = self.block_containing(seq);
        self.unacked += 1;
        let immediate = self.delayed_ack == 1 || !in_order || had_holes || self.complete() || self.unacked >= self.delayed_ack;
        let ece = match self.echo {
            EcnEcho::Dctcp => ce,
            EcnEcho::Classic => self.ece_latched,
        };
        self.pending_ce = ce;
        if immediate {
            self.unacked = 0;
            Some(AckToSend { ack: self.rcv_nxt, sack_start, sack_end, ece })
        } else {
            None
        }
    }

    /// DCTCP's echo state machine (RFC 8257, 3.2): when a segment's CE bit differs from the
    /// data still waiting for a delayed ACK, that data is acknowledged first with its own
    /// CE state, so every ACK covers data of one state. Call before [`Receiver::on_data`].
    pub fn ce_change_ack(&mut self, ce: bool) -> Option<AckToSend> {
        if self.echo == EcnEcho::Dctcp && self.unacked > 0 && ce != self.pending_ce {
            self.flush()
        } else {
            None
        }
    }

    /// The delayed-ACK timer fired: acknowledge what is pending, if anything.
    pub fn flush(&mut self) -> Option<AckToSend> {
        if self.unacked == 0 {
            return None;
        }
        self.unacked = 0;
        let ece = match self.echo {
            EcnEcho::Dctcp => self.pending_ce,
            EcnEcho::Classic => self.ece_latched,
        };
        Some(AckToSend { ack: self.rcv_nxt, sack_start: 0, sack_end: 0, ece })
    }

    fn absorb_ooo(&mut self) {
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|&(_, end)| end < s);
        let mut start = s;
        let mut end = e;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= end {
            start = start.min(self.ooo[j].0);
            end = end.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((start, end)));
    }

    /// The SACK block holding `seq` (RFC 2018: the first block reports the latest segment).
    fn block_containing(&self, seq: u64) -> (u64, u64) {
        self.ooo.iter().find(|&&(s, e)| s <= seq && seq < e).copied().unwrap_or((0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(echo: EcnEcho, delayed: u32) -> Receiver {
        Receiver::new(10_000, &ReceiverConfig { echo, delayed_ack: delayed })
    }

    #[test]
    fn reassembly_and_sack() {
        let mut r = rx(EcnEcho::Dctcp, 1);
        assert_eq!(r.on_data(0, 1000, false, false).unwrap().ack, 1000);
        let a = r.on_data(2000, 1000, false, false).unwrap();
        assert_eq!((a.ack, a.sack_start, a.sack_end), (1000, 2000, 3000));
        let a = r.on_data(3000, 1000, false, false).unwrap();
        assert_eq!((a.ack, a.sack_start, a.sack_end), (1000, 2000, 4000));
        let a = r.on_data(1000, 1000, false, false).unwrap();
        assert_eq!((a.ack, a.sack_start, a.sack_end), (4000, 0, 0));
        // A duplicate counts no bytes twice.
        r.on_data(2000, 1000, false, false);
        assert_eq!(r.bytes_received(), 4000);
        r.on_data(6000, 1000, false, false);
        r.on_data(5500, 1000, false, false);
        assert_eq!(r.bytes_received(), 5500);
    }

    #[test]
    fn classic_echo_latches_until_cwr() {
        let mut r = rx(EcnEcho::Classic, 1);
        assert!(r.on_data(0, 1000, true, false).unwrap().ece);
        assert!(r.on_data(1000, 1000, false, false).unwrap().ece);
        assert!(!r.on_data(2000, 1000, false, true).unwrap().ece);
        let mut d = rx(EcnEcho::Dctcp, 1);
        assert!(d.on_data(0, 1000, true, false).unwrap().ece);
        assert!(!d.on_data(1000, 1000, false, false).unwrap().ece);
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = rx(EcnEcho::Dctcp, 2);
        assert!(r.on_data(0, 1000, false, false).is_none());
        assert_eq!(r.on_data(1000, 1000, false, false).unwrap().ack, 2000);
        assert!(r.on_data(2000, 1000, false, false).is_none());
        assert_eq!(r.flush().unwrap().ack, 3000);
        assert!(r.flush().is_none());
        // A CE change first acknowledges the pending data with its own (clear) state.
        assert!(r.on_data(3000, 1000, false, false).is_none());
        let pre = r.ce_change_ack(true).unwrap();
        assert_eq!((pre.ack, pre.ece), (4000, false));
        assert!(r.on_data(4000, 1000, true, false).is_none());
        assert_eq!(r.flush().map(|a| (a.ack, a.ece)), Some((5000, true)));
        assert!(r.ce_change_ack(true).is_none());
    }
}
