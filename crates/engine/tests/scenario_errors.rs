//! Malformed scenarios and the exact error each must produce (field path, message, allowed
//! values), and a fuzz loop: no input makes the parser panic, and whatever it accepts can
//! be built into a simulation.

mod common;

use common::errors::{case, check, Case};

use fanin_engine::{parse_scenario, ScenarioError, Simulation};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const TOPO: &str = "[topology]\nkind = \"star\"\nsenders = 4\n";
const WL: &str = "[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\n";

const RATE_UNITS: &[&str] = &["bps", "Kbps", "Mbps", "Gbps", "Tbps", "K", "M", "G", "T"];
const TIME_UNITS: &[&str] = &["ps", "ns", "us", "µs", "ms", "s"];
const WORKLOAD_KINDS: &[&str] = &["incast", "poisson", "permutation", "flow", "matrix", "mixed_poisson", "rpc_incast", "proxy_incast", "poisson_incast", "aggregator_incast"];
const SIZE_FORMS: &[&str] = &["a CDF file name", "\"uniform <min> <max>\"", "\"loguniform <min> <max>\"", "\"constant <size>\"", "\"discrete <size>:<probability> ...\""];
const LEAF_SPINE: &str = "[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n";
const AGG: &str = "[[workload]]\nkind = \"aggregator_incast\"\nload = 0.1\nsizes = \"constant 1KiB\"\n";
const FLOW: &str = "[[workload]]\nkind = \"flow\"\nsrc = \"h0\"\ndst = \"h3\"\nbytes = \"1KB\"\n";
const PINCAST: &str = "[[workload]]\nkind = \"poisson_incast\"\nload = 0.5\nsizes = \"uniform 8KB 32KB\"\n";
const RPC: &str = "[[workload]]\nkind = \"rpc_incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\n";
const CC_KINDS: &[&str] = &["newreno", "dctcp", "hotnets_dctcp", "uno", "gemini", "mprdma", "bbr"];
const PROXY_WL: &str = "[[workload]]\nkind = \"proxy_incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\nreceiver = \"r0\"\n";

/// A small flow-size CDF served inline, so these tests need no packaged data file.
fn loader(name: &str) -> Result<String, String> {
    match name {
        "inline_cdf.txt" => Ok("# columns: size_bytes cdf_percent\n0 0\n10000 50\n100000 90\n1000000 100\n".into()),
        "bad_size.cm" => Ok("Nodes 4\nConnections 2\n0->1 id 1 start 0 size 10\n1->2 id 2 start 3 size ten\n".into()),
        "far_host.cm" => Ok("Nodes 4\nConnections 1\n0->9 id 1 start 0 size 10\n".into()),
        _ => common::load_file(name),
    }
}

fn run_inline(toml: &str) -> fanin_engine::Results {
    let spec = parse_scenario(toml, &loader).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&spec).unwrap();
    sim.run();
    sim.finish()
}

