"""`fanin crosscheck imc24`: the IMC '24 DCTCP incast study in fanin and in ns-3, side by side.

The ns-3 half (``ns3_imc24.cc``, compiled by cppyy at run time against the PyPI ``ns3``
wheel, mainline ns-3 3.44) builds the artifact's dumbbell: 10 Gb/s hosts, 100 Gb/s
between the ToRs, 5 us per link; RED with MinTh = MaxTh = 65, QW = 1, LInterm = 1 on every
device (ns-3's defaults otherwise: gentle, wait), over a 100-packet DropTail device queue
(fidelity) or a 1-packet one (paper mode, the nearest ns-3 has to a single queue); MSS
1448 with timestamps (1502-B frames), SACK, every segment ACKed, min RTO 200 ms. Senders
run ``fanin::FlooredDctcp`` (TcpDctcp with the fork's 1-MSS floor on the cut, see
``ns3_incast.py``: mainline ns-3 stalls without it); the receiver's sockets are TcpNewReno
with ECN (classic, latched echo) in fidelity mode and FlooredDctcp (DCTCP echo) in paper
mode. The application: the receiver holds one connection per sender (opened 10 us apart,
burst 1 at 20 ms after the last), sends each a 4-B request after U{0..99} us; a sender
writes ceil(D x 1.25 GB/s / N) bytes U{0..99} us after the request; the next burst starts
1 s after the last byte of the previous one.

Differences left: ns-3 has PRR and sub-MSS segments and opens
connections with handshakes; fanin seeds each connection's RTT estimate with the
handshake's sample instead. Jitter streams differ (per-flow traces cannot match; compare
statistics, as the spec says).

Timing: ``ns3_run_s`` is ``Simulator::Run`` alone; the ns-3 import and the C++ build are
reported once (``ns3_setup_s``) and not counted in the speed ratio.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fanin.imc24 import response_bytes, scenario
from fanin.imc24.analysis import BOTTLENECK, queue_steps, step_stats

_CC = Path(__file__).with_name("ns3_imc24.cc")


@dataclass
class Side:
    bct_ms: float  # mean over bursts 2..count
    mean_queue_pkts: float  # bottleneck queue disc, time average over each burst, mean over bursts
    drops_per_burst: float  # every queue (disc and device)
    run_s: float  # the run loop alone


@dataclass
class Case:
    n: int
    mode: str
    fanin: Side
    ns3: Side


def run_fanin(n: int, duration_ms: float, bursts: int, mode: str, seed: int = 1) -> Side:
    import fanin
    from fanin import Scenario

    r = fanin.run(Scenario.from_dict(scenario(n, duration_ms, bursts, mode, seed)))
    b = r.table("bursts")
    b = b[b["burst"] >= 1]
    t, v = queue_steps(r, BOTTLENECK)
    q = [step_stats(t, v, int(s), int(e))["mean"] for s, e in zip(b["start_ps"], b["end_ps"], strict=True)]
    return Side(float(b["bct_ps"].mean() / 1e9), float(np.mean(q)), float(b["drops"].mean()), float(r.summary["wall_s"]))


def ns3_setup() -> float:
    """Imports ns-3 and compiles both C++ halves; returns the seconds it took."""
    from fanin.crosscheck import ns3_incast

    t = time.perf_counter()
    ns = ns3_incast._load_ns()
    ns3_incast._ensure_cpp(ns)
    if not hasattr(ns.cppyy.gbl, "fanin_imc"):
        ns.cppyy.cppdef(_CC.read_text())
    ns.cppyy.gbl.fanin_xc.SetPicoResolution()
    return time.perf_counter() - t


def run_ns3(n: int, duration_ms: float, bursts: int, mode: str, seed: int = 1) -> Side:
    from fanin.crosscheck import ns3_incast

    ns = ns3_incast._load_ns()
    imc = ns.cppyy.gbl.fanin_imc
    imc.Build(n, response_bytes(duration_ms, n), bursts, mode == "fidelity", seed)
    t = time.perf_counter()
    ns.Simulator.Run()
    run_s = time.perf_counter() - t
    start = np.array(list(imc.StartPs()), dtype=float)
    end = np.array(list(imc.EndPs()), dtype=float)
    drops = np.array(list(imc.Drops()), dtype=float)
    queue = np.array(list(imc.MeanQueue()), dtype=float)
    ns.Simulator.Destroy()
    done = len(end)
    if done < bursts:
        raise RuntimeError(f"ns-3 stalled: {done} of {bursts} bursts completed (N = {n}, {mode})")
    m = slice(1, done)
    return Side(float(np.mean(end[m] - start[m]) / 1e9), float(np.mean(queue[m])), float(np.mean(drops[m])), run_s)


def crosscheck(ns: tuple[int, ...] = (100, 500, 1000), modes: tuple[str, ...] = ("fidelity", "paper"), duration_ms: float = 15, bursts: int = 11, seed: int = 1) -> tuple[list[Case], float]:
    setup = ns3_setup()
    cases = []
    for mode in modes:
        for n in ns:
            cases.append(Case(n, mode, run_fanin(n, duration_ms, bursts, mode, seed), run_ns3(n, duration_ms, bursts, mode, seed)))
    return cases, setup
