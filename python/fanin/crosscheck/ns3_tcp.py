"""`fanin crosscheck tcp`: a grid of TCP incast scenarios in fanin and in ns-3, with a verdict per row.

Every row is one scenario run twice with the same settings: once in fanin
(:func:`fanin_scenario`, the one place the fanin side is built) and once in mainline
ns-3 3.44 (the PyPI ``ns3`` wheel; ``ns3_tcp.cc``, compiled by cppyy at run time after
``ns3_incast.cc``, whose ``fanin::FlooredDctcp`` it uses). This module runs the two sides;
the settings and rows are in ``ns3_tcp_grid``, the gates and output in ``ns3_tcp_verdict``
(both re-exported here).

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

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

# The grid and the verdicts live beside this module; everything is reachable from here.
from fanin.crosscheck.ns3_tcp_grid import *  # noqa: F403
from fanin.crosscheck.ns3_tcp_verdict import *  # noqa: F403

# ---------------------------------------------------------------------------------------
# The engine's loss-recovery model: ns-3 3.44's rules (`transport.recovery`). Hosts keep
# ns-3's NIC queues: the explicit [host.queue] below turns TCP Small Queues off.
RECOVERY: str | None = "ns3"
# ---------------------------------------------------------------------------------------


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
