"""Millisampler files with known bursts: exact counts, durations, flows and shares."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import fanin.bursts as fb
from fanin.bursts.millisampler import read_file

G10 = 10 * 10**9
LINE_BIN = 1_250_000  # bytes in 1 ms at 10 Gbit/s
BG = 1_000  # background bytes in every quiet bin


def write_host(root: Path, snapshot: str, rack: str, host: str, **arrays: list[int]) -> Path:
    n = len(arrays["ingressBytes"])
    doc = {"server_hostname": f"host{host}", "sampling_freq": 1000}
    for key in (
        "ingressBytes",
        "egressBytes",
        "inRxmitBytes",
        "outRxmitBytes",
        "inCongestionExperiencedBytes",
        "connections",
    ):
        doc[key] = arrays.get(key, [0] * n)
    path = root / f"{snapshot}-zip" / f"rackId_{rack}_hostId_{host}.txt.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return path


def known_host() -> dict[str, list[int]]:
    """20 bins: bursts at bins 2-4 (3 ms, 30-50 flows), 8 (1 ms, 10 flows), 18-19 (cut off by the end).

    Bin 12 is exactly half the line rate: not a burst (the definition is strict).
    """
    ingress = [BG] * 20
    conns = [1] * 20
    ce, rx = [0] * 20, [0] * 20
    for b, c in zip((2, 3, 4), (30, 40, 50), strict=True):
        ingress[b], conns[b] = 1_000_000, c
    ce[3] = 500_000
    ingress[8], conns[8], rx[8] = LINE_BIN // 2 + 1, 10, 12_500
    ingress[12] = LINE_BIN // 2
    ingress[18], ingress[19], conns[18], conns[19] = 1_200_000, 1_200_000, 300, 100
    return {"ingressBytes": ingress, "connections": conns, "inCongestionExperiencedBytes": ce, "inRxmitBytes": rx}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_host(tmp_path, "day1-h1", "7", "11", **known_host())
    quiet = {"ingressBytes": [BG] * 20, "connections": [2] * 20}
    write_host(tmp_path, "day1-h1", "7", "12", **quiet)
    write_host(tmp_path, "day1-h2", "7", "11", **known_host())
    return tmp_path


def test_reader_gives_the_tidy_table(folder: Path) -> None:
    t = read_file(folder / "day1-h1-zip" / "rackId_7_hostId_11.txt.gz")
    assert list(t.columns) == list(fb.COLUMNS)
    assert len(t) == 20
    assert (t["bin_ps"] == 10**9).all() and t["bin_start_ps"].iloc[-1] == 19 * 10**9
    assert set(t["snapshot"]) == {"day1-h1"} and set(t["rack"]) == {"7"} and set(t["host"]) == {"11"}
    assert t["ingress_bytes"].sum() == sum(known_host()["ingressBytes"])
    assert (t["egress_bytes"] == 0).all()


def test_known_bursts_exactly(folder: Path) -> None:
    found = fb.find(fb.load(folder), line_rate="10G")
    b = found.bursts[(found.bursts["snapshot"] == "day1-h1")]
    assert list(b["host"]) == ["11"] * 3
    assert list(b["bins"]) == [3, 1, 2]
    assert list(b["duration_ps"]) == [3 * 10**9, 10**9, 2 * 10**9]
    assert list(b["start_ps"]) == [2 * 10**9, 8 * 10**9, 18 * 10**9]
    assert list(b["flows_max"]) == [50, 10, 300]
    assert list(b["flows_mean"]) == [40, 10, 200]
    assert list(b["incast"]) == [True, False, True]
    assert list(b["truncated"]) == [False, False, True]
    assert list(b["bytes"]) == [3_000_000, LINE_BIN // 2 + 1, 2_400_000]
    assert b["ecn_pct"].iloc[0] == pytest.approx(100 * 500_000 / 3_000_000)
    assert b["rxmit_pct"].iloc[1] == pytest.approx(1.0)  # 12.5 KB of 1.25 MB
    h = found.hosts.set_index(["snapshot", "host"])
    busy = h.loc[("day1-h1", "11")]
    total = sum(known_host()["ingressBytes"])
    assert busy["bursts"] == 3 and busy["bursts_per_s"] == pytest.approx(150.0)
    assert busy["utilisation"] == pytest.approx(total * 8 / (G10 * 0.02))
    assert busy["burst_bytes_share"] == pytest.approx((3_000_000 + 625_001 + 2_400_000) / total)
    assert busy["incast_share"] == pytest.approx(2 / 3)
    assert h.loc[("day1-h1", "12")]["bursts"] == 0
    assert found.racks["hosts"].tolist() == [2, 1]
    s = found.stability.set_index("host").loc["11"]
    assert s["snapshots"] == 2 and s["flows_mean_cv"] == 0.0


def test_mean_reducer_and_incast_threshold(folder: Path) -> None:
    found = fb.find(fb.load(folder), line_rate=G10, flows="mean", incast_flows=45)
    b = found.bursts[found.bursts["snapshot"] == "day1-h1"]
    assert list(b["flows"]) == [40, 10, 200]
    assert list(b["incast"]) == [False, False, True]
    with pytest.raises(fb.BurstInputError, match="--flows"):
        fb.find(fb.load(folder), line_rate=G10, flows="median")


def test_line_rate_inferred_with_sensitivity(folder: Path) -> None:
    found = fb.find(fb.load(folder))
    assert set(found.hosts["line_rate_bps"]) == {G10}
    assert set(found.hosts["line_rate_origin"]) == {"inferred"}
    sens = found.sensitivity.set_index("shift")
    assert sens.loc[0, "bursts"] == 6
    assert sens.loc[1, "bursts"] == 0  # at 25G no bin passes 1.5625 MB
    assert -1 not in sens.index  # 10G is the lowest candidate: every host would be left out


def test_peak_above_candidates_asks_for_a_rate(tmp_path: Path) -> None:
    write_host(tmp_path, "d", "1", "1", ingressBytes=[30_000_000, 0])  # 240 Gbit/s in one bin
    with pytest.raises(fb.BurstInputError, match="--line-rate"):
        fb.find(fb.load(tmp_path))


def test_rebin_sums_bytes(folder: Path) -> None:
    t = fb.load(folder / "day1-h1-zip", bin="2ms")
    one = t[t["host"] == "11"]
    assert len(one) == 10 and (one["bin_ps"] == 2 * 10**9).all()
    assert one["ingress_bytes"].sum() == sum(known_host()["ingressBytes"])
    assert one["connections"].iloc[1] == 40  # max of bins 2, 3
    with pytest.raises(fb.BurstInputError, match="whole multiple"):
        fb.load(folder, bin="1500us")


def test_skipped_files_are_counted(folder: Path) -> None:
    d = folder / "day1-h1-zip"
    (d / "rackId_7_hostId_13.txt.gz").write_bytes(gzip.compress(b'{"server_hostname": "x", "sampling_freq": 1000}'))
    (d / "rackId_7_hostId_14.txt.gz").write_bytes(b"not gzip at all")
    with pytest.warns(fb.BurstInputWarning) as caught:
        t = fb.load(folder)
    assert [str(w.message) for w in caught] == [
        f"{folder}: skipped 2 of 5 files (1 malformed, 1 without counters), "
        f"e.g. {d / 'rackId_7_hostId_14.txt.gz'}: not JSON (Expecting value: line 1 column 1 (char 0))"
    ]
    assert sorted(set(t["host"])) == ["11", "12"]
    skipped = t.attrs["skipped"]
    assert len(skipped["no_counters"]) == 1 and "hostId_13" in skipped["no_counters"][0]
    assert len(skipped["malformed"]) == 1 and "hostId_14" in skipped["malformed"][0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not gzip at all", "not JSON"),
        (gzip.compress(b"[1, 2]"), "expected a JSON object"),
        (gzip.compress(b'{"ingressBytes": [1, 2], "connections": [1], "sampling_freq": 1000}'), "connections has 1"),
        (gzip.compress(b'{"ingressBytes": [1, 2]}'), "sampling_freq"),
        (gzip.compress(b'{"ingressBytes": [1, "x"], "sampling_freq": 1000}'), "non-negative numbers"),
        (b"\x1f\x8b\x08\x00truncated", "not a readable gzip"),
        (gzip.compress(b'{"sampling_freq": 1000}'), "no counters"),
    ],
)
def test_bad_files_give_one_clear_message(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "rackId_1_hostId_1.txt.gz"
    path.write_bytes(content)
    with pytest.raises(fb.BurstInputError, match=message) as e:
        fb.load(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_empty_folder_and_missing_path(tmp_path: Path) -> None:
    with pytest.raises(fb.BurstInputError, match="no host counters found"):
        fb.load(tmp_path)
    with pytest.raises(fb.BurstInputError, match="no such file"):
        fb.load(tmp_path / "absent")


def test_strict_threshold_is_exact() -> None:
    # 25G, 100 us bins: half the line is exactly 156,250 B; one byte more is a burst
    from fanin.bursts.counters import series_frame

    keys = {"dataset": "d", "source": "millisampler", "snapshot": "s", "rack": "", "host": "h"}
    t = series_frame(
        keys, 10**8, {"ingress_bytes": np.array([156_250, 156_251, 0]), "connections": np.array([1, 1, 0])}
    )
    found = fb.find(t, line_rate="25G")
    assert found.bursts["start_ps"].tolist() == [10**8]
