//! What a flow's path measures: the ports its packets cross (`each_hop`), its base RTT and
//! slowest link, and from them the unloaded FCT and an incast's ideal completion.

use super::flow::NO_HOST;
use super::world::World;
use crate::ids::{HostId, PortId};
use crate::units::{serialization_ps, Time};

impl World {
    /// Visits the ports a packet from `src` to `dst` (a routing destination) with this
    /// entropy crosses, by the rule packets follow: its NIC (`nic`), then each switch's
    /// forwarding choice. The same ports as `Routes::path`, without building a list, and
    /// through the `Fib`'s folded rows: a flow made during a run (Poisson arrivals) walks
    /// its path for its ideal FCT, and the unfolded rows (2.6 MB at k = 32) missed the
    /// cache at every hop.
    pub(super) fn each_hop(&self, src: HostId, dst: HostId, entropy: u32, mut visit: impl FnMut(PortId)) {
        let target = self.routes.target(dst);
        if self.topo.hosts[src.idx()] == target {
            return;
        }
        let mut p = self.nic(src, dst, entropy);
        loop {
            visit(p);
            let node = self.topo.port(p).to;
            if node == target {
                return;
            }
            p = match &self.fib {
                Some(fib) => fib.select(node, dst, entropy),
                None => self.routes.select(node, dst, entropy),
            };
        }
    }

    /// The base RTT (a full data packet out, an ACK back, every hop) and the slowest rate
    /// of a connection's path, through its relay if it has one.
    pub(super) fn path_rtt(&self, src: HostId, dst: HostId, via: HostId, entropy: u32) -> (Time, u64) {
        let full = self.transport.wire_bytes(self.transport.mss());
        if via == NO_HOST {
            return self.base_rtt_and_bottleneck(src, dst, full, entropy);
        }
        let (a, ra) = self.base_rtt_and_bottleneck(src, via, full, entropy);
        let (b, rb) = self.base_rtt_and_bottleneck(via, dst, full, entropy);
        (a + b, ra.min(rb))
    }

    /// One base RTT: a first data packet out and its ACK back, store-and-forward at every hop.
    /// Also returns the path's slowest rate.
    pub(super) fn base_rtt_and_bottleneck(&self, src: HostId, dst: HostId, first_packet: u64, entropy: u32) -> (Time, u64) {
        let ack = self.transport.ack_bytes;
        let (mut rtt, mut bottleneck) = (0, u64::MAX);
        // The packets' own rule (static route, NIC and switches by ECMP), so the ideal FCT
        // follows the path the flow takes. The rates and delays are the topology's links':
        // a link holds both directions' in one cache line, a port its rate on its third.
        self.each_hop(src, self.route_dst(src, dst), entropy, |p| {
            let port = self.topo.port(p);
            let back = self.topo.port(PortId(p.0 ^ 1));
            rtt += 2 * port.delay_ps + serialization_ps(first_packet, port.rate_bps) + serialization_ps(ack, back.rate_bps);
            bottleneck = bottleneck.min(port.rate_bps);
        });
        (rtt, bottleneck)
    }

    /// The unloaded FCT: one base RTT plus every byte serialized at the path's slowest
    /// link (the first packet's serialization there is in both, so it is counted once).
    pub(super) fn ideal_fct(&self, src: HostId, dst: HostId, size: u64, entropy: u32) -> Time {
        let t = &self.transport;
        let first = t.wire_bytes(size.min(t.mss()));
        let (rtt, bottleneck) = self.base_rtt_and_bottleneck(src, dst, first, entropy);
        // The base RTT already serializes the first packet at the bottleneck.
        rtt - serialization_ps(first, bottleneck) + serialization_ps(t.flow_wire_bytes(size), bottleneck)
    }

    /// All senders' bytes (`bytes[i]` from `senders[i]`) through the receiver's link, plus
    /// one base RTT.
    pub(super) fn ideal_incast(&self, senders: &[HostId], receiver: HostId, bytes: &[u64]) -> Time {
        let t = &self.transport;
        let (Some(&s0), Some(&b0)) = (senders.first(), bytes.first()) else { return 0 };
        let first = t.wire_bytes(b0.min(t.mss()));
        let (rtt, _) = self.base_rtt_and_bottleneck(s0, receiver, first, 0);
        // Every link into the receiver (one but for a host with several NICs).
        let node = self.topo.hosts[receiver.idx()];
        let downlink = self.topo.ports().filter(|(_, p)| p.to == node).map(|(_, p)| p.rate_bps).sum();
        let wire: u64 = bytes.iter().map(|&b| t.flow_wire_bytes(b)).sum();
        rtt - serialization_ps(first, downlink) + serialization_ps(wire, downlink)
    }
}

#[cfg(test)]
mod tests {
    use crate::ids::HostId;
    use crate::sim::Simulation;

    /// The walk the ideal FCT and the propagation BDP take (`World::each_hop`: NIC, then
    /// the `Fib`) crosses the ports `Routes::path` lists, for every pair of hosts and
    /// several entropies: ECMP in a fat-tree, hosts with several NICs (Superways links, a
    /// LAG), a Jellyfish, and a static route with its reverse.
    #[test]
    fn each_hop_walks_the_routes_path() {
        let flow = "[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h1\"\nbytes = \"1500B\"\n";
        let leaf_spine = "[topology]\nkind = \"leaf_spine\"\nleaves = 3\nspines = 2\nhosts_per_leaf = 3\n";
        let scenarios = [
            include_str!("../../tests/fixtures/fat_tree_k4_permutation.toml").to_string(),
            format!("name = \"sw\"\n{leaf_spine}[topology.superways]\nservers = [{{ server = \"h1\", links = 2 }}, {{ server = 4, links = 2, spines = [1, 1] }}]\n{flow}"),
            format!("name = \"jf\"\n[topology]\nkind = \"jellyfish\"\nleaves = 8\nhosts_per_leaf = 2\nleaf_ports = 3\n{flow}"),
            format!("name = \"pin\"\n{leaf_spine}[[routing.static]]\nsrc = \"h0\"\ndst = \"h8\"\nvia = [\"leaf0\", \"spine1\", \"leaf2\"]\n{flow}"),
        ];
        for toml in &scenarios {
            let spec = crate::parse_scenario(toml, &|_: &str| Err("no files".to_string())).unwrap_or_else(|e| panic!("{e}"));
            let mut sim = Simulation::new(&spec).unwrap();
            let w = sim.whole_mut();
            let hosts = w.topo.hosts.len() as u32;
            let mut walked = 0;
            for (src, dst) in (0..hosts).flat_map(|a| (0..hosts).map(move |b| (HostId(a), HostId(b)))) {
                for entropy in [0, 1, 0x9e37_79b9, u32::MAX] {
                    let col = w.route_dst(src, dst);
                    let mut hops = Vec::new();
                    w.each_hop(src, col, entropy, |p| hops.push(p));
                    assert_eq!(hops, w.routes.path(&w.topo, src, col, entropy), "{}: h{} -> h{}, entropy {entropy}", spec.name, src.0, dst.0);
                    walked += hops.len();
                }
            }
            assert!(walked > 0);
        }
    }
}
