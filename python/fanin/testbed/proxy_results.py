"""The proxy testbed's records turned into tables, CDF figures and a summary beside the paper's.

- ``latency.parquet``: one row per packet and measure: phase, proxy, measure (``lower_bound``:
  the streamlined program's run time; ``relay``: the naive proxy's TC ingress to TC egress;
  ``upper_bound``: sender egress to receiver ingress from the captures), path (data, ack, nack),
  latency_ns.
- ``summary.parquet`` / ``summary.json``: per phase, proxy, measure and path: samples, median
  and p99 in us, the paper's number where it gives one, and the latency phase's packet rate.
- ``incast.json``: the incast's counters beside what the captures show, and whether they agree.
- ``fig4_naive.png``, ``fig5_streamlined.png``: the CDFs.
"""

from __future__ import annotations

import ipaddress
import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fanin._fs import atomic_write_bytes
from fanin.testbed.proxy_run import PAYLOAD_BYTES, ProxyRun
from fanin.testbed.proxynet import RECEIVER_ADDR, SENDER_ADDR

PATHS = ("data", "ack", "nack", "other")  # bpf/proto.h's PATH_* order
SAMPLE = np.dtype([("ns", "<u8"), ("path", "<u4"), ("pad", "<u4")])
PROTO_PORT, DATA, ACK, NACK = 7000, 1, 2, 3
HEADERS_IP_BYTES = 20 + 8 + 16  # IPv4 + UDP + the protocol's header: a header-only packet
PAYLOAD_FRAME_BYTES = 14 + HEADERS_IP_BYTES + PAYLOAD_BYTES  # a whole DATA frame
PAPER_US = {  # (proxy, measure) -> the paper's numbers (HotNets '25 §4), in us
    ("streamlined", "lower_bound"): {"paper_median_us": 0.42},
    ("streamlined", "upper_bound"): {"paper_median_us": 325.92},
    ("naive", "relay"): {"paper_p99_us": 359.17},
}
_SENDER = int(ipaddress.IPv4Address(SENDER_ADDR))
_RECEIVER = int(ipaddress.IPv4Address(RECEIVER_ADDR))


def frames(pcap: Path) -> pd.DataFrame:
    """The protocol's frames in one of the run's captures (nanosecond pcap, Ethernet): time_ns,
    src, dst (IPv4 as integers), kind, flow, seq, attempt, ip_bytes."""
    raw = pcap.read_bytes()
    rows = []
    at = 24
    while at + 16 <= len(raw):
        sec, nsec, incl, _ = struct.unpack_from("=IIII", raw, at)
        f = at + 16
        at = f + incl
        if incl < 58 or raw[f + 12 : f + 14] != b"\x08\x00" or raw[f + 23] != 17:
            continue
        ip_bytes, src, dst = struct.unpack_from("!H", raw, f + 16)[0], *struct.unpack_from("!II", raw, f + 26)
        sport, dport = struct.unpack_from("!HH", raw, f + 34)
        if PROTO_PORT not in (sport, dport):
            continue
        kind, _, flow, seq, attempt = struct.unpack_from("!BBHII", raw, f + 42)
        rows.append((sec * 10**9 + nsec, src, dst, kind, flow, seq, attempt, ip_bytes))
    cols = ["time_ns", "src", "dst", "kind", "flow", "seq", "attempt", "ip_bytes"]
    return pd.DataFrame(rows, columns=cols, dtype="int64")


def _samples(path: Path, phase: str, proxy: str, measure: str) -> pd.DataFrame:
    s = np.fromfile(path, dtype=SAMPLE) if path.exists() else np.zeros(0, SAMPLE)
    return pd.DataFrame(
        {"phase": phase, "proxy": proxy, "measure": measure, "path": np.array(PATHS)[s["path"]],
         "latency_ns": s["ns"].astype("int64")}  # fmt: skip
    )


def _one_way(tx: pd.DataFrame, rx: pd.DataFrame) -> pd.Series:
    """Capture time at the far end minus capture time at the near end, per packet (flow, seq, attempt)."""
    key = ["flow", "seq", "attempt"]
    first = tx.drop_duplicates(key)[[*key, "time_ns"]].merge(rx.drop_duplicates(key)[[*key, "time_ns"]], on=key)
    return first["time_ns_y"] - first["time_ns_x"]


