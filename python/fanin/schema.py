"""The scenario format as a JSON Schema (draft 2020-12), for editors: ``fanin schema``.

The engine defines the format (crates/engine/src/scenario/, docs/scenario.md) and stays the
judge. The schema lets an editor (Taplo, Even Better TOML) complete field names and flag a
misspelt key, a wrong type, an unknown choice or a quantity without its unit while a file is
written. It checks less than the engine: nothing that depends on another field's value
beyond `kind`, nor host names or files. tests/test_schema.py compares every field list and
choice list here with what the engine accepts.
"""

from __future__ import annotations

from fanin.schema_fields import (
    Schema,
    field as _field,
    TIME,
    RATE,
    BYTES,
    SIZE,
    PACKETS,
    TIME_OR_RTTS,
    SIZE_OR_BDPS,
    SIZE_OR_UNLIMITED,
    integer as _int,
    fraction as _fraction,
    boolean as _bool,
    choice as _choice,
    string as _string,
    ref as _ref,
    table as _table,
    by_kind as _by_kind,
    TIME_UNITS,  # the unit lists are also read from here by tests
    RATE_UNITS,
    BYTE_UNITS,
    SIZE_UNITS,
)
from fanin.schema_workload import workload_schema

# Closed choices, in the order the engine lists them in an error's `allowed`.
TOPOLOGY_KINDS = ["dumbbell", "star", "leaf_spine", "fat_tree", "multi_dc", "subways", "bcube", "jellyfish"]
PRESETS = ["hotnets25", "uno"]
FABRICS = ["leaf_spine", "fat_tree"]
INTERCONNECTS = ["backbone", "border"]
MARKING_KINDS = ["none", "step", "red", "dequeue_red"]
BUFFER_KINDS = ["dynamic_threshold"]
BCUBE_LEVELS = ["switches", "leaf_i_mod_spines"]
SCHEDULES = ["fifo", "per_flow"]
SERVICES = ["strict", "wrr"]
CC_KINDS = ["newreno", "dctcp", "hotnets_dctcp", "uno", "gemini", "mprdma", "bbr"]
RECOVERY_KINDS = ["linux", "ns3", "basic"]
ECN_ECHOES = ["dctcp", "classic"]
NACK_DECREASES = ["mss", "as_mark", "halve"]
TIMESTAMPS = ["sender", "first_switch"]
RTO_KINDS = ["adaptive", "per_packet"]
MPRDMA_VARIANTS = ["a", "b"]
ERASURE_SCOPES = ["inter", "all"]
LB_KINDS = ["ecmp", "spray", "unolb", "plb"]
SHORTCUT_TARGETS = ["spines", "leaves"]
EVENT_ACTIONS = ["fail", "recover", "drop"]
DROP_PRESETS = ["uno_setup1", "uno_setup2"]

# ------------------------------------------------------------------ sections


