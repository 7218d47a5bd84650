"""ns-3 cross-check of fanin's N-to-1 DCTCP incast (benchmark (a)).

The same scenario as fanin's incast benchmark, run in *mainline* ns-3 (the PyPI
``ns3`` wheel, version 3.44, whose Python bindings are cppyy):

* a **star**: N senders and one receiver, each attached to one switch by a
  point-to-point link of ``rate_bps`` and one-way ``link_delay_ps``; the base RTT is
  4 x delay + the serialisations (data frame on two hops, ACK on two hops);
* at the same simulated start time every sender writes ``bytes_per_sender`` bytes on
  an already-established TCP connection (DCTCP) to the receiver;
* every egress port (the switch's ports and the hosts' NICs) has a RED queue disc
  configured as DCTCP step marking: CE when the queue-disc backlog found by an
  arriving packet is >= K packets, buffer of ``buffer_pkts`` packets.

The module is deliberately standalone: it imports nothing from the rest of fanin, so
``python python/fanin/crosscheck/ns3_incast.py --senders 8 --bytes 100000`` works in a
checkout where the fanin package is not built.  ns-3 is imported lazily, on the
first run (the import takes ~12-15 s: it loads every ns-3 module through cppyy).

How the model is built, and why (all of it is in the C++ source below, which cppyy
compiles at run time against the wheel's headers; the C++ is ours, not ns-3's):

* Time resolution is set to picoseconds (ns-3's default is ns, which would round the
  1.2016 us serialisation of a 1502-B frame at 10 Gb/s).
* Queues: ``RedQueueDisc`` with MinTh = MaxTh = K, QW = 1 (the "average" is the
  instantaneous backlog), Gentle = false, LInterm = 1, UseEcn = true,
  UseHardDrop = false, MaxSize = ``buffer_pkts`` p.  With Gentle off and
  MinTh = MaxTh every arrival that finds >= K packets in the queue disc takes the
  "forced" branch, which marks an ECT packet (never drops it) -- exactly a step
  marker, without the ``m_old`` first-packet exemption that Gentle = on has.  It is
  installed before addresses are assigned, so ns-3 never installs its default
  FqCoDel.  The packet drops only when the queue disc is full.
* The PointToPointNetDevice's own DropTail queue is 1 packet (the smallest ns-3
  accepts) with flow control on, so the backlog sits in the queue disc, where it is
  marked and measured.  A port therefore holds queue disc + at most 1 packet in the
  device queue + the frame being serialised: the marking threshold is on the queue
  disc alone (as in the IMC'24 artifact), i.e. at most one packet later than a
  marker that counts the device queue too.
* TCP: ``TcpDctcp`` (g = ``dctcp_g``, alpha starts at 1, ECT(0)) on both ends, so
  the receiver echoes CE the DCTCP way (ECE per packet, state machine in
  ``TcpDctcp::CeState0to1/1to0``); DelAckCount = 1; SACK on; timestamps off, so a
  data segment is mtu - 40 B of payload and a frame is mtu + 2 B (PPP header);
  MinRto = ``min_rto_ps``; ClockGranularity = min(1 ms, MinRto); initial cwnd
  ``init_cwnd_pkts``; initial ssthresh infinite; PRR recovery (ns-3's default);
  no Nagle; 1 GiB socket buffers (window scaling on).
* **The DCTCP stall.** Mainline ``TcpDctcp::GetSsThresh`` returns
  (1 - alpha/2) * cwnd with no floor.  With cwnd = 1 MSS and alpha near 1 that is
  ~0.5 MSS; when CWR ends cwnd = ssthresh < 1 MSS, and ``SendPendingData``'s
  silly-window check refuses to send a sub-MSS segment while more data waits.
  With nothing in flight no ACK and no RTO will ever come: the flow stalls for good.
  The IMC'24 fork patches the cut to max((1 - alpha/2) * cwnd, 1 MSS).  We do the
  same without patching ns-3: a subclass ``fanin::FlooredDctcp`` of ``TcpDctcp``
  overrides ``GetSsThresh`` with the 1-MSS floor (and ``Fork``, so accepted
  sockets keep the class) and is made the default TCP socket type.
  ``dctcp_mss_floor=False`` runs plain mainline ``TcpDctcp``; a stalled run is then
  reported (``stalled_flows``, ``ict_ps = -1``), not hidden.
* Connections are opened at t = 0 and the data is written at t = ``start_ps``
  (1 ms by default, long after the handshakes), so the incast starts with IW on
  every flow and no handshake in the measured time, like fanin's.

Timing: ``setup_wall_s`` is the ns-3 import (first call in a process only) + the
C++ compilation (first call only) + building the topology; ``run_wall_s`` is
``Simulator::Run()`` alone.  ``events`` is ``Simulator::GetEventCount()``: every
ns-3 event from t = 0, the handshakes included.

Reference results (ns3 3.44.post0 wheel, this 2-core machine, defaults: 10 Gb/s,
1 us per link, K = 65, 1000-p buffer, MSS 1460, IW 10, g = 1/16, MinRto 200 ms):

=================  ============  ==========  =====  ======  =====  ===========  ===========
case               ICT           wire ideal  drops  marks   RTOs   run_wall_s   events
=================  ============  ==========  =====  ======  =====  ===========  ===========
4 x 50 kB          167.906 us    164.704 us  0      36      0      0.03         1 918
8 x 100 kB         661.749 us    658.547 us  0      278     0      0.04-0.10    7 389
64 x 1 MB          52.676226 ms  52.673 ms   0      34 629  0      4.0-7.1      571 649
=================  ============  ==========  =====  ======  =====  ===========  ===========

"wire ideal" is every frame of the incast serialised back to back on the bottleneck:
N * (bytes + segments * 42 B) * 8 / rate.  Each 1502-B frame carries 1460 B of TCP
payload, so 64 MB needs 51.2 ms * 1502/1460 = 52.673 ms (not 51.2 * 1502/1500, which
would be the bound for 1500-B IP payloads).  In every case ICT - wire ideal =
3.2016 us = the first frame's sender serialisation (1.2016 us) + 2 x 1 us of
propagation: the bottleneck never idles.  setup_wall_s is 13-20 s on a first call
(import 11-17 s, C++ compilation ~2 s, build < 0.1 s) and < 0.1 s after that.  The
wheel is a release build with logging and asserts compiled in (NS3_LOG_ENABLE,
NS3_ASSERT_ENABLE).  Mean bottleneck queue for 64 x 1 MB: 96.4 packets, peak 701
(the 64 x IW-10 start).  Without the floor the same run cuts ssthresh as low as
257 B (< 1 MSS) but does not stall in a single burst; with it the smallest
ssthresh is exactly 1460 B.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["Ns3IncastResult", "available", "run_ns3_incast", "ideal_ict_ps", "main"]

PPP_HEADER_BYTES = 2
IP_TCP_HEADER_BYTES = 40  # 20 B IPv4 + 20 B TCP: timestamps are off, no options on data
ACK_FRAME_BYTES = IP_TCP_HEADER_BYTES + PPP_HEADER_BYTES


@dataclass
class Ns3IncastResult:
    """What one ns-3 incast run measured.  Times are picoseconds from the start time."""

    ict_ps: int  # last byte received at the receiver minus the start time (-1: never)
    flow_fct_ps: list[int]  # per sender: its last byte received minus start (-1: never)
    drops: int  # packets dropped in the bottleneck (switch -> receiver) queue
    marks: int  # packets CE-marked in the bottleneck queue
    mean_queue_pkts: float  # time-average bottleneck queue-disc length, start .. ict
    setup_wall_s: float  # ns-3 import (first call only) + C++ compile + topology build
    run_wall_s: float  # Simulator::Run() alone
    events: int | None  # Simulator::GetEventCount() (all events, handshakes included)
    ns3_version: str
    # Extras (not part of the cross-check contract, useful when reading a result).
    peak_queue_pkts: int = 0  # peak bottleneck queue-disc length
    drops_all: int = 0  # drops in every queue disc (host NICs and switch ports)
    marks_all: int = 0  # CE marks in every queue disc
    device_queue_drops: int = 0  # drops in the 1-packet device queues (should be 0)
    rtos: int = 0  # sender entries into CA_LOSS (retransmission timeouts)
    fast_recoveries: int = 0  # sender entries into CA_RECOVERY (3 dup-ACKs / SACK)
    cwr_entries: int = 0  # sender entries into CA_CWR (DCTCP window cuts on ECE)
    retransmissions: int = 0  # retransmitted segments
    stalled_flows: int = 0  # senders whose data never all arrived by the time limit
    stalled_cwnd_bytes: list[int] = field(default_factory=list)  # their cwnd at the end
    dctcp_mss_floor: bool = True  # whether the 1-MSS floor on the DCTCP cut was applied
    min_ssthresh_bytes: int = -1  # smallest ssthresh set by any cut (-1: no cut)
    import_wall_s: float = 0.0  # the part of setup_wall_s spent importing ns-3
    sim_end_ps: int = 0  # simulated time when Run() returned, from t = 0
    ideal_ict_ps: int = 0  # serialisation bound (wire bytes at the bottleneck) + 1 base RTT


# --------------------------------------------------------------------------- helpers


def segments_per_sender(bytes_per_sender: int, mtu: int = 1500) -> int:
    mss = mtu - IP_TCP_HEADER_BYTES
    return -(-bytes_per_sender // mss)


def wire_bytes(senders: int, bytes_per_sender: int, mtu: int = 1500) -> int:
    """Bytes the bottleneck link serialises: payload + 40 B IP/TCP + 2 B PPP per segment."""
    segs = segments_per_sender(bytes_per_sender, mtu)
    return senders * (bytes_per_sender + segs * (IP_TCP_HEADER_BYTES + PPP_HEADER_BYTES))


def base_rtt_ps(rate_bps: int, link_delay_ps: int, mtu: int = 1500) -> int:
    """4 propagation delays + a full data frame and an ACK frame serialised twice each."""
    ser = lambda nbytes: nbytes * 8 * 10**12 // rate_bps  # noqa: E731
    return 4 * link_delay_ps + 2 * ser(mtu + PPP_HEADER_BYTES) + 2 * ser(ACK_FRAME_BYTES)


def ideal_ict_ps(
    senders: int,
    bytes_per_sender: int,
    rate_bps: int = 10_000_000_000,
    link_delay_ps: int = 1_000_000,
    mtu: int = 1500,
    with_rtt: bool = True,
) -> int:
    """Lower-bound style reference for the ICT: all wire bytes at line rate (+ 1 base RTT)."""
    t = wire_bytes(senders, bytes_per_sender, mtu) * 8 * 10**12 // rate_bps
    if with_rtt:
        t += base_rtt_ps(rate_bps, link_delay_ps, mtu)
    return t


def available() -> bool:
    """True if ns-3's Python bindings (``from ns import ns``) can be imported.

    Cheap when ns-3 is absent (a ``find_spec`` look-up); when it is present this does
    the real import (~15 s, once per process, cached), because an installed but broken
    wheel is only found out that way, and a run needs the import anyway.  Nothing is
    imported when this module is imported.
    """
    if importlib.util.find_spec("ns") is None or importlib.util.find_spec("cppyy") is None:
        return False
    try:
        _load_ns()
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return False
    return True


# --------------------------------------------------------------------------- ns-3 side

_NS = None  # the `ns` namespace (cppyy.gbl.ns3) once imported
_IMPORT_WALL_S = 0.0
_IMPORT_CHARGED = False  # the import time is charged to the first run's setup only
_CPP_READY = False

# The C++ half (floored DCTCP, topology, tracing) lives beside this file and is compiled
# by cppyy on first use.
_CPP_FILE = Path(__file__).with_name("ns3_incast.cc")


def _load_ns():
    """Import ns-3's bindings once per process; return the ``ns`` namespace."""
    global _NS, _IMPORT_WALL_S
    if _NS is None:
        t = time.perf_counter()
        from ns import ns  # noqa: PLC0415 - deliberately lazy (~15 s)

        _IMPORT_WALL_S = time.perf_counter() - t
        _NS = ns
    return _NS


