"""Bad input to `fanin bursts`: captures cut short or corrupt, counters that cannot be, folders
with bad files. A capture is read up to the damage with one warning; a bad file on its own is one
error line (exit 2, nothing written); a folder skips its bad files and says so in one line."""

from __future__ import annotations

import gzip
import io
import json
import struct
import tracemalloc
from pathlib import Path

import dpkt
import pandas as pd
import pytest

import fanin.bursts as fb
from conftest import fanin_cli
from test_bursts_analysis import BG, known_host, write_host
from test_bursts_capture import EPOCH, PACKETS, frame, write_capture

PCAP_NS_MAGIC = 0xA1B23C4D
RECORD_HEADER = 16
ALLOWED_BYTES = "allowed: non-negative numbers up to 1,250,000,000 (bytes 10Tbps moves in a 1 ms bin)"


def frames() -> list[tuple[int, int, bytes]]:
    """(seconds, nanoseconds, frame) of the test capture's packets."""
    return [(EPOCH, round(t * 1e9), frame(src, dst, **kw)) for t, src, dst, kw, _ in PACKETS]


def pcap(records: list[tuple[int, int, bytes]], snaplen: int = 65535, order: str = "<") -> bytes:
    """A nanosecond pcap written field by field, so a test can damage any of them."""
    out = [struct.pack(order + "IHHiIII", PCAP_NS_MAGIC, 2, 4, 0, 0, snaplen, 1)]
    out += [struct.pack(order + "IIII", s, ns, len(f), len(f)) + f for s, ns, f in records]
    return b"".join(out)


def record_start(records: list[tuple[int, int, bytes]], k: int) -> int:
    return 24 + sum(RECORD_HEADER + len(f) for _, _, f in records[:k])


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def load_warned(path: Path) -> tuple[pd.DataFrame, str]:
    with pytest.warns(fb.BurstInputWarning) as caught:
        table = fb.load(path)
    assert len(caught) == 1
    return table, str(caught[0].message)


def same_name(tmp_path: Path, name: str, data: bytes) -> Path:
    """A file called ``name`` in its own folder: tables of two files compare equal with their keys."""
    folder = tmp_path / f"ref{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / name).write_bytes(data)
    return folder / name


@pytest.mark.parametrize(("inside", "detail"), [(5, "a 16-byte record header with 5 bytes left"), (16 + 20, None)])
def test_truncated_pcap_is_read_up_to_the_cut(tmp_path: Path, inside: int, detail: str | None) -> None:
    recs = frames()
    data = pcap(recs)
    start = record_start(recs, 8)
    cut = same_name(tmp_path, "c.pcap", data[: start + inside])
    table, message = load_warned(cut)
    size = len(recs[8][2])
    detail = detail or f"a record of {size:,} bytes with 20 left"
    assert message == f"{cut}: truncated after 8 records at byte {start:,} ({detail}); analysed what was read"
    whole_records = same_name(tmp_path, "c.pcap", data[:start])
    pd.testing.assert_frame_equal(table, fb.load(whole_records))


def test_truncated_pcapng_is_read_up_to_the_cut(tmp_path: Path) -> None:
    path = tmp_path / "c.pcapng"
    write_capture(path, pcapng=True)
    data = path.read_bytes()
    path.write_bytes(data[:-30])  # inside the last block, the ARP frame after the 9 IP packets
    table, message = load_warned(path)
    assert "c.pcapng: truncated after 9 records at byte " in message and message.endswith("analysed what was read")
    assert table["ingress_bytes"].sum() == sum(len(f) for _, _, f in frames())


def test_absurd_record_length_stops_reading_without_allocating_it(tmp_path: Path) -> None:
    recs = frames()
    data = bytearray(pcap(recs))
    start = record_start(recs, 3)
    data[start + 8 : start + 12] = struct.pack("<I", 2**32 - 1)  # caplen of record 3: 4 GiB
    bad = same_name(tmp_path, "c.pcap", bytes(data))
    tracemalloc.start()
    try:
        table, message = load_warned(bad)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20
    assert message == (
        f"{bad}: corrupt after 3 records at byte {start:,} (a record claims 4,294,967,295 bytes, "
        f"the snap length is 262,144); analysed what was read"
    )
    pd.testing.assert_frame_equal(table, fb.load(same_name(tmp_path, "c.pcap", bytes(data[:start]))))


def test_a_record_longer_than_the_files_snap_length_is_read(tmp_path: Path) -> None:
    """libpcap reads such records (dpkt's writer declares 1500 whatever it writes): only a
    record beyond libpcap's own bound is corrupt."""
    recs = frames()  # record 2 is the first frame above 1,100 bytes
    declared = tmp_path / "c.pcap"
    declared.write_bytes(pcap(recs, snaplen=1100))
    pd.testing.assert_frame_equal(fb.load(declared), fb.load(same_name(tmp_path, "c.pcap", pcap(recs))))


