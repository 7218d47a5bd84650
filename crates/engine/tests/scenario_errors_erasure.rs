//! `[transport.erasure]` settings that cannot run and the exact error each gives (field
//! path, message, allowed values).

mod common;

use common::errors::{case, check, Case};

const SCOPES: &[&str] = &["inter", "all"];
const TIME_UNITS: &[&str] = &["ps", "ns", "us", "µs", "ms", "s"];
const STAR: &str = "[topology]\nkind = \"star\"\nsenders = 4\n";
const INCAST: &str = "[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\n";

/// A star running DCTCP under basic recovery, coding every flow, with `fields` added to
/// `[transport.erasure]`, then `rest`.
fn coded(fields: &str, rest: &str) -> String {
    format!("{STAR}[transport]\nrecovery = \"basic\"\n[transport.erasure]\nscope = \"all\"\n{fields}\n{rest}")
}

fn cases() -> Vec<Case> {
    let none: Option<&'static [&'static str]> = Some(&[]);
    vec![
        case(
            "the Linux recovery model",
            format!("{STAR}[transport]\ncc = \"dctcp\"\n[transport.erasure]\nscope = \"all\"\n{INCAST}"),
            "transport.erasure",
            "applies only with recovery = \"basic\" (here `linux`)",
            none,
        ),
        case("no data packet", coded("data = 0", INCAST), "transport.erasure.data", "must be between 1 and 31, got 0", none),
        case("no parity packet", coded("parity = 0", INCAST), "transport.erasure.parity", "must be between 1 and 31, got 0", none),
        case("blocks too long", coded("data = 30\nparity = 3", INCAST), "transport.erasure.parity", "data + parity must be at most 32 packets per block, got 33", none),
        case("unknown scope", coded("", INCAST).replace("scope = \"all\"", "scope = \"wan\""), "transport.erasure.scope", "unknown value `wan`", Some(SCOPES)),
        case(
            "inter flows in one datacenter",
            coded("", INCAST).replace("scope = \"all\"\n", ""),
            "transport.erasure.scope",
            "`inter` codes flows between datacenters, and this topology has one: use scope = \"all\"",
            Some(SCOPES),
        ),
        case("a zero wait", coded("ec_wait = \"0us\"", INCAST), "transport.erasure.ec_wait", "must be positive", none),
        case("a wait without a unit", coded("ec_wait = \"640\"", INCAST), "transport.erasure.ec_wait", "has no unit", Some(TIME_UNITS)),
        case("unknown field", coded("blocks = 10", INCAST), "transport.erasure.blocks", "unknown field", Some(&["data", "parity", "ec_wait", "scope"])),
        case(
            "persistent connections",
            coded("", "[[workload]]\nkind = \"rpc_incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\n"),
            "transport.erasure",
            "cannot code the connections of workload[0] (kind `rpc_incast`",
            none,
        ),
    ]
}

#[test]
fn erasure_errors_name_the_field() {
    check(&cases(), &common::load_file);
}

#[test]
fn the_paper_s_blocks_are_accepted() {
    let spec = fanin_engine::parse_scenario(&coded("data = 8\nparity = 2\nec_wait = \"640us\"", INCAST), &common::load_file).unwrap();
    let e = spec.transport.erasure.unwrap();
    assert_eq!((e.shape.data, e.shape.parity, e.ec_wait, e.ec_wait_inter), (8, 2, 640_000_000, 640_000_000));
}

/// Uno's setting: 1 MB ports at 100 Gb/s (Ql = 80 us) give the artifact's ec_wait,
/// 5 Ql_intra + 3 Ql_inter = 640 us for inter flows (5 Ql_intra = 400 us for intra ones).
#[test]
fn ec_wait_defaults_to_uno_s_queue_latencies() {
    let toml = "[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\n[transport]\ncc = \"uno\"\nmtu = \"4160B\"\nheader = \"64B\"\n[transport.erasure]\n\
                [[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h200\"\nbytes = \"5MB\"\n";
    let spec = fanin_engine::parse_scenario(toml, &common::load_file).unwrap_or_else(|e| panic!("{e}"));
    let e = spec.transport.erasure.unwrap();
    assert_eq!((e.shape.data, e.shape.parity), (8, 2));
    assert_eq!((e.ec_wait, e.ec_wait_inter), (400_000_000, 640_000_000));
}
