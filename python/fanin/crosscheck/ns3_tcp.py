"""`fanin crosscheck tcp`: a grid of TCP incast scenarios in fanin and in ns-3, with a verdict per row.

Every row is one scenario run twice with the same settings: once in fanin
(:func:`fanin_scenario`, the one place the fanin side is built) and once in mainline
ns-3 3.44 (the PyPI ``ns3`` wheel; ``ns3_tcp.cc``, compiled by cppyy at run time after
``ns3_incast.cc``, whose ``fanin::FlooredDctcp`` it uses).

The grid
--------

* Star: N senders -> one switch -> one receiver; every link 10 Gb/s with one-way delay
  d in {2, 10, 25} us.
* Incast rows: NewReno and DCTCP; N in {8, 32, 64, 128}; drop-tail buffer of 50, 200 or
  400 packets on every port; 64 KiB or 1 MiB per sender; all flows start at t = 0.
* Steady-state rows: DCTCP, 2, 10 or 40 long flows into one receiver, buffer 1000
  packets, 100 ms simulated; bottleneck queue minimum, maximum and oscillation period
  over the last 50 ms.

Same settings on both sides
---------------------------

============================  ===============================================  ====================================
setting                       ns-3                                             fanin
============================  ===============================================  ====================================
data frame                    1448 B payload + 20 IP + 20 TCP + 12 TS option   ``mtu = 1500B``, ``header = 52B``,
                              + 2 PPP = 1502 B (SegmentSize 1448,              ``framing = 2B``: MSS 1448,
                              Timestamp on)                                    1502-B frames
pure ACK                      20 + 20 + 12 TS + 2 PPP = 54 B                   ``header + framing`` = 54 B
ACK with SACK blocks          + 8 B per block (up to 3 with TS): 62-78 B       the same (``recovery = "ns3"``)
SACK                          Sack on (a list of 4 blocks, 3 per ACK)          ``sack = true``, ns-3's list
ACK every segment             DelAckCount 1                                    ``delayed_ack = 1``
RTO                           MinRto 10 ms, ClockGranularity 1 ms              ``min_rto = 10ms``,
                                                                               ``rto_granularity = 1ms``
RTO before data is ACKed      the handshake's RTT sample gives max(MinRto, ...)  ``initial_rto = 10ms``
                              = 10 ms
initial window                InitialCwnd 10                                   ``init_cwnd = 10pkt``
window floor                  NewReno: max(2 MSS, flight/2);                   ``min_cwnd``: ``2pkt`` (NewReno),
                              FlooredDctcp: 1 MSS                              ``1pkt`` (DCTCP)
DCTCP                         g = 1/16, alpha starts at 1, ECT(0)              ``dctcp = {g = 0.0625, alpha_init = 1}``
queues (every port)           queue disc of B packets over a 1-packet device   ``limit = "<B>pkt"``,
                              queue (flow control on)                          ``device_queue = "1pkt"``
DCTCP marking                 RED MinTh = MaxTh = 65, QW 1, LInterm 1,         ``red`` min = max = 65pkt, weight 1,
                              Gentle off: mark when the disc holds >= 65       p_max 1, gentle false (same rule)
NewReno queues                FifoQueueDisc (drop-tail), ECN off               no marking, ``ecn = false``
recovery                      PRR, limited transmit (ns-3's defaults)          ``recovery = "ns3"`` (docs/engine.md)
start offsets                 each sender's data written at fanin's offset     ``jitter = "<jitter_ns>ns"``
============================  ===============================================  ====================================

ns-3 opens the connections 10 us apart from t = 0 (all SYNs at once would overflow a
50-packet buffer, and ns-3 retries a lost SYN only after 3 s) and writes the data 1 ms
after the last one opened (``start_ps``), each at the offset fanin drew for it
(``jitter_ns``; see docs/crosscheck.md on ties); fanin starts the flows at those offsets
without handshakes. Times are measured
from the start on both sides. A flow is complete when its **sender** has the ACK of its
last byte (fanin's ``fct_ps``; ns-3's ``HighestRxAck`` trace); the incast completion is the
last of them.

Known ns-3 behaviours (shown in the ``note`` column when they happen)
--------------------------------------------------------------------

* Mainline ``TcpDctcp`` cuts ssthresh to (1 - alpha/2) x cwnd without a floor; a cut
  below 1 MSS stalls the flow for good (``ns3_incast.py`` explains it).
  ``ns3_dctcp="floored"`` (the default) runs ``FlooredDctcp``, which floors the cut at
  1 MSS as the IMC '24 fork does; ``ns3_dctcp="mainline"`` runs plain ``TcpDctcp`` and
  reports stalled flows (``ns-3 stalled k``) instead of hiding them.
* ns-3's timestamp option counts milliseconds, so with timestamps on every RTT sample is
  a whole number of ms, or 1 us when zero. With RTTs of 10-600 us SRTT is about 1 us or
  a fraction of a ms, and the RTO is MinRto (10 ms) on both sides; but ns-3 does not
  see queueing in its RTT at all.
* ns-3 gives up a connection after 6 retransmissions of one segment without progress
  (DataRetries); such flows are reported (``ns-3 aborted k``).
* **Losses during CWR wait for the RTO.** Once an ECN echo has put a DCTCP sender in
  CA_CWR, ns-3 3.44's ``DupAck()`` does nothing (no CA_DISORDER, no fast recovery; the
  source says "TODO: need to check behavior if marking is compounded by loss") until the
  ACKs pass the CWR point, which a hole never lets them do. Every loss of a marked
  window is then repaired by a retransmission timeout, although SACKs arrive. Counted per
  row as ``ns3_cwr_sack_timeouts`` (timeouts that struck in CA_CWR with SACKed data) and
  shown as ``ns-3 RTO in CWR despite SACKs k``. Linux (and fanin) enter recovery there.
* ns-3's DCTCP (floored or not) also uses its (1 - alpha/2) cut on fast recovery and on
  timeouts; NewReno halves the flight size, not cwnd.

Gates
-----

ns-3 is the reference. Incast rows: incast completion, median FCT and drops within 10 %
of ns-3's (``|fanin - ns3| <= 0.1 x ns3``; zero drops must match exactly), flows that
timed out within max(1, 10 %). Steady-state rows: queue minimum and maximum within 10 %.
A row where ns-3 itself did not finish cannot be judged and says so. With several seeds
(``run_grid(seeds=k)``) the gates apply to the medians, and an incast metric outside its
gate but within ns-3's own range over the seeds passes as "ok in ns-3's spread".

Timing: ``speedup`` is ns-3's ``Simulator::Run`` wall time over fanin's run loop
(``summary["wall_s"]``); the ns-3 import and the C++ build are not counted.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# --------------------------------------------------------------------------- settings

RATE_BPS = 10_000_000_000
MTU = 1500  # IP packet of a full segment
IP_TCP_HEADER = 40  # 20 B IPv4 + 20 B TCP
TS_OPTION = 12  # RFC 7323 timestamp option: 10 B, padded to a 4-B boundary
HEADER = IP_TCP_HEADER + TS_OPTION  # 52 B per packet
MSS = MTU - HEADER  # 1448 B of payload per segment
PPP = 2  # ns-3's point-to-point header on every frame
SACK_BLOCK = 8
K_PKTS = 65
MIN_RTO_PS = 10_000_000_000  # 10 ms
CLOCK_GRANULARITY_PS = 1_000_000_000  # 1 ms (ns-3's default), also fanin's rto_granularity
INIT_CWND = 10
DCTCP_G = 1 / 16
CONNECT_GAP_PS = 10_000_000  # ns-3: sender i opens its connection at i x 10 us ...
SETTLE_PS = 1_000_000_000  # ... and the data is written 1 ms after the last one opened

CCS = ("newreno", "dctcp")
NS = (8, 32, 64, 128)
BUFFERS = (50, 200, 400)
SIZES = (64 * 1024, 1024 * 1024)
DELAYS_US = (2, 10, 25)
STEADY_FLOWS = (2, 10, 40)
KINDS = ("incast", "steady")
NS3_DCTCP = ("floored", "mainline")

STEADY_BUFFER = 1000
STEADY_BYTES = 1 << 30  # per long flow: never finishes within the run
STEADY_DURATION_PS = 100_000_000_000  # 100 ms
STEADY_WARMUP_PS = 50_000_000_000  # statistics over the last 50 ms

QUICK = {
    "cc": CCS,
    "n": (8, 64),
    "buffer": (200,),
    "size": (64 * 1024,),
    "delay": (10,),
    "flows": (10,),
    "kind": KINDS,
}

GATE = 0.10  # relative tolerance of every gate

# ---------------------------------------------------------------------------------------
# The engine's loss-recovery model: ns-3 3.44's rules (`transport.recovery`). Hosts keep
# ns-3's NIC queues: the explicit [host.queue] below turns TCP Small Queues off.
RECOVERY: str | None = "ns3"
# ---------------------------------------------------------------------------------------


class GridError(ValueError):
    """A bad grid selection: ``option`` names the CLI option, the message the allowed values."""

    def __init__(self, option: str, message: str):
        super().__init__(f"{option}: {message}")
        self.option = option


@dataclass(frozen=True)
class Case:
    """One row of the grid."""

    kind: str  # "incast" or "steady"
    cc: str  # "newreno" or "dctcp"
    n: int  # senders (incast) or long flows (steady)
    buffer_pkts: int
    size_bytes: int  # per sender; STEADY_BYTES for long flows
    delay_us: int

    @property
    def label(self) -> str:
        if self.kind == "steady":
            return f"steady {self.cc} {self.n} flows d={self.delay_us}us"
        return f"{self.cc} N={self.n} B={self.buffer_pkts} {size_label(self.size_bytes)} d={self.delay_us}us"

    def cost(self) -> float:
        """A rough relative run time (for scheduling the longest rows first)."""
        if self.kind == "steady":
            return STEADY_DURATION_PS / 1e9 * 2
        return self.n * self.size_bytes / 1e6


@dataclass
class Side:
    """What one simulator measured for one case. Times are microseconds from the start."""

    ict_us: float | None = None  # incast completion (None: not every flow finished)
    fct_p50_us: float | None = None
    fct_p99_us: float | None = None
    drops: int = 0  # packets dropped in every queue
    bottleneck_drops: int = 0
    marks: int = 0  # CE marks at the bottleneck
    retx_bytes: int = 0  # payload bytes retransmitted
    timed_out_flows: int = 0  # flows with at least one retransmission timeout
    timeouts: int = 0  # timeouts, backed-off ones included
    recoveries: int = 0  # entries into fast recovery
    cwr_sack_timeouts: int = 0  # ns-3 only: timeouts in CA_CWR with SACKed data (see the doc)
    flows: int = 0
    completed: int = 0
    queue_min: float | None = None  # steady state: bottleneck queue (packets) after warm-up
    queue_max: float | None = None
    queue_mean: float | None = None
    queue_period_us: float | None = None
    run_s: float = 0.0  # the run loop alone
    events: int | None = None
    offsets_ps: list[int] = field(default_factory=list)  # incast: each sender's start
    notes: list[str] = field(default_factory=list)


@dataclass
class Row:
    case: Case
    fanin: Side  # with several seeds: the median of each metric over them
    ns3: Side
    failed: list[str]
    verdict: str  # "ok", "ok in ns-3's spread: ...", "FAIL: ...", or "n/a: ..." when ns-3 did not finish
    fanin_runs: list[Side] = field(default_factory=list)  # one per seed
    ns3_runs: list[Side] = field(default_factory=list)
    in_spread: list[str] = field(default_factory=list)  # gates passed only within ns-3's own spread

    @property
    def speedup(self) -> float | None:
        if self.fanin.run_s > 0 and self.ns3.run_s > 0:
            return self.ns3.run_s / self.fanin.run_s
        return None


# --------------------------------------------------------------------------- the grid


_SIZE_RE = re.compile(r"^\s*(\d+)\s*(B|KiB|MiB|KB|MB)\s*$")
_SIZE_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "KB": 1000, "MB": 1000**2}


def size_label(nbytes: int) -> str:
    for unit in ("MiB", "KiB"):
        if nbytes % _SIZE_UNITS[unit] == 0:
            return f"{nbytes // _SIZE_UNITS[unit]}{unit}"
    return f"{nbytes}B"


def parse_size(text: str) -> int:
    m = _SIZE_RE.match(text)
    if not m or int(m.group(1)) <= 0:
        raise GridError(
            "--size",
            f"`{text.strip()}` is not a size"
            " (allowed: a positive whole number with B, KiB, MiB, KB or MB, e.g. 64KiB,1MiB)",
        )
    return int(m.group(1)) * _SIZE_UNITS[m.group(2)]


def _split(option: str, text: str) -> list[str]:
    items = [x.strip() for x in text.split(",")]
    if not text.strip() or any(not x for x in items):
        raise GridError(option, f"expected a comma-separated list, got `{text}`")
    return items


def parse_ints(option: str, text: str) -> tuple[int, ...]:
    out = []
    for x in _split(option, text):
        if not re.fullmatch(r"\d+", x) or int(x) < 1:
            raise GridError(option, f"`{x}` is not a positive integer (allowed: comma-separated positive integers)")
        out.append(int(x))
    return tuple(dict.fromkeys(out))


def parse_choices(option: str, text: str, allowed: Sequence[str]) -> tuple[str, ...]:
    out = []
    for x in _split(option, text):
        if x not in allowed:
            raise GridError(option, f"unknown value `{x}` (allowed: {', '.join(allowed)})")
        out.append(x)
    return tuple(dict.fromkeys(out))


def selection(
    *,
    cc: str | None = None,
    n: str | None = None,
    buffer: str | None = None,
    size: str | None = None,
    delay: str | None = None,
    flows: str | None = None,
    kind: str | None = None,
    quick: bool = False,
) -> dict[str, tuple[Any, ...]]:
    """Parses the CLI's comma-separated selections; an option not given takes the full
    grid's values (``quick``: the small subset ``QUICK``). Raises :class:`GridError`."""
    full: dict[str, tuple[Any, ...]] = {
        "cc": CCS,
        "n": NS,
        "buffer": BUFFERS,
        "size": SIZES,
        "delay": DELAYS_US,
        "flows": STEADY_FLOWS,
        "kind": KINDS,
    }
    base = dict(QUICK) if quick else full
    if cc is not None:
        base["cc"] = parse_choices("--cc", cc, CCS)
    if n is not None:
        base["n"] = parse_ints("--n", n)
    if buffer is not None:
        base["buffer"] = parse_ints("--buffer", buffer)
    if size is not None:
        base["size"] = tuple(dict.fromkeys(parse_size(x) for x in _split("--size", size)))
    if delay is not None:
        base["delay"] = parse_ints("--delay", delay)
    if flows is not None:
        base["flows"] = parse_ints("--flows", flows)
    if kind is not None:
        base["kind"] = parse_choices("--kind", kind, KINDS)
    return base


