"""claims.toml: what a paper says, how to measure it on fanin's runs, and how close is enough.

Each ``[[claim]]`` has an ``id``, the ``text``, a ``metric`` (a function of the figure's
analysis module, or a Python expression over ``data``), the ``paper``'s value, a
``tolerance`` and ``gating`` (default true; false: report-only). Format: docs/catalog.md.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

TOLERANCE_KINDS = ("abs", "rel", "range", ">=", "<=", "true")
"""abs: |fanin - paper| <= value; rel: |fanin - paper| <= value * |paper|; range: lo <= fanin
<= hi; >= / <=: fanin >= value (or <=), value defaulting to the paper's; true: the metric holds."""

_DATA_NAMES = ("data", "df")
_CLAIM_KEYS = ("id", "text", "metric", "paper", "tolerance", "gating", "unit", "note")
_TOL_KEYS = {"abs": {"value"}, "rel": {"value"}, "range": {"lo", "hi"}, ">=": {"value"}, "<=": {"value"}, "true": set()}


class ClaimsError(ValueError):
    """A malformed claims file: ``file``, the claim's ``claim_id`` (or index) and ``field``."""

    def __init__(self, file: str, claim_id: str, field: str, message: str) -> None:
        self.file, self.claim_id, self.field, self.message = file, claim_id, field, message
        where = ": ".join(x for x in (file, f"claim {claim_id}" if claim_id else "", field) if x)
        super().__init__(f"{where}: {message}")


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


@dataclass(frozen=True)
class Tolerance:
    kind: str
    value: float | None = None
    lo: float | None = None
    hi: float | None = None

    def describe(self, paper: Any) -> str:
        if self.kind == "abs":
            return f"± {_fmt(self.value)}"
        if self.kind == "rel":
            return f"± {_fmt(100 * (self.value or 0))}%"
        if self.kind == "range":
            return f"[{_fmt(self.lo)}, {_fmt(self.hi)}]"
        if self.kind in (">=", "<="):
            bound = self.value if self.value is not None else paper
            return f"{'≥' if self.kind == '>=' else '≤'} {_fmt(bound)}"
        return "holds"

    def check(self, fanin: float | bool, paper: Any) -> bool:
        """Whether ``fanin`` meets the tolerance (a NaN never does)."""
        if self.kind == "true":
            return bool(fanin)
        x = float(fanin)
        if math.isnan(x):
            return False
        if self.kind == "abs":
            return abs(x - float(paper)) <= float(self.value or 0)
        if self.kind == "rel":
            return abs(x - float(paper)) <= float(self.value or 0) * abs(float(paper))
        if self.kind == "range":
            return float(self.lo) <= x <= float(self.hi)  # type: ignore[arg-type]
        bound = float(self.value if self.value is not None else paper)
        return x >= bound if self.kind == ">=" else x <= bound


@dataclass(frozen=True)
class Claim:
    id: str
    text: str
    metric: str
    tolerance: Tolerance
    paper: Any = None
    gating: bool = True
    unit: str = ""
    note: str = ""


@dataclass
class ClaimResult:
    """One row of the report's claims table."""

    figure: str
    id: str
    text: str
    paper: Any
    fanin: Any
    tolerance: str
    gating: bool
    status: str  # pass | fail | error
    unit: str = ""
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _tolerance(raw: Any, paper: Any, err: Any) -> Tolerance:
    if not isinstance(raw, Mapping):
        raise err("tolerance", 'expected a table such as { kind = "rel", value = 0.1 }')
    kind = raw.get("kind")
    if kind not in TOLERANCE_KINDS:
        raise err("tolerance.kind", f"unknown kind {kind!r} (allowed: {', '.join(TOLERANCE_KINDS)})")
    need, given = _TOL_KEYS[kind], set(raw) - {"kind"}
    extra = given - need
    if extra:
        raise err(
            f"tolerance.{sorted(extra)[0]}",
            f"not a field of kind {kind!r} (allowed: {', '.join(sorted(need)) or 'none'})",
        )
    for k in given:
        if not _number(raw[k]):
            raise err(f"tolerance.{k}", f"expected a number, got {raw[k]!r}")
    if kind in ("abs", "rel", "range") and need - given:
        raise err(f"tolerance.{sorted(need - given)[0]}", f"kind {kind!r} needs it")
    if kind in ("abs", "rel") and not _number(paper):
        raise err("paper", f"tolerance kind {kind!r} needs a numeric paper value")
    if kind in (">=", "<=") and "value" not in raw and not _number(paper):
        raise err("tolerance.value", f"kind {kind!r} needs a value (or a numeric paper value)")
    if kind == "range" and raw["lo"] > raw["hi"]:
        raise err("tolerance", "range needs lo <= hi")
    if kind in ("abs", "rel") and raw["value"] < 0:
        raise err("tolerance.value", "must be >= 0")
    return Tolerance(kind, raw.get("value"), raw.get("lo"), raw.get("hi"))


