"""`fanin crosscheck tcp`: the grid's settings and its cases (see ``ns3_tcp``).

The constants both sides are built from, the rows (``Case``), what each simulator measured
(``Side``) and a judged row (``Row``), and the CLI's selection of a subset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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
