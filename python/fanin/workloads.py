"""Traffic matrices (htsim ``.cm`` files) and the Uno artifact's mixed intra/inter generator.

>>> import fanin.workloads as w                                        # doctest: +SKIP
>>> flows = w.read_cm("websearchIntra_AlibabaInter_5000f_40l.cm")      # doctest: +SKIP
>>> w.write_cm("my_40l.cm", load=0.4, seed=7)                          # doctest: +SKIP

A scenario uses a matrix with ``kind = "matrix"``, ``file = "..."`` and the generator with
``kind = "mixed_poisson"``; :func:`mixed_poisson` draws exactly the flows the engine draws for
``[[workload]]`` number ``index`` of a run with the same seed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fanin import _native
from fanin._fs import atomic_write_bytes

if TYPE_CHECKING:
    import pandas as pd

PACKAGE_DATA = Path(__file__).resolve().parent / "data"
UNO_DIR = PACKAGE_DATA / "uno"
"""The small Uno artifact matrices shipped with fanin."""

ARTIFACT_ENV = "FANIN_UNO_ARTIFACT"


def artifact_dirs() -> list[str]:
    """Directories holding the Uno artifact's larger matrices: ``$FANIN_UNO_ARTIFACT``, then
    the first ``shared/data/uno_artifact`` beside a parent of this package."""
    dirs = [str(UNO_DIR)]
    env = os.environ.get(ARTIFACT_ENV)
    if env:
        dirs.append(env)
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "data" / "uno_artifact"
        if candidate.is_dir():
            dirs.append(str(candidate))
            break
    return dirs


def find(name: str | os.PathLike[str], extra_dirs: list[str] | None = None) -> Path:
    """Resolves a matrix or CDF file name: as given, then the package's data and the artifact."""
    p = Path(name)
    if p.is_file():
        return p
    for d in [*(extra_dirs or []), str(PACKAGE_DATA / "workloads"), *artifact_dirs()]:
        if (Path(d) / p).is_file():
            return Path(d) / p
    raise FileNotFoundError(f"{name}: not found here, in fanin's data, or in the Uno artifact directories ({', '.join(artifact_dirs())})")


def _frame(cols: dict[str, Any], ints: tuple[str, ...]) -> pd.DataFrame:
    """The engine's columns as a DataFrame, ``ints`` as int64. pandas is imported here: a
    scenario that only names a matrix file (checked, not read, by ``fanin validate``) needs
    none of it."""
    import pandas as pd

    return pd.DataFrame(cols).astype(dict.fromkeys(ints, "int64"))


def read_cm(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One row per flow: ``src``, ``dst``, ``id``, ``start_ps``, ``size_bytes`` (file order).

    Raises ``ValueError("<file>: line N, field `F`: ...")`` for a malformed file."""
    p = find(path)
    try:
        cols = _native.parse_cm(p.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{p}: {exc}") from None
    return _frame(cols, ("src", "dst", "id", "start_ps", "size_bytes"))


def mixed_poisson(
    *,
    hosts: int = 256,
    datacenters: int = 2,
    load: float = 0.4,
    intra_fraction: float = 0.8,
    intra_sizes: str = "alibaba_storage2019_cdf.txt",
    inter_sizes: str = "websearch_dctcp2010_cdf.txt",
    flows: int = 5000,
    nic_rate_bps: int = 100_000_000_000,
    seed: int = 1,
    index: int = 0,
) -> pd.DataFrame:
    """Flows of the ``mixed_poisson`` generator: ``src``, ``dst``, ``start_ps``, ``size_bytes``,
    ``inter_dc`` (sorted by start). Hosts are split into ``datacenters`` equal consecutive
    blocks (hosts 0-127 DC0 and 128-255 DC1 by default, as the Uno topology numbers them).

    The defaults are the Uno artifact's Figs 10-12 pairing (Alibaba storage sizes within a
    datacenter, web search across, 80% of flows intra); the paper's text names the reverse."""
    if hosts < 2 or datacenters < 1 or hosts % datacenters:
        raise ValueError(f"hosts ({hosts}) must split evenly into datacenters ({datacenters})")
    if not 0.0 < load <= 1.0:
        raise ValueError(f"load must be in (0, 1], got {load}")
    if not 0.0 <= intra_fraction <= 1.0:
        raise ValueError(f"intra_fraction must be in [0, 1], got {intra_fraction}")
    if flows < 1:
        raise ValueError(f"flows must be positive, got {flows}")
    per_dc = hosts // datacenters
    if intra_fraction < 1.0 and datacenters < 2:
        raise ValueError("intra_fraction below 1 needs at least 2 datacenters")
    if intra_fraction > 0.0 and per_dc < 2:
        raise ValueError("intra_fraction above 0 needs at least 2 hosts per datacenter")
    dc_of = [h // per_dc for h in range(hosts)]
    paths = [find(n) for n in (intra_sizes, inter_sizes)]
    texts = [p.read_text(encoding="utf-8") for p in paths]
    try:
        cols = _native.mixed_poisson(dc_of, nic_rate_bps, load, intra_fraction, texts[0], texts[1], flows, seed, index)
    except ValueError as exc:  # "intra CDF <what is wrong>": name the file
        which, _, what = str(exc).partition(" CDF ")
        if which not in ("intra", "inter") or not what:
            raise
        raise ValueError(f"{paths[0 if which == 'intra' else 1]}: {what}") from None
    df = _frame(cols, ("src", "dst", "start_ps", "size_bytes"))
    df["inter_dc"] = (df["src"] // per_dc) != (df["dst"] // per_dc)
    return df


def write_cm(path: str | os.PathLike[str], frame: pd.DataFrame | None = None, *, nodes: int | None = None, **generator: Any) -> pd.DataFrame:
    """Writes a ``.cm`` file atomically and returns its flows.

    ``frame`` has columns ``src``, ``dst``, ``start_ps``, ``size_bytes``; without it the flows
    come from :func:`mixed_poisson` called with the keyword arguments (``load``, ``flows``,
    ``seed``, ...)."""
    if frame is None:
        frame = mixed_poisson(**generator)
        nodes = nodes or int(generator.get("hosts", 256))
    elif generator:
        raise TypeError("give either a frame of flows or generator arguments, not both")
    n = nodes if nodes is not None else int(max(frame["src"].max(), frame["dst"].max())) + 1
    text = _native.format_cm(n, *([int(x) for x in frame[c]] for c in ("src", "dst", "start_ps", "size_bytes")))
    atomic_write_bytes(path, text.encode("utf-8"))
    return frame
