//! The IMC '24 remedies of section 5 on the request/response incast: remember across
//! bursts (`remember = "mean_cwnd"`), the `bdp+connections` clamp and its prediction
//! from history (`rwnd_strategy`), and Swift-style sub-packet pacing. Hand-computed
//! numbers on the artifact's dumbbell (10 Gb/s hosts, 100 Gb/s core, 5 us per link).

mod common;
use common::{error, imc24_rpc, opt_u64s, run, u64s, Imc24};

const MSS: u64 = 1448;
const NS3: &str = "recovery = \"ns3\"";

fn scenario(n: u32, response_bytes: u64, bursts: u32, transport: &str, workload: &str, record: &str) -> String {
    // The receiver's NIC holds every request (a host does not drop its own).
    let queues = "[switch.queue]\nlimit = \"1334pkt\"\n[host.queue]\nlimit = \"20000pkt\"";
    let workload = format!("gap = \"1ms\"\n{workload}");
    imc24_rpc(n, response_bytes, bursts, &Imc24 { seed: 1, queues, transport, workload: &workload, record })
}

/// `start_cwnd_bytes` of each response of burst `b`.
fn start_cwnds(toml: &str, b: usize, n: usize) -> Vec<u64> {
    u64s(&run(toml), "responses", "start_cwnd_bytes")[b * n..(b + 1) * n].to_vec()
}

#[test]
fn remember_mean_cwnd_undoes_the_growth_of_a_one_segment_response() {
    // ns-3's rules (which grow the window on every ACK in slow start; Linux's would not,
    // the window not being the limit). One segment out under IW 10 (14,480 B); its ACK
    // grows cwnd by 1448 B, so burst 2 starts at 15,928 B. The response lasts from its write to that ACK with
    // cwnd = 14,480 B throughout: its time-weighted mean is 14,480 B.
    let plain = scenario(1, MSS, 2, NS3, "", "");
    assert_eq!(start_cwnds(&plain, 1, 1), vec![15_928]);
    let remember = scenario(1, MSS, 2, NS3, "remember = \"mean_cwnd\"", "");
    assert_eq!(start_cwnds(&remember, 1, 1), vec![14_480]);
}

#[test]
fn remember_mean_cwnd_weights_each_window_by_its_time() {
    // Two segments leave together, behind the request's 54-B ACK (0.0432 us at 10 Gb/s);
    // their ACKs come one bottleneck slot (1502 B at 10 Gb/s = 1.2016 us) apart. The
    // first comes 0.0432 us + a base RTT after the write: 30 us of propagation, the data
    // frame serialized at 10, 100 and 10 Gb/s (2.52336 us), the 54-B ACK at 10, 100 and
    // 10 Gb/s (0.09072 us): 32.65728 us. cwnd is 14,480 B that long, then 15,928 B for
    // 1.2016 us: mean = (14,480 x 32.65728 + 15,928 x 1.2016) / 33.85888 = 14,531.4
    // -> 14,531 B. Without the rule the second ACK adds another 1448 B.
    let remember = scenario(1, 2 * MSS, 2, NS3, "remember = \"mean_cwnd\"", "");
    assert_eq!(start_cwnds(&remember, 1, 1), vec![14_531]);
    let plain = scenario(1, 2 * MSS, 2, NS3, "", "");
    assert_eq!(start_cwnds(&plain, 1, 1), vec![14_480 + 2 * MSS]);
}

/// The largest bytes in flight of any connection in burst `b` (windows sampled every 1 us).
fn max_in_flight(toml: &str, b: usize) -> u64 {
    let r = run(toml);
    let starts = u64s(&r, "bursts", "start_ps");
    let ends = opt_u64s(&r, "bursts", "end_ps");
    let (t, f) = (u64s(&r, "windows", "time_ps"), u64s(&r, "windows", "in_flight_bytes"));
    let end = ends[b].expect("burst finished");
    t.iter().zip(&f).filter(|(t, _)| **t >= starts[b] && **t <= end).map(|(_, f)| *f).max().unwrap()
}

#[test]
fn bdp_over_connections_clamps_each_burst_and_prediction_waits_for_history() {
    // BDP = 30 us x 10 Gb/s = 37,500 B. Ten connections: 3750 B each, so two 1448-B
    // segments out at most (2896 B); IW 10 alone would put 10 out.
    let rec = "windows = { interval = \"1us\" }";
    let oracle = scenario(10, 20 * MSS, 2, "", "rwnd_strategy = \"bdp+connections\"", rec);
    assert_eq!(max_in_flight(&oracle, 0), 2 * MSS);
    assert_eq!(max_in_flight(&oracle, 1), 2 * MSS);
    // 100 connections: 375 B, raised to the artifact's 2 KiB floor: one segment out.
    let floor = scenario(100, 4 * MSS, 1, "", "rwnd_strategy = \"bdp+connections\"", rec);
    assert_eq!(max_in_flight(&floor, 0), MSS);
    // Prediction: burst 1 has no history (unclamped: IW 10 = 10 segments out); burst 2
    // takes the p99 of [10] = 10 connections, as the oracle.
    let predicted = scenario(10, 20 * MSS, 2, "", "rwnd_strategy = \"predicted\"", rec);
    assert!(max_in_flight(&predicted, 0) >= 10 * MSS);
    assert_eq!(max_in_flight(&predicted, 1), 2 * MSS);
}