fn cases() -> Vec<Case> {
    let none: Option<&'static [&'static str]> = Some(&[]);
    vec![
        case(
            "unknown top-level field",
            format!("bogus = 1\n{TOPO}{WL}"),
            "bogus",
            "unknown field",
            Some(&["name", "seed", "duration", "max_duration", "topology", "switch", "host", "transport", "workload", "record", "routing", "measure", "partition", "event"]),
        ),
        case(
            "unknown field inside [topology]",
            format!("[topology]\nkind = \"star\"\nsendrs = 4\n{WL}"),
            "topology.sendrs",
            "unknown field",
            Some(&["kind", "senders", "receivers", "host_link", "sender_link", "receiver_link", "core_link", "leaves", "spines", "hosts_per_leaf", "fabric_link", "k", "leaf_ports", "spine_ports", "level", "superways", "preset", "dcs", "fabric", "interconnect", "routers", "border_links", "wan_links", "long_haul_link", "border_link"]),
        ),
        case(
            "unknown field in the second workload",
            format!("{TOPO}{WL}[[workload]]\nkind = \"flow\"\nsrc = \"s0\"\ndst = \"r0\"\nbyte = \"1KB\"\n"),
            "workload[1].byte",
            "unknown field",
            None,
        ),
        case("unknown cc", format!("{TOPO}[transport]\ncc = \"cubic\"\n{WL}"), "transport.cc", "unknown value `cubic`", Some(CC_KINDS)),
        case("unknown inter-datacenter cc", format!("{TOPO}[transport]\ncc = {{ intra = \"mprdma\", inter = \"cubic\" }}\n{WL}"), "transport.cc.inter", "unknown value `cubic`", Some(CC_KINDS)),
        case("cc per class with an unknown class", format!("{TOPO}[transport]\ncc = {{ intra = \"uno\", wan = \"bbr\" }}\n{WL}"), "transport.cc.wan", "unknown field", Some(&["intra", "inter"])),
        case("cc as a number", format!("{TOPO}[transport]\ncc = 3\n{WL}"), "transport.cc", "expected a name or { intra, inter }", none),
        case("uno section without uno", format!("{TOPO}[transport]\ncc = \"gemini\"\n[transport.uno]\ng = 0.5\n{WL}"), "transport.uno", "applies only when a flow class runs cc = \"uno\"", none),
        case("uno gain out of range", format!("{TOPO}[transport]\ncc = \"uno\"\n[transport.uno]\ng = 1.5\n{WL}"), "transport.uno.g", "must be in (0, 1]", none),
        case("gemini threshold without unit", format!("{TOPO}[transport]\ncc = \"gemini\"\n[transport.gemini]\nt = \"5\"\n{WL}"), "transport.gemini.t", "has no unit", Some(TIME_UNITS)),
        case("unknown mprdma variant", format!("{TOPO}[transport]\ncc = \"mprdma\"\n[transport.mprdma]\nvariant = \"c\"\n{WL}"), "transport.mprdma.variant", "unknown value `c`", Some(&["a", "b"])),
        case("bbr section without bbr", format!("{TOPO}[transport]\ncc = \"gemini\"\n[transport.bbr]\npacing_floor = \"1Gbps\"\n{WL}"), "transport.bbr", "applies only when a flow class runs cc = \"bbr\"", none),
        case("zero bbr pacing floor", format!("{TOPO}[transport]\ncc = {{ intra = \"mprdma\", inter = \"bbr\" }}\n[transport.bbr]\npacing_floor = \"0Gbps\"\n{WL}"), "transport.bbr.pacing_floor", "must be positive", none),
        case("bbr initial bandwidth without unit", format!("{TOPO}[transport]\ncc = \"bbr\"\n[transport.bbr]\ninitial_bw = \"10\"\n{WL}"), "transport.bbr.initial_bw", "has no unit", Some(RATE_UNITS)),
        case("unknown rto kind", format!("{TOPO}[transport]\nrto = \"scan\"\n{WL}"), "transport.rto", "unknown value `scan`", Some(&["adaptive", "per_packet"])),
        case("unknown timestamp point", format!("{TOPO}[transport]\ntimestamp = \"nic\"\n{WL}"), "transport.timestamp", "unknown value `nic`", Some(&["sender", "first_switch"])),
        case("timestamp point as a bool", format!("{TOPO}[transport]\ntimestamp = true\n{WL}"), "transport.timestamp", "", none),
        case("rto margin with the adaptive timer", format!("{TOPO}[transport]\nrto_margin = \"400us\"\n{WL}"), "transport.rto_margin", "applies only with rto = \"per_packet\"", none),
        case("zero base RTT", format!("{TOPO}[transport]\ncc = \"uno\"\nbase_rtt = \"0us\"\n{WL}"), "transport.base_rtt", "must be positive", none),
        case("unknown topology kind", format!("[topology]\nkind = \"ring\"\n{WL}"), "topology.kind", "unknown value `ring`", Some(&["dumbbell", "star", "leaf_spine", "fat_tree", "multi_dc", "subways", "bcube", "jellyfish"])),
        case("unknown workload kind", format!("{TOPO}[[workload]]\nkind = \"alltoall\"\n"), "workload[0].kind", "unknown value `alltoall`", Some(WORKLOAD_KINDS)),
        case("workload without kind", format!("{TOPO}[[workload]]\ndegree = 2\n"), "workload[0].kind", "is required", Some(WORKLOAD_KINDS)),
        case("rate without unit", format!("{TOPO}host_link = {{ rate = \"10\" }}\n{WL}"), "topology.host_link.rate", "has no unit", Some(RATE_UNITS)),
        case("negative delay", format!("{TOPO}host_link = {{ delay = \"-1us\" }}\n{WL}"), "topology.host_link.delay", "must not be negative", Some(TIME_UNITS)),
        case("zero rate", format!("{TOPO}host_link = {{ rate = \"0Gbps\" }}\n{WL}"), "topology.host_link.rate", "must be positive", none),
        case("a rate as a time", format!("{TOPO}host_link = {{ delay = \"5Gbps\" }}\n{WL}"), "topology.host_link.delay", "unknown unit `Gbps`", Some(TIME_UNITS)),
        case("sub-unit rate", format!("{TOPO}host_link = {{ rate = \"1.5bps\" }}\n{WL}"), "topology.host_link.rate", "finer than the unit's resolution", Some(RATE_UNITS)),
        case(
            "odd fat-tree k",
            "[topology]\nkind = \"fat_tree\"\nk = 5\n[[workload]]\nkind = \"permutation\"\nbytes = \"1KB\"\n".into(),
            "topology.k",
            "must be even, got 5",
            none,
        ),
        case("zero spines", format!("[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 0\nhosts_per_leaf = 2\n{WL}"), "topology.spines", "must be between 1 and 4096, got 0", none),
        case("superways on a fat-tree", format!("[topology]\nkind = \"fat_tree\"\nk = 4\nsuperways = {{ per_rack = 1, links = 1 }}\n{WL}"), "topology.superways", "does not apply to kind `fat_tree`", none),
        case("superways on multi_dc", format!("[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\nsuperways = {{ per_rack = 1, links = 1 }}\n{WL}"), "topology.superways", "does not apply to kind `multi_dc`", none),
        case("jellyfish ports on a leaf-spine", format!("{LEAF_SPINE}leaf_ports = 2\n{WL}"), "topology.leaf_ports", "does not apply to kind `leaf_spine`", none),
        case(
            "jellyfish with more ports than switches",
            format!("[topology]\nkind = \"jellyfish\"\nleaves = 3\nhosts_per_leaf = 2\nleaf_ports = 3\n{WL}"),
            "topology.leaf_ports",
            "must be at most 2 (one link to each other switch), got 3",
            none,
        ),
        case("jellyfish spines without ports", format!("[topology]\nkind = \"jellyfish\"\nleaves = 3\nhosts_per_leaf = 2\nleaf_ports = 2\nspines = 2\n{WL}"), "topology.spine_ports", "is required with spines > 0 (and only then)", none),
        case("subways on one rack", format!("[topology]\nkind = \"subways\"\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n{WL}"), "topology.leaves", "must be between 2 and 4096, got 1", none),
        case("superways server out of range", format!("{LEAF_SPINE}superways = {{ servers = [{{ server = \"h9\", links = 1 }}] }}\n{WL}"), "topology.superways.servers[0].server", "must be a host, h0..h3 or 0..3", none),
        case("superways server by a bad number", format!("{LEAF_SPINE}superways = {{ servers = [{{ server = -1, links = 1 }}] }}\n{WL}"), "topology.superways.servers[0].server", "must be a host, h0..h3 or 0..3", none),
        case("superways spine out of range", format!("{LEAF_SPINE}superways = {{ servers = [{{ server = 1, links = 1, spines = [2] }}] }}\n{WL}"), "topology.superways.servers[0].spines", "spine 2 does not exist (allowed: 0..1)", none),
        case("superways spines and links disagree", format!("{LEAF_SPINE}superways = {{ servers = [{{ server = 1, links = 2, spines = [0] }}] }}\n{WL}"), "topology.superways.servers[0].spines", "lists 1 spines for 2 links (one per link)", none),
        case("superways server twice", format!("{LEAF_SPINE}superways = {{ servers = [{{ server = 1, links = 1 }}, {{ server = \"h1\", links = 1 }}] }}\n{WL}"), "topology.superways.servers[1].server", "h1 is listed twice", none),
        case("superways no links", format!("{LEAF_SPINE}superways = {{ servers = [{{ server = 1, links = 0 }}] }}\n{WL}"), "topology.superways.servers[0].links", "must be between 1 and 64, got 0", none),
        case("superways both forms", format!("{LEAF_SPINE}superways = {{ servers = [{{ server = 1, links = 1 }}], per_rack = 1 }}\n{WL}"), "topology.superways.per_rack", "give either servers or per_rack, not both", none),
        case("superways per_rack past the rack", format!("{LEAF_SPINE}superways = {{ per_rack = 2, links = 1 }}\n{WL}"), "topology.superways.per_rack", "must be between 0 and 1, got 2", none),
        case("static route through a host", format!("{LEAF_SPINE}{FLOW}[[routing.static]]\nsrc = \"h0\"\ndst = \"h3\"\nvia = [\"h1\"]\n"), "routing.static[0].via", "`h1` is not a switch of this topology", none),
        case("static route off the links", format!("{LEAF_SPINE}{FLOW}[[routing.static]]\nsrc = \"h0\"\ndst = \"h3\"\nvia = [\"leaf0\"]\n"), "routing.static[0].via", "no link joins leaf0 and h3", none),
        case("static route loops", format!("{LEAF_SPINE}{FLOW}[[routing.static]]\nsrc = \"h0\"\ndst = \"h3\"\nvia = [\"leaf0\", \"spine0\", \"leaf0\", \"spine1\", \"leaf1\"]\n"), "routing.static[0].via", "visits a node twice", none),
        case("static route to an unknown host", format!("{LEAF_SPINE}{FLOW}[[routing.static]]\nsrc = \"h0\"\ndst = \"h7\"\nvia = [\"leaf0\"]\n"), "routing.static[0].dst", "`h7` is not a host of this topology", none),
        case("static route without via", format!("{LEAF_SPINE}{FLOW}[[routing.static]]\nsrc = \"h0\"\ndst = \"h3\"\n"), "routing.static[0].via", "is required (the switches in order, e.g. [\"leaf0\", \"spine1\"])", none),
        case(
            "static route given twice",
            format!("{LEAF_SPINE}{FLOW}[[routing.static]]\nsrc = \"h0\"\ndst = \"h3\"\nvia = [\"leaf0\", \"spine0\", \"leaf1\"]\n[[routing.static]]\nsrc = \"h0\"\ndst = \"h3\"\nvia = [\"leaf0\", \"spine1\", \"leaf1\"]\n"),
            "routing.static[1].src",
            "a static route for this (src, dst) pair is already given",
            none,
        ),
        case("k on a dumbbell", format!("[topology]\nkind = \"dumbbell\"\nsenders = 4\nk = 4\n{WL}"), "topology.k", "does not apply to kind `dumbbell`", none),
        case("wrong type", format!("[topology]\nkind = \"star\"\nsenders = \"four\"\n{WL}"), "topology.senders", "invalid type: string \"four\"", none),
        case(
            "receiver that does not exist",
            format!("{TOPO}[[workload]]\nkind = \"incast\"\nreceiver = \"r9\"\ndegree = 2\nbytes_per_sender = \"10KB\"\n"),
            "workload[0].receiver",
            "no host named `r9`",
            Some(&["s0", "s1", "s2", "s3", "..."]),
        ),
        case(
            "incast degree above the senders available",
            format!("{TOPO}[[workload]]\nkind = \"incast\"\ndegree = 5\nbytes_per_sender = \"10KB\"\n"),
            "workload[0].degree",
            "is 5 but only 4 senders are available",
            none,
        ),
        case(
            "Poisson sizes file that does not exist",
            format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes = \"nope.txt\"\n"),
            "workload[0].sizes",
            "cannot read `nope.txt`",
            Some(SIZE_FORMS),
        ),
        case(
            "Poisson load above 1",
            format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 1.5\nsizes = \"inline_cdf.txt\"\n"),
            "workload[0].load",
            "must be in (0, 1], got 1.5",
            none,
        ),
        case(
            "matrix without a file",
            format!("{TOPO}[[workload]]\nkind = \"matrix\"\n"),
            "workload[0].file",
            "is required",
            none,
        ),
        case(
            "matrix with a malformed line",
            format!("{TOPO}[[workload]]\nkind = \"matrix\"\nfile = \"bad_size.cm\"\n"),
            "workload[0].file",
            "`bad_size.cm` line 4, field `size`: the value is not a whole number of bytes",
            none,
        ),
        case(
            "matrix naming a host the topology lacks",
            format!("{TOPO}[[workload]]\nkind = \"matrix\"\nfile = \"far_host.cm\"\n"),
            "workload[0].file",
            "host 9 does not exist (the topology has hosts 0..4)",
            none,
        ),
        case(
            "matrix with a field of another kind",
            format!("{TOPO}[[workload]]\nkind = \"matrix\"\nfile = \"far_host.cm\"\nintra_fraction = 0.5\n"),
            "workload[0].intra_fraction",
            "does not apply to kind `matrix`",
            none,
        ),
        case(
            "mixed_poisson across datacenters on a one-datacenter topology",
            format!("{TOPO}[[workload]]\nkind = \"mixed_poisson\"\nload = 0.4\nflows = 10\nintra_fraction = 0.8\nintra_sizes = \"inline_cdf.txt\"\ninter_sizes = \"inline_cdf.txt\"\n"),
            "workload[0].intra_fraction",
            "inter-datacenter flows need a multi-datacenter topology",
            none,
        ),
        case(
            "mixed_poisson fraction above 1",
            format!("{TOPO}[[workload]]\nkind = \"mixed_poisson\"\nload = 0.4\nflows = 10\nintra_fraction = 1.5\n"),
            "workload[0].intra_fraction",
            "must be in [0, 1], got 1.5",
            none,
        ),
        case(
            "mixed_poisson without inter sizes",
            format!("{TOPO}[[workload]]\nkind = \"mixed_poisson\"\nload = 0.4\nflows = 10\nintra_fraction = 1\nintra_sizes = \"inline_cdf.txt\"\n"),
            "workload[0].inter_sizes",
            "is required",
            none,
        ),
        case(
            "mixed_poisson with a Poisson stop",
            format!("{TOPO}[[workload]]\nkind = \"mixed_poisson\"\nload = 0.4\nflows = 10\nstop = \"1ms\"\n"),
            "workload[0].stop",
            "does not apply to kind `mixed_poisson`",
            none,
        ),
        case("UnoLB without subflows", format!("{TOPO}{WL}[routing]\nlb = \"unolb\"\nsubflows = 0\n"), "routing.subflows", "must be between 1 and 255, got 0", none),
        case("subflows under ECMP", format!("{TOPO}{WL}[routing]\nsubflows = 4\n"), "routing.subflows", "does not apply to kind `ecmp`", none),
        case("subflows under PLB", format!("{TOPO}{WL}[routing]\nlb = \"plb\"\nsubflows = 4\n"), "routing.subflows", "does not apply to kind `plb`", none),
        case("PLB threshold under UnoLB", format!("{TOPO}{WL}[routing]\nlb = \"unolb\"\ncong_thresh = 0.5\n"), "routing.cong_thresh", "does not apply to kind `unolb`", none),
        case("PLB threshold above 1", format!("{TOPO}{WL}[routing]\nlb = \"plb\"\ncong_thresh = 1.5\n"), "routing.cong_thresh", "must be in (0, 1], got 1.5", none),
        case("PLB without rounds", format!("{TOPO}{WL}[routing]\nlb = \"plb\"\nrehash_rounds = 0\n"), "routing.rehash_rounds", "must be between 1 and 1048576, got 0", none),
        case("missing [topology]", WL.to_string(), "topology", "section is required", none),
        case("init_cwnd of zero BDPs", format!("{TOPO}[transport]\ninit_cwnd = \"0bdp\"\n{WL}"), "transport.init_cwnd", "must be a positive number", none),
        case("min_rto in RTTs, not a number", format!("{TOPO}[transport]\nmin_rto = \"xrtt\"\n{WL}"), "transport.min_rto", "must be a positive number", none),
        case("zero header without ack_size", format!("{TOPO}[transport]\nheader = \"0B\"\n{WL}"), "transport.header", "(0 B only with ack_size set)", none),
        case("ack of zero bytes", format!("{TOPO}[transport]\nack_size = \"0B\"\n{WL}"), "transport.ack_size", "must be between 1 and 65535", none),
        case("unknown NACK rule", format!("{TOPO}[transport]\ncc = \"hotnets_dctcp\"\nnack_decrease = \"half\"\n{WL}"), "transport.nack_decrease", "unknown value `half`", Some(&["mss", "as_mark", "halve"])),
        case("whole_segments not a bool", format!("{TOPO}[transport]\nwhole_segments = \"yes\"\n{WL}"), "transport.whole_segments", "invalid type: string \"yes\"", none),
        case("NACK rule for another cc", format!("{TOPO}[transport]\nnack_decrease = \"mss\"\n{WL}"), "transport.nack_decrease", "applies only when cc = \"hotnets_dctcp\"", none),
        case("unknown proxy scheme", format!("{TOPO}{PROXY_WL}scheme = \"relay\"\nproxy = \"s3\"\n"), "workload[0].scheme", "unknown value `relay`", Some(&["baseline", "naive", "streamlined"])),
        case("unknown proxy order", format!("{TOPO}{PROXY_WL}scheme = \"naive\"\nproxy = \"s3\"\nproxy_order = \"fifo\"\n"), "workload[0].proxy_order", "unknown value `fifo`", Some(&["round_robin", "arrival"])),
        case("proxy order without a naive proxy", format!("{TOPO}{PROXY_WL}scheme = \"streamlined\"\nproxy = \"s3\"\nproxy_order = \"arrival\"\n"), "workload[0].proxy_order", "applies only with scheme = \"naive\"", none),
        case("proxy_incast without a proxy", format!("{TOPO}{PROXY_WL}"), "workload[0].proxy", "is required (this topology has no `proxies` group)", none),
        case("proxy is the receiver", format!("{TOPO}{PROXY_WL}proxy = \"r0\"\n"), "workload[0].proxy", "must differ from the receiver", none),
        case("proxy on a plain incast", format!("{TOPO}{WL}proxy = \"s0\"\n"), "workload[0].proxy", "does not apply to kind `incast`", none),
        case("proxy_incast with bursts", format!("{TOPO}{PROXY_WL}proxy = \"s3\"\ncount = 2\n"), "workload[0].count", "does not apply to kind `proxy_incast`", none),
        case("rate samples finer than 1 us", format!("{TOPO}{WL}[record]\nrates = {{ interval = \"10ns\" }}\n"), "record.rates.interval", "must be at least 1us", none),
        case("no workload", TOPO.to_string(), "workload", "at least one [[workload]] is required", Some(WORKLOAD_KINDS)),
        case("TOML syntax error", format!("{TOPO}senders = = 3\n{WL}"), "", "TOML syntax error at line 4", none),
        case("duplicate key", format!("{TOPO}senders = 5\n{WL}"), "", "line 4: duplicate key `senders`", none),
        case(
            "step marking without threshold",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"step\" }}\n{WL}"),
            "switch.queue.marking.threshold",
            "is required for step marking",
            none,
        ),
        case(
            "RED field on a step marker",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"step\", threshold = \"65pkt\", min = \"3pkt\" }}\n{WL}"),
            "switch.queue.marking.min",
            "does not apply to kind `step`",
            none,
        ),
        case(
            "RED thresholds in different units",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"red\", min = \"10pkt\", max = \"5KB\" }}\n{WL}"),
            "switch.queue.marking.max",
            "must use the same unit as min",
            none,
        ),
        case(
            "phantom queue on a step marker",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"step\", threshold = \"5pkt\", phantom = {{ size = \"1MB\" }} }}\n{WL}"),
            "switch.queue.marking.phantom",
            "does not apply to kind `step`",
            none,
        ),
        case(
            "phantom marking with packet thresholds",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"dequeue_red\", min = \"2pkt\", max = \"9pkt\", phantom = {{ size = \"1MB\" }} }}\n{WL}"),
            "switch.queue.marking.min",
            "must be in bytes when marking from a phantom queue",
            none,
        ),
        case(
            "phantom without size",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"dequeue_red\", min = \"2KB\", max = \"9KB\", phantom = {{ slowdown = 5 }} }}\n{WL}"),
            "switch.queue.marking.phantom.size",
            "is required",
            none,
        ),
        case(
            "phantom slowdown and drain rate",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"dequeue_red\", min = \"2KB\", max = \"9KB\", phantom = {{ size = \"1MB\", slowdown = 5, drain_rate = \"9Gbps\" }} }}\n{WL}"),
            "switch.queue.marking.phantom.drain_rate",
            "give either slowdown or drain_rate, not both",
            none,
        ),
        case(
            "negative phantom slowdown",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"dequeue_red\", min = \"2KB\", max = \"9KB\", phantom = {{ size = \"1MB\", slowdown = -5.0 }} }}\n{WL}"),
            "switch.queue.marking.phantom.slowdown",
            "must be a percentage in [0, 1000], got -5",
            none,
        ),
        case(
            "RED probability on a dequeue marker",
            format!("{TOPO}[switch.queue]\nmarking = {{ kind = \"dequeue_red\", min = \"2KB\", max = \"9KB\", p_max = 0.5 }}\n{WL}"),
            "switch.queue.marking.p_max",
            "does not apply to kind `dequeue_red`",
            none,
        ),
        case("unknown multi_dc preset", format!("[topology]\nkind = \"multi_dc\"\npreset = \"uno2\"\n{WL}"), "topology.preset", "unknown value `uno2`", Some(&["hotnets25", "uno"])),
        case(
            "preset with another interconnect",
            format!("[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\ninterconnect = \"backbone\"\n{WL}"),
            "topology.interconnect",
            "preset `uno` uses interconnect `border`",
            none,
        ),
        case(
            "routers on a border interconnect",
            format!("[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\nrouters = 4\n{WL}"),
            "topology.routers",
            "does not apply to kind `border`",
            none,
        ),
        case(
            "multi_dc without long-haul delay",
            format!("[topology]\nkind = \"multi_dc\"\nfabric = \"fat_tree\"\nk = 4\ninterconnect = \"border\"\n{WL}"),
            "topology.long_haul_link.delay",
            "is required for multi_dc without a preset",
            none,
        ),
        case(
            "multi_dc without fabric",
            format!("[topology]\nkind = \"multi_dc\"\ninterconnect = \"border\"\nlong_haul_link = {{ delay = \"1ms\" }}\n{WL}"),
            "topology.fabric",
            "is required",
            Some(&["leaf_spine", "fat_tree"]),
        ),
        case("one datacenter", format!("[topology]\nkind = \"multi_dc\"\npreset = \"uno\"\ndcs = 1\n{WL}"), "topology.dcs", "must be between 2 and 16, got 1", none),
        case("datacenters on a star", format!("{TOPO}dcs = 2\n{WL}"), "topology.dcs", "does not apply to kind `star`", none),
        case("inter queue without multi_dc", format!("{TOPO}[switch.inter_queue]\nlimit = \"10pkt\"\n{WL}"), "switch.inter_queue", "applies only to topology kind `multi_dc`", none),
        case("inter queue on hosts", format!("{TOPO}[host.inter_queue]\nlimit = \"10pkt\"\n{WL}"), "host.inter_queue", "only switches have inter ports", none),
        case(
            "bad inter queue limit",
            format!("[topology]\nkind = \"multi_dc\"\npreset = \"hotnets25\"\n[switch.inter_queue]\nlimit = \"0pkt\"\n{WL}"),
            "switch.inter_queue.limit",
            "must be positive",
            none,
        ),
        case("unknown load balancer", format!("{TOPO}[routing]\nlb = \"flowlet\"\n{WL}"), "routing.lb", "unknown value `flowlet`", Some(&["ecmp", "spray", "unolb", "plb"])),
        case("trim header without trim", format!("{TOPO}[switch.queue]\ntrim_header = \"64B\"\n{WL}"), "switch.queue.trim_header", "needs trim = true", none),
        case(
            "trim header as large as a packet",
            format!("{TOPO}[switch.queue]\ntrim = true\ntrim_header = \"1500B\"\n{WL}"),
            "switch.queue.trim_header",
            "must be between 1 B and a full packet (1500 B), got 1500 B",
            none,
        ),
        case(
            "unknown control service",
            format!("{TOPO}[switch.queue]\ncontrol = {{ service = \"fair\" }}\n{WL}"),
            "switch.queue.control.service",
            "unknown value `fair`",
            Some(&["strict", "wrr"]),
        ),
        case(
            "WRR weight on strict service",
            format!("{TOPO}[switch.queue]\ncontrol = {{ service = \"strict\", weight = 20 }}\n{WL}"),
            "switch.queue.control.weight",
            "does not apply to kind `strict`",
            none,
        ),
        case("zero WRR weight", format!("{TOPO}[switch.queue]\ncontrol = {{ service = \"wrr\", weight = 0 }}\n{WL}"), "switch.queue.control.weight", "must be between 1 and 1000000, got 0", none),
        case("zero control limit", format!("{TOPO}[switch.queue]\ntrim = true\ncontrol = {{ limit = \"0pkt\" }}\n{WL}"), "switch.queue.control.limit", "must be positive", none),
        case("byte limit below one packet", format!("{TOPO}[switch.queue]\nlimit = \"1000B\"\n{WL}"), "switch.queue.limit", "1000 B cannot hold one 1500-byte packet", none),
        case("unknown bcube level", format!("[topology]\nkind = \"bcube\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\nlevel = \"tree\"\n{WL}"), "topology.level", "unknown value `tree`", Some(&["switches", "leaf_i_mod_spines"])),
        case("level on a leaf_spine", format!("[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\nlevel = \"switches\"\n{WL}"), "topology.level", "", None),
        case("unknown buffer kind", format!("{TOPO}[switch.buffer]\nkind = \"static\"\n{WL}"), "switch.buffer.kind", "unknown value `static`", Some(&["dynamic_threshold"])),
        case("buffer without kind", format!("{TOPO}[switch.buffer]\nalpha = 1.0\n{WL}"), "switch.buffer.kind", "is required", Some(&["dynamic_threshold"])),
        case("zero alpha", format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nalpha = 0.0\n{WL}"), "switch.buffer.alpha", "must be in (0, 1000000], got 0", none),
        case("negative alpha", format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nalpha = -1.0\n{WL}"), "switch.buffer.alpha", "must be in (0, 1000000], got -1", none),
        case("buffer size not a size", format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nsize = \"10Gbps\"\n{WL}"), "switch.buffer.size", "unknown unit `Gbps`", None),
        case("zero buffer", format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nper_port = \"0pkt\"\n{WL}"), "switch.buffer.per_port", "must be positive", none),
        case("buffer below one packet", format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nsize = \"1KB\"\n{WL}"), "switch.buffer.size", "1000 B cannot hold one 1500-byte packet", none),
        case(
            "buffer size and per_port",
            format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nsize = \"1MB\"\nper_port = \"100KB\"\n{WL}"),
            "switch.buffer.per_port",
            "give either size or per_port, not both",
            none,
        ),
        case("zero buffer update", format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nupdate = \"0ms\"\n{WL}"), "switch.buffer.update", "must be a positive time", none),
        case("unknown buffer field", format!("{TOPO}[switch.buffer]\nkind = \"dynamic_threshold\"\nthreshold = 3\n{WL}"), "switch.buffer.threshold", "unknown field", None),
        case("a buffer at a host", format!("{TOPO}[host.buffer]\nkind = \"dynamic_threshold\"\n{WL}"), "host.buffer", "only switches have a shared buffer ([switch.buffer])", none),
        case(
            "permutation without bytes or duration",
            format!("{TOPO}[[workload]]\nkind = \"permutation\"\n"),
            "workload[0].bytes",
            "is required unless the scenario sets `duration`",
            none,
        ),
        case(
            "flow field on an incast",
            format!("{TOPO}[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\nbytes = \"1KB\"\n"),
            "workload[0].bytes",
            "does not apply to kind `incast`",
            none,
        ),
        case(
            "both per-sender and total bytes",
            format!("{TOPO}[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\ntotal_bytes = \"20KB\"\n"),
            "workload[0].total_bytes",
            "not both",
            none,
        ),
        case(
            "repeated incast without period",
            format!("{TOPO}[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\ncount = 3\n"),
            "workload[0].period",
            "is required and positive when count > 1",
            none,
        ),
        case("flow to itself", format!("{TOPO}[[workload]]\nkind = \"flow\"\nsrc = \"s0\"\ndst = \"s0\"\nbytes = \"1KB\"\n"), "workload[0].dst", "must differ from src", none),
        case("empty flow", format!("{TOPO}[[workload]]\nkind = \"flow\"\nsrc = \"s0\"\ndst = \"r0\"\nbytes = \"0B\"\n"), "workload[0].bytes", "must be positive", none),
        case("dctcp section with newreno", format!("{TOPO}[transport]\ncc = \"newreno\"\n[transport.dctcp]\ng = 0.5\n{WL}"), "transport.dctcp", "applies only when cc = \"dctcp\"", none),
        case("DCTCP without ECN", format!("{TOPO}[transport]\necn = false\n{WL}"), "transport.ecn", "DCTCP needs ECN", none),
        case("header as large as the MTU", format!("{TOPO}[transport]\nheader = \"1500B\"\n{WL}"), "transport.header", "must be positive and below mtu", none),
        case("max_rto below min_rto", format!("{TOPO}[transport]\nmin_rto = \"1ms\"\nmax_rto = \"10us\"\n{WL}"), "transport.max_rto", "must not be below min_rto", none),
        case("zero duration", format!("duration = \"0s\"\n{TOPO}{WL}"), "duration", "must be positive", none),
        case("negative seed", format!("seed = -1\n{TOPO}{WL}"), "seed", "invalid value: integer `-1`", none),
        case("unknown port to record", format!("{TOPO}{WL}[record]\nqueues = {{ ports = \"nowhere\" }}\n"), "record.queues.ports", "no port `nowhere`", None),
        case(
            "a time beyond the scenario limit",
            format!("{TOPO}[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\nstart = \"18446744073709551000ps\"\n"),
            "workload[0].start",
            "is beyond the longest a scenario may name (1000000s)",
            none,
        ),
        case(
            "repeated incast running past the limit",
            format!("{TOPO}[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\nperiod = \"600000s\"\ncount = 3\n"),
            "workload[0].count",
            "the last burst would start beyond",
            none,
        ),
        case("framing above 1 MiB", format!("{TOPO}[transport]\nframing = \"5GB\"\n{WL}"), "transport.framing", "must be at most 1MiB", none),
        case("zero Millisampler bin", format!("{TOPO}{WL}[record]\nhosts = {{ bin = \"0ms\" }}\n"), "record.hosts.bin", "must be at least 1us", none),
        case("sub-microsecond Millisampler bin", format!("{TOPO}{WL}[record]\nhosts = {{ bin = \"1ps\" }}\n"), "record.hosts.bin", "must be at least 1us", none),
        case("device queue in bytes", format!("{TOPO}[switch.queue]\ndevice_queue = \"100KB\"\n{WL}"), "switch.queue.device_queue", "must be a packet count", none),
        case("zero device queue", format!("{TOPO}[host.queue]\ndevice_queue = \"0pkt\"\n{WL}"), "host.queue.device_queue", "must be positive", none),
        case("unknown queue schedule", format!("{TOPO}[host.queue]\nschedule = \"fair\"\n{WL}"), "host.queue.schedule", "unknown value `fair`", Some(&["fifo", "per_flow"])),
        case("queue schedule as a number", format!("{TOPO}[switch.queue]\nschedule = 1\n{WL}"), "switch.queue.schedule", "invalid type", none),
        case(
            "device queue under a byte limit",
            format!("{TOPO}[switch.queue]\nlimit = \"2MB\"\ndevice_queue = \"100pkt\"\n{WL}"),
            "switch.queue.limit",
            "must be in pkt when device_queue is set",
            none,
        ),
        case(
            "device queue under byte thresholds",
            format!("{TOPO}[switch.queue]\ndevice_queue = \"100pkt\"\nmarking = {{ kind = \"step\", threshold = \"30KB\" }}\n{WL}"),
            "switch.queue.marking",
            "thresholds must be in pkt",
            none,
        ),
        case("rpc_incast with a period", format!("{TOPO}{RPC}period = \"1ms\"\n"), "workload[0].period", "does not apply to kind `rpc_incast`", none),
        case("gap on a plain incast", format!("{TOPO}{WL}gap = \"1s\"\n"), "workload[0].gap", "does not apply to kind `incast`", none),
        case("tokens on a permutation", format!("{TOPO}[[workload]]\nkind = \"permutation\"\nbytes = \"1KB\"\ntokens = 2\n"), "workload[0].tokens", "does not apply to kind `permutation`", none),
        case("negative tokens", format!("{TOPO}{RPC}tokens = -1\n"), "workload[0].tokens", "must be between 0 and", none),
        case("token window without tokens", format!("{TOPO}{RPC}token_window = \"64KB\"\n"), "workload[0].token_window", "applies only with tokens > 0", none),
        case("empty request", format!("{TOPO}{RPC}request_bytes = \"0B\"\n"), "workload[0].request_bytes", "must be in 1 B", none),
        case("request jitter in packets", format!("{TOPO}{RPC}request_jitter = \"5pkt\"\n"), "workload[0].request_jitter", "unknown unit `pkt`", None),
        case("windows sampled too finely", format!("{TOPO}{WL}[record]\nwindows = {{ interval = \"10ns\" }}\n"), "record.windows.interval", "must be at least 1us", none),
        case("unknown port for queue events", format!("{TOPO}{WL}[record]\nqueue_events = {{ ports = \"nowhere\" }}\n"), "record.queue_events.ports", "no port `nowhere`", None),
        case("unknown ICON variant", format!("{TOPO}[transport.icon]\nvariant = \"icon2\"\n{WL}"), "transport.icon.variant", "unknown value `icon2`", Some(&["icon", "ia_icon"])),
        case("unknown ICON rate", format!("{TOPO}[transport.icon]\nrate = \"fair\"\n{WL}"), "transport.icon.rate", "unknown value `fair`", Some(&["eq1", "fair_share"])),
        case("unknown ICON scope", format!("{TOPO}[transport.icon]\npace_scope = \"some\"\n{WL}"), "transport.icon.pace_scope", "unknown value `some`", Some(&["all", "incast_only"])),
        case("unknown ICTCP field", format!("{TOPO}[transport.ictcp]\nalpah = 0.9\n{WL}"), "transport.ictcp.alpah", "unknown field", Some(&["alpha", "beta", "gamma1", "gamma2", "init_rwnd", "min_rwnd"])),
        case("ICTCP alpha above 1", format!("{TOPO}[transport.ictcp]\nalpha = 1.5\n{WL}"), "transport.ictcp.alpha", "must be in (0, 1], got 1.5", none),
        case("ICTCP beta of 1", format!("{TOPO}[transport.ictcp]\nbeta = 1.0\n{WL}"), "transport.ictcp.beta", "must be in [0, 1), got 1", none),
        case("ICTCP gamma2 below gamma1", format!("{TOPO}[transport.ictcp]\ngamma2 = 0.05\n{WL}"), "transport.ictcp.gamma2", "must be above gamma1 (0.1), got 0.05", none),
        case("ICTCP window in part-packets", format!("{TOPO}[transport.ictcp]\ninit_rwnd = \"1000B\"\n{WL}"), "transport.ictcp.init_rwnd", "must be a whole number of packets from 2 to 65535 (and at least min_rwnd) (MSS = 1460 B), got 1000 B", none),
        case("ICTCP initial window below min_rwnd", format!("{TOPO}[transport.ictcp]\ninit_rwnd = \"1pkt\"\n{WL}"), "transport.ictcp.init_rwnd", "from 2 to 65535", none),
        case("ICTCP window of 0", format!("{TOPO}[transport.ictcp]\nmin_rwnd = \"0pkt\"\n{WL}"), "transport.ictcp.min_rwnd", "must be a whole number of packets from 1 to 65535 (MSS = 1460 B), got 0 B", none),
        case("ICTCP window beyond an ACK's field", format!("{TOPO}[transport.ictcp]\ninit_rwnd = \"65536pkt\"\n{WL}"), "transport.ictcp.init_rwnd", "from 2 to 65535", none),
        case("ICTCP window without a unit", format!("{TOPO}[transport.ictcp]\ninit_rwnd = \"10\"\n{WL}"), "transport.ictcp.init_rwnd", "has no unit", None),
        case("ICON beside the base-RTT pacer", format!("{TOPO}[transport]\npacing = true\n[transport.icon]\n{WL}"), "transport.pacing", "cannot be combined with [transport.icon]", none),
        case("inline sizes with one bound", format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes = \"uniform 8KB\"\n"), "workload[0].sizes", "`uniform 8KB`: uniform takes two sizes, got 1", Some(SIZE_FORMS)),
        case("inline sizes reversed", format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes = \"uniform 32KB 8KB\"\n"), "workload[0].sizes", "uniform needs 0 < min <= max", Some(SIZE_FORMS)),
        case("inline size without a unit", format!("duration = \"1ms\"\n{TOPO}{PINCAST}degree = 2\nsizes = \"constant 1000\"\n").replace("sizes = \"uniform 8KB 32KB\"\n", ""), "workload[0].sizes", "size `1000` has no unit", Some(SIZE_FORMS)),
        case("sampling of an inline distribution", format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes = \"constant 1MB\"\nsampling = \"discrete\"\n"), "workload[0].sampling", "applies only to sizes from a CDF file", none),
        case("poisson_incast without sizes", format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson_incast\"\nload = 0.5\ndegree = 2\n"), "workload[0].sizes", "is required", Some(SIZE_FORMS)),
        case("unknown capacity", format!("duration = \"1ms\"\n{TOPO}{PINCAST}degree = 2\ncapacity = \"bisection\"\n"), "workload[0].capacity", "unknown value `bisection`: give a rate such as \"2Tbps\", or one of", Some(&["hosts", "uplinks"])),
        case("zero capacity", format!("duration = \"1ms\"\n{TOPO}{PINCAST}degree = 2\ncapacity = \"0Gbps\"\n"), "workload[0].capacity", "must be positive", none),
        case("uplinks of a star", format!("duration = \"1ms\"\n{TOPO}{PINCAST}degree = 2\ncapacity = \"uplinks\"\n"), "workload[0].capacity", "this topology has no links from a host-facing switch to another switch", none),
        case("poisson_incast without a degree", format!("duration = \"1ms\"\n{LEAF_SPINE}{PINCAST}"), "workload[0].degree", "is required", none),
        case("aggregator_incast without aggregators", format!("duration = \"1ms\"\n{LEAF_SPINE}{AGG}"), "workload[0].aggregators", "is required", none),
        case("aggregator_incast with too few senders", format!("duration = \"1ms\"\n{LEAF_SPINE}{AGG}aggregators = [\"h3\"]\ndegree = 4\nsenders = [\"h0\", \"h1\", \"h3\"]\n"), "workload[0].degree", "only 2 hosts besides", none),
        case("aggregator_incast with a bound below its mean", format!("duration = \"1ms\"\n{LEAF_SPINE}{AGG}aggregators = [\"h3\"]\ndegree = 1\nsenders = [\"h0\"]\njitter = \"10us\"\njitter_max = \"5us\"\n"), "workload[0].jitter_max", "at least `jitter`", none),
        case("discrete sizes that do not sum to 1", format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes = \"discrete 1KiB:0.5 2KiB:0.4\"\n"), "workload[0].sizes", "sum to 0.9", Some(SIZE_FORMS)),
        case("poisson_incast of degree 0", format!("duration = \"1ms\"\n{LEAF_SPINE}{PINCAST}degree = 0\n"), "workload[0].degree", "must be between 1 and", none),
        case("poisson_incast as wide as its hosts", format!("duration = \"1ms\"\n{LEAF_SPINE}{PINCAST}degree = 4\n"), "workload[0].degree", "is 4 but an event's senders must be fewer than the 4 hosts", none),
        case("poisson_incast with a receiver", format!("duration = \"1ms\"\n{LEAF_SPINE}{PINCAST}degree = 2\nreceiver = \"h0\"\n"), "workload[0].receiver", "does not apply to kind `poisson_incast`", none),
        case("poisson_incast load above 1", format!("duration = \"1ms\"\n{LEAF_SPINE}{PINCAST}degree = 2\n").replace("0.5", "2"), "workload[0].load", "must be in (0, 1], got 2", none),
        case("poisson_incast with no end", format!("{LEAF_SPINE}{PINCAST}degree = 2\n"), "workload[0].stop", "is required unless the scenario sets `duration` or [measure]", none),
        case("poisson_incast stopping before it starts", format!("duration = \"1ms\"\n{LEAF_SPINE}{PINCAST}degree = 2\nstart = \"1ms\"\nstop = \"1ms\"\n"), "workload[0].stop", "must be after start", none),
        case("capacity on an incast", format!("{TOPO}{WL}capacity = \"hosts\"\n"), "workload[0].capacity", "does not apply to kind `incast`", none),
        case("measure without until", format!("duration = \"1ms\"\n{TOPO}{WL}[measure]\nfrom = \"0.1ms\"\n"), "measure.until", "is required", none),
        case("measure without from", format!("duration = \"1ms\"\n{TOPO}{WL}[measure]\nuntil = \"0.1ms\"\n"), "measure.from", "is required", none),
        case("measure window backwards", format!("duration = \"1ms\"\n{TOPO}{WL}[measure]\nfrom = \"0.5ms\"\nuntil = \"0.5ms\"\n"), "measure.until", "must be after from", none),
        case("measure beyond the duration", format!("duration = \"1ms\"\n{TOPO}{WL}[measure]\nfrom = \"0.5ms\"\nuntil = \"2ms\"\n"), "measure.until", "must not be after the run's end (duration, else max_duration)", none),
        case("measure beyond max_duration", format!("max_duration = \"1ms\"\n{TOPO}{WL}[measure]\nfrom = \"0.5ms\"\nuntil = \"2ms\"\n"), "measure.until", "must not be after the run's end", none),
        case("measure time without unit", format!("{TOPO}{WL}[measure]\nfrom = \"5\"\nuntil = \"2ms\"\n"), "measure.from", "has no unit", Some(TIME_UNITS)),
        case("unknown field in measure", format!("{TOPO}{WL}[measure]\nfrom = \"0ms\"\nto = \"2ms\"\n"), "measure.to", "unknown field", Some(&["from", "until"])),
        case("measure with request/response bursts", format!("{TOPO}{RPC}[measure]\nfrom = \"0ms\"\nuntil = \"2ms\"\n"), "measure", "does not apply with an rpc_incast workload (workload[0])", none),
        case("sub-nanosecond queue sampling", format!("{TOPO}{WL}[record]\nqueues = {{ interval = \"10ps\" }}\n"), "record.queues.interval", "must be at least 1ns", none),
    ]
}