def _topology() -> Schema:
    link = "link: { rate, delay }"
    table = _table(
        {
            "kind": _choice(TOPOLOGY_KINDS, "the network's shape"),
            "host_link": _ref("link", f"every host's {link}; the fallback of the other links (10Gbps, 1us)"),
            "senders": _int("sender hosts s0...", 1, 1 << 20),
            "receivers": _int("receiver hosts r0...", 1, 1 << 20, 1),
            "sender_link": _ref("link", f"the senders' {link} (default host_link)"),
            "receiver_link": _ref("link", f"the receivers' {link} (default host_link)"),
            "core_link": _ref("link", f"dumbbell: the {link} between the two switches (none: a star)"),
            "leaves": _int("leaf switches", 1, 4096),
            "spines": _int("spine switches", 1, 4096),
            "hosts_per_leaf": _int("hosts under each leaf", 1, 4096),
            "k": _int("fat-tree arity (even)", 2, 64),
            "fabric_link": _ref("link", f"switch-to-switch {link} (default host_link)"),
            "leaf_ports": _int("jellyfish: network ports of each outer (leaf) switch", 1, 4096),
            "spine_ports": _int("jellyfish: network ports of each inner (spine) switch", 0, 4096, 0),
            "level": _choice(BCUBE_LEVELS, "bcube: BCube(n, 1) switches, or the Superways code's leaf i mod spines"),
            "superways": _superways(),
            "preset": _choice(PRESETS, "multi_dc: fills every field not given, and the switch queues"),
            "dcs": _int("multi_dc: datacenters", 2, 16, 2),
            "fabric": _choice(FABRICS, "multi_dc: each datacenter's topology"),
            "interconnect": _choice(INTERCONNECTS, "multi_dc: how the datacenters are joined"),
            "routers": _int("multi_dc backbone: backbone routers", 1, 65_536, 64),
            "border_links": _int("multi_dc border: parallel links from each top switch to its border", 1, 1024, 8),
            "wan_links": _int("multi_dc border: parallel links between each pair of borders", 1, 65_536, 8),
            "long_haul_link": _ref("link", f"multi_dc: the long-haul {link}"),
            "border_link": _ref("link", f"multi_dc border: top switch to border {link} (default fabric_link)"),
        },
        "The network ([topology] in docs/scenario.md).",
        required=("kind",),
    )
    star = ["host_link", "senders", "receivers", "sender_link", "receiver_link"]
    multi_dc = ["host_link", "fabric_link", "leaves", "spines", "hosts_per_leaf", "k", "preset", "dcs", "fabric"]
    multi_dc += ["interconnect", "routers", "border_links", "wan_links", "long_haul_link", "border_link"]
    leaf_spine = ["host_link", "leaves", "spines", "hosts_per_leaf", "fabric_link", "superways"]
    fields = {
        "dumbbell": [*star, "core_link"],
        "star": star,
        "leaf_spine": leaf_spine,
        "fat_tree": ["host_link", "k", "fabric_link"],
        "multi_dc": multi_dc,
        "subways": leaf_spine,
        "bcube": [*leaf_spine, "level"],
        "jellyfish": [*leaf_spine, "leaf_ports", "spine_ports"],
    }
    return _by_kind(table, "kind", fields)


def _superways() -> Schema:
    server = _table(
        {
            "server": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}], "description": 'a host: "h19" or 19'},
            "links": _int("extra links of this server", 1, 64),
            "spines": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "description": "the spine of each link (default 0, 1, ...; a spine twice: a LAG)",
            },
            "leaf_senders": _int("the heuristic's split: its first incast senders through its leaf", 0),
        },
        "an incast server and its extra links",
        required=("server", "links"),
    )
    return _table(
        {
            "servers": {"type": "array", "items": server, "description": "the incast servers (or per_rack)"},
            "per_rack": _int("server number within each rack, in every rack (with links)", 0),
            "links": _int("per_rack: extra links per server, to spines 0, 1, ...", 1, 64),
            "link": _ref("link", "the extra links' rate and delay (default fabric_link)"),
            "to": _choice(SHORTCUT_TARGETS, "where the extra links go: spines (Superways), or the next racks' leaves (Fig. 12)", "spines"),
            "leaf_senders": _int("per_rack: each server's leaf_senders", 0),
        },
        "Superways: extra links from incast servers straight to spine switches.",
    )


def _marking() -> Schema:
    table = _table(
        {
            "kind": _choice(MARKING_KINDS, "the ECN marking policy"),
            "threshold": SIZE("step: mark when the backlog ahead has reached this"),
            "min": SIZE("RED: lower threshold"),
            "max": SIZE("RED: upper threshold, same unit as min"),
            "p_max": _fraction("red: marking probability at max", 0.02),
            "weight": _fraction("red: EWMA weight of the average queue", 0.002),
            "gentle": _bool("red: probability rises to 1 at 2 max", True),
            "wait": _bool("red: space marks by the count since the last one", True),
            "phantom": _table(
                {
                    "size": BYTES("the phantom counter's cap"),
                    "slowdown": _field(
                        {"type": "number", "minimum": 0, "maximum": 1000}, "drain slower than line rate, percent", 10
                    ),
                    "drain_rate": RATE("drain one packet per packet time at this rate (not with slowdown)"),
                },
                "dequeue_red: mark from Uno's phantom queue instead of the data queue",
            ),
        },
        "ECN marking of this queue.",
        required=("kind",),
    )
    red = ["min", "max", "p_max", "weight", "gentle", "wait"]
    fields = {"none": [], "step": ["threshold"], "red": red, "dequeue_red": ["min", "max", "phantom"]}
    return _by_kind(table, "kind", fields)


