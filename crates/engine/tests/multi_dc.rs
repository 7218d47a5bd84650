//! Multi-datacenter topologies: the HotNets '25 backbone and the Uno border presets (counts,
//! names, port classes, queue defaults), routes and their diversity across the WAN, base
//! RTTs across datacenters, and a short two-DC run.

mod common;

use fanin_engine::ids::{HostId, NodeId, PortId};
use fanin_engine::net::queue::{MarkingConfig, Service};
use fanin_engine::routing::Routes;
use fanin_engine::topology::{NodeKind, Topology, NO_DC};
use fanin_engine::units::Size;
use fanin_engine::{parse_scenario, Simulation, ValidSpec};

const WL: &str = "[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h1\"\nbytes = \"1KB\"\n";

fn spec(topology: &str) -> ValidSpec {
    let toml = format!("[topology]\nkind = \"multi_dc\"\n{topology}\n[transport]\nmtu = \"4160B\"\nheader = \"64B\"\n{WL}");
    parse_scenario(&toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"))
}

fn node(t: &Topology, name: &str) -> NodeId {
    NodeId::from(t.nodes.iter().position(|n| n.name == name).unwrap_or_else(|| panic!("{name}")))
}

/// (switches, hosts, links, inter ports)
fn counts(t: &Topology) -> (usize, usize, usize, usize) {
    let switches = t.nodes.iter().filter(|n| n.kind == NodeKind::Switch).count();
    let inter = (0..t.port_count()).filter(|&p| t.is_inter(PortId::from(p))).count();
    (switches, t.hosts.len(), t.links.len(), inter)
}

/// Next-hop counts along the path a packet with `entropy` takes, and the path's names.
fn walk(t: &Topology, r: &Routes, src: u32, dst: u32, entropy: u32) -> (Vec<usize>, Vec<String>) {
    let path = r.path(t, HostId(src), HostId(dst), entropy);
    let width = path.iter().map(|&p| r.next_hops(t.port(p).from, HostId(dst)).len()).collect();
    (width, path.iter().map(|&p| t.port_name(p)).collect())
}

#[test]
fn uno_preset_golden() {
    let s = spec("preset = \"uno\"");
    let t = &s.topology;
    // Per DC: 128 hosts, 32 edge + 32 agg + 16 core + 1 border; links 128 host + 128
    // edge-agg + 128 agg-core + 16 x 8 core-border; plus 8 WAN links.
    assert_eq!(counts(t), (162, 256, 1032, 2 * (2 * 128 + 8)));
    assert_eq!(t.nodes[255].name, "h255");
    assert_eq!(t.nodes[256].name, "dc0_edge0_0");
    assert_eq!(t.nodes.last().unwrap().name, "dc1_border");
    assert!((0..128).all(|h| t.dc_of(t.hosts[h]) == 0) && (128..256).all(|h| t.dc_of(t.hosts[h]) == 1));
    assert!(t.crosses_dc(HostId(0), HostId(128)) && !t.crosses_dc(HostId(3), HostId(127)));
    assert_eq!(t.group("dc1").unwrap().len(), 128);
    assert_eq!(t.group("dc1_pod0").unwrap()[0], HostId(128));
    assert!(t.is_inter(PortId::from(2 * 1031)) && !t.is_inter(PortId(0)));
    // Queues: 1,000,000 B drop-tail, ACKs in an unlimited control queue served 20:1.
    for q in [&s.switch_queue, &s.inter_queue] {
        assert_eq!(q.limit_bytes, 1_000_000);
        let c = q.control.as_ref().unwrap();
        assert_eq!((c.service, c.limit, c.trim_header_bytes), (Service::Wrr { high: 20 }, Size::Bytes(u64::MAX), None));
    }
    let wan = t.links.last().unwrap();
    assert_eq!((wan.rate_bps, wan.delay_ps), (100_000_000_000, 886_500_000));

    let r = Routes::shortest_paths(t);
    // host-ToR-Agg-Core-Border => WAN => Border-Core-Agg-ToR-host: 4 aggs, 4 cores, 8
    // parallel links to the border, 8 WAN links, then every core's 8 links (16 x 8).
    let (width, names) = walk(t, &r, 0, 200, 12345);
    assert_eq!(width, [1, 4, 4, 8, 8, 128, 1, 1, 1]);
    assert_eq!(names[4], "dc0_border->dc1_border");
    assert!(names[0] == "h0->dc0_edge0_0" && names[8] == "dc1_edge4_2->h200", "{names:?}");
    // Intra-DC traffic never leaves its datacenter.
    assert!(walk(t, &r, 0, 127, 1).1.iter().all(|n| !n.contains("border") && !n.contains("dc1")));
    // ECMP spreads flows over all 8 WAN links and all 8 parallel core-border links.
    let mut wan_use = std::collections::BTreeMap::new();
    for e in 0..4000u32 {
        let path = r.path(t, HostId(0), HostId(200), e.wrapping_mul(0x9E37_79B9));
        *wan_use.entry(path[4]).or_insert(0) += 1;
    }
    assert_eq!(wan_use.len(), 8);
    assert!(wan_use.values().all(|&n| (400..600).contains(&n)), "{wan_use:?}");
}

#[test]
fn uno_fully_provisioned_wan() {
    let t = spec("preset = \"uno\"\nwan_links = 128").topology;
    assert_eq!(counts(&t), (162, 256, 1024 + 128, 2 * (2 * 128 + 128)));
}

#[test]
fn hotnets_preset_golden() {
    let s = spec("preset = \"hotnets25\"");
    let t = &s.topology;
    // 2 x (8 leaves + 8 spines) + 64 BRs; 2 x (64 host + 64 leaf-spine) + 64 x 2 BR links.
    assert_eq!(counts(t), (96, 128, 384, 128));
    assert_eq!(t.dc_of(node(t, "br5")), NO_DC);
    assert_eq!(t.dc_of(node(t, "dc1_spine7")), 1);
    // BR k links spine floor(k/8) of both DCs; only ports leaving a BR are `inter`.
    for (k, spine) in [(0, 0), (7, 0), (8, 1), (63, 7)] {
        let br = node(t, &format!("br{k}"));
        let peers: Vec<String> = t.links.iter().filter(|l| l.b == br).map(|l| t.nodes[l.a.idx()].name.clone()).collect();
        assert_eq!(peers, [format!("dc0_spine{spine}"), format!("dc1_spine{spine}")]);
    }
    let long = t.links.last().unwrap();
    assert_eq!((long.rate_bps, long.delay_ps), (100_000_000_000, 1_000_000_000));
    // Queues of HotNets §1, trimming everywhere into a 2x control queue.
    let dequeue = |q: &fanin_engine::net::queue::QueueConfig| match &q.marking {
        MarkingConfig::Dequeue(d) => (q.limit_bytes, d.min, d.max),
        m => panic!("{m:?}"),
    };
    assert_eq!(dequeue(&s.switch_queue), (17_015_000, Size::Bytes(33_200), Size::Bytes(136_950)));
    assert_eq!(dequeue(&s.inter_queue), (49_800_000, Size::Bytes(9_960_000), Size::Bytes(39_840_000)));
    let c = s.inter_queue.control.as_ref().unwrap();
    assert_eq!((c.limit, c.service, c.trim_header_bytes), (Size::Bytes(99_600_000), Service::Strict, Some(64)));

    let r = Routes::shortest_paths(t);
    let (width, names) = walk(t, &r, 0, 64, 99);
    assert_eq!(width, [1, 8, 8, 1, 1, 1]);
    let spine = &names[1]["dc0_leaf0->".len()..];
    let br = names[2].split("->").nth(1).unwrap();
    assert_eq!(names[3], format!("{br}->dc1_{}", &spine["dc0_".len()..]));
    // 64 disjoint inter-DC paths, all used by ECMP; intra-DC paths stay inside.
    let brs: std::collections::BTreeSet<_> = (0..2000u32).map(|e| r.path(t, HostId(0), HostId(64), e.wrapping_mul(0x9E37_79B9))[2]).collect();
    assert_eq!(brs.len(), 64);
    assert_eq!(walk(t, &r, 0, 8, 1).0, [1, 8, 1, 1]);
}

#[test]
fn base_rtt_across_datacenters_is_unos() {
    // One-packet flows: the ideal FCT is the base RTT. Uno §0: intra (cross-pod) 2·6·1 us
    // + 6·(332.8 + 5.12) ns = 14.02752 us; inter 19.04128 us + 2·886.5 us.
    let toml = "[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\n[transport]\nmtu = \"4160B\"\nheader = \"64B\"\n\
        [[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h200\"\nbytes = \"4096B\"\n\
        [[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h127\"\nbytes = \"4096B\"\n";
    let s = parse_scenario(toml, &common::load_file).unwrap();
    let sim = Simulation::whole(&s).unwrap();
    let ideal: Vec<u64> = sim.world().flows.iter().map(|f| f.ideal_fct).collect();
    assert_eq!(ideal, [1_792_041_280, 14_027_520]);
}

#[test]
fn a_short_two_dc_run_completes_and_conserves() {
    let s = parse_scenario(
        "[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\nlong_haul_link = { delay = \"20us\" }\n\
         [transport]\nmtu = \"4160B\"\nheader = \"64B\"\ninit_cwnd = \"40pkt\"\nmin_rto = \"1ms\"\n\
         [[workload]]\nkind = \"incast\"\nreceiver = \"h240\"\nsenders = [\"h0\", \"h10\", \"h130\", \"h140\"]\ndegree = 4\nbytes_per_sender = \"300KB\"\n",
        &common::load_file,
    )
    .unwrap();
    let mut sim = Simulation::new(&s).unwrap();
    sim.run();
    let c = sim.conservation();
    assert_eq!((c.injected, c.in_flight), (c.delivered + c.dropped, 0), "{c:?}");
    let r = sim.finish();
    assert!(common::bools(&r, "flows", "completed").iter().all(|&c| c));
    let (fct, ideal) = (common::u64s(&r, "flows", "fct_ps"), common::u64s(&r, "flows", "ideal_fct_ps"));
    assert!(fct.iter().zip(&ideal).all(|(f, i)| f >= i), "{fct:?} {ideal:?}");
    // The two inter-DC flows (h0, h10) have the longer ideal: 2 x 20 us more propagation.
    assert!(ideal[0] > ideal[2] + 40_000_000 && ideal[1] > ideal[3] + 40_000_000, "{ideal:?}");
}

/// The artifact runs Uno with `-interEcn`: core-border and WAN queues are built and mark as
/// the others. Under the `uno` preset the inter ports take the scenario's `[switch.queue]`,
/// and `[switch.inter_queue]` changes only the fields it names; `hotnets25` keeps its own.
#[test]
fn uno_inter_ports_inherit_the_switch_queue() {
    let phantom = "marking = { kind = \"dequeue_red\", min = \"448010B\", max = \"13440300B\", phantom = { size = \"22400515B\", slowdown = 10 } }";
    let marks = |q: &fanin_engine::net::queue::QueueConfig| match &q.marking {
        MarkingConfig::Dequeue(d) => (q.limit_bytes, d.min, d.max, d.phantom.as_ref().map(|p| p.size_bytes)),
        m => panic!("{m:?}"),
    };
    let expected = (1_000_000, Size::Bytes(448_010), Size::Bytes(13_440_300), Some(22_400_515));
    let s = spec(&format!("preset = \"uno\"\n[switch.queue]\n{phantom}"));
    assert_eq!((marks(&s.switch_queue), marks(&s.inter_queue)), (expected, expected));
    let s = spec(&format!("preset = \"uno\"\n[switch.queue]\n{phantom}\n[switch.inter_queue]\nlimit = \"2240051B\""));
    assert_eq!(marks(&s.inter_queue), (2_240_051, expected.1, expected.2, expected.3));
    assert_eq!(s.inter_queue.control, s.switch_queue.control);
    let s = spec(&format!("preset = \"uno\"\n[switch.queue]\n{phantom}\n[switch.inter_queue]\nmarking = {{ kind = \"none\" }}"));
    assert_eq!((s.inter_queue.marking.clone(), s.inter_queue.limit_bytes), (MarkingConfig::None, 1_000_000));
    // HotNets '25: [switch.queue] leaves the inter ports' 49.8 MB buffers alone.
    let s = spec("preset = \"hotnets25\"\n[switch.queue]\nlimit = \"1MB\"");
    assert_eq!((s.switch_queue.limit_bytes, s.inter_queue.limit_bytes), (1_000_000, 49_800_000));
}

#[test]
fn per_packet_rto_margins_use_each_port_class_queue() {
    // Uno Fig 12: intra ports hold BDP_intra, inter ports 0.1 BDP_inter; RTO margins are
    // 5 Ql_intra and 3 Ql_inter, Ql = limit x 8 / 100 Gb/s.
    let toml = "[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\n[switch.queue]\nlimit = \"175344B\"\n[switch.inter_queue]\nlimit = \"2240051B\"\n\
        [transport]\ncc = \"uno\"\nmtu = \"4160B\"\nheader = \"64B\"\nrto = \"per_packet\"\n";
    let s = parse_scenario(&format!("{toml}{WL}"), &common::load_file).unwrap_or_else(|e| panic!("{e}"));
    match s.transport.rto {
        fanin_engine::transport::RtoMode::PerPacket { margin, margin_inter } => {
            assert_eq!(margin, 5 * 14_027_520);
            assert_eq!(margin_inter, 3 * 179_204_080);
        }
        other => panic!("{other:?}"),
    }
}