def test_valid_captures_give_the_records_dpkt_gives(tmp_path: Path) -> None:
    from fanin.bursts.pcapfile import CaptureReader

    micro_be = b"".join(
        [struct.pack(">IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
        + [struct.pack(">IIII", s, ns // 1000, len(f), len(f)) + f for s, ns, f in frames()]
    )
    resol = dpkt.pcapng.PcapngOptionLE(code=dpkt.pcapng.PCAPNG_OPT_IF_TSRESOL, data=b"\x09")
    idb = dpkt.pcapng.InterfaceDescriptionBlockLE(snaplen=65535, opts=[resol, dpkt.pcapng.PcapngOptionLE()])
    ng = io.BytesIO()
    w = dpkt.pcapng.Writer(ng, idb=idb)
    for s, ns, f in frames():
        w.writepkt(f, ts=s + ns / 1e9)
    for name, data in [("nano.pcap", pcap(frames())), ("micro.pcap", micro_be), ("ns.pcapng", ng.getvalue())]:
        path = tmp_path / name
        path.write_bytes(data)
        with open(path, "rb") as f:
            theirs = list(dpkt.pcap.UniversalReader(f))
        with open(path, "rb") as f:
            reader = CaptureReader(f, path)
            ours = list(reader)
        assert ours == theirs and all(type(a[0]) is type(b[0]) for a, b in zip(ours, theirs, strict=True))
        assert reader.linktype == 1 and reader.cut is None and len(ours) == len(PACKETS)


def test_cli_truncated_capture_warns_once_and_exits_0(tmp_path: Path) -> None:
    recs = frames()
    start = record_start(recs, 8)
    path = tmp_path / "c.pcap"
    path.write_bytes(pcap(recs)[: start + 40])
    out = tmp_path / "study"
    r = fanin_cli("bursts", str(path), "-o", str(out), "--line-rate", "10G", "--no-plots")
    assert r.returncode == 0, r.stderr
    line = one_line(r.stderr)
    assert line.startswith(f"warning: {path}: truncated after 8 records at byte {start:,} (")
    assert json.loads((out / "manifest.json").read_text())["warnings"] == [line.removeprefix("warning: ")]
    counters = pd.read_parquet(out / "counters.parquet")
    assert counters["ingress_bytes"].sum() == sum(len(f) for _, _, f in recs[:8])


def test_cli_corrupt_first_record_is_an_error(tmp_path: Path) -> None:
    data = bytearray(pcap(frames()))
    data[24 + 8 : 24 + 12] = struct.pack("<I", 2**32 - 1)
    path = tmp_path / "c.pcap"
    path.write_bytes(bytes(data))
    r = fanin_cli("bursts", str(path), "-o", str(tmp_path / "study"))
    assert r.returncode == 2
    assert one_line(r.stderr) == (
        f"error: {path}: corrupt at byte 24 (a record claims 4,294,967,295 bytes, the snap length is 262,144), "
        f"before any whole record"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pcap"]


def millisampler_file(path: Path, ingress: list[str], connections: str = "1", freq: str = "1000") -> Path:
    """A Millisampler file with values written as JSON text, as bad as a test needs them."""
    text = f'{{"sampling_freq": {freq}, "ingressBytes": [{", ".join(ingress)}], '
    text += f'"connections": [{", ".join([connections] * len(ingress))}]}}'
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()))
    return path


BAD_VALUES = [
    ("Infinity", "not a finite number (Infinity)"),
    ("-Infinity", "not a finite number (-Infinity)"),
    ("NaN", "not a finite number (NaN)"),
    ("1e300", "too large (1e+300)"),
    (str(2**70), f"too large ({2**70})"),
    ("1250000001", "too large (1250000001)"),  # more than 10 Tbit/s in 1 ms
    ("-5", "negative (-5)"),
    ("true", "not a number (true)"),
    ('"12"', 'not a number ("12")'),
]


@pytest.mark.parametrize(("value", "problem"), BAD_VALUES)
def test_bad_counter_value_names_file_bin_and_field(tmp_path: Path, value: str, problem: str) -> None:
    values = [str(BG)] * 10
    values[6] = value
    path = millisampler_file(tmp_path / "rackId_1_hostId_1.txt.gz", values)
    with pytest.raises(fb.BurstInputError) as e:
        fb.load(path)
    assert str(e.value) == f"{path}: bin 6: ingressBytes: {problem}; {ALLOWED_BYTES}"


def test_bad_connections_and_sampling_freq(tmp_path: Path) -> None:
    path = millisampler_file(tmp_path / "a.txt.gz", ["1", "2"], connections=str(2**32))
    with pytest.raises(fb.BurstInputError) as e:
        fb.load(path)
    assert str(e.value) == (
        f"{path}: bin 0: connections: too large ({2**32}); allowed: non-negative numbers up to 4,294,967,295 "
        f"(connections)"
    )
    for freq in ("Infinity", "0", "true", "1e300"):
        path = millisampler_file(tmp_path / "b.txt.gz", ["1", "2"], freq=freq)
        with pytest.raises(fb.BurstInputError, match=r"sampling_freq must be .* \(allowed: 1 to 1,000,000,000\)"):
            fb.load(path)


def test_cli_bad_file_alone_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = millisampler_file(tmp_path / "rackId_1_hostId_1.txt.gz", ["1000", "Infinity"])
    r = fanin_cli("bursts", str(path), "-o", str(tmp_path / "study"))
    assert r.returncode == 2
    assert one_line(r.stderr) == f"error: {path}: bin 1: ingressBytes: not a finite number (Infinity); {ALLOWED_BYTES}"
    assert not (tmp_path / "study").exists()


def test_cli_folder_skips_the_bad_file_and_analyses_the_rest(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for host in ("11", "12", "13", "15"):
        write_host(data, "day1-h1", "7", host, **known_host())
    bad = millisampler_file(data / "day1-h1-zip" / "rackId_7_hostId_14.txt.gz", [str(BG)] * 6 + ["Infinity"])
    out = tmp_path / "study"
    r = fanin_cli("bursts", str(data), "-o", str(out), "--line-rate", "10G", "--no-plots")
    assert r.returncode == 0, r.stderr
    reason = f"{bad}: bin 6: ingressBytes: not a finite number (Infinity); {ALLOWED_BYTES}"
    assert one_line(r.stderr) == f"warning: {data}: skipped 1 of 5 files: {reason}"
    bursts = pd.read_parquet(out / "bursts.parquet")
    assert bursts.groupby("host").size().to_dict() == {"11": 3, "12": 3, "13": 3, "15": 3}  # known_host's three


def test_cli_folder_without_a_good_file_is_an_error(tmp_path: Path) -> None:
    data = tmp_path / "data"
    a = millisampler_file(data / "rackId_7_hostId_1.txt.gz", ["1", "NaN"])
    millisampler_file(data / "rackId_7_hostId_2.txt.gz", ["1", "-1"])
    r = fanin_cli("bursts", str(data), "-o", str(tmp_path / "study"))
    assert r.returncode == 2
    line = one_line(r.stderr)
    skipped = f"skipped 2 of 2 files (2 malformed), e.g. {a}: bin 1: ingressBytes: not a finite number (NaN)"
    assert line.startswith(f"error: {data}: no host counters found ({skipped};")
    assert not (tmp_path / "study").exists()


def _pcapng_claiming(n: int) -> bytes:
    return b"\x0a\x0d\x0d\x0a" + struct.pack("<I", n) + b"\x4d\x3c\x2b\x1a" + b"\0" * 16


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("c.pcap", b"", "empty file (expected a pcap or pcapng capture)"),
        ("c.pcap", b"XXXX" + b"\0" * 40, "not a pcap or pcapng capture (magic number 58585858; pcap starts with"),
        ("c.pcap", struct.pack("<I", PCAP_NS_MAGIC) + b"\0" * 6, "truncated in its 24-byte pcap file header"),
        ("c.pcapng", _pcapng_claiming(2**32 - 4), "section header claims 4,294,967,292 bytes of a 28-byte file"),
        ("rackId_1_hostId_1.txt.gz", b"", "empty file (expected a Millisampler JSON object)"),
        ("rackId_1_hostId_1.txt.gz", gzip.compress(b" \n"), "empty file (expected a Millisampler JSON object)"),
        ("rackId_1_hostId_1.txt", b'{"ingressBytes": [1], "server_hostname": "h\xff"}', "not UTF-8 text (byte 0xff"),
        ("rackId_1_hostId_1.json", b'{"rx_bytes": [1, 2]}', "no counters (ingressBytes is missing or empty; expected"),
        ("empty-folder", None, "no host counters found (no *.txt.gz / *.json.gz / *.txt / *.json files)"),
    ],
    ids=[
        "empty-pcap",
        "bad-magic",
        "pcap-header-cut",
        "pcapng-4GiB-header",
        "empty-file",
        "blank-gzip",
        "not-utf8",
        "other-keys",
        "no-matching-files",
    ],
)
def test_cli_unreadable_input_is_one_line_exit_2_nothing_written(
    tmp_path: Path, name: str, content: bytes | None, message: str
) -> None:
    inputs = tmp_path / "in"
    path = inputs / name
    if content is None:
        path.mkdir(parents=True)
        (path / "hosts.csv").write_text("host,rx_bytes\n")
    else:
        inputs.mkdir()
        path.write_bytes(content)
    r = fanin_cli("bursts", str(path), "-o", str(tmp_path / "study"))
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert line.startswith(f"error: {path}: ") and message in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
