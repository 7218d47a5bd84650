"""One entry point for every kind of input: fanin results, Millisampler files, captures."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from fanin.bursts import capture, millisampler, simulated
from fanin.bursts.counters import BurstInputError, concat, rebin
from fanin.bursts.units import parse_time_ps
from fanin.results import Results

DEFAULT_CAPTURE_BIN_PS = 10**9  # 1 ms, Millisampler's and the paper's bin

Source = str | os.PathLike[str] | Results


def _one(source: Source, bin_ps: int | None, skipped: millisampler.Skipped) -> pd.DataFrame:
    if isinstance(source, Results):
        return simulated.from_results(source)
    p = Path(source)
    if not p.exists():
        raise BurstInputError(f"{p}: no such file or directory")
    if simulated.is_result_dir(p):
        return simulated.read_result_dir(p)
    if p.is_dir():
        frame, skips = millisampler.read_folder(p)
        skipped.extend(skips)
        return frame
    if capture.is_capture(p):
        return capture.read_capture(p, bin_ps or DEFAULT_CAPTURE_BIN_PS)
    if millisampler.is_millisampler_file(p):
        return millisampler.read_file(p, p.name.split(".")[0])
    raise BurstInputError(
        f"{p}: unknown kind of input (expected a fanin result directory, a Millisampler folder or "
        f"*.txt.gz file, or a *.pcap / *.pcapng capture)"
    )


def load(*sources: Source, bin: str | int | None = None) -> pd.DataFrame:
    """Host counters from any mix of inputs, as one tidy table (``fanin.bursts.COLUMNS``).

    ``bin`` (``"1ms"`` or picoseconds) sets the bin of captures (default 1 ms) and re-bins
    counter inputs to a whole multiple of their own bin. Files a folder read skipped are
    listed in ``table.attrs["skipped"]`` (``no_counters`` and ``malformed``). Input measured
    only in part (a folder's skipped files, a capture cut short) gives one
    :class:`~fanin.bursts.BurstInputWarning` per input.
    """
    if not sources:
        raise BurstInputError("no input given")
    bin_ps = parse_time_ps(bin) if isinstance(bin, str) else bin
    skipped = millisampler.Skipped()
    frames = [_one(s, bin_ps, skipped) for s in sources]
    table = concat(frames)
    if bin_ps is not None:
        table = rebin(table, bin_ps)
    table.attrs["skipped"] = {"no_counters": skipped.no_counters, "malformed": skipped.malformed}
    return table