def _queue() -> Schema:
    control = _table(
        {
            "limit": SIZE_OR_UNLIMITED("drop-tail limit of the control queue (default twice the data queue's)"),
            "service": _choice(SERVICES, "control first, or weighted round-robin", "strict"),
            "weight": _int("wrr: control packets served per data packet", 1, 1_000_000, 20),
        },
        "A control queue for header-only packets (ACKs, NACKs, trimmed headers).",
    )
    return _table(
        {
            "limit": SIZE("drop-tail limit (switch default 1000pkt; hosts unlimited)"),
            "marking": {"$ref": "#/$defs/marking"},
            "trim": _bool("cut a data packet that would overflow to its header", False),
            "trim_header": BYTES("wire bytes a trimmed packet keeps", "64B"),
            "control": _by_kind(control, "service", {"strict": ["limit"], "wrr": ["limit", "weight"]}, "strict"),
            "device_queue": PACKETS("a device FIFO of this many packets under the queue (ns-3)"),
            "schedule": _choice(SCHEDULES, "order in which waiting data packets leave", "fifo"),
        },
        "An output queue.",
    )


def _transport() -> Schema:
    cc_by_class = _table(
        {
            "intra": _choice(CC_KINDS, "flows within a datacenter", "dctcp"),
            "inter": _choice(CC_KINDS, "flows between datacenters (default intra)"),
        },
        "one algorithm per flow class",
    )
    cc = {
        "anyOf": [_choice(CC_KINDS, "every flow"), cc_by_class],
        "description": "congestion control",
        "default": "dctcp",
    }
    return _table(
        {
            "cc": cc,
            "recovery": _choice(RECOVERY_KINDS, "loss-recovery model (linux for newreno/dctcp, else basic)"),
            "mtu": BYTES("IP packet size of a full segment", "1500B"),
            "header": BYTES("IP + TCP header bytes per packet", "40B"),
            "framing": BYTES("per-frame bytes on the wire beyond the IP packet", "0B"),
            "init_cwnd": SIZE_OR_BDPS('initial window; pkt means MSS here; or "<x>bdp"', "10pkt"),
            "min_cwnd": SIZE("floor of window reductions; pkt means MSS", "2pkt"),
            "min_rto": TIME_OR_RTTS('lower bound of the RTO; or "<x>rtt"', "200ms"),
            "initial_rto": TIME_OR_RTTS('RTO before the first RTT sample; or "<x>rtt"', "1s"),
            "max_rto": TIME("upper bound of the backed-off RTO", "60s"),
            "rto_granularity": TIME("RFC 6298's clock granularity G", "0s"),
            "sack": _bool("use SACK information for loss detection", True),
            "dupack_threshold": _int("duplicate ACKs that declare a loss", 1, 1000, 3),
            "delayed_ack": _int("ACK every n-th in-order segment", 1, 64, 1),
            "delayed_ack_timeout": TIME("delayed-ACK timer", "1ms"),
            "ecn": _bool("send packets ECN-capable (false only for newreno by default)"),
            "ecn_echo": _choice(ECN_ECHOES, "how the receiver echoes CE"),
            "rwnd": SIZE("static receive-window clamp; pkt means MSS"),
            "pacing": _bool("pace data packets (default on with window senders)"),
            "sub_packet_pacing": _bool(
                "Swift-style: a window below one segment (min_cwnd under 1 MSS) sends one segment every MSS/window RTTs; dctcp or newreno",
                False,
            ),
            "timestamp": _choice(TIMESTAMPS, "where a data packet gets the stamp its ACK echoes", "sender"),
            "rto": _choice(RTO_KINDS, "RFC 6298 RTO, or a deadline per packet (window senders' default)"),
            "rto_margin": TIME('rto = "per_packet": margin over the base RTT'),
            "rto_margin_inter": TIME('rto = "per_packet": added for flows between datacenters'),
            "base_rtt": TIME("base RTT of flows within a datacenter (default computed)"),
            "base_rtt_inter": TIME("base RTT of flows between datacenters (default computed)"),
            "ack_size": BYTES("wire bytes of an ACK or NACK (default header + framing)"),
            "fast_retransmit": _bool("loss detection by duplicate ACKs and SACK gaps", True),
            "whole_segments": _bool("round every flow up to whole segments (htsim)", False),
            "nack_decrease": _choice(NACK_DECREASES, "hotnets_dctcp: what a NACK does to the window", "mss"),
            "dctcp": _table(
                {
                    "g": _fraction("EWMA gain of alpha", 0.0625),
                    "alpha_init": _fraction("alpha before the first update", 1.0, closed=True),
                },
                'cc = "dctcp" or "hotnets_dctcp" only',
            ),
            "uno": _table({"g": _fraction("EWMA gain of the per-epoch ECN fraction", 0.5)}, 'cc = "uno" only'),
            "gemini": _table(
                {
                    "t": TIME("delay threshold above the base RTT", "5ms"),
                    "h": _fraction("additive increase per RTT as a fraction of the inter BDP", 0.00024),
                },
                'cc = "gemini" only',
            ),
            "mprdma": _table(
                {"variant": _choice(MPRDMA_VARIANTS, "a: d = 0.5; b: d = 0.15", "a")}, 'cc = "mprdma" only'
            ),
            "bbr": _table(
                {
                    "initial_bw": RATE("the pacing bandwidth STARTUP starts from", "10Gbps"),
                    "pacing_floor": RATE("the least bandwidth pacing assumes", "3Gbps"),
                },
                'cc = "bbr" only',
            ),
            "icon": _table(
                {
                    "variant": _choice(["icon", "ia_icon"], "icon: pace by the announced incast degree; ia_icon: n = 1", "icon"),
                    "rate": _choice(["eq1", "fair_share"], "eq1: window / (RTT x n); fair_share: min(cwnd/RTT, C/n)", "eq1"),
                    "pace_scope": _choice(["all", "incast_only"], "which flows are paced", "all"),
                },
                "ICON's pacing by incast degree; present = on (not with pacing = true)",
            ),
            "ictcp": _table(
                {
                    "alpha": _fraction("share of the receiver's link C: BW_A = max(0, alpha x C - BW_T)", 0.9),
                    "beta": _fraction("weight of the old b_m in its moving average, in [0, 1)", 0.75, closed=True),
                    "gamma1": _fraction("a window may grow while d <= gamma1 (or d <= MSS / rwnd)", 0.1),
                    "gamma2": _fraction("d above gamma2 three RTTs in a row: the window loses 1 MSS; above gamma1", 0.5),
                    "init_rwnd": SIZE("first advertised window, whole MSS (pkt means MSS)", "10pkt"),
                    "min_rwnd": SIZE("smallest advertised window, whole MSS", "2pkt"),
                },
                "ICTCP's receiver windows (a receiver-side policy, any cc); present = on, {} = the paper's values",
            ),
            "erasure": _table(
                {
                    "data": _int("data packets per block (the flow is padded to whole blocks)", 1, 31, 8),
                    "parity": _int("parity packets per block; data + parity <= 32", 1, 31, 2),
                    "ec_wait": TIME("a block's wait before its parity NACK (default 5 Ql; + 3 Ql_inter between DCs)"),
                    "scope": _choice(ERASURE_SCOPES, "which flows are coded", "inter"),
                },
                "UnoRC's erasure-coded blocks, any cc (recovery = basic); present = on, {} = (8, 2) on inter-DC flows",
            ),
        },
        "The one transport every flow uses.",
    )


