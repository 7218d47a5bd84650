"""APPS.toml: the heuristic's parameters (paper Table 1) and the incast apps to place.

Every number is kept exact: sizes are whole bytes (the scenario files' grammar, read by the
engine's parser), alpha and theta become Fractions of the decimal the user wrote (0.8 is 4/5,
not the nearest binary float), so the spec's worked examples come out to the byte.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from math import isfinite
from pathlib import Path
from typing import Any

from fanin import _native
from fanin.errors import ScenarioError


class PlanError(ScenarioError):
    """An APPS.toml or an option of `fanin plan` that cannot be planned: one line naming the
    field, what is wrong and, where the choice is closed, the allowed values."""


@dataclass(frozen=True)
class Parameters:
    """Table 1 of the paper. Buffers and flow size in bytes."""

    alpha: Fraction  # share of a burst's senders that arrive together (jitter), (0, 1]
    s: int  # average flow size, bytes
    B_l: int  # leaf per-port buffer, bytes
    B_s: int  # spine per-port buffer, bytes (each extra link is assumed to get one)
    theta: Fraction  # spine / leaf link speed, >= 1


@dataclass(frozen=True)
class App:
    """An incast app: its aggregator's d senders, `local` of them in the aggregator's rack."""

    name: str
    d: int
    local: int

    @property
    def beta(self) -> Fraction:
        """The paper's beta before placement: local senders / all senders."""
        return Fraction(self.local, self.d)


PARAMETER_FIELDS = {"alpha", "flow_size", "leaf_buffer", "spine_buffer", "theta"}
APP_FIELDS = {"name", "degree", "local_senders"}
SIZE_HINT = 'a size with a unit such as "240KB" or "3533B"'


def load_apps(path: Path | str) -> tuple[Parameters, list[App]]:
    """Reads APPS.toml; any problem is one :class:`PlanError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlanError("", f"apps file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PlanError("", f"cannot read apps file {path}: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlanError("", f"{path} is not valid TOML: {e}") from None
    except RecursionError:  # tomllib recurses once per nesting level
        raise PlanError("", f"{path} is not valid TOML: nested too deep") from None
    return parse_apps(data)


def parse_apps(data: dict[str, Any]) -> tuple[Parameters, list[App]]:
    """The parameters and apps of a parsed APPS.toml."""
    _known(data, "", {"parameters", "app"})
    raw = data.get("parameters")
    if not isinstance(raw, dict):
        fields = ", ".join(sorted(PARAMETER_FIELDS))
        raise PlanError("parameters", f"missing table [parameters] (fields: {fields})")
    p = parameters(raw)
    apps = data.get("app")
    if not isinstance(apps, list) or not apps:
        raise PlanError("app", "expected one or more [[app]] tables, each with name, degree, local_senders")
    placed = [app(a, f"app[{i}]") for i, a in enumerate(apps)]
    _unique(placed)
    return p, placed


def parameters(raw: dict[str, Any]) -> Parameters:
    """Checked in the order the docs list the fields, so the first problem is the one named."""
    _known(raw, "parameters", PARAMETER_FIELDS)
    alpha = _number(raw, "alpha", "a number in (0, 1], e.g. 0.8")
    if not 0 < alpha <= 1:
        raise PlanError("parameters.alpha", f"must be in (0, 1], got {raw['alpha']!r}")
    s, B_l, B_s = (_size(raw, key) for key in ("flow_size", "leaf_buffer", "spine_buffer"))
    theta = _number(raw, "theta", "a number >= 1 (spine / leaf link speed), e.g. 4")
    if theta < 1:
        raise PlanError("parameters.theta", f"must be >= 1 (spine / leaf link speed), got {raw['theta']!r}")
    return Parameters(alpha, s, B_l, B_s, theta)


def app(raw: Any, where: str) -> App:
    if not isinstance(raw, dict):
        raise PlanError(where, "expected a table with name, degree, local_senders")
    _known(raw, where, APP_FIELDS)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PlanError(f"{where}.name", "expected a non-empty string")
    d = _integer(raw, where, "degree", 1)
    local = _integer(raw, where, "local_senders", 0)
    if local > d:
        raise PlanError(f"{where}.local_senders", f"{local} is more than the app's degree {d} (allowed: 0 to {d})")
    return App(name, d, local)


def _unique(apps: list[App]) -> None:
    """Names key the JSON and the table: two apps with one name could not be told apart."""
    seen: dict[str, int] = {}
    for i, a in enumerate(apps):
        if a.name in seen:
            raise PlanError(f"app[{i}].name", f"{a.name!r} is already the name of app[{seen[a.name]}]")
        seen[a.name] = i


def _known(raw: dict[str, Any], where: str, fields: set[str]) -> None:
    for key in raw:
        if key not in fields:
            path = f"{where}.{key}" if where else key
            raise PlanError(path, "unknown field", sorted(fields))


def _number(raw: dict[str, Any], key: str, hint: str) -> Fraction:
    """A TOML integer or float as the exact decimal written (its shortest repr)."""
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not isfinite(value):
        got = "missing" if value is None else f"got {value!r}"
        raise PlanError(f"parameters.{key}", f"expected {hint}, {got}")
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _size(raw: dict[str, Any], key: str) -> int:
    value = raw.get(key)
    if not isinstance(value, str):
        got = "missing" if value is None else f"got {value!r}"
        raise PlanError(f"parameters.{key}", f"expected {SIZE_HINT}, {got}")
    try:
        size = _native.parse_bytes(value)
    except ValueError as e:
        raise PlanError(f"parameters.{key}", str(e)) from None
    if size <= 0:
        raise PlanError(f"parameters.{key}", f"must be a positive size, got {value!r}")
    return size


def _integer(raw: dict[str, Any], where: str, key: str, least: int) -> int:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        got = "missing" if value is None else f"got {value!r}"
        raise PlanError(f"{where}.{key}", f"expected an integer >= {least}, {got}")
    return value