def grid(sel: dict[str, tuple[Any, ...]] | None = None) -> list[Case]:
    """The cases of a selection (default: the full grid), in table order."""
    s = sel if sel is not None else selection()
    cases: list[Case] = []
    if "incast" in s["kind"]:
        for cc in s["cc"]:
            for d in s["delay"]:
                for n in s["n"]:
                    for b in s["buffer"]:
                        for size in s["size"]:
                            cases.append(Case("incast", cc, n, b, size, d))
    if "steady" in s["kind"] and "dctcp" in s["cc"]:
        for d in s["delay"]:
            for n in s["flows"]:
                cases.append(Case("steady", "dctcp", n, STEADY_BUFFER, STEADY_BYTES, d))
    return cases


# --------------------------------------------------------------------------- wire bytes


def ns3_frame_bytes(payload: int, sack_blocks: int = 0) -> int:
    """A frame on ns-3's point-to-point link: payload + IP + TCP + options (TS and SACK,
    padded to 4 B) + PPP."""
    options = 10 + (2 + SACK_BLOCK * sack_blocks if sack_blocks else 0)
    options = -(-options // 4) * 4
    return payload + IP_TCP_HEADER + options + PPP


def fanin_frame_bytes(scenario: dict[str, Any], payload: int | None = None) -> int:
    """A frame in fanin: a full data segment (``payload=None``), a shorter one, or an ACK (0)."""
    t = scenario["transport"]
    mtu, header, framing = (_bytes(t[k]) for k in ("mtu", "header", "framing"))
    if payload is None:
        payload = mtu - header
    if payload == 0 and "ack_size" in t:
        return _bytes(t["ack_size"])
    return payload + header + framing


def _bytes(q: str) -> int:
    m = re.fullmatch(r"(\d+)B", q)
    if not m:
        raise ValueError(f"expected a whole number of bytes like '52B', got {q!r}")
    return int(m.group(1))


# --------------------------------------------------------------------------- fanin side


def fanin_scenario(case: Case, seed: int = 1, jitter_ns: int = 0) -> dict[str, Any]:
    """THE fanin scenario of a case (``fanin.Scenario.from_dict``): every setting the
    comparison depends on is here, nowhere else."""
    dctcp = case.cc == "dctcp"
    queue: dict[str, Any] = {"limit": f"{case.buffer_pkts}pkt", "device_queue": "1pkt"}
    if dctcp:
        queue["marking"] = {
            "kind": "red",
            "min": f"{K_PKTS}pkt",
            "max": f"{K_PKTS}pkt",
            "weight": 1,
            "p_max": 1,
            "gentle": False,
        }
    transport: dict[str, Any] = {
        "cc": case.cc,
        "mtu": f"{MTU}B",
        "header": f"{HEADER}B",  # IP + TCP + the 12-B timestamp option
        "framing": f"{PPP}B",  # ns-3's PPP header
        "init_cwnd": f"{INIT_CWND}pkt",
        "min_cwnd": "1pkt" if dctcp else "2pkt",
        "min_rto": f"{MIN_RTO_PS // 1_000_000_000}ms",
        "initial_rto": f"{MIN_RTO_PS // 1_000_000_000}ms",  # ns-3: the handshake's sample
        "rto_granularity": f"{CLOCK_GRANULARITY_PS // 1_000_000_000}ms",
        "sack": True,
        "delayed_ack": 1,
        "dupack_threshold": 3,
        "ecn": dctcp,
    }
    if dctcp:
        transport["ecn_echo"] = "dctcp"
        transport["dctcp"] = {"g": DCTCP_G, "alpha_init": 1.0}
    # >>> ENGINE MODEL SELECTION (see RECOVERY at the top of this module) <<<
    if RECOVERY is not None:
        transport["recovery"] = RECOVERY
    workload: dict[str, Any] = {
        "kind": "incast",
        "degree": case.n,
        "bytes_per_sender": f"{case.size_bytes}B",
        "start": "0s",
    }
    if jitter_ns and case.kind == "incast":
        # Senders start at their own offsets (ns-3 gets the same ones): no two first
        # windows reach the switch in the same picosecond.
        workload["jitter"] = f"{jitter_ns}ns"
    scenario: dict[str, Any] = {
        "name": f"crosscheck-tcp-{case.kind}-{case.cc}-n{case.n}-b{case.buffer_pkts}"
        f"-{size_label(case.size_bytes)}-d{case.delay_us}us",
        "seed": seed,
        "topology": {
            "kind": "star",
            "senders": case.n,
            "host_link": {"rate": f"{RATE_BPS // 1_000_000_000}Gbps", "delay": f"{case.delay_us}us"},
        },
        "switch": {"queue": queue},
        "host": {"queue": dict(queue)},
        "transport": transport,
        "workload": [workload],
        "record": {"flows": True},
    }
    if case.kind == "steady":
        scenario["duration"] = f"{STEADY_DURATION_PS // 1_000_000_000}ms"
        scenario["record"]["queue_events"] = {"ports": "bottleneck"}
    else:
        scenario["max_duration"] = "10s"
    return scenario


def run_fanin(case: Case, seed: int = 1, jitter_ns: int = 0) -> Side:
    import fanin

    r = fanin.run(fanin.Scenario.from_dict(fanin_scenario(case, seed, jitter_ns)))
    flows = r.flows.sort_values("flow_id")
    s = r.summary
    side = Side(
        drops=int(s.get("drops", 0)),
        retx_bytes=int(flows["retx_bytes"].sum()),
        timed_out_flows=int((flows["timeouts"] > 0).sum()),
        timeouts=int(flows["timeouts"].sum()),
        recoveries=int(flows["fast_recoveries"].sum()),
        flows=len(flows),
        completed=int(flows["completed"].sum()),
        run_s=float(s["wall_s"]),
        events=int(s["events"]) if "events" in s else None,
    )
    if case.kind == "incast":
        side.offsets_ps = [int(x) for x in flows["start_ps"]]
    ports = r.ports
    bn = ports[ports["port_name"] == "sw0->r0"]
    if len(bn):
        side.bottleneck_drops = int(bn["dropped_pkts"].iloc[0])
        side.marks = int(bn["marked_pkts"].iloc[0])
    if case.kind == "incast":
        done = flows[flows["completed"]]
        if side.completed == side.flows and len(flows):
            fct = done["fct_ps"].to_numpy(dtype=np.float64) / 1e6
            side.fct_p50_us = float(np.percentile(fct, 50))
            side.fct_p99_us = float(np.percentile(fct, 99))
            side.ict_us = float(r.incasts["ict_ps"].max()) / 1e6
        else:
            side.notes.append(f"fanin unfinished {side.flows - side.completed}")
    else:
        q = r.table("queue_events")
        t = q["time_ps"].to_numpy(dtype=np.int64)
        v = q["packets"].to_numpy(dtype=np.int64)
        _fill_queue_stats(side, t, v)
    return side


# --------------------------------------------------------------------------- ns-3 side

_CC_FILE = Path(__file__).with_name("ns3_tcp.cc")
_NS3_CC_CODE = {"newreno": 0, ("dctcp", "floored"): 1, ("dctcp", "mainline"): 2}


def ns3_setup() -> float:
    """Imports ns-3 and compiles both C++ halves (once per process); returns the seconds."""
    from fanin.crosscheck import ns3_incast

    t = time.perf_counter()
    ns = ns3_incast._load_ns()
    ns3_incast._ensure_cpp(ns)  # fanin_xc: FlooredDctcp, SetPicoResolution
    if not hasattr(ns.cppyy.gbl, "fanin_tcp"):
        ns.cppyy.cppdef(_CC_FILE.read_text())
    if not ns.cppyy.gbl.fanin_xc.SetPicoResolution():
        raise RuntimeError("could not set ns-3's time resolution to picoseconds")
    return time.perf_counter() - t


def start_ps(n: int) -> int:
    """When ns-3 writes the data: the connections open 10 us apart from t = 0 (SYNs sent
    at once would overflow a 50-packet buffer: ns-3 retries a lost SYN only after 3 s),
    then 1 ms for the last handshake to finish."""
    return n * CONNECT_GAP_PS + SETTLE_PS


def _ideal_ps(case: Case) -> int:
    segs = -(-case.size_bytes // MSS)
    wire = case.n * (case.size_bytes + segs * (HEADER + PPP))
    return wire * 8 * 10**12 // RATE_BPS + 4 * case.delay_us * 1_000_000


def run_ns3(case: Case, ns3_dctcp: str = "floored", seed: int = 1, offsets_ps: Sequence[int] = ()) -> Side:
    from fanin.crosscheck import ns3_incast

    ns3_setup()
    ns = ns3_incast._load_ns()
    xc = ns.cppyy.gbl.fanin_tcp
    code = _NS3_CC_CODE["newreno"] if case.cc == "newreno" else _NS3_CC_CODE[("dctcp", ns3_dctcp)]
    steady = case.kind == "steady"
    start = start_ps(case.n)
    if steady:
        limit = start + STEADY_DURATION_PS
        trace_from = start + STEADY_WARMUP_PS
    else:
        limit = start + 20 * _ideal_ps(case) + 2 * 10**12  # room for several backed-off RTOs
        trace_from = -1
    xc.Build(
        case.n,
        case.size_bytes,
        RATE_BPS,
        case.delay_us * 1_000_000,
        code,
        K_PKTS,
        case.buffer_pkts,
        MTU,
        MSS,
        MIN_RTO_PS,
        CLOCK_GRANULARITY_PS,
        INIT_CWND,
        float(DCTCP_G),
        seed,
        start,
        limit,
        steady,
        trace_from,
        CONNECT_GAP_PS,
    )
    if any(offsets_ps):
        xc.SetOffsets(ns.cppyy.gbl.std.vector["int64_t"](list(offsets_ps)))
    t = time.perf_counter()
    ns.Simulator.Run()
    run_s = time.perf_counter() - t

    fct = np.array(list(xc.FctPs()), dtype=np.float64)
    loss = np.array(list(xc.LossEntries()), dtype=np.int64)
    aborted = int(sum(xc.Aborted()))
    side = Side(
        drops=int(xc.AllDrops()),
        bottleneck_drops=int(xc.BottleneckDrops()),
        marks=int(xc.BottleneckMarks()),
        retx_bytes=int(sum(xc.RetxBytes())),
        timed_out_flows=int((loss > 0).sum()),
        timeouts=int(sum(xc.RtoFirings())),
        recoveries=int(sum(xc.Recoveries())),
        cwr_sack_timeouts=int(sum(xc.CwrToLoss())),
        flows=case.n,
        completed=int((fct >= 0).sum()),
        run_s=run_s,
        events=int(xc.Events()),
    )
    unconnected = int(xc.Unconnected())
    if unconnected:
        side.notes.append(f"ns-3 handshake unfinished {unconnected}")
    rto0 = {int(x) for x in xc.RtoAtStartPs()}
    if rto0 != {MIN_RTO_PS}:
        side.notes.append("ns-3 initial RTO " + "/".join(f"{x / 1e9:g}ms" for x in sorted(rto0)))
    if aborted:
        side.notes.append(f"ns-3 aborted {aborted}")
    if side.cwr_sack_timeouts:
        side.notes.append(f"ns-3 RTO in CWR despite SACKs {side.cwr_sack_timeouts}")
    if steady:
        t_ps = np.array(list(xc.QueueTimesPs()), dtype=np.int64) - start
        v = np.array(list(xc.QueueLens()), dtype=np.int64)
        _fill_queue_stats(side, t_ps, v)
    else:
        stalled = case.n - side.completed
        if stalled == 0:
            # Each flow's completion counts from its own start, as fanin's does.
            us = (fct - np.asarray(list(offsets_ps) or [0] * case.n, dtype=np.float64)) / 1e6
            side.fct_p50_us = float(np.percentile(us, 50))
            side.fct_p99_us = float(np.percentile(us, 99))
            side.ict_us = float(us.max())
        else:
            cwnd = sorted({int(c) for c, f in zip(xc.Cwnd(), fct, strict=True) if f < 0})
            where = f" (cwnd {','.join(map(str, cwnd[:3]))} B)" if cwnd else ""
            side.notes.append(f"ns-3 stalled {stalled - aborted}{where}")
    ns.Simulator.Destroy()
    xc.Reset()
    return side


# --------------------------------------------------------------------------- queue statistics


def step_stats(t_ps: np.ndarray, v: np.ndarray, t0_ps: int, t1_ps: int) -> tuple[float, float, float] | None:
    """Min, max and time-average of a step function (value v[i] from t[i] to t[i+1]) over
    [t0, t1]. States that last no time (a packet queued and sent at the same instant) are
    ignored. None if the series does not cover t0."""
    if len(t_ps) == 0 or t_ps[0] > t0_ps:
        return None
    i0 = int(np.searchsorted(t_ps, t0_ps, side="right")) - 1
    i1 = int(np.searchsorted(t_ps, t1_ps, side="left"))
    tt = np.concatenate(([t0_ps], t_ps[i0 + 1 : i1], [t1_ps])).astype(np.int64)
    vv = v[i0:i1].astype(np.float64)
    dur = np.diff(tt)
    keep = dur > 0
    if not keep.any():
        return None
    vv, dur = vv[keep], dur[keep]
    return float(vv.min()), float(vv.max()), float((vv * dur).sum() / dur.sum())


def resample(t_ps: np.ndarray, v: np.ndarray, t0_ps: int, t1_ps: int, dt_ps: int) -> np.ndarray:
    """The step function's value at t0, t0 + dt, ... (< t1)."""
    grid_ps = np.arange(t0_ps, t1_ps, dt_ps, dtype=np.int64)
    idx = np.searchsorted(t_ps, grid_ps, side="right") - 1
    return v[np.clip(idx, 0, len(v) - 1)].astype(np.float64)


def oscillation_period(x: np.ndarray, dt: float, min_peak: float = 0.1) -> float | None:
    """The dominant period of a uniformly sampled signal, from its autocorrelation: the
    lag of the highest point of the first positive lobe after the autocorrelation first
    falls below zero. None for a constant signal or a lobe lower than ``min_peak``."""
    x = np.asarray(x, dtype=np.float64) - np.mean(x)
    n = len(x)
    if n < 4 or not np.any(x):
        return None
    size = 1 << (2 * n - 1).bit_length()
    spec = np.fft.rfft(x, size)
    acf = np.fft.irfft(spec * np.conj(spec), size)[: n // 2]
    acf = acf / acf[0]
    neg = np.flatnonzero(acf < 0)
    if not len(neg):
        return None
    after = acf[neg[0] :]
    pos = np.flatnonzero(after > 0)
    if not len(pos):
        return None
    start = neg[0] + pos[0]
    rest = acf[start:]
    end_rel = np.flatnonzero(rest < 0)
    lobe = rest[: end_rel[0]] if len(end_rel) else rest
    k = int(np.argmax(lobe))
    if lobe[k] < min_peak:
        return None
    return float((start + k) * dt)


def _fill_queue_stats(side: Side, t_ps: np.ndarray, v: np.ndarray) -> None:
    t0, t1 = STEADY_WARMUP_PS, STEADY_DURATION_PS
    st = step_stats(t_ps, v, t0, t1)
    if st is None:
        side.notes.append("no queue samples after warm-up")
        return
    side.queue_min, side.queue_max, side.queue_mean = st
    dt = 1_000_000  # 1 us
    p = oscillation_period(resample(t_ps, v, t0, t1, dt), dt / 1e6)
    side.queue_period_us = p


# --------------------------------------------------------------------------- gates


def within(value: float | None, ref: float | None, rel: float = GATE, floor: float = 0.0) -> bool:
    """|value - ref| <= max(floor, rel x |ref|); None on either side fails."""
    if value is None or ref is None:
        return False
    return abs(value - ref) <= max(floor, rel * abs(ref)) + 1e-9


def gates(case: Case, f: Side, n: Side) -> list[str]:
    """The metrics on which fanin (f) is outside its tolerance around ns-3 (n)."""
    failed = []
    if case.kind == "incast":
        if not within(f.ict_us, n.ict_us):
            failed.append("ict")
        if not within(f.fct_p50_us, n.fct_p50_us):
            failed.append("fct_p50")
        if not within(f.drops, n.drops):
            failed.append("drops")
        if not within(f.timed_out_flows, n.timed_out_flows, floor=1.0):
            failed.append("timed_out")
    else:
        if not within(f.queue_min, n.queue_min):
            failed.append("q_min")
        if not within(f.queue_max, n.queue_max):
            failed.append("q_max")
    return failed


def judge(case: Case, f: Side, n: Side) -> Row:
    """One run on each side: the gates alone decide."""
    return judge_runs(case, [f], [n])


# The gated incast metrics, as (gate name, Side attribute).
SPREAD_METRICS = (("ict", "ict_us"), ("fct_p50", "fct_p50_us"), ("drops", "drops"), ("timed_out", "timed_out_flows"))
_MEDIAN_FIELDS = (
    "ict_us",
    "fct_p50_us",
    "fct_p99_us",
    "drops",
    "bottleneck_drops",
    "marks",
    "retx_bytes",
    "timed_out_flows",
    "timeouts",
    "recoveries",
    "cwr_sack_timeouts",
    "completed",
    "queue_min",
    "queue_max",
    "queue_mean",
    "queue_period_us",
)


def median_side(runs: Sequence[Side]) -> Side:
    """Each metric's median over the runs (a time that is None in any run stays None: a
    flow that did not finish has no completion time); run times add up."""
    if len(runs) == 1:
        return runs[0]
    m = Side(flows=runs[0].flows, run_s=sum(r.run_s for r in runs), offsets_ps=list(runs[0].offsets_ps))
    for name in _MEDIAN_FIELDS:
        vals = [getattr(r, name) for r in runs]
        if any(v is None for v in vals):
            continue
        med = float(np.median(vals))
        setattr(m, name, med if isinstance(vals[0], float) else int(round(med)))
    m.notes = sorted({note for r in runs for note in r.notes})
    return m


def spread(runs: Sequence[Side], attr: str) -> tuple[float, float] | None:
    vals = [getattr(r, attr) for r in runs]
    if any(v is None for v in vals):
        return None
    return float(min(vals)), float(max(vals))


def judge_runs(case: Case, f_runs: Sequence[Side], n_runs: Sequence[Side]) -> Row:
    """Gates on the medians over seeds. With two or more seeds, an incast metric that
    misses its gate still passes when fanin's median lies within ns-3's own range over
    the seeds (widened by the gate): ns-3 moved that far under a sub-ns change of start
    times, so the difference says nothing about a rule. The row's verdict says so."""
    f, n = median_side(f_runs), median_side(n_runs)
    ns3_done = case.kind == "steady" or all(r.completed == r.flows for r in n_runs)
    ns3_ok = ns3_done and (case.kind == "incast" or n.queue_min is not None)
    row = Row(case, f, n, [], "", list(f_runs), list(n_runs))
    if not ns3_ok:
        row.verdict = "n/a: ns-3 did not finish"
        return row
    failed = gates(case, f, n)
    if case.kind == "incast" and len(n_runs) > 1:
        for gate, attr in SPREAD_METRICS:
            rng = spread(n_runs, attr)
            value = getattr(f, attr)
            if gate not in failed or rng is None or value is None:
                continue
            floor = 1.0 if gate == "timed_out" else 0.0
            lo, hi = rng[0] - max(floor, GATE * rng[0]), rng[1] + max(floor, GATE * rng[1])
            if lo - 1e-9 <= value <= hi + 1e-9:
                failed.remove(gate)
                row.in_spread.append(gate)
    row.failed = failed
    if failed:
        row.verdict = "FAIL: " + ", ".join(failed)
    elif row.in_spread:
        row.verdict = "ok in ns-3's spread: " + ", ".join(row.in_spread)
    else:
        row.verdict = "ok"
    return row


# --------------------------------------------------------------------------- running


def run_one(case: Case, ns3_dctcp: str = "floored", seed: int = 1, jitter_ns: int = 0) -> tuple[Side, Side]:
    """One seed of one case in both simulators (ns-3 gets fanin's start offsets)."""
    f = run_fanin(case, seed, jitter_ns)
    n = run_ns3(case, ns3_dctcp, seed, f.offsets_ps if jitter_ns else ())
    return f, n


def run_case(case: Case, ns3_dctcp: str = "floored", seed: int = 1, jitter_ns: int = 0, seeds: int = 1) -> Row:
    runs = [run_one(case, ns3_dctcp, s, jitter_ns) for s in case_seeds(case, seed, seeds)]
    return judge_runs(case, [f for f, _ in runs], [n for _, n in runs])


def case_seeds(case: Case, seed: int, seeds: int) -> range:
    """The seeds a case runs with: an incast row one per seed (each a different set of
    start offsets); a steady-state row once (its long flows start together at t = 0)."""
    return range(seed, seed + (seeds if case.kind == "incast" else 1))


_WORKER_SETUP_S = 0.0


def _worker_init() -> None:
    global _WORKER_SETUP_S
    _WORKER_SETUP_S = ns3_setup()


def _worker(args: tuple[Case, str, int, int]) -> tuple[tuple[Side, Side], float]:
    case, variant, seed, jitter_ns = args
    return run_one(case, variant, seed, jitter_ns), _WORKER_SETUP_S


def run_grid(
    cases: Sequence[Case],
    *,
    jobs: int = 1,
    ns3_dctcp: str = "floored",
    seed: int = 1,
    jitter_ns: int = 0,
    seeds: int = 1,
    on_row: Callable[[int, Row], None] | None = None,
) -> tuple[list[Row], float]:
    """Runs every case in fanin and ns-3, ``seeds`` times for an incast row (seeds
    ``seed``, ``seed + 1``, ...: different start offsets when ``jitter_ns > 0``); returns
    the rows in the order of ``cases`` and the seconds a process spent importing ns-3 and
    compiling the C++ (the longest, with ``jobs > 1``; never counted in a row's timing).

    With ``jobs > 1`` the runs go to that many fresh processes (each imports ns-3 once),
    longest first; ``on_row(index, row)`` is called as each row's last run finishes."""
    if ns3_dctcp not in NS3_DCTCP:
        raise GridError("--ns3-dctcp", f"unknown value `{ns3_dctcp}` (allowed: {', '.join(NS3_DCTCP)})")
    if seeds < 1 or (seeds > 1 and jitter_ns == 0):
        raise GridError("--seeds", f"`{seeds}` needs --jitter-ns > 0 to differ from one seed (allowed: 1, or more with jitter)")
    tasks = [(i, s) for i, case in enumerate(cases) for s in case_seeds(case, seed, seeds)]
    results: dict[int, dict[int, tuple[Side, Side]]] = {i: {} for i in range(len(cases))}
    rows: list[Row | None] = [None] * len(cases)
    setup = 0.0

    def finish(i: int, s: int, pair_: tuple[Side, Side]) -> None:
        results[i][s] = pair_
        if len(results[i]) == len(case_seeds(cases[i], seed, seeds)):
            done = [results[i][k] for k in sorted(results[i])]
            rows[i] = judge_runs(cases[i], [f for f, _ in done], [n for _, n in done])
            if on_row:
                on_row(i, rows[i])

    if jobs <= 1:
        setup = ns3_setup()
        for i, s in tasks:
            finish(i, s, run_one(cases[i], ns3_dctcp, s, jitter_ns))
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        tasks.sort(key=lambda t: -cases[t[0]].cost())
        ctx = mp.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init) as ex:
            futures = {ex.submit(_worker, (cases[i], ns3_dctcp, s, jitter_ns)): (i, s) for i, s in tasks}
            for fut in as_completed(futures):
                pair_, setup_s = fut.result()
                setup = max(setup, setup_s)
                finish(*futures[fut], pair_)
    return [r for r in rows if r is not None], setup


# --------------------------------------------------------------------------- output


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def pair(f: float | None, n: float | None, spec: str = ".0f") -> str:
    return f"{_fmt(f, spec)} / {_fmt(n, spec)}"


_SPREAD_TEXT = {"ict": ("ICT", 1e-3, "ms", ".2f"), "fct_p50": ("FCT p50", 1e-3, "ms", ".2f"),
                "drops": ("drops", 1, "", ".0f"), "timed_out": ("TO flows", 1, "", ".0f")}


def note(row: Row) -> str:
    notes = row.fanin.notes + row.ns3.notes
    for gate, attr in SPREAD_METRICS:
        rng = spread(row.ns3_runs, attr) if gate in row.in_spread else None
        if rng is not None:
            name, scale, unit, spec = _SPREAD_TEXT[gate]
            lo, hi = (format(v * scale, spec) for v in rng)
            notes.append(f"ns-3 over {len(row.ns3_runs)} seeds: {name} {lo}-{hi}{' ' + unit if unit else ''}")
    return "; ".join(notes)


def to_records(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """One flat dict per row: the case, then every fanin_* and ns3_* metric, then the verdict."""
    out = []
    for r in rows:
        rec: dict[str, Any] = asdict(r.case)
        for side, prefix in ((r.fanin, "fanin_"), (r.ns3, "ns3_")):
            for k, v in asdict(side).items():
                if k in ("notes", "offsets_ps"):
                    continue
                rec[prefix + k] = v
        rec["seeds"] = max(1, len(r.ns3_runs))
        for _, attr in SPREAD_METRICS:
            rng = spread(r.ns3_runs, attr) if len(r.ns3_runs) > 1 else None
            rec[f"ns3_{attr}_min"], rec[f"ns3_{attr}_max"] = rng if rng else (None, None)
        rec["speedup"] = r.speedup
        rec["failed"] = ",".join(r.failed)
        rec["verdict"] = r.verdict
        rec["note"] = note(r)
        out.append(rec)
    return out


GATES_TEXT = (
    "gates: ICT, FCT p50 and drops within 10 % of ns-3; timed-out (TO) flows within max(1, 10 %);"
    " steady-state queue min and max within 10 %. With several seeds: medians over the seeds, and an incast"
    " metric outside its gate but inside ns-3's own range over the seeds (+- 10 %) passes as 'in ns-3's spread'."
    " speed-up = ns-3 Simulator::Run / fanin run loop."
)


def tables(rows: Sequence[Row], ns3_dctcp: str = "floored") -> list[Any]:
    """The rows as rich Tables: the incast rows, then the steady-state rows (each if any)."""
    from rich.markup import escape
    from rich.table import Table

    inc = [r for r in rows if r.case.kind == "incast"]
    st = [r for r in rows if r.case.kind == "steady"]
    out = []
    legend = "cells: fanin / ns-3"
    speed = lambda r: "-" if r.speedup is None else f"{r.speedup:.0f}x"  # noqa: E731
    if inc:
        t = Table(title=f"TCP incast, 10 Gb/s star ({legend}; ns-3 DCTCP: {ns3_dctcp})", title_justify="left")
        cols = ("cc", "d us", "N", "buf", "size", "ICT ms", "FCT p50 ms", "FCT p99 ms", "drops", "retx KB")
        for col in (*cols, "TO flows", "recov", "speed-up", "verdict", "note"):
            t.add_column(col, justify="left" if col in ("cc", "verdict", "note", "size") else "right")
        ms = lambda v: None if v is None else v / 1e3  # noqa: E731
        for r in inc:
            c, f, s = r.case, r.fanin, r.ns3
            t.add_row(
                c.cc,
                str(c.delay_us),
                str(c.n),
                str(c.buffer_pkts),
                size_label(c.size_bytes),
                pair(ms(f.ict_us), ms(s.ict_us), ".3f"),
                pair(ms(f.fct_p50_us), ms(s.fct_p50_us), ".3f"),
                pair(ms(f.fct_p99_us), ms(s.fct_p99_us), ".3f"),
                pair(f.drops, s.drops, "d"),
                pair(f.retx_bytes / 1e3, s.retx_bytes / 1e3, ".0f"),
                pair(f.timed_out_flows, s.timed_out_flows, "d"),
                pair(f.recoveries, s.recoveries, "d"),
                speed(r),
                escape(r.verdict),
                escape(note(r)),
            )
        out.append(t)
    if st:
        t = Table(
            title=f"DCTCP long flows, K = {K_PKTS}, buffer {STEADY_BUFFER} pkts, bottleneck queue disc over"
            f" {STEADY_WARMUP_PS // 10**9}-{STEADY_DURATION_PS // 10**9} ms ({legend})",
            title_justify="left",
        )
        cols = ("flows", "d us", "queue min", "queue max", "queue mean", "period us", "marks", "drops", "speed-up")
        for col in (*cols, "verdict", "note"):
            t.add_column(col, justify="left" if col in ("verdict", "note") else "right")
        for r in st:
            c, f, s = r.case, r.fanin, r.ns3
            t.add_row(
                str(c.n),
                str(c.delay_us),
                pair(f.queue_min, s.queue_min, ".0f"),
                pair(f.queue_max, s.queue_max, ".0f"),
                pair(f.queue_mean, s.queue_mean, ".1f"),
                pair(f.queue_period_us, s.queue_period_us, ".0f"),
                pair(f.marks, s.marks, "d"),
                pair(f.drops, s.drops, "d"),
                speed(r),
                escape(r.verdict),
                escape(note(r)),
            )
        out.append(t)
    return out


def write_table(rows: Sequence[Row], path: str | Path) -> Path:
    """Writes the rows as CSV (``.csv``) or Parquet (``.parquet``), atomically."""
    import os

    import pandas as pd

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise GridError("-o", f"`{p.name}`: unknown file type (allowed: .csv, .parquet)")
    df = pd.DataFrame(to_records(rows))
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    if suffix == ".csv":
        df.to_csv(tmp, index=False)
    else:
        df.to_parquet(tmp, index=False)
    os.replace(tmp, p)
    return p