def _record() -> Schema:
    def interval(default: str, floor: str) -> Schema:
        return TIME(f"sampling period, at least {floor}", default)

    return _table(
        {
            "flows": {
                "anyOf": [
                    _bool("produce the flows table", True),
                    _choice(["stream"], "produce it as the run goes, freeing finished flows (millions of flows)"),
                ]
            },
            "queues": _table(
                {
                    "ports": _ref("port_set", 'ports to sample (default "bottleneck")'),
                    "interval": interval("10us", "1ns"),
                },
                "queue-depth series ({} for the defaults)",
            ),
            "hosts": _table(
                {
                    "bin": TIME("bin width, at least 1us", "1ms"),
                    "hosts": _ref("host_set", 'hosts to count (default "all")'),
                },
                "Millisampler-style per-host counters ({} for the defaults)",
            ),
            "queue_events": _table(
                {"ports": _ref("port_set", 'ports to trace (default "bottleneck")')},
                "queue length at every change",
            ),
            "windows": _table({"interval": interval("10us", "1us")}, "every active flow's cwnd, in flight and alpha"),
            "rates": _table({"interval": interval("100us", "1us")}, "every connection's bytes per interval"),
        },
        "What is recorded beyond the flows, incasts and ports tables.",
    )


def _event() -> Schema:
    table = _table(
        {
            "at": TIME("from this instant on, packets offered to the link meet the change"),
            "link": _names(
                '"inter", a named port ("bottleneck"), "from->to" (one direction) or "a<->b" (both),'
                ' "#k" after either for the k-th of parallel links; or a list'
            ),
            "action": _choice(EVENT_ACTIONS, "fail (black-holed, routes unchanged), recover, or drop (a drop model)"),
            "probability": _fraction("drop: each packet is lost with this probability", closed=True),
            "block": _int("drop with block_losses: packets per block", 1, 64, 10),
            "block_losses": {
                "type": "array",
                "items": _fraction("probability", closed=True),
                "minItems": 1,
                "description": "drop: P(1 loss), P(2 losses), ... per block (sum at most 1)",
            },
            "preset": _choice(DROP_PRESETS, "drop: the per-block loss rates of Uno's Table 1, blocks of 10"),
        },
        "A change of one or more links at an instant ([[event]] in docs/scenario.md).",
        required=("at", "link", "action"),
    )
    drop = ["at", "link", "probability", "block", "block_losses", "preset"]
    return _by_kind(table, "action", {"fail": ["at", "link"], "recover": ["at", "link"], "drop": drop})