def parse_claims(data: Mapping[str, Any], file: str, module: ModuleType | None = None) -> list[Claim]:
    """Checks a parsed claims.toml; metric names must exist in ``module``, expressions compile."""
    if set(data) - {"claim"}:
        raise ClaimsError(
            file, "", sorted(set(data) - {"claim"})[0], "unknown key (a claims file holds [[claim]] tables)"
        )
    raw_claims = data.get("claim", [])
    if not isinstance(raw_claims, list):
        raise ClaimsError(file, "", "claim", "expected [[claim]] tables")
    claims: list[Claim] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_claims):
        cid = raw.get("id") if isinstance(raw, Mapping) else None
        label = cid if isinstance(cid, str) and cid else f"#{i + 1}"

        def err(fld: str, msg: str, label: str = label) -> ClaimsError:
            return ClaimsError(file, label, fld, msg)

        if not isinstance(raw, Mapping):
            raise err("", "expected a table")
        unknown = set(raw) - set(_CLAIM_KEYS)
        if unknown:
            raise err(sorted(unknown)[0], f"unknown field (allowed: {', '.join(_CLAIM_KEYS)})")
        for key in ("id", "text", "metric"):
            if not isinstance(raw.get(key), str) or not raw[key].strip():
                raise err(key, "required, a non-empty string")
        cid = str(raw["id"])
        if cid in seen:
            raise err("id", "used twice in this file")
        seen.add(cid)
        if "tolerance" not in raw:
            raise err("tolerance", f"required (kinds: {', '.join(TOLERANCE_KINDS)})")
        paper = raw.get("paper")
        if paper is not None and not (_number(paper) or isinstance(paper, str | bool)):
            raise err("paper", "expected a number, a string or a boolean")
        gating = raw.get("gating", True)
        if not isinstance(gating, bool):
            raise err("gating", "expected true (gating) or false (report-only)")
        tol = _tolerance(raw["tolerance"], paper, err)
        _check_metric(raw["metric"], module, err)
        claims.append(
            Claim(
                cid, raw["text"], raw["metric"], tol, paper, gating, str(raw.get("unit", "")), str(raw.get("note", ""))
            )
        )
    return claims


def load_claims(path: str | Path, module: ModuleType | None = None) -> list[Claim]:
    """Reads and checks a claims.toml."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ClaimsError(str(p), "", "", f"not valid TOML: {e}") from None
    return parse_claims(data, str(p), module)


def _check_metric(metric: str, module: ModuleType | None, err: Any) -> None:
    name = metric.strip()
    if name.isidentifier() and name not in _DATA_NAMES:
        if module is None or not callable(getattr(module, name, None)):
            where = "the figure's analysis.py" if module is not None else "an analysis.py (the figure has none)"
            raise err("metric", f"{name!r} is not a function in {where}")
        return
    try:
        compile(name, "<metric>", "eval")
    except SyntaxError as e:
        raise err("metric", f"not a Python expression: {e.msg}") from None


def metric_value(metric: str, data: Any, module: ModuleType | None) -> float | bool:
    """Evaluates a metric on the figure's data: a number (float) or a truth value."""
    name = metric.strip()
    if name.isidentifier() and module is not None and callable(getattr(module, name, None)):
        value = getattr(module, name)(data)
    else:
        namespace: dict[str, Any] = {"np": np, "pd": pd, "math": math}
        if module is not None:
            namespace.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
        namespace.update(dict.fromkeys(_DATA_NAMES, data))
        value = eval(compile(name, "<metric>", "eval"), namespace)  # the catalog's own code
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, pd.Series | np.ndarray) and np.size(value) == 1:
        value = np.asarray(value).reshape(-1)[0]
    if _number(value) or isinstance(value, np.integer | np.floating):
        return float(value)
    raise TypeError(f"metric returned {type(value).__name__}, not a number or a truth value")


def evaluate(figure: str, claims: list[Claim], data: Any, module: ModuleType | None) -> list[ClaimResult]:
    """Measures every claim; an exception in a metric makes that claim an error, not a crash."""
    out = []
    for c in claims:
        note = c.note
        try:
            value: Any = metric_value(c.metric, data, module)
            status = "pass" if c.tolerance.check(value, c.paper) else "fail"
        except Exception as e:  # the metric is code: its failure is the claim's result
            value, status = None, "error"
            note = f"{type(e).__name__}: {e}"
        out.append(
            ClaimResult(
                figure, c.id, c.text, c.paper, value, c.tolerance.describe(c.paper), c.gating, status, c.unit, note
            )
        )
    return out


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int | float):
        if isinstance(x, float) and math.isnan(x):
            return "NaN"
        if float(x).is_integer() and 1e4 <= abs(x) < 1e12:
            return f"{int(x):,}"  # a count or a price, exact (435,840, not 4.358e+05)
        return f"{x:.4g}"
    return str(x)


def fmt_value(x: Any, unit: str = "") -> str:
    """How a value appears in the report: 4 significant digits (whole numbers from 10,000 up
    in full), yes/no, or the text."""
    s = _fmt(x)
    return f"{s} {unit}" if unit and x is not None and not isinstance(x, bool | str) else s