def _ensure_cpp(ns) -> None:
    global _CPP_READY
    if not _CPP_READY:
        ns.cppyy.cppdef(_CPP_FILE.read_text())
        _CPP_READY = True


def _ns3_version(ns) -> str:
    try:
        from importlib.metadata import version  # noqa: PLC0415

        return version("ns3")
    except Exception:  # noqa: BLE001
        return "unknown"


def run_ns3_incast(
    senders: int = 64,
    bytes_per_sender: int = 1_000_000,
    rate_bps: int = 10_000_000_000,
    link_delay_ps: int = 1_000_000,
    ecn_threshold_pkts: int = 65,
    buffer_pkts: int = 1000,
    mtu: int = 1500,
    min_rto_ps: int = 200_000_000_000,
    init_cwnd_pkts: int = 10,
    dctcp_g: float = 1 / 16,
    seed: int = 1,
    *,
    dctcp_mss_floor: bool = True,
    start_ps: int = 1_000_000_000,
    time_limit_ps: int | None = None,
) -> Ns3IncastResult:
    """Run the N-to-1 DCTCP incast star in ns-3 and measure it (see the module doc).

    Keyword-only extras: ``dctcp_mss_floor`` (the 1-MSS floor on the DCTCP cut that
    avoids mainline ns-3's stall; False runs plain ``TcpDctcp``), ``start_ps`` (the
    simulated time the data is written, after the handshakes of t = 0) and
    ``time_limit_ps`` (simulated-time cap; by default start + 20 x the ideal ICT +
    2 s, enough for several RTOs).  Flows that have not finished by the limit are
    reported in ``stalled_flows`` and give ``ict_ps = -1``.
    """
    if senders < 1 or bytes_per_sender < 1:
        raise ValueError("senders and bytes_per_sender must be >= 1")
    if mtu <= IP_TCP_HEADER_BYTES:
        raise ValueError(f"mtu must exceed {IP_TCP_HEADER_BYTES} B (IP + TCP headers)")
    if ecn_threshold_pkts < 1 or buffer_pkts < 1:
        raise ValueError("ecn_threshold_pkts and buffer_pkts must be >= 1")

    global _IMPORT_CHARGED
    # The import is charged to the first run in a process: measured inside this call,
    # or added from the earlier measurement if available() already imported ns-3.
    imported_before = _NS is not None
    t_setup = time.perf_counter()
    ns = _load_ns()
    import_wall = 0.0
    extra_import_wall = 0.0  # an import done earlier (by available()), not timed below
    if not _IMPORT_CHARGED:
        import_wall = _IMPORT_WALL_S
        if imported_before:
            extra_import_wall = _IMPORT_WALL_S
        _IMPORT_CHARGED = True
    _ensure_cpp(ns)
    xc = ns.cppyy.gbl.fanin_xc
    if not xc.SetPicoResolution():
        raise RuntimeError("could not set ns-3's time resolution to picoseconds")

    ideal = ideal_ict_ps(senders, bytes_per_sender, rate_bps, link_delay_ps, mtu)
    if time_limit_ps is None:
        time_limit_ps = start_ps + 20 * ideal + 2 * 10**12
    xc.Build(
        senders,
        bytes_per_sender,
        rate_bps,
        link_delay_ps,
        ecn_threshold_pkts,
        buffer_pkts,
        mtu,
        min_rto_ps,
        init_cwnd_pkts,
        float(dctcp_g),
        seed,
        bool(dctcp_mss_floor),
        start_ps,
        time_limit_ps,
    )
    setup_wall = time.perf_counter() - t_setup + extra_import_wall

    t_run = time.perf_counter()
    ns.Simulator.Run()
    run_wall = time.perf_counter() - t_run

    fct = [int(x) for x in xc.FctPs()]
    res = Ns3IncastResult(
        ict_ps=int(xc.IctPs()),
        flow_fct_ps=fct,
        drops=int(xc.BottleneckDrops()),
        marks=int(xc.BottleneckMarks()),
        mean_queue_pkts=float(xc.MeanQueuePkts()),
        setup_wall_s=setup_wall,
        run_wall_s=run_wall,
        events=int(xc.Events()),
        ns3_version=_ns3_version(ns),
        peak_queue_pkts=int(xc.PeakQueuePkts()),
        drops_all=int(xc.AllDrops()),
        marks_all=int(xc.AllMarks()),
        device_queue_drops=int(xc.DeviceQueueDrops()),
        rtos=int(xc.Rtos()),
        fast_recoveries=int(xc.Recoveries()),
        cwr_entries=int(xc.Cwrs()),
        retransmissions=int(xc.Retx()),
        stalled_flows=sum(1 for x in fct if x < 0),
        stalled_cwnd_bytes=[int(x) for x in xc.StalledCwnd()],
        dctcp_mss_floor=bool(dctcp_mss_floor),
        min_ssthresh_bytes=int(xc.MinSsthresh()),
        import_wall_s=import_wall,
        sim_end_ps=int(xc.NowPs()),
        ideal_ict_ps=ideal,
    )
    ns.Simulator.Destroy()
    xc.Reset()
    return res


