//! Loss recovery: how the shared sender finds losses and sets the window while it repairs
//! them. One scenario setting, `transport.recovery`, picks the model:
//!
//! - [`Recovery::Linux`] (the default for NewReno and DCTCP): what a Linux sender does with
//!   its default settings. SACK scoreboard (RFC 6675) with up to three blocks per ACK and
//!   D-SACK; losses found by RACK (RFC 8985), which also finds lost retransmissions; a tail
//!   loss probe after 2 SRTT (+2 ms); window reductions for loss and for ECN (CWR) paced by
//!   PRR (RFC 9937, Linux's arithmetic); ssthresh as Linux's Reno and DCTCP set it; growth
//!   only on ACKs that advance snd.una while the flow is cwnd-limited (RFC 7661).
//! - [`Recovery::Ns3`]: ns-3 3.44's `TcpSocketBase` with its defaults (`TcpPrrRecovery`,
//!   limited transmit, SACK): duplicate ACKs counted as ACKs that SACK something new,
//!   recovery at the third or when the head is lost, RFC 6675 IsLost by SACKed-segment
//!   count, NextSeg rules 1-3, ns-3's PRR arithmetic, ssthresh from the flight size
//!   (NewReno) or alpha (DCTCP), the RTO restarted only by the first partial ACK, and no
//!   detection of a lost retransmission short of the RTO. For cross-checks against ns-3.
//! - [`Recovery::Basic`] (the default for the other algorithms): fanin's first model, kept
//!   so the entries that model htsim do not move. One SACK block per ACK, FACK marking, the
//!   window cut to ssthresh at once, no limited transmit, lost retransmissions wait for
//!   the RTO.

pub mod prr;
pub mod rack;

pub use prr::Prr;
pub use rack::{probe_timeout, Probe, ProbeOutcome, Rack};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Recovery {
    Linux,
    Ns3,
    Basic,
}

/// The `transport.recovery` values.
pub const RECOVERY_KINDS: &[&str] = &["linux", "ns3", "basic"];

impl Recovery {
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Linux => "linux",
            Recovery::Ns3 => "ns3",
            Recovery::Basic => "basic",
        }
    }

    /// Window reductions are spread over the ACKs of a round trip (PRR), for loss and ECN.
    pub fn gradual(self) -> bool {
        self != Recovery::Basic
    }
}

/// The sender's congestion state (Linux's `icsk_ca_state`, ns-3's `TcpCongState_t`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CaState {
    #[default]
    Open,
    /// Duplicate ACKs or SACKs seen, no loss decided yet.
    Disorder,
    /// Reducing the window after an ECN echo.
    Cwr,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until everything then outstanding is acknowledged.
    Loss,
}

/// Why the window is being reduced (the algorithms set ssthresh differently for each).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// CWR: an ECN echo, or (Linux) a loss a tail loss probe repaired.
    Cwr,
    /// Fast recovery.
    Recovery,
    /// A retransmission timeout.
    Timeout,
}