#[test]
fn malformed_scenarios_give_precise_errors() {
    let cases = cases();
    assert!(cases.len() >= 14);
    check(&cases, &loader);
}

#[test]
fn empty_cdf_file() {
    let empty = |_: &str| -> Result<String, String> { Ok("# name: empty\n# columns: size_bytes cdf_percent\n\n".into()) };
    let toml = format!("duration = \"1ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 0.5\nsizes = \"x.txt\"\n");
    let e = parse_scenario(&toml, &empty).unwrap_err();
    assert_eq!(e, ScenarioError::new("workload[0].sizes", "`x.txt` has no data rows"));
    // A loader error is passed through with the file's name.
    let failing = |name: &str| -> Result<String, String> { Err(format!("{name} is not packaged")) };
    let e = parse_scenario(&toml, &failing).unwrap_err();
    assert_eq!(e.path, "workload[0].sizes");
    assert!(e.message.contains("cannot read `x.txt`: x.txt is not packaged"), "{e}");
    // A CDF that does not reach 1.
    let short = |_: &str| -> Result<String, String> { Ok("100 0.5\n200 0.9\n".into()) };
    let e = parse_scenario(&toml, &short).unwrap_err();
    assert_eq!(e.path, "workload[0].sizes");
    assert!(e.message.contains("not 1"), "{e}");
}

