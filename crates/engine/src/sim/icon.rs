//! ICON at the endpoints: which flows are paced, and the incast degree each sender paces
//! by. The sink knows how many servers it queries; it announces n when a connection opens
//! (the handshake option: the flow knows n before its first packet) and, on a persistent
//! connection, in a small update message carrying only n.

use super::flow::NO_INCAST;
use super::world::World;
use crate::ids::FlowId;
use crate::packet::{Packet, PacketKind, PacketRef};
use crate::transport::IconPacer;

impl World {
    /// Gives a new flow ICON's pacer if the scenario paces it (`in_incast`: it is one of an
    /// incast's senders). Its RTT before the first sample is its own path's base RTT.
    pub(super) fn attach_icon(&mut self, f: FlowId, in_incast: bool) {
        let Some(cfg) = self.transport.icon else { return };
        let flow = &self.flows[f.idx()];
        if !cfg.paces(in_incast) || flow.sender.parts.as_ref().is_some_and(|p| p.icon.is_some()) {
            return;
        }
        let (rtt, _) = self.path_rtt(flow.src, flow.dst, flow.via, flow.entropy);
        let nic_bps = self.ports[self.nic(flow.src, flow.route_dst, flow.entropy).idx()].rate_bps;
        let overhead = self.transport.header + self.transport.framing;
        self.flows[f.idx()].sender.pace_icon(IconPacer::new(&cfg, rtt, nic_bps, overhead));
    }

    /// The handshake's announcement: a flow of an incast starts knowing its degree.
    pub(super) fn announce_degree_at_start(&mut self, f: FlowId) {
        let incast = self.flows[f.idx()].incast;
        if incast != NO_INCAST {
            let n = self.incasts[incast as usize].degree;
            self.flows[f.idx()].sender.set_incast_degree(n);
        }
    }

    /// The receiver of connection `f` sends its sender an update carrying degree `n` (a
    /// header-only packet, as an ACK).
    pub fn send_degree_update(&mut self, f: FlowId, n: u32) {
        let flow = &self.flows[f.idx()];
        let (from, to) = (flow.dst, flow.src);
        let wire = self.transport.ack_bytes;
        self.send_host_packet(f, from, to, PacketKind::Degree, 0, n as u64, 0, wire);
    }

    pub(super) fn on_degree(&mut self, r: PacketRef, pkt: &Packet) {
        self.pool.free(r);
        let now = self.sched.now();
        let flow = &mut self.flows[pkt.flow.idx()];
        if let Some(hc) = &mut self.host_counters {
            hc.ingress(flow.src, now, pkt.wire_bytes as u64, false, pkt.has(crate::packet::flags::CE), &mut flow.last_bin_src);
        }
        flow.sender.set_incast_degree(u32::try_from(pkt.seq).unwrap_or(u32::MAX));
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::Simulation;

    fn sim(variant: &str) -> Simulation {
        let toml = format!(
            r#"[topology]
kind = "dumbbell"
senders = 3
[transport]
cc = "dctcp"
[transport.icon]
variant = "{variant}"
[[workload]]
kind = "incast"
degree = 3
bytes_per_sender = "10MB"
[[workload]]
kind = "flow"
src = "s0"
dst = "r0"
bytes = "10MB"
"#
        );
        let spec = crate::parse_scenario(&toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"));
        Simulation::new(&spec).unwrap()
    }

    #[test]
    fn the_degree_is_known_before_the_first_packet_and_an_update_changes_it() {
        let mut s = sim("icon");
        // The flows start at 0, knowing their degree (the handshake's announcement).
        s.run_until(1);
        let degree = |s: &Simulation, f: usize| s.world().flows[f].sender.incast_degree();
        assert_eq!((degree(&s, 0), degree(&s, 3)), (3, 1), "incast flows pace by 3, the lone flow by 1");
        // The sink's update reaches the sender one path delay later, not at once.
        s.whole_mut().send_degree_update(crate::ids::FlowId(0), 7);
        assert_eq!(degree(&s, 0), 3);
        s.run_until(1_000_000_000);
        assert_eq!(degree(&s, 0), 7);
        assert!(!s.world().flows[0].finished(), "a live connection took the update");
    }

    #[test]
    fn a_segment_sent_by_the_pacer_alone_is_covered_by_the_rto() {
        // With n = 100 each gap is 100 RTT / cwnd, longer than a round trip: every ACK
        // drains the flight and the next segment leaves from a pacing event, with nothing
        // else in flight. Lost, it must still time out (it once waited forever).
        let mut s = sim("icon");
        s.run_until(1);
        s.whole_mut().send_degree_update(crate::ids::FlowId(0), 100);
        let (mut t, mut paced_alone) = (1, 0);
        while t < 20_000_000_000 {
            t += 1_000_000;
            s.run_until(t);
            let flow = &s.world().flows[0];
            if flow.sender.in_flight > 0 {
                assert_ne!(flow.rto_deadline, crate::sim::NEVER, "a segment out at {t} ps with no RTO");
                paced_alone += (flow.sender.in_flight <= flow.sender.window.mss) as u32;
            }
        }
        assert!(paced_alone > 10, "the flow sent alone from pacing events {paced_alone} times");
    }

    #[test]
    fn ia_icon_keeps_one() {
        let mut s = sim("ia_icon");
        s.run_until(1);
        s.whole_mut().send_degree_update(crate::ids::FlowId(0), 7);
        s.run_until(1_000_000_000);
        assert_eq!(s.world().flows[0].sender.incast_degree(), 1);
    }
}
