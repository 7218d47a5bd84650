//! Uno's window senders (SC '25, spec sections 0, 1.1, 1.5) on small topologies: a lone
//! UnoCC flow at line rate with epochs of one intra-datacenter RTT (inter flows included),
//! fair convergence of intra and inter flows under UnoCC but not Gemini, exact pacing,
//! and a per-packet RTO whose cost is structural.

mod common;

use fanin_engine::transport::cc::Cc;
use fanin_engine::units::{PS_PER_MS, PS_PER_SEC, PS_PER_US};
use fanin_engine::{parse_scenario, Simulation, ValidSpec};

const LINE_BPS: f64 = 100e9;

/// Uno's packets: 4096 B payload + 64 B header, 64 B ACKs.
const UNO_PACKETS: &str = "mtu = \"4160B\"\nheader = \"64B\"\n";

/// Puts every node whose name starts with one of `prefixes` in datacenter 1.
fn second_dc(mut spec: ValidSpec, prefixes: &[&str]) -> ValidSpec {
    for n in &mut spec.topology.nodes {
        if prefixes.iter().any(|p| n.name.starts_with(p)) {
            n.dc = 1;
        }
    }
    spec
}

fn spec(toml: &str) -> ValidSpec {
    parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"))
}

/// A dumbbell whose sender side (`s*`, `tor_b`) is a second datacenter behind a 100 us core
/// link: intra RTT 12.68 us (Uno's is 14.03 us), inter RTT 213 us.
fn two_dc(senders: u32, receivers: u32, transport: &str, flows: &str, extra: &str, marking: &str) -> ValidSpec {
    let toml = format!(
        r#"
{extra}
[topology]
kind = "dumbbell"
senders = {senders}
receivers = {receivers}
host_link = {{ rate = "100Gbps", delay = "3us" }}
core_link = {{ rate = "100Gbps", delay = "100us" }}
[switch.queue]
limit = "1000000B"
{marking}
[transport]
{UNO_PACKETS}{transport}
{flows}
"#
    );
    second_dc(spec(&toml), &["s", "tor_b"])
}

fn flow(src: &str, dst: &str, bytes: &str) -> String {
    format!("[[workload]]\nkind = \"flow\"\nsrc = \"{src}\"\ndst = \"{dst}\"\nbytes = \"{bytes}\"\n")
}

fn uno(sim: &Simulation, f: usize) -> &fanin_engine::transport::cc::UnoCc {
    match &sim.world().flows[f].sender.cc {
        Cc::Uno(u) => u,
        other => panic!("flow {f} runs {other:?}"),
    }
}

#[test]
fn lone_uno_flows_reach_line_rate_with_epochs_of_one_intra_rtt() {
    // r1 -> r0 stays in datacenter 0; s0 -> r1 crosses into it.
    for (f, inter) in [(0usize, false), (1, true)] {
        let one = if inter { flow("s0", "r1", "50MB") } else { flow("r1", "r0", "20MB") };
        let mut sim = Simulation::new(&two_dc(1, 2, "cc = \"uno\"", &one, "", "")).unwrap();
        sim.run();
        let w = sim.world();
        let fl = &w.flows[0];
        assert!(fl.finished(), "flow {f} did not finish");
        let (intra_rtt, inter_rtt) = w.class_rtt;
        assert_eq!(intra_rtt, 12 * PS_PER_US + 2 * 332_800 + 2 * 5_120);
        assert_eq!(inter_rtt, 2 * 106 * PS_PER_US + 3 * 332_800 + 3 * 5_120);
        let base = if inter { inter_rtt } else { intra_rtt };
        let fct = fl.finish - fl.start;
        let wire = fl.size.div_ceil(4096) * 4160;
        let rate = wire as f64 * 8.0 * PS_PER_SEC as f64 / (fct - base) as f64;
        assert!(rate > 0.95 * LINE_BPS, "flow {f} (inter {inter}) sent at {:.2} Gbps", rate / 1e9);
        // Epochs last one RTT sample x r: one intra RTT for both classes.
        let u = uno(&sim, 0);
        let period = u.last_epoch_period as f64 / intra_rtt as f64;
        eprintln!("inter {inter}: {:.2} Gbps, epoch period {period:.3} intra RTTs, {} epochs, {} QA cuts", rate / 1e9, u.epochs, u.qa_cuts);
        assert!((0.99..1.1).contains(&period), "inter {inter}: epoch period {period} intra RTTs");
        assert!(u.epochs > 50, "{} epochs", u.epochs);
        assert_eq!(fl.sender.timeouts, 0);
    }
}

