//! UnoRC's erasure-coded blocks (`[transport.erasure]`) in whole runs: parity repairs
//! losses without retransmission or timeout, UnoLB's subflows meet (10, 2) blocks one
//! packet per subflow, a parity NACK retransmits and reroutes, and only the scope's flows
//! are coded.

mod common;

use common::{opt_u64s, u64s};
use fanin_engine::Results;

/// One DCTCP flow of 1 MB over a 10 Gb/s dumbbell, basic recovery; `extra` at the top
/// level, `transport` lines in `[transport]`.
fn lone_flow(extra: &str, transport: &str) -> String {
    common::lone_flow(extra, &format!("recovery = \"basic\"\nmin_rto = \"1ms\"\n{transport}"), "1MB")
}

/// Two leaf-spine datacenters at 100 Gb/s with 1 MB ports, their borders joined by `wan`
/// WAN links of 100 us; one UnoCC flow h0 -> h7 of 2 MB (62 blocks of 10 x 4096 B), and
/// `more` workload lines.
fn uno_two_dc(wan: u32, lb: &str, events: &str, transport: &str, more: &str) -> String {
    format!(
        r#"seed = 5
{events}
{}[switch.queue]
limit = "1000000B"
[transport]
cc = "uno"
mtu = "4160B"
header = "64B"
{transport}
[routing]
lb = "{lb}"
[[workload]]
kind = "flow"
src = "h0"
dst = "h7"
bytes = "2MB"
{more}
[record]
flows = true
"#,
        common::two_leaf_spines(wan, "100Gbps", "100us")
    )
}

fn run_checked(toml: &str) -> Results {
    common::run_conserving(toml).finish()
}

fn one(r: &Results, table: &str, col: &str) -> u64 {
    let v = u64s(r, table, col);
    assert_eq!(v.len(), 1, "{table}.{col}: {v:?}");
    v[0]
}

const EC_ALL: &str = "[transport.erasure]\nscope = \"all\"\nec_wait = \"100us\"";
/// Exactly one packet lost in every 10 the bottleneck port is offered: with nothing
/// retransmitted, its blocks are the flow's.
const ONE_PER_TEN: &str = "[[event]]\nat = \"0s\"\nlink = \"sw0->r0\"\naction = \"drop\"\nblock_losses = [1.0]";

#[test]
fn one_loss_per_block_costs_no_retransmission_and_no_timeout() {
    let ec = run_checked(&lone_flow(ONE_PER_TEN, EC_ALL));
    // 1 MB in 1,460 B segments: ⌈1e6 / 11,680⌉ = 86 blocks of 10, padded to 1,255,600 B.
    assert_eq!(one(&ec, "erasure", "blocks"), 86);
    assert_eq!(one(&ec, "erasure", "coded_bytes"), 1_255_600);
    assert_eq!(one(&ec, "erasure", "parity_pkts"), 172);
    assert_eq!(one(&ec, "faults", "lost_pkts"), 86, "one loss per block");
    assert_eq!(one(&ec, "flows", "retx_bytes"), 0);
    assert_eq!(one(&ec, "flows", "timeouts"), 0);
    assert_eq!(one(&ec, "erasure", "parity_nacks_sent"), 0);
    assert_eq!(one(&ec, "flows", "bytes_acked"), 1_255_600, "the sender's stream is the padded one");
    assert_eq!(one(&ec, "flows", "size_bytes"), 1_000_000, "the flow's size is the application's");
    // A lost data packet is rebuilt; a lost parity packet rebuilds nothing (8 of 10
    // positions are data: about 69 of 86).
    let rebuilt = one(&ec, "erasure", "rebuilt_blocks");
    assert!((55..=80).contains(&rebuilt), "{rebuilt}");
    assert_eq!(ec.scalar("rebuilt_blocks"), Some(rebuilt as f64));
    let plain = run_checked(&lone_flow(ONE_PER_TEN, ""));
    assert!(plain.table("erasure").is_none() && plain.scalar("parity_nacks").is_none());
    // Every lost transmission is sent again.
    assert!(one(&plain, "flows", "retx_bytes") >= one(&plain, "faults", "lost_pkts") * 1460);
    assert!(one(&plain, "flows", "timeouts") > 0);
    // 25 % more bytes, and still faster than recovering each loss.
    let fct = |r: &Results| opt_u64s(r, "flows", "fct_ps")[0].unwrap();
    assert!(fct(&ec) < fct(&plain), "{} vs {}", fct(&ec), fct(&plain));
}

