//! Millisampler-style per-host counters (1 ms bins): a ~15 ms incast into one receiver at
//! line rate must show up exactly as the wire carried it.

mod common;

use fanin_engine::units::{PS_PER_MS, PS_PER_SEC};
use fanin_engine::{Column, Results};

const RATE: u64 = 10_000_000_000;
const SENDERS: usize = 10;
const BYTES: u64 = 1_875_000;
const MSS: u64 = 1460;
const HEADER: u64 = 40;
const FRAME: u64 = 1500;

/// 10 × 1.875 MB = 18.75 MB: 15 ms of payload at 10 Gbps, 15.4 ms with headers.
fn incast(queue: &str, cc: &str) -> Results {
    common::run(&format!(
        r#"
[topology]
kind = "star"
senders = {SENDERS}
host_link = {{ rate = "10Gbps", delay = "2us" }}
[switch.queue]
{queue}
[transport]
cc = "{cc}"
min_rto = "1ms"
[[workload]]
kind = "incast"
degree = {SENDERS}
bytes_per_sender = "{BYTES}B"
start = "300us"
[record]
hosts = {{ bin = "1ms" }}
"#
    ))
}

struct Host {
    ingress: Vec<u64>,
    egress: Vec<u64>,
    in_rxmit: Vec<u64>,
    out_rxmit: Vec<u64>,
    in_ce: Vec<u64>,
    connections: Vec<u64>,
}

fn host(r: &Results, name: &str) -> Host {
    let t = r.table("hosts").unwrap();
    let names = match t.column("host_name").unwrap() {
        Column::Str(v) => v.clone(),
        _ => unreachable!(),
    };
    let starts = common::u64s(r, "hosts", "bin_start_ps");
    let rows: Vec<usize> = (0..names.len()).filter(|&i| names[i] == name).collect();
    // One row per bin, in order, from 0.
    for (b, &i) in rows.iter().enumerate() {
        assert_eq!(starts[i], b as u64 * PS_PER_MS);
    }
    let col = |c: &str| {
        let v = common::u64s(r, "hosts", c);
        rows.iter().map(|&i| v[i]).collect::<Vec<u64>>()
    };
    Host {
        ingress: col("ingress_bytes"),
        egress: col("egress_bytes"),
        in_rxmit: col("in_rxmit_bytes"),
        out_rxmit: col("out_rxmit_bytes"),
        in_ce: col("in_ce_bytes"),
        connections: col("connections"),
    }
}

fn flow_wire_bytes(size: u64) -> u64 {
    size + size.div_ceil(MSS) * HEADER
}

fn port_column(r: &Results, name: &str, col: &str) -> u64 {
    let names = match r.table("ports").unwrap().column("port_name").unwrap() {
        Column::Str(v) => v.clone(),
        _ => unreachable!(),
    };
    let i = names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no port {name}"));
    common::u64s(r, "ports", col)[i]
}