/// Runs `sim` to its end; Jain's index of the flows' goodput over [from, to], and the rates.
/// (`sim` is built with `Simulation::whole`: the flows are looked at mid-run, and a run cut
/// per datacenter has one world only at its end.)
fn jain_over(sim: &mut Simulation, from: u64, to: u64) -> (f64, Vec<f64>) {
    sim.run_until(from);
    let at_from: Vec<u64> = sim.world().flows.iter().map(|f| f.sender.snd_una).collect();
    sim.run();
    let rates: Vec<f64> = sim.world().flows.iter().zip(&at_from).map(|(f, a)| (f.sender.snd_una - a) as f64 * 8.0 * PS_PER_SEC as f64 / (to - from) as f64).collect();
    let sum: f64 = rates.iter().sum();
    let sq: f64 = rates.iter().map(|r| r * r).sum();
    (sum * sum / (rates.len() as f64 * sq), rates)
}

/// Jain's index of per-flow goodput over [from, to] for 4 inter (s0..s3) and 4 intra
/// (r1..r4) flows into r0, under the given transport and marking.
fn mixed_incast_jain(transport: &str, marking: &str, from: u64, to: u64) -> (f64, Vec<f64>) {
    let mut flows = String::new();
    for i in 0..4 {
        flows += &flow(&format!("s{i}"), "r0", "1GB");
        flows += &flow(&format!("r{}", i + 1), "r0", "1GB");
    }
    let spec = two_dc(4, 5, transport, &flows, &format!("duration = \"{}ps\"", to), marking);
    let mut sim = Simulation::whole(&spec).unwrap();
    jain_over(&mut sim, from, to)
}

/// Until phantom queues exist: instantaneous linear marking of the physical queue between
/// 1 KB and 100 KB. A physical queue penalises the intra flows: a few packets queued lift
/// their RTT above 1.055 base RTT (full decrease) while the inter flows still see
/// phantom-only congestion (x 0.35), so this stand-in converges more slowly than phantom
/// queues do (Jain 0.87 over 30-40 ms, 0.95 over 60-80 ms; with phantom queues on the
/// `net` branch, 0.92 and 0.985).
const SHALLOW_RED: &str = "marking = { kind = \"red\", min = \"1KB\", max = \"100KB\", p_max = 1.0, weight = 1.0, gentle = false, wait = false }";

#[test]
fn intra_and_inter_flows_converge_under_uno_but_not_gemini() {
    let (from, to) = (60 * PS_PER_MS, 80 * PS_PER_MS);
    let gbps = |r: &[f64]| r.iter().map(|r| (r / 1e8).round() / 10.0).collect::<Vec<_>>();
    let (uno, rates) = mixed_incast_jain("cc = \"uno\"", SHALLOW_RED, from, to);
    eprintln!("uno: Jain {uno:.3}, rates (Gbps) {:?}", gbps(&rates));
    assert!(rates.iter().sum::<f64>() > 0.9 * LINE_BPS, "UnoCC leaves the bottleneck idle");
    let (gemini, rates) = mixed_incast_jain("cc = \"gemini\"", SHALLOW_RED, from, to);
    eprintln!("gemini: Jain {gemini:.3}, rates (Gbps) {:?}", gbps(&rates));
    // Measured: UnoCC 0.960, Gemini 0.897 (Gemini was 0.85 or less while a cut below
    // ssthresh restarted its slow start, which the artifact's phase flag forbids).
    assert!(uno >= 0.9, "UnoCC Jain {uno}");
    assert!(gemini < 0.92 && gemini < uno - 0.03, "Gemini Jain {gemini} against UnoCC {uno}");
}