#[test]
fn uno_loses_one_packet_per_block_on_the_wan_without_a_timeout() {
    let wan_drops = "[[event]]\nat = \"0s\"\nlink = [\"dc0_border->dc1_border#0\", \"dc0_border->dc1_border#1\"]\naction = \"drop\"\nblock_losses = [1.0]";
    let ec = run_checked(&uno_two_dc(2, "ecmp", wan_drops, "[transport.erasure]", ""));
    assert_eq!(one(&ec, "erasure", "blocks"), 62);
    assert_eq!((one(&ec, "flows", "retx_bytes"), one(&ec, "flows", "timeouts")), (0, 0));
    assert_eq!(one(&ec, "erasure", "parity_nacks_sent"), 0);
    // Uno finds a loss only by its per-packet timeout: every loss costs one without EC.
    let plain = run_checked(&uno_two_dc(2, "ecmp", wan_drops, "", ""));
    let lost: u64 = u64s(&plain, "faults", "lost_pkts").iter().sum();
    assert!(lost >= 50, "{lost}");
    assert_eq!(one(&plain, "flows", "timeouts"), lost);
    let fct = |r: &Results| opt_u64s(r, "flows", "fct_ps")[0].unwrap();
    assert!(3 * fct(&ec) < fct(&plain), "{} vs {}", fct(&ec), fct(&plain));
}

/// UnoLB's 10 subflows take a (10, 2) block's packets in turn, one each: a failed WAN link
/// under two of them costs every block exactly two packets, which parity repairs.
#[test]
fn unolb_subflows_on_a_failed_link_lose_two_packets_per_block_and_parity_repairs_them() {
    let fail = "[[event]]\nat = \"0s\"\nlink = \"dc0_border->dc1_border#0\"\naction = \"fail\"";
    let r = run_checked(&uno_two_dc(8, "unolb", fail, "[transport.erasure]", ""));
    assert_eq!(one(&r, "faults", "failed_pkts"), 2 * 62);
    assert_eq!((one(&r, "flows", "retx_bytes"), one(&r, "flows", "timeouts")), (0, 0));
    assert_eq!(one(&r, "erasure", "parity_nacks_sent"), 0);
    let plain = run_checked(&uno_two_dc(8, "unolb", fail, "", ""));
    assert!(one(&plain, "flows", "timeouts") > 0);
}

/// Half the WAN links fail: blocks lose more than parity covers. The receiver NACKs them,
/// the sender resends and moves its silent subflows, with no timeout at all (the timeout
/// is pushed beyond the run).
#[test]
fn a_parity_nack_resends_the_block_and_reroutes_the_subflows() {
    let links: Vec<String> = (0..4).map(|k| format!("\"dc0_border->dc1_border#{k}\"")).collect();
    let fail = format!("[[event]]\nat = \"0s\"\nlink = [{}]\naction = \"fail\"", links.join(", "));
    let transport = "rto_margin = \"1s\"\n[transport.erasure]";
    let s = common::run_conserving(&uno_two_dc(8, "unolb", &fail, transport, ""));
    let f = &s.world().flows[0];
    assert!(f.finished());
    assert_eq!(f.sender.timeouts, 0);
    let e = f.erasure.as_ref().unwrap();
    assert!(e.nacks_sent > 0);
    assert!(e.nacks_acted > 0 && e.nacks_acted <= e.nacks_sent);
    assert!(f.sender.retx_bytes > 0);
    assert!(f.selector.reroutes() > 0, "the NACK moved silent subflows");
}

#[test]
fn only_inter_datacenter_flows_are_coded_by_default() {
    let intra = "[[workload]]\nkind = \"flow\"\nsrc = \"h1\"\ndst = \"h2\"\nbytes = \"100KB\"";
    let r = run_checked(&uno_two_dc(2, "ecmp", "", "[transport.erasure]", intra));
    assert_eq!(u64s(&r, "erasure", "flow_id"), [0]);
    assert_eq!(u64s(&r, "flows", "bytes_acked"), [62 * 10 * 4096, 100_000]);
    let all = run_checked(&uno_two_dc(2, "ecmp", "", "[transport.erasure]\nscope = \"all\"", intra));
    // 100 KB: ⌈100,000 / 32,768⌉ = 4 blocks.
    assert_eq!(u64s(&all, "erasure", "blocks"), [62, 4]);
}

#[test]
fn coded_runs_follow_the_seed() {
    let fail = "[[event]]\nat = \"0s\"\nlink = \"dc0_border->dc1_border#0\"\naction = \"fail\"";
    let toml = uno_two_dc(4, "spray", fail, "[transport.erasure]", "");
    let a = run_checked(&toml);
    assert!(a.scalar("parity_nacks").unwrap() > 0.0);
    assert_eq!(a.tables, run_checked(&toml).tables);
    assert_ne!(a.tables, run_checked(&toml.replace("seed = 5", "seed = 6")).tables);
}