# --------------------------------------------------------------------------- CLI


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m fanin.crosscheck.ns3_incast",
        description="Run fanin's N-to-1 DCTCP incast in ns-3 and print the result as JSON.",
    )
    p.add_argument("--senders", type=int, default=64)
    p.add_argument("--bytes", type=int, default=1_000_000, help="bytes per sender")
    p.add_argument("--rate-bps", type=int, default=10_000_000_000)
    p.add_argument("--link-delay-ps", type=int, default=1_000_000)
    p.add_argument("--ecn-k", type=int, default=65, help="ECN step threshold (packets)")
    p.add_argument("--buffer-pkts", type=int, default=1000)
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("--min-rto-ps", type=int, default=200_000_000_000)
    p.add_argument("--init-cwnd", type=int, default=10)
    p.add_argument("--dctcp-g", type=float, default=1 / 16)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--no-mss-floor",
        action="store_true",
        help="plain mainline TcpDctcp (no 1-MSS floor on the cut): may stall",
    )
    p.add_argument("--no-fct", action="store_true", help="omit the per-flow FCT list")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    a = _parse_args(argv)
    if importlib.util.find_spec("ns") is None:
        print("ns-3 Python bindings not installed (pip install ns3)", file=sys.stderr)
        return 2
    r = run_ns3_incast(
        senders=a.senders,
        bytes_per_sender=a.bytes,
        rate_bps=a.rate_bps,
        link_delay_ps=a.link_delay_ps,
        ecn_threshold_pkts=a.ecn_k,
        buffer_pkts=a.buffer_pkts,
        mtu=a.mtu,
        min_rto_ps=a.min_rto_ps,
        init_cwnd_pkts=a.init_cwnd,
        dctcp_g=a.dctcp_g,
        seed=a.seed,
        dctcp_mss_floor=not a.no_mss_floor,
    )
    out = asdict(r)
    if a.no_fct:
        out.pop("flow_fct_ps")
    if r.ict_ps > 0 and r.ideal_ict_ps > 0:
        out["ict_over_ideal"] = r.ict_ps / r.ideal_ict_ps
    print(json.dumps(out, indent=2))
    return 0 if r.stalled_flows == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
