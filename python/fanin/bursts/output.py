"""A burst study on disk: the tables as Parquet, the figures as PNG, and a manifest."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fanin import __version__
from fanin._fs import MANIFEST, atomic_dir
from fanin.bursts.analysis import Bursts


def _json_default(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)


def write(
    found: Bursts,
    counters: pd.DataFrame,
    directory: str | os.PathLike[str],
    *,
    inputs: Sequence[str] = (),
    figures: bool = True,
    warnings: Sequence[str] = (),
) -> Path:
    """Writes ``counters``, ``bursts``, ``hosts``, ``racks``, ``stability``, ``sensitivity``
    and ``summary`` as Parquet, ``timeline.png``, ``cdfs.png``, ``stability.png`` and
    ``manifest.json`` (with the input ``warnings``, if any: what the study left out). The
    directory appears whole or not at all."""
    target = Path(directory)
    with atomic_dir(target) as tmp:
        tables = {"counters": counters, **found.tables(), "summary": found.summary()}
        files = []
        for name, frame in tables.items():
            if len(frame.columns):
                frame.to_parquet(tmp / f"{name}.parquet", index=False)
                files.append(f"{name}.parquet")
        if figures and len(found.hosts):
            from fanin.bursts import plots  # matplotlib only when drawing

            files.append(plots.timeline(counters, found, tmp / "timeline.png").name)
            if len(found.bursts):
                files.append(plots.cdfs(found, tmp / "cdfs.png").name)
                files.append(plots.stability(found, tmp / "stability.png").name)
        manifest = {
            "kind": "bursts",
            "fanin_version": __version__,
            "inputs": list(inputs),
            "params": found.params,
            "skipped": counters.attrs.get("skipped", {}),
            "files": sorted(files),
        }
        if warnings:
            manifest["warnings"] = list(warnings)
        text = json.dumps(manifest, indent=2, sort_keys=True, default=_json_default)
        (tmp / MANIFEST).write_text(text + "\n", encoding="utf-8")
    return target