#[test]
fn per_packet_rto_recovers_losses_at_a_bounded_timer_cost() {
    // Eight 2 MB flows at cwnd = BDP into a 100 KB unmarked buffer: heavy loss at the start.
    let mut flows = String::new();
    for i in 0..4 {
        flows += &flow(&format!("s{i}"), "r0", "2MB");
        flows += &flow(&format!("r{}", i + 1), "r0", "2MB");
    }
    let mut spec = two_dc(4, 5, "cc = \"uno\"", &flows, "", "");
    spec.switch_queue.limit_bytes = 100_000;
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    let w = sim.world();
    let (mut ops, mut tx, mut timeouts) = (0, 0, 0);
    for f in &w.flows {
        assert!(f.finished());
        let q = f.sender.packet_rto().unwrap();
        ops += q.timer_ops;
        tx += q.transmissions;
        timeouts += f.sender.timeouts;
        assert_eq!(f.sender.fast_recoveries, 0, "loss is found by per-packet timeouts only");
    }
    eprintln!("{tx} transmissions, {timeouts} timeouts, {ops} timer schedulings");
    assert!(timeouts > 0 && w.dropped_bytes > 0);
    // Each scheduling follows a transmission or a firing that removed an entry.
    assert!(ops <= 2 * tx, "{ops} timer operations for {tx} transmissions");
    let c = sim.conservation();
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight);
}

#[test]
fn a_deadline_counts_from_the_packets_departure_from_the_nic() {
    // Three flows from r0 at cwnd = BDP share r0's NIC: it queues up to two windows (about
    // 25 us), far above a 10 us RTO margin. The artifact's deadline starts when the packet
    // leaves the NIC (`now + service_time + rto`), so none of them times out spuriously.
    let flows = flow("r0", "r1", "3MB") + &flow("r0", "r2", "3MB") + &flow("r0", "r3", "3MB");
    let transport = "cc = \"uno\"\nrto_margin = \"10us\"";
    let mut sim = Simulation::new(&two_dc(1, 4, transport, &flows, "", "")).unwrap();
    sim.run();
    let w = sim.world();
    let nic = &w.ports[w.host_nic[w.flows[0].src.idx()].idx()];
    let nic_wait_us = nic.queue.counters.max_bytes as f64 * 8.0 / LINE_BPS * 1e6;
    eprintln!("r0's NIC queued up to {nic_wait_us:.1} us");
    assert!(nic_wait_us > 20.0, "the NIC wait must exceed the margin for this test to mean anything");
    assert_eq!(w.dropped_bytes, 0);
    for f in &w.flows {
        assert!(f.finished());
        assert_eq!(f.sender.timeouts, 0, "spurious timeouts");
    }
}

/// FCT (us) of a 20 KB intra flow that r0 starts 100 us after two 20 MB inter flows at
/// line rate each have filled r0's NIC, under the NIC schedule `schedule`.
fn small_flow_behind_a_nic_backlog(schedule: &str) -> f64 {
    let mut flows = flow("r0", "s0", "20MB") + &flow("r0", "s1", "20MB");
    flows += "[[workload]]\nkind = \"flow\"\nsrc = \"r0\"\ndst = \"r1\"\nbytes = \"20KB\"\nstart = \"100us\"\n";
    let extra = format!("duration = \"400us\"\n[host.queue]\nschedule = \"{schedule}\"");
    let mut sim = Simulation::new(&two_dc(2, 2, "cc = \"uno\"", &flows, &extra, "")).unwrap();
    sim.run();
    let f = &sim.world().flows[2];
    assert!(f.finished(), "{schedule}: the small flow did not finish");
    (f.finish - f.start) as f64 / PS_PER_US as f64
}