def upper_bounds(out: Path, tag: str, proxy: str) -> pd.DataFrame:
    """Sender egress -> receiver ingress for data, receiver egress -> sender ingress for ACKs."""
    snd, rcv = frames(out / f"{tag}_sender.pcap"), frames(out / f"{tag}_receiver.pcap")
    parts = []
    for path, kind, near, far, src in (("data", DATA, snd, rcv, _SENDER), ("ack", ACK, rcv, snd, _RECEIVER)):
        tx, rx = near[(near["kind"] == kind) & (near["src"] == src)], far[(far["kind"] == kind) & (far["src"] == src)]
        parts.append(pd.DataFrame({"path": path, "latency_ns": _one_way(tx, rx)}))
    table = pd.concat(parts, ignore_index=True)
    return table.assign(phase="latency", proxy=proxy, measure="upper_bound")


def latency_table(out: Path) -> pd.DataFrame:
    parts = [
        _samples(out / "latency_streamlined_samples.bin", "latency", "streamlined", "lower_bound"),
        _samples(out / "latency_naive_samples.bin", "latency", "naive", "relay"),
        _samples(out / "incast_streamlined_samples.bin", "incast", "streamlined", "lower_bound"),
        upper_bounds(out, "latency_streamlined", "streamlined"),
        upper_bounds(out, "latency_naive", "naive"),
    ]
    cols = ["phase", "proxy", "measure", "path", "latency_ns"]
    return pd.concat([p[cols] for p in parts], ignore_index=True)


def summary_table(latency: pd.DataFrame, run: ProxyRun) -> pd.DataFrame:
    rows = []
    for (phase, proxy, measure, path), g in latency.groupby(["phase", "proxy", "measure", "path"], sort=False):
        us = g["latency_ns"].to_numpy() / 1e3
        row: dict[str, Any] = {"phase": phase, "proxy": proxy, "measure": measure, "path": path, "samples": len(us),
                               "median_us": float(np.median(us)), "p99_us": float(np.percentile(us, 99))}  # fmt: skip
        row |= {"paper_median_us": None, "paper_p99_us": None} | PAPER_US.get((proxy, measure), {})
        sent = run.latency.get(proxy, {}).get("sender", {}) if phase == "latency" else {}
        seconds = (sent.get("end_ns", 0) - sent.get("start_ns", 0)) / 1e9
        row["data_packets_per_s"] = sent["sent"] / seconds if seconds > 0 else None
        row["data_rate_bps"] = row["data_packets_per_s"] * (PAYLOAD_FRAME_BYTES * 8) if seconds > 0 else None
        rows.append(row)
    return pd.DataFrame(rows)


def _count(path: Path, slot: int) -> int:
    return int(np.fromfile(path, dtype="<u8")[slot]) if path.exists() else 0


