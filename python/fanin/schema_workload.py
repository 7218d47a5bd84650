"""The [[workload]] section of the scenario's JSON Schema (``fanin.schema``): every kind's
fields, in the engine's words (crates/engine/src/scenario/workload.rs)."""

from __future__ import annotations

from fanin.schema_fields import (
    Schema,
    TIME,
    RATE,
    BYTES,
    integer as _int,
    fraction as _fraction,
    choice as _choice,
    string as _string,
    ref as _ref,
    table as _table,
    by_kind as _by_kind,
)

# Closed choices, in the order the engine lists them in an error's `allowed`.
WORKLOAD_KINDS = [
    "incast",
    "poisson",
    "permutation",
    "flow",
    "matrix",
    "mixed_poisson",
    "rpc_incast",
    "proxy_incast",
    "poisson_incast",
    "aggregator_incast",
]
CAPACITIES = ["hosts", "uplinks"]
PICKS = ["first", "random"]
SAMPLINGS = ["interpolate", "discrete"]
REMEMBER_RULES = ["off", "mean_cwnd"]
RWND_STRATEGIES = ["none", "bdp+connections", "predicted"]
SCHEMES = ["baseline", "naive", "streamlined"]
PROXY_ORDERS = ["round_robin", "arrival"]


def workload_schema() -> Schema:
    """One [[workload]] entry: the fields of every kind, and which belong to which."""
    table = _table(
        {
            "kind": _choice(WORKLOAD_KINDS, "what traffic this entry adds"),
            "start": TIME("when the workload begins", "0s"),
            "degree": _int("number of senders (poisson_incast: per event; aggregator_incast: per aggregator)", 1),
            "receiver": _string("the receiving host (default: first of the receivers group)"),
            "senders": _ref("host_set", "the pool senders are chosen from (default: the senders group; required by aggregator_incast)"),
            "pick": _choice(PICKS, "which senders of the pool", "first"),
            "bytes_per_sender": BYTES("flow size per sender (or total_bytes)"),
            "total_bytes": BYTES("total over the senders (or bytes_per_sender)"),
            "jitter": TIME("each sender starts U[0, jitter) late (aggregator_incast: the mean of an exponential)", "0s"),
            "period": TIME("time between burst starts (required when count > 1)"),
            "count": _int("number of bursts", 1, 1_000_000, 1),
            "scheme": _choice(SCHEMES, "proxy_incast: how the proxy relays", "baseline"),
            "proxy": _string("proxy_incast: the proxy host (default: first of the proxies group)"),
            "proxy_order": _choice(PROXY_ORDERS, "proxy_incast naive: how the proxy's connections share its NIC"),
            "load": _fraction("offered load, a fraction of capacity"),
            "sizes": _string(
                'a flow-size CDF file, "uniform <min> <max>", "loguniform <min> <max>", "constant <size>" '
                'or "discrete <size>:<p> ..."'
            ),
            "sampling": _choice(SAMPLINGS, "how sizes are drawn from the CDF (default: the file's convention)"),
            "stop": TIME("no arrival at or after this (default: the scenario's duration; none with [measure])"),
            "capacity": {
                "anyOf": [
                    _choice(CAPACITIES, "the hosts' NIC rates, or the links from host-facing switches up"),
                    RATE("an explicit rate"),
                ],
                "description": "what load is a fraction of",
                "default": "hosts",
            },
            "hosts": _ref("host_set", 'endpoints (default "all")'),
            "bytes": BYTES("size of each flow"),
            "src": _string("flow: source host"),
            "dst": _string("flow: destination host"),
            "file": _string("matrix: a traffic-matrix file (.cm)"),
            "max_flows": _int("matrix: keep only the first flows by start time", 1),
            "intra_fraction": _fraction("probability that a flow stays in its datacenter", closed=True),
            "intra_sizes": _string("flow-size CDF file of flows within a datacenter"),
            "inter_sizes": _string("flow-size CDF file of flows between datacenters"),
            "flows": _int("number of flows kept", 1, 100_000_000),
            "gap": TIME("rpc_incast: from a burst's end to the next burst's start", "1s"),
            "request_jitter": TIME("rpc_incast: each request leaves U[0, jitter) late", "0s"),
            "response_jitter": TIME("rpc_incast: each response is written U[0, jitter) late", "0s"),
            "request_bytes": BYTES("rpc_incast: request payload", "4B"),
            "tokens": _int("rpc_incast: responses holding a token at a time (0: off)", 0, 1 << 20, 0),
            "token_window": BYTES("rpc_incast: receive window of a token holder", "64KB"),
            "remember": _choice(REMEMBER_RULES, "rpc_incast: what a connection keeps of a burst for the next", "off"),
            "rwnd_strategy": _choice(RWND_STRATEGIES, "rpc_incast: receive-window clamp set at each burst's start", "none"),
            "rwnd_floor": BYTES("rpc_incast: the clamp's floor", "2KiB"),
            "degree_min": _int("rpc_incast: each burst n ~ U[degree_min, degree] senders answer (default: degree)", 1),
            "aggregators": _ref("host_set", "aggregator_incast: the hosts that receive the incasts"),
            "first_bytes": BYTES("aggregator_incast: the first sender's response, at once (0: like the others)", "0B"),
            "delay": TIME("aggregator_incast: when the other senders answer, before their jitter", "0s"),
            "jitter_max": TIME("aggregator_incast: the jitter's bound (a larger draw is drawn again)"),
        },
        "One [[workload]] entry; the fields other than kind and start belong to one kind each.",
        required=("kind",),
    )
    incast = ["degree", "receiver", "senders", "pick", "bytes_per_sender", "total_bytes", "jitter", "start"]
    rpc = [
        "gap",
        "request_jitter",
        "response_jitter",
        "request_bytes",
        "tokens",
        "token_window",
        "remember",
        "rwnd_strategy",
        "rwnd_floor",
        "degree_min",
    ]
    fields = {
        "incast": [*incast, "period", "count"],
        "poisson": ["load", "sizes", "sampling", "stop", "hosts", "start", "capacity"],
        "poisson_incast": ["load", "degree", "sizes", "sampling", "stop", "hosts", "start", "capacity"],
        "aggregator_incast": [
            "aggregators",
            "senders",
            "degree",
            "first_bytes",
            "sizes",
            "sampling",
            "delay",
            "jitter",
            "jitter_max",
            "load",
            "capacity",
            "start",
            "stop",
        ],
        "permutation": ["hosts", "bytes", "start"],
        "flow": ["src", "dst", "bytes", "start"],
        "matrix": ["file", "max_flows", "start"],
        "mixed_poisson": [
            "load",
            "sampling",
            "hosts",
            "flows",
            "intra_fraction",
            "intra_sizes",
            "inter_sizes",
            "start",
        ],
        "rpc_incast": [*[f for f in incast if f != "jitter"], "count", *rpc],
        "proxy_incast": [*incast, "scheme", "proxy", "proxy_order"],
    }
    return _by_kind(table, "kind", fields)
