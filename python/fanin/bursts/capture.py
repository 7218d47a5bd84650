"""Packet captures (pcap, pcapng) turned into per-host counters, parsed with ``dpkt``.

Per IP address seen in the capture, per bin (bins start at the first packet):
- ``ingress_bytes`` / ``egress_bytes``: frame bytes to / from the address, counted as
  14 B of Ethernet header + the IP packet's length (the basis of a NIC line rate without
  preamble and gap; the capture's link type does not change it);
- ``in_rxmit_bytes`` / ``out_rxmit_bytes``: frame bytes of TCP segments with payload whose
  first sequence number lies below the highest sequence number already seen on their
  5-tuple (modulo 2^32, so wrap-around is handled);
- ``in_ce_bytes``: frame bytes with ECN = CE (11) in the IP header;
- ``connections``: distinct 5-tuples with at least one packet to the address in the bin,
  as Millisampler and fanin's simulator count them.
Packets that are not IPv4/IPv6 (ARP, LLDP) have no host and are not counted.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import dpkt
import numpy as np
import pandas as pd

from fanin.bursts.counters import COUNTERS, BurstInputError, BurstInputWarning, concat, series_frame
from fanin.bursts.pcapfile import CaptureReader

ETHERNET_HEADER_BYTES = 14
CAPTURE_SUFFIXES = (".pcap", ".pcapng", ".cap")
_SEQ_MOD = 1 << 32
_HALF = 1 << 31


def is_capture(path: Path) -> bool:
    return path.is_file() and path.name.endswith(CAPTURE_SUFFIXES)


def _network_layer(linktype: int, buf: bytes) -> dpkt.Packet | None:
    """The IP packet inside one captured frame, or None."""
    if linktype == dpkt.pcap.DLT_EN10MB:
        l2: dpkt.Packet = dpkt.ethernet.Ethernet(buf)
        ip = l2.data
    elif linktype == dpkt.pcap.DLT_LINUX_SLL:
        ip = dpkt.sll.SLL(buf).data
    elif linktype in (dpkt.pcap.DLT_RAW, 12, 14, 101):  # raw IP under its several numbers
        ip = dpkt.ip.IP(buf) if buf[:1] and buf[0] >> 4 == 4 else dpkt.ip6.IP6(buf)
    elif linktype == dpkt.pcap.DLT_NULL:
        ip = dpkt.loopback.Loopback(buf).data
    else:
        raise BurstInputError(f"link type {linktype} is not supported (Ethernet, Linux cooked, raw IP, loopback are)")
    return ip if isinstance(ip, dpkt.ip.IP | dpkt.ip6.IP6) else None


def _packets(path: Path) -> Iterator[tuple[float, int, bytes]]:
    """(time in s, link type, frame) of every whole record; a capture cut short or corrupt is
    read up to that point, with one :class:`BurstInputWarning` saying where it stopped."""
    with open(path, "rb") as f:
        reader = CaptureReader(f, path)
        for ts, buf in reader:
            yield float(ts), reader.linktype, buf
    if reader.cut:
        warnings.warn(reader.cut, BurstInputWarning, stacklevel=2)


class _Retransmissions:
    """Highest sequence number seen per directional 5-tuple."""

    def __init__(self) -> None:
        self.highest: dict[tuple[object, ...], int] = {}

    def is_retransmission(self, key: tuple[object, ...], seq: int, payload_bytes: int) -> bool:
        end = (seq + payload_bytes) % _SEQ_MOD
        hi = self.highest.get(key)
        if hi is None:
            self.highest[key] = end
            return False
        if 0 < (end - hi) % _SEQ_MOD < _HALF:
            self.highest[key] = end
        return 0 < (hi - seq) % _SEQ_MOD < _HALF


def _ip_text(ip: dpkt.Packet) -> tuple[str, str, int, int, int]:
    """(src, dst, IP packet bytes, bytes after the IP header, ECN bits), from the IP header's
    length fields, so a capture with a short snap length still counts whole packets."""
    src, dst = dpkt.utils.inet_to_str(ip.src), dpkt.utils.inet_to_str(ip.dst)
    if isinstance(ip, dpkt.ip.IP):
        length = ip.len or len(ip)  # 0 under TSO/BIG TCP: use what was captured
        return src, dst, length, length - 4 * ip.hl, ip.tos & 3
    plen = ip.plen or len(ip.data)
    return src, dst, 40 + plen, plen, (ip.fc >> 20) & 3


def packet_table(path: str | Path) -> pd.DataFrame:
    """One row per IP packet: time_ns (from the first packet, whose absolute time is
    ``attrs["first_ns"]``), src, dst, flow, frame_bytes, payload_bytes (TCP), ce, rxmit."""
    p = Path(path)
    rows: list[tuple[int, str, str, tuple[object, ...], int, bool, bool]] = []
    rtx = _Retransmissions()
    t0: float | None = None
    for ts, linktype, buf in _packets(p):
        try:
            ip = _network_layer(linktype, buf)
        except (dpkt.dpkt.UnpackError, dpkt.dpkt.NeedData, IndexError):
            continue  # a frame the capture cut short: no IP header to count
        if ip is None:
            continue
        t0 = ts if t0 is None else t0
        src, dst, ip_bytes, l4_bytes, ecn = _ip_text(ip)
        l4 = ip.data
        sport, dport = (l4.sport, l4.dport) if isinstance(l4, dpkt.tcp.TCP | dpkt.udp.UDP) else (0, 0)
        key = (src, dst, ip.p if isinstance(ip, dpkt.ip.IP) else ip.nxt, sport, dport)
        payload = max(l4_bytes - 4 * l4.off, 0) if isinstance(l4, dpkt.tcp.TCP) else 0
        rxmit = payload > 0 and rtx.is_retransmission(key, l4.seq, payload)
        rows.append((round((ts - t0) * 1e9), src, dst, key, ETHERNET_HEADER_BYTES + ip_bytes, payload, ecn == 3, rxmit))
    table = pd.DataFrame(rows, columns=["time_ns", "src", "dst", "flow", "frame_bytes", "payload_bytes", "ce", "rxmit"])
    table.attrs["first_ns"] = round(t0 * 1e9) if t0 is not None else 0
    return table


def read_capture(path: str | Path, bin_ps: int, dataset: str = "") -> pd.DataFrame:
    """Per-host counters of one capture; every host gets every bin of the capture."""
    p = Path(path)
    pk = packet_table(p)
    if pk.empty:
        raise BurstInputError(f"{p}: the capture holds no IP packets")
    pk["bin"] = pk["time_ns"] * 1000 // bin_ps
    pk["ce_bytes"] = pk["frame_bytes"] * pk["ce"]
    pk["rxmit_bytes"] = pk["frame_bytes"] * pk["rxmit"]
    n_bins = int(pk["bin"].max()) + 1
    ingress = pk.groupby(["dst", "bin"]).agg(
        ingress_bytes=("frame_bytes", "sum"),
        in_rxmit_bytes=("rxmit_bytes", "sum"),
        in_ce_bytes=("ce_bytes", "sum"),
        connections=("flow", "nunique"),
    )
    egress = pk.groupby(["src", "bin"]).agg(egress_bytes=("frame_bytes", "sum"), out_rxmit_bytes=("rxmit_bytes", "sum"))
    frames = []
    for host in sorted(set(pk["src"]) | set(pk["dst"])):
        dense = pd.DataFrame(index=pd.RangeIndex(n_bins))
        for part in (ingress, egress):
            if host in part.index.get_level_values(0):
                dense = dense.join(part.xs(host, level=0))
        arrays = {
            c: dense[c].fillna(0).to_numpy(np.int64) if c in dense else np.zeros(n_bins, np.int64) for c in COUNTERS
        }
        keys = {"dataset": dataset or p.stem, "source": "capture", "snapshot": p.stem, "rack": "", "host": host}
        frames.append(series_frame(keys, bin_ps, arrays))
    return concat(frames)