def incast_agreement(out: Path, run: ProxyRun) -> dict[str, Any]:
    """The incast's counters, each beside the capture's view of the same thing."""
    s, inc = run.settings, run.incast
    snd, rcv = frames(out / "incast_sender.pcap"), frames(out / "incast_receiver.pcap")
    sent = pd.DataFrame(inc["senders"])
    data_out = snd[(snd["kind"] == DATA) & (snd["src"] == _SENDER)]
    data_in = rcv[(rcv["kind"] == DATA) & (rcv["dst"] == _RECEIVER)]
    whole = data_in[data_in["ip_bytes"] > HEADERS_IP_BYTES].drop_duplicates(["flow", "seq"])
    counters = {
        "trimmed (trimmer)": _count(out / "incast_trimmer_trims.bin", 0),
        "NACKs sent (proxy)": _count(out / "incast_streamlined_counts.bin", PATHS.index("nack")),
        "NACKs received (senders)": int(sent["nacks"].sum()),
        "NACKs at the sender (capture)": int(((snd["kind"] == NACK) & (snd["dst"] == _SENDER)).sum()),
        "retransmitted (senders)": int(sent["retransmitted"].sum()),
        "retransmitted at the sender (capture)": int((data_out["attempt"] > 0).sum()),
        "timeouts (senders)": int(sent["timeouts"].sum()),
        "header-only at the receiver (capture)": int((data_in["ip_bytes"] == HEADERS_IP_BYTES).sum()),
        "payload bytes sent": s.senders * s.packets_per_sender * PAYLOAD_BYTES,
        "payload bytes received (receiver)": sum(f["bytes"] for f in inc["receiver"].values()),
        "payload bytes received (capture)": int((whole["ip_bytes"] - HEADERS_IP_BYTES).sum()),
        "tbf drops at the bottleneck": inc["tbf"]["dropped"],
        "capture drops": sum(inc["capture_drops"].values()),
    }
    c = counters
    checks = {
        "trimmed = NACKed = received as NACKs": len({c["trimmed (trimmer)"], c["NACKs sent (proxy)"],
                                                     c["NACKs received (senders)"],
                                                     c["NACKs at the sender (capture)"]}) == 1,  # fmt: skip
        "retransmitted = NACKs + timeouts": c["retransmitted (senders)"]
        == c["NACKs received (senders)"] + c["timeouts (senders)"],
        "retransmissions in the capture": c["retransmitted (senders)"] == c["retransmitted at the sender (capture)"],
        "every byte arrived": c["payload bytes sent"] == c["payload bytes received (receiver)"]
        == c["payload bytes received (capture)"],
        "no header passed the proxy": c["header-only at the receiver (capture)"] == 0,
        "nothing dropped": c["tbf drops at the bottleneck"] == 0 and c["capture drops"] == 0,
    }
    return {"counters": counters, "checks": checks, "agree": all(checks.values())}


def _cdf(ax: Any, values_us: np.ndarray, label: str, **style: Any) -> None:
    """The empirical CDF at 2001 quantiles: millions of points draw the same curve, slowly."""
    if len(values_us):
        q = np.linspace(0, 1, 2001)
        ax.plot(np.quantile(values_us, q), q, label=f"{label} (n={len(values_us)})", **style)


def figures(out: Path, latency: pd.DataFrame) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lat = latency[latency["phase"] == "latency"]

    def pick(proxy: str, measure: str, path: str) -> np.ndarray:
        m = (lat["proxy"] == proxy) & (lat["measure"] == measure) & (lat["path"] == path)
        return lat.loc[m, "latency_ns"].to_numpy() / 1e3

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for path in ("data", "ack"):
        _cdf(ax, pick("naive", "relay", path), f"relay, {path}")
        _cdf(ax, pick("naive", "upper_bound", path), f"sender to receiver, {path}", linestyle="--")
    ax.axvline(359.17, color="grey", linestyle=":", label="paper p99 359.17 us")
    ax.set(xscale="log", xlabel="latency (us)", ylabel="CDF", title="Fig. 4: naive proxy (user space)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "fig4_naive.png", dpi=120)
    plt.close(fig)

    fig, (lo, hi) = plt.subplots(1, 2, figsize=(9, 3.5))
    for path in ("data", "ack"):
        _cdf(lo, pick("streamlined", "lower_bound", path), path)
        _cdf(hi, pick("streamlined", "upper_bound", path), path)
    lo.axvline(0.42, color="grey", linestyle=":", label="paper median 0.42 us")
    hi.axvline(325.92, color="grey", linestyle=":", label="paper median 325.92 us")
    lo.set(xscale="log", xlabel="eBPF run time (us)", ylabel="CDF", title="Fig. 5a: lower bound")
    hi.set(xscale="log", xlabel="sender to receiver (us)", title="Fig. 5b: upper bound")
    for ax in (lo, hi):
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "fig5_streamlined.png", dpi=120)
    plt.close(fig)


def write_results(out: Path, run: ProxyRun) -> tuple[pd.DataFrame, dict[str, Any]]:
    latency = latency_table(out)
    latency.to_parquet(out / "latency.parquet", index=False)
    summary = summary_table(latency, run)
    summary.to_parquet(out / "summary.parquet", index=False)
    atomic_write_bytes(out / "summary.json", (summary.to_json(orient="records", indent=2) + "\n").encode())
    agreement = incast_agreement(out, run)
    atomic_write_bytes(out / "incast.json", (json.dumps(agreement, indent=2) + "\n").encode())
    figures(out, latency)
    return summary, agreement