/// A topology with more ports than an event can name is refused as it is read, before any
/// table is built for it (a 4,096 x 2,048 leaf-spine: 16,785,408 ports, just past 2^24),
/// and one just below the limit is not refused for its size.
#[test]
fn more_ports_than_a_run_addresses() {
    let leaf_spine = |spines: u32| format!("[topology]\nkind = \"leaf_spine\"\nleaves = 4096\nspines = {spines}\nhosts_per_leaf = 1\n{WL}receiver = \"h0\"\n");
    let e = parse_scenario(&leaf_spine(2048), &loader).unwrap_err();
    assert_eq!(e.path, "topology.kind");
    assert!(e.message.contains("16785408 ports, more than the 16777215 a run can address"), "{e}");
    // 4,096 x 2,047 fabric links and 4,096 host links: 2 x 4,096 x 2,048 = 2^24 ports, the
    // smallest count refused.
    assert!(parse_scenario(&leaf_spine(2047), &loader).unwrap_err().message.contains("16777216 ports"));
    // Two spines: far below, read as usual.
    assert!(parse_scenario(&leaf_spine(2), &loader).is_ok());
}

/// Extreme but valid values run and end instead of wrapping time around.
#[test]
fn extreme_values_run_and_end() {
    // A vanishing Poisson load: the mean gap (~10^22 ps) exceeds u64 picoseconds; it used
    // to saturate, wrap `now + gap` into the past and create flows until memory ran out.
    let toml = format!("duration = \"2ms\"\n{TOPO}[[workload]]\nkind = \"poisson\"\nload = 1e-20\nstart = \"1ms\"\nsizes = \"inline_cdf.txt\"\n");
    let r = run_inline(&toml);
    assert_eq!(r.scalar("flows"), Some(0.0));
    // The latest start allowed, with jitter: the flows start then, not at a wrapped time.
    let toml = format!("max_duration = \"1000000s\"\n{TOPO}[[workload]]\nkind = \"incast\"\ndegree = 2\nbytes_per_sender = \"10KB\"\nstart = \"999999s\"\njitter = \"1s\"\n");
    let r = run_inline(&toml);
    let starts = common::u64s(&r, "flows", "start_ps");
    assert!(starts.iter().all(|&t| t >= 999_999 * 1_000_000_000_000), "{starts:?}");
    assert!(common::bools(&r, "flows", "completed").iter().all(|c| *c));
}