#[test]
fn receiver_bins_show_the_incast_at_line_rate() {
    let r = incast("limit = \"1000pkt\"\nmarking = { kind = \"step\", threshold = \"65pkt\" }", "dctcp");
    assert_eq!(r.scalar("drops"), Some(0.0));
    assert!(common::bools(&r, "flows", "completed").iter().all(|c| *c));
    let rx = host(&r, "r0");
    let end = r.scalar("sim_end_ps").unwrap() as u64;
    assert_eq!(rx.ingress.len() as u64, end / PS_PER_MS + 1);
    let per_bin_max = RATE / 8 / (PS_PER_SEC / PS_PER_MS);
    // A frame is binned by its last bit, so a bin can hold one frame more than the line
    // carries in 1 ms.
    for (b, &bytes) in rx.ingress.iter().enumerate() {
        assert!(bytes <= per_bin_max + FRAME, "bin {b}: {bytes} B > {per_bin_max} + one frame");
    }
    // The incast starts at 0.3 ms and lasts ~15.4 ms: bins 1..=14 lie wholly inside it.
    let finish = *common::u64s(&r, "flows", "finish_ps").iter().max().unwrap();
    let first_full = 1;
    let last_full = (finish / PS_PER_MS - 1) as usize;
    assert!(last_full >= 14, "incast ended at {finish} ps");
    for b in first_full..=last_full {
        assert!(rx.ingress[b] > per_bin_max / 2, "bin {b}: {} B", rx.ingress[b]);
        // DCTCP keeps the link busy: within a frame or two of line rate.
        assert!(rx.ingress[b] + 2 * FRAME >= per_bin_max, "bin {b}: {} B", rx.ingress[b]);
    }
    // Every data byte on the wire, headers included, and nothing else (ACKs go the other way).
    let wire = SENDERS as u64 * flow_wire_bytes(BYTES);
    assert_eq!(rx.ingress.iter().sum::<u64>(), wire);
    assert_eq!(rx.ingress.iter().sum::<u64>(), port_column(&r, "sw0->r0", "tx_bytes"));
    assert_eq!(rx.in_rxmit.iter().sum::<u64>(), 0);
    // All ten connections deliver data in every bin while all of them are active.
    let first_finish = *common::u64s(&r, "flows", "finish_ps").iter().min().unwrap();
    let all_active = (first_finish / PS_PER_MS) as usize; // bins before the first finish
    assert!(all_active >= 10, "a flow finished at {first_finish} ps");
    for b in first_full..all_active {
        assert_eq!(rx.connections[b], SENDERS as u64, "bin {b}");
    }
    assert_eq!(rx.connections[0], SENDERS as u64, "the incast starts inside bin 0");
    assert!(rx.connections.iter().all(|&c| c <= SENDERS as u64));
    // K = 65 marks: CE bytes arrive, and only as data.
    let ce: u64 = rx.in_ce.iter().sum();
    eprintln!("receiver ingress per 1 ms bin {:?}; connections {:?}; CE {ce} of {wire} B", rx.ingress, rx.connections);
    assert!(ce > 0 && ce < wire);
    // The receiver sends ACKs only: one 40-byte ACK per data packet.
    let data_packets = SENDERS as u64 * BYTES.div_ceil(MSS);
    assert_eq!(rx.egress.iter().sum::<u64>(), data_packets * HEADER);
    // Each sender sends its flow once; its ingress is its ACKs.
    for s in 0..SENDERS {
        let tx = host(&r, &format!("s{s}"));
        assert_eq!(tx.egress.iter().sum::<u64>(), flow_wire_bytes(BYTES), "s{s}");
        assert_eq!(tx.out_rxmit.iter().sum::<u64>(), 0);
        assert_eq!(tx.ingress.iter().sum::<u64>(), BYTES.div_ceil(MSS) * HEADER, "s{s}");
        assert!(tx.connections.iter().all(|&c| c <= 1));
        // A sender's NIC runs at line rate too (egress is binned at transmission start).
        assert!(tx.egress.iter().all(|&e| e <= per_bin_max + FRAME));
    }
}

#[test]
fn no_marking_no_ce_bytes() {
    let r = incast("limit = \"100000pkt\"\nmarking = { kind = \"none\" }", "dctcp");
    assert_eq!(r.scalar("drops"), Some(0.0));
    assert_eq!(r.scalar("marks"), Some(0.0));
    let rx = host(&r, "r0");
    assert_eq!(rx.in_ce.iter().sum::<u64>(), 0);
    assert_eq!(rx.ingress.iter().sum::<u64>(), SENDERS as u64 * flow_wire_bytes(BYTES));
}

/// With a shallow drop-tail buffer, what the senders put on the wire is what the receiver
/// got plus what the bottleneck dropped, and the retransmission counters agree.
#[test]
fn sender_egress_is_receiver_ingress_plus_losses() {
    let r = incast("limit = \"40pkt\"\nmarking = { kind = \"none\" }", "newreno");
    assert!(r.scalar("drops").unwrap() > 0.0);
    assert!(common::bools(&r, "flows", "completed").iter().all(|c| *c));
    let rx = host(&r, "r0");
    let senders: Vec<Host> = (0..SENDERS).map(|s| host(&r, &format!("s{s}"))).collect();
    let egress: u64 = senders.iter().map(|h| h.egress.iter().sum::<u64>()).sum();
    let out_rxmit: u64 = senders.iter().map(|h| h.out_rxmit.iter().sum::<u64>()).sum();
    let dropped = port_column(&r, "sw0->r0", "dropped_bytes");
    let ingress: u64 = rx.ingress.iter().sum();
    eprintln!("lossy: egress {egress} B, dropped {dropped} B, retransmitted {out_rxmit} B out / {} B in", rx.in_rxmit.iter().sum::<u64>());
    assert!(out_rxmit > 0);
    assert_eq!(egress, SENDERS as u64 * flow_wire_bytes(BYTES) + out_rxmit);
    assert_eq!(ingress, egress - dropped);
    let in_rxmit: u64 = rx.in_rxmit.iter().sum();
    assert!(in_rxmit > 0 && in_rxmit <= out_rxmit);
    // Retransmitted wire bytes = retransmitted payload + one header per segment.
    let retx_payload: u64 = common::u64s(&r, "flows", "retx_bytes").iter().sum();
    assert!(out_rxmit > retx_payload && (out_rxmit - retx_payload).is_multiple_of(HEADER));
    // Per bin the receiver still never exceeds the line.
    let per_bin_max = RATE / 8 / (PS_PER_SEC / PS_PER_MS);
    assert!(rx.ingress.iter().all(|&b| b <= per_bin_max + FRAME));
}