#[test]
fn sub_packet_pacing_lets_two_thousand_senders_share_a_port_without_overflow() {
    // 2000 connections of 2 segments each into a 1334-packet port. Without a remedy every
    // burst starts with at least one segment per connection: 2000 > 1334 + 100 on the
    // wire and in the device queue, so the port drops. With BDP / N = 18 B windows (a
    // 1-B floor) and Swift's pacing each sender waits its phase of an 80-base-RTT gap and
    // nothing overflows after the first (slow-start) burst.
    let n = 2000;
    let drops = |toml: &str| opt_u64s(&run(toml), "bursts", "drops");
    let plain = drops(&scenario(n, 2 * MSS, 3, "", "", ""));
    assert!(plain[1].unwrap() > 0 && plain[2].unwrap() > 0, "{plain:?}");
    let paced = drops(&scenario(
        n,
        2 * MSS,
        3,
        "sub_packet_pacing = true",
        "rwnd_strategy = \"bdp+connections\"\nrwnd_floor = \"1B\"",
        "",
    ));
    assert_eq!(&paced[1..], &[Some(0), Some(0)], "{paced:?}");
}

#[test]
fn remedy_settings_name_their_allowed_values() {
    let bad = |w: &str, t: &str| error(&scenario(2, MSS, 1, t, w, "")).to_string();
    let e = bad("remember = \"forever\"", "");
    assert!(e.contains("workload[0].remember") && e.contains("mean_cwnd"), "{e}");
    let e = bad("rwnd_strategy = \"bdp\"", "");
    assert!(e.contains("workload[0].rwnd_strategy") && e.contains("bdp+connections") && e.contains("predicted"), "{e}");
    let e = bad("rwnd_floor = \"1B\"", "");
    assert!(e.contains("workload[0].rwnd_floor") && e.contains("applies only with rwnd_strategy"), "{e}");
    let e = bad("rwnd_strategy = \"predicted\"\ntokens = 20", "");
    assert!(e.contains("workload[0].rwnd_strategy") && e.contains("tokens = 0"), "{e}");
    let e = bad("rwnd_strategy = \"predicted\"\nrwnd_floor = \"0B\"", "");
    assert!(e.contains("workload[0].rwnd_floor") && e.contains("positive"), "{e}");
    let e = bad("degree_min = 3", "");
    assert!(e.contains("workload[0].degree_min") && e.contains("between 1 and 2"), "{e}");
    let e = error(&scenario(2, MSS, 1, "", "", "").replace("cc = \"dctcp\"", "cc = \"uno\"\nsub_packet_pacing = true")).to_string();
    assert!(e.contains("transport.sub_packet_pacing") && e.contains("dctcp"), "{e}");
}

/// The flow counts of the bursts, and the largest bytes in flight of any connection in each.
fn degrees_and_flights(toml: &str) -> (Vec<u64>, Vec<u64>) {
    let r = run(toml);
    let degrees: Vec<u64> = common::u32s(&r, "bursts", "degree").into_iter().map(u64::from).collect();
    let done: Vec<u64> = common::u32s(&r, "bursts", "responses_done").into_iter().map(u64::from).collect();
    assert_eq!(done, degrees, "every answering connection finished");
    let per_burst = u64s(&r, "responses", "flow_id").len() as u64;
    assert_eq!(per_burst, degrees.iter().sum::<u64>(), "one response per answering connection");
    let (starts, ends) = (u64s(&r, "bursts", "start_ps"), opt_u64s(&r, "bursts", "end_ps"));
    let (t, f) = (u64s(&r, "windows", "time_ps"), u64s(&r, "windows", "in_flight_bytes"));
    let flights = (0..degrees.len())
        .map(|b| t.iter().zip(&f).filter(|(t, _)| **t >= starts[b] && **t <= ends[b].unwrap()).map(|(_, f)| *f).max().unwrap())
        .collect();
    (degrees, flights)
}

#[test]
fn prediction_takes_the_p99_of_the_flow_counts_before() {
    // Ten connections, 4-10 of them answering each burst (20 segments each). The window
    // of a burst is BDP / N: 37,500 / N B, i.e. floor(37,500 / N / 1448) segments out
    // (above the 2 KiB floor for N <= 10: 2 segments at N = 10, 6 at N = 4).
    let rec = "windows = { interval = \"1us\" }";
    let varying = "degree_min = 4\nrwnd_strategy = \"predicted\"";
    let (degrees, flights) = degrees_and_flights(&scenario(10, 20 * MSS, 6, "", varying, rec));
    assert!(degrees.iter().all(|d| (4..=10).contains(d)) && degrees.iter().any(|d| *d != degrees[0]), "{degrees:?}");
    let segments = |n: u64| 37_500 / n / MSS * MSS;
    for b in 1..degrees.len() {
        // p99 by nearest rank of at most 5 counts is their largest.
        let p99 = *degrees[..b].iter().max().unwrap();
        assert_eq!(flights[b], segments(p99), "burst {b}: history {:?}", &degrees[..b]);
    }
    // The oracle clamps by this burst's own count.
    let oracle = "degree_min = 4\nrwnd_strategy = \"bdp+connections\"";
    let (degrees, flights) = degrees_and_flights(&scenario(10, 20 * MSS, 6, "", oracle, rec));
    for b in 0..degrees.len() {
        assert_eq!(flights[b], segments(degrees[b]), "burst {b}");
    }
}