#[test]
fn a_per_flow_nic_lets_a_small_flow_pass_a_backlog() {
    // FIFO: the 20 KB flow waits behind the backlog the two line-rate flows built in
    // 100 us (up to 1.25 MB, 100 us). Round robin: one packet of each flow per turn, so
    // its 5 packets leave within 15 packet times (5 us) and it finishes near its base RTT.
    let fifo = small_flow_behind_a_nic_backlog("fifo");
    let per_flow = small_flow_behind_a_nic_backlog("per_flow");
    eprintln!("20 KB flow behind a NIC backlog: FIFO {fifo:.1} us, per flow {per_flow:.1} us");
    assert!(fifo > 80.0, "FIFO {fifo}");
    assert!(per_flow < 25.0, "per flow {per_flow}");
}

#[test]
fn a_lossless_flow_needs_few_timer_events() {
    // One timer event per RTO period, not per packet: dead entries leave in bulk.
    let mut sim = Simulation::new(&two_dc(1, 2, "cc = \"uno\"", &flow("r1", "r0", "50MB"), "", "")).unwrap();
    sim.run();
    let q = sim.world().flows[0].sender.packet_rto().unwrap();
    eprintln!("{} transmissions, {} timer schedulings", q.transmissions, q.timer_ops);
    assert_eq!(q.transmissions, 50_000_000u64.div_ceil(4096));
    assert!(q.timer_ops * 100 < q.transmissions, "{} timer operations", q.timer_ops);
}

#[test]
fn the_controller_follows_the_flow_class() {
    let flows = flow("r1", "r0", "5MB") + &flow("s0", "r0", "50MB");
    let transport = "cc = { intra = \"mprdma\", inter = \"bbr\" }\n[transport.mprdma]\nvariant = \"b\"";
    let mut sim = Simulation::new(&two_dc(1, 2, transport, &flows, "", "")).unwrap();
    sim.run();
    let w = sim.world();
    assert!(matches!(w.flows[0].sender.cc, Cc::Mprdma(_)));
    let Cc::Bbr(bbr) = &w.flows[1].sender.cc else { panic!("inter flow runs {:?}", w.flows[1].sender.cc) };
    assert!(w.flows.iter().all(|f| f.finished()));
    // BBR found the bottleneck's rate once the intra flow was done.
    eprintln!("BBR: {:?}, {:.1} Gbps", bbr.mode, bbr.bw_bps() / 1e9);
    assert!(bbr.bw_bps() > 0.9 * LINE_BPS && bbr.bw_bps() <= 1.01 * LINE_BPS);
}

#[test]
fn bbr_pacing_bandwidths_come_from_the_scenario() {
    use fanin_engine::transport::cc::{BbrMode, CongestionControl};
    let flows = flow("s0", "r0", "5MB");
    let run = |extra: &str| {
        let transport = format!("cc = {{ intra = \"mprdma\", inter = \"bbr\" }}{extra}");
        let mut sim = Simulation::whole(&two_dc(1, 2, &transport, &flows, "", "")).unwrap();
        let cfg = sim.world().transport.bbr.clone();
        sim.run();
        let Cc::Bbr(bbr) = &sim.world().flows[0].sender.cc else { panic!("not BBR") };
        assert_eq!(bbr.mode, BbrMode::Startup, "5 MB end within STARTUP");
        (cfg, bbr.bw_bps(), bbr.pacing_rate_bps().unwrap())
    };
    let (default, bw, paced) = run("");
    assert_eq!((default.initial_bw, default.pacing_floor), (10_000_000_000, 3_000_000_000));
    let startup = |x: f64| (2.89 * x) as u64;
    assert!(bw > 0.9 * LINE_BPS && paced >= startup(0.9 * LINE_BPS) && paced <= startup(1.01 * LINE_BPS), "{bw} {paced}");
    let (set, _, floored) = run("\n[transport.bbr]\ninitial_bw = \"20Gbps\"\npacing_floor = \"400Gbps\"");
    assert_eq!((set.initial_bw, set.pacing_floor), (20_000_000_000, 400_000_000_000));
    assert_eq!(floored, (2.89 * 400e9) as u64);
}