/// A valid scenario touching most sections, to be mutated.
const VALID: &str = r#"name = "fuzz"
seed = 3
duration = "2ms"
[topology]
kind = "dumbbell"
senders = 6
receivers = 2
host_link = { rate = "10Gbps", delay = "1us" }
core_link = { rate = "40Gbps", delay = "2us" }
[switch.queue]
limit = "100pkt"
marking = { kind = "red", min = "10pkt", max = "30pkt", p_max = 0.1, weight = 0.02 }
[host.queue]
limit = "200KB"
[transport]
cc = "dctcp"
mtu = "1500B"
init_cwnd = "10pkt"
min_rto = "1ms"
delayed_ack = 2
[transport.dctcp]
g = 0.0625
[transport.ictcp]
beta = 0.75
init_rwnd = "10pkt"
[[workload]]
kind = "incast"
receiver = "r0"
degree = 4
bytes_per_sender = "20KB"
jitter = "5us"
period = "500us"
count = 2
[[workload]]
kind = "poisson"
load = 0.3
sizes = "inline_cdf.txt"
hosts = ["s0", "s1", "r1"]
[[workload]]
kind = "flow"
src = "s5"
dst = "r1"
bytes = "100KB"
start = "10us"
[[workload]]
kind = "poisson_incast"
load = 0.2
degree = 3
sizes = "uniform 8KB 32KB"
capacity = "uplinks"
[measure]
from = "5us"
until = "15us"
[record]
queues = { ports = "bottleneck", interval = "10us" }
hosts = { bin = "1ms" }
[[event]]
at = "10us"
link = "core"
action = "drop"
block_losses = [0.1, 0.05]
[[event]]
at = "15us"
link = ["tor_a<->tor_b", "s1->tor_b"]
action = "fail"
"#;

