"""A small pcap made here: the counters equal a direct computation from the packets written."""

from __future__ import annotations

from pathlib import Path

import dpkt
import pytest

import fanin.bursts as fb
from fanin.bursts.capture import packet_table

A, B, C = "10.0.0.1", "10.0.0.2", "10.0.0.3"  # A and C send to B
EPOCH = 1_700_000_000
"""dpkt reads timestamps as float seconds (~0.2 us resolution at this epoch): no packet sits on a bin edge."""


def frame(
    src: str,
    dst: str,
    *,
    sport: int = 1000,
    dport: int = 80,
    seq: int = 0,
    payload: int = 0,
    ecn: int = 0,
    udp: bool = False,
) -> bytes:
    l4: dpkt.Packet
    if udp:
        l4 = dpkt.udp.UDP(sport=sport, dport=dport, data=b"u" * payload)
        l4.ulen = len(l4)
    else:
        l4 = dpkt.tcp.TCP(sport=sport, dport=dport, seq=seq, flags=dpkt.tcp.TH_ACK, data=b"x" * payload)
    ip = dpkt.ip.IP(
        src=_aton(src), dst=_aton(dst), p=dpkt.ip.IP_PROTO_UDP if udp else dpkt.ip.IP_PROTO_TCP, tos=ecn, data=l4
    )
    ip.len = len(ip)
    return bytes(dpkt.ethernet.Ethernet(src=b"\x02" * 6, dst=b"\x04" * 6, type=dpkt.ethernet.ETH_TYPE_IP, data=ip))


def _aton(text: str) -> bytes:
    return bytes(int(x) for x in text.split("."))


# (time s, src, dst, kwargs, is_retransmission): the truth the test computes from.
WRAP = (1 << 32) - 1000
PACKETS = [
    (0.00000, A, B, dict(sport=1, seq=0, payload=1000), False),
    (0.00021, A, B, dict(sport=1, seq=1000, payload=1000, ecn=3), False),
    (0.00041, C, B, dict(sport=2, seq=WRAP, payload=1400), False),  # wraps past 2^32
    (0.00061, C, B, dict(sport=2, seq=(WRAP + 1400) % (1 << 32), payload=500), False),
    (0.00081, B, A, dict(sport=80, dport=1, seq=7, payload=0), False),  # pure ACK
    (0.00121, A, B, dict(sport=1, seq=1000, payload=1000), True),  # resent
    (0.00131, C, B, dict(sport=2, seq=WRAP, payload=1400, ecn=3), True),  # resent across the wrap
    (0.00151, A, B, dict(sport=3, dport=53, payload=200, udp=True), False),
    (0.00311, A, B, dict(sport=1, seq=2000, payload=1000, ecn=2), False),  # ECT(0): not CE
]


def write_capture(path: Path, pcapng: bool = False) -> None:
    arp = dpkt.ethernet.Ethernet(src=b"\x02" * 6, dst=b"\xff" * 6, type=dpkt.ethernet.ETH_TYPE_ARP, data=b"\0" * 28)
    with open(path, "wb") as f:
        w = dpkt.pcapng.Writer(f) if pcapng else dpkt.pcap.Writer(f, nano=True)
        for t, src, dst, kw, _ in PACKETS:
            w.writepkt(frame(src, dst, **kw), ts=EPOCH + t)
        w.writepkt(bytes(arp), ts=EPOCH + 0.00321)  # no IP host: not counted


def expected(bin_s: float) -> dict[tuple[str, int], dict[str, int]]:
    """Direct computation: per (host, bin) counters from the packet list."""
    out: dict[tuple[str, int], dict[str, int]] = {}
    flows: dict[tuple[str, int], set[tuple[object, ...]]] = {}
    for t, src, dst, kw, rxmit in PACKETS:
        size = len(frame(src, dst, **kw))
        b = int(round(t * 1e9) // round(bin_s * 1e9))
        rx = out.setdefault((dst, b), dict.fromkeys(fb.COUNTERS, 0))
        tx = out.setdefault((src, b), dict.fromkeys(fb.COUNTERS, 0))
        rx["ingress_bytes"] += size
        tx["egress_bytes"] += size
        rx["in_ce_bytes"] += size if kw.get("ecn") == 3 else 0
        rx["in_rxmit_bytes"] += size if rxmit else 0
        tx["out_rxmit_bytes"] += size if rxmit else 0
        flows.setdefault((dst, b), set()).add((src, kw.get("sport", 1000), kw.get("dport", 80), kw.get("udp", False)))
    for key, f in flows.items():
        out[key]["connections"] = len(f)
    return out


@pytest.mark.parametrize("pcapng", [False, True])
@pytest.mark.parametrize("bin_text", ["1ms", "500us"])
def test_capture_counters_equal_direct_computation(tmp_path: Path, pcapng: bool, bin_text: str) -> None:
    path = tmp_path / ("c.pcapng" if pcapng else "c.pcap")
    write_capture(path, pcapng)
    table = fb.load(path, bin=bin_text)
    assert set(table["source"]) == {"capture"} and set(table["host"]) == {A, B, C}
    bin_s = 1e-3 if bin_text == "1ms" else 0.5e-3
    want = expected(bin_s)
    n_bins = int(0.00311 // bin_s) + 1  # up to the last IP packet
    assert table.groupby("host").size().tolist() == [n_bins] * 3  # dense: every host has every bin
    for row in table.itertuples():
        got = {c: getattr(row, c) for c in fb.COUNTERS}
        b = row.bin_start_ps // row.bin_ps
        assert got == want.get((row.host, b), dict.fromkeys(fb.COUNTERS, 0)), (row.host, b)


def test_retransmissions_and_ce_per_packet(tmp_path: Path) -> None:
    path = tmp_path / "c.pcap"
    write_capture(path)
    pk = packet_table(path)
    assert pk["rxmit"].tolist() == [p[4] for p in PACKETS]
    assert pk["ce"].tolist() == [p[3].get("ecn") == 3 for p in PACKETS]
    assert pk["frame_bytes"].tolist() == [len(frame(p[1], p[2], **p[3])) for p in PACKETS]


def test_bad_captures(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"definitely not a capture file")
    with pytest.raises(fb.BurstInputError, match="not a pcap or pcapng"):
        fb.load(junk)
    empty = tmp_path / "empty.pcap"
    with open(empty, "wb") as f:
        dpkt.pcap.Writer(f)
    with pytest.raises(fb.BurstInputError, match="no IP packets"):
        fb.load(empty)
    with pytest.raises(fb.BurstInputError, match="--bin"):
        fb.load(junk, bin="1 fortnight")