/// Fig 3 of the paper on the Uno topology (two k = 8 fat-trees, 8 WAN links of 886.5 us):
/// inter senders h0, h10, h20, h30 and intra senders h130..h160 to h240, sprayed. UnoCC
/// (s = 5, g = 0.65) marks from every port's phantom queue; Gemini (T = 0.1 ms) from the
/// physical queue of intra ports at 25/75 % of the buffer. Jain's index of the per-flow
/// rates over [from, to].
fn fig3_jain(uno: bool, from: u64, to: u64) -> (f64, Vec<f64>) {
    let (transport, marking) = if uno {
        (
            "cc = \"uno\"\n[transport.uno]\ng = 0.65",
            "[switch.queue]\nmarking = { kind = \"dequeue_red\", min = \"448010B\", max = \"13440300B\", phantom = { size = \"22400515B\", slowdown = 5 } }",
        )
    } else {
        // Gemini runs without the artifact's -interEcn: its inter ports do not mark.
        ("cc = \"gemini\"\n[transport.gemini]\nt = \"0.1ms\"", "[switch.queue]\nmarking = { kind = \"dequeue_red\", min = \"250000B\", max = \"750000B\" }\n[switch.inter_queue]\nmarking = { kind = \"none\" }")
    };
    let mut flows = String::new();
    for s in ["h0", "h10", "h20", "h30", "h130", "h140", "h150", "h160"] {
        flows += &flow(s, "h240", "1GB");
    }
    let toml = format!(
        "duration = \"{to}ps\"\n[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\nfabric = \"fat_tree\"\ninterconnect = \"border\"\n\
         {marking}\n[routing]\nlb = \"spray\"\n[transport]\n{UNO_PACKETS}{transport}\n{flows}"
    );
    let mut sim = Simulation::whole(&spec(&toml)).unwrap();
    jain_over(&mut sim, from, to)
}

/// Measured: UnoCC Jain 0.902 over 80-100 ms, Gemini 0.773 (its inter flows near 19 Gbps,
/// its intra flows near 5.7; 0.554 before Gemini followed the artifact's per-ACK delay
/// check, first-window arming and timeout gate; the spec's check is JFI < 0.9). UnoCC
/// is far fairer than Gemini but does not reach the paper's equal 12.5 Gbps: its inter flows
/// settle near 15.5 Gbps and its intra flows near 7.8. At ~94 % load the ToR -> h240 port
/// keeps a few packets queued, which lifts the intra RTT samples above 1.055 base RTT
/// (0.77 us of queue) and denies the intra flows the gentle x 0.35 decrease that the inter
/// flows (98 us of slack) keep.
#[test]
fn fig3_uno_converges_on_the_uno_topology_with_phantom_queues_and_gemini_does_not() {
    let (from, to) = (80, 100);
    let gbps = |r: &[f64]| r.iter().map(|r| (r / 1e8).round() / 10.0).collect::<Vec<_>>();
    let (uno, rates) = fig3_jain(true, from * PS_PER_MS, to * PS_PER_MS);
    eprintln!("uno: Jain {uno:.3}, rates (Gbps) {:?}", gbps(&rates));
    let (gemini, rates) = fig3_jain(false, from * PS_PER_MS, to * PS_PER_MS);
    eprintln!("gemini: Jain {gemini:.3}, rates (Gbps) {:?}", gbps(&rates));
    assert!(uno >= 0.85, "UnoCC Jain {uno}");
    assert!(gemini < 0.85, "Gemini Jain {gemini}");
}