const ALPHABET: &[char] = &['0', '1', '9', '-', '.', '"', '=', '[', ']', '{', '}', ',', ' ', '\n', 'a', 'k', 's', 'µ', '\u{0}', '#', '\'', 'e', '_', '\\'];

fn mutate(rng: &mut Xoshiro256PlusPlus) -> String {
    let mut lines: Vec<String> = VALID.lines().map(str::to_string).collect();
    let edits = if rng.gen_bool(0.6) { 1 } else { rng.gen_range(2..=4) };
    for _ in 0..edits {
        match rng.gen_range(0..5) {
            // Replace, insert or delete one character.
            0 | 1 => {
                let l = rng.gen_range(0..lines.len());
                let mut chars: Vec<char> = lines[l].chars().collect();
                let i = rng.gen_range(0..=chars.len());
                match rng.gen_range(0..3) {
                    0 if i < chars.len() => chars[i] = ALPHABET[rng.gen_range(0..ALPHABET.len())],
                    1 if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ => chars.insert(i, ALPHABET[rng.gen_range(0..ALPHABET.len())]),
                }
                lines[l] = chars.into_iter().collect();
            }
            // Delete a line.
            2 => {
                let l = rng.gen_range(0..lines.len());
                lines.remove(l);
            }
            // Swap the values of two `key = value` lines.
            3 => {
                let with_value: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(" = ")).collect();
                let (a, b) = (with_value[rng.gen_range(0..with_value.len())], with_value[rng.gen_range(0..with_value.len())]);
                let (ka, va) = lines[a].split_once(" = ").map(|(k, v)| (k.to_string(), v.to_string())).unwrap();
                let (kb, vb) = lines[b].split_once(" = ").map(|(k, v)| (k.to_string(), v.to_string())).unwrap();
                lines[a] = format!("{ka} = {vb}");
                lines[b] = format!("{kb} = {va}");
            }
            // Duplicate a line somewhere else.
            _ => {
                let (a, b) = (rng.gen_range(0..lines.len()), rng.gen_range(0..lines.len()));
                let l = lines[a].clone();
                lines.insert(b, l);
            }
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_scenarios_never_panic() {
    assert!(parse_scenario(VALID, &loader).is_ok());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
    let (mut accepted, mut rejected) = (0, 0);
    let mut seen_paths = std::collections::BTreeSet::new();
    for i in 0..2000 {
        let text = mutate(&mut rng);
        let result = std::panic::catch_unwind(|| parse_scenario(&text, &loader));
        let parsed = match result {
            Ok(p) => p,
            Err(_) => panic!("mutation {i} panicked the parser:\n{text}"),
        };
        match parsed {
            Ok(spec) => {
                accepted += 1;
                // Keep the build cheap: mutations can only grow the dumbbell a little.
                assert!(spec.topology.hosts.len() < 1000, "mutation {i}");
                let built = std::panic::catch_unwind(|| {
                    let mut sim = Simulation::new(&spec).expect("an accepted scenario builds");
                    sim.run_until(20_000_000); // 20 us
                    sim.conservation()
                });
                match built {
                    Ok(c) => assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "mutation {i}"),
                    Err(_) => panic!("mutation {i} was accepted but panicked when built or run:\n{text}"),
                }
            }
            Err(e) => {
                rejected += 1;
                assert!(!e.message.is_empty(), "mutation {i}: empty message");
                seen_paths.insert(e.path.split('.').next().unwrap_or("").to_string());
            }
        }
    }
    eprintln!("fuzz: {accepted} accepted, {rejected} rejected; {} distinct error roots", seen_paths.len());
    // Both outcomes are exercised, and errors come from many sections.
    assert!(accepted > 100 && rejected > 1000);
    assert!(seen_paths.len() >= 6, "{seen_paths:?}");
}
