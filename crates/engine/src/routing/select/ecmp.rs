//! Per-flow ECMP: every packet of a flow, and every ACK, carries the flow's own hash, so
//! switches keep the flow on one path for its whole life.

use super::{HostDraws, PathSelector};
use crate::ids::HostId;

#[derive(Copy, Clone, Debug)]
pub struct Ecmp {
    pub entropy: u32,
}

impl Ecmp {
    pub fn new(entropy: u32) -> Self {
        Ecmp { entropy }
    }
}

impl PathSelector for Ecmp {
    #[inline(always)]
    fn on_send(&mut self, _draws: &mut HostDraws, _src: HostId) -> u32 {
        self.entropy
    }
}