def _names(what: str) -> Schema:
    return {
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}],
        "description": what,
    }


def scenario_schema() -> Schema:
    """The JSON Schema of a scenario file (a new dict each call)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "fanin scenario",
        "description": "A fanin scenario file (docs/scenario.md). `fanin validate` has the last word.",
        "type": "object",
        "additionalProperties": False,
        "required": ["topology", "workload"],
        "properties": {
            "name": _string("a label", "scenario"),
            "seed": _int("root of every random stream", 0, 2**63 - 1, 1),
            "duration": TIME("hard stop; by default the run ends when the work does"),
            "max_duration": TIME("safety cap when duration is not set", "10s"),
            "topology": {"$ref": "#/$defs/topology"},
            "switch": _table(
                {
                    "queue": _ref("queue", "every switch egress port"),
                    "inter_queue": _ref("queue", "multi_dc: the inter ports (default [switch.queue])"),
                    "buffer": _table(
                        {
                            "kind": _choice(BUFFER_KINDS, "Dynamic Threshold (Choudhury & Hahne)"),
                            "alpha": _field(
                                {"type": "number", "exclusiveMinimum": 0, "maximum": 1e6},
                                "a port may hold alpha times the free buffer",
                                1.0,
                            ),
                            "size": SIZE("every switch's buffer B (in pkt: counts packets)"),
                            "per_port": SIZE("B = the switch's ports x this (default [switch.queue] limit); not with size"),
                            "update": TIME("periodic variant: T = alpha (B - inactive q) / (1 + alpha active), every update"),
                        },
                        "A buffer shared by each switch's egress ports; admit to port i iff"
                        " q_i + pkt <= alpha (B - sum q) and sum q + pkt <= B.",
                        required=("kind",),
                    ),
                },
            ),
            "host": _table(
                {
                    "queue": _ref("queue", "every host NIC (default unlimited, unmarked)"),
                    "tsq": _bool("TCP Small Queues (default on with the Linux model and no [host.queue])"),
                    "limit_output": BYTES("tcp_limit_output_bytes", "1MiB"),
                },
            ),
            "transport": {"$ref": "#/$defs/transport"},
            "workload": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/workload"}},
            "event": {"type": "array", "items": {"$ref": "#/$defs/event"}},
            "record": {"$ref": "#/$defs/record"},
            "measure": _table(
                {
                    "from": TIME("measure flows and incasts starting at or after this"),
                    "until": TIME("...and before this; then the run ends once they have"),
                },
                "The measured window: Poisson arrivals go on past it until its flows finish.",
                required=("from", "until"),
            ),
            "partition": _table(
                {
                    "by": _choice(["pod"], "pod: parts of whole pods (fat_tree), cores dealt in turn"),
                    "parts": _int("how many parts (at most the pods); the same tables on any number of threads", 2, 1 << 20, 2),
                },
                "The run cut into parts that advance in parallel (--threads); its tables are its own,"
                " the same on one thread as on many.",
                required=("by",),
            ),
            "routing": _by_kind(
                _table(
                    {
                        "lb": _choice(LB_KINDS, "per-flow ECMP, per-packet spraying, Uno's subflows, or PLB", "ecmp"),
                        "subflows": _int("unolb: subflows per flow", 1, 255, 10),
                        "entropies": _int("spray, unolb, plb: path entropies drawn from [0, entropies) (spray: 256)", 1, 1 << 30, 250),
                        "cong_thresh": _fraction("plb: a round is congested when more than this fraction of its acked bytes was ECE-marked", 0.25),
                        "rehash_rounds": _int("plb: congested rounds in a row that move a flow", 1, 1 << 20, 2),
                        "static": {
                            "type": "array",
                            "items": _table(
                                {
                                    "src": _string("the sending host"),
                                    "dst": _string("the receiving host"),
                                    "via": {"type": "array", "items": {"type": "string"}, "description": "the switches in order"},
                                },
                                "packets from src to dst cross the switches via (ACKs: the reverse)",
                                required=("src", "dst", "via"),
                            ),
                            "description": "static (src, dst) routes over the shortest paths",
                        },
                    },
                    "How senders spread packets over equal-cost paths.",
                ),
                "lb",
                {
                    "ecmp": ["static"],
                    "spray": ["entropies", "static"],
                    "unolb": ["subflows", "entropies", "static"],
                    "plb": ["entropies", "cong_thresh", "rehash_rounds", "static"],
                },
                "ecmp",
            ),
        },
        "$defs": {
            "link": _table(
                {"rate": RATE("line rate"), "delay": TIME("one-way propagation delay")},
                "a full-duplex link; a field not given comes from its fallback",
            ),
            "host_set": _names('a group ("all", "senders", "pod1"), a host ("s3") or a list of hosts'),
            "port_set": _names('"all", "switches", a named port ("bottleneck"), "from->to", or a list'),
            "topology": _topology(),
            "queue": _queue(),
            "marking": _marking(),
            "transport": _transport(),
            "workload": workload_schema(),
            "record": _record(),
            "event": _event(),
        },
    }
