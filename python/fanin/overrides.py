"""Overrides: ``PATH=VALUE`` edits of a scenario, as ``fanin run --set`` and ``fanin.run(set=...)`` give them.

A path is a dotted field path with list indices (``workload[0].degree``, or
``workload.0.degree``); a value from the command line is read as a TOML value, and anything
TOML cannot read as a value is a bare string, so ``200us`` and ``25Gbps`` are written as in a
scenario file. A path the scenario does not have is created, and the engine decides whether
it means anything: a misspelt field fails there, and the error names the override.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from fanin.errors import ScenarioError

if TYPE_CHECKING:
    from fanin.scenario import Scenario

Keys = list[str | int]

# `workload.0.degree` is `workload[0].degree`: a part of digits only is an index.
_DOTTED_INDEX = re.compile(r"\.(\d+)(?=\.|\[|$)")
_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_PART = re.compile(r"^([^\[\]]*)((?:\[[^\[\]]*\])*)$")
_INDEX = re.compile(r"\[([^\[\]]*)\]")
# A value that starts like an array, an inline table or a quoted string must be valid TOML.
_STRUCTURED = ("[", "{", '"', "'")


def parse_path(path: str) -> Keys:
    """``"workload[0].degree"`` or ``"workload.0.degree"`` -> ``["workload", 0, "degree"]``."""
    keys: Keys = []
    for part in _DOTTED_INDEX.sub(r"[\1]", path.strip()).split("."):
        m = _PART.match(part)
        if m is None or not _KEY.match(m.group(1)):
            raise ScenarioError(path, "bad field path (dotted names with indices, e.g. workload[0].degree)")
        keys.append(m.group(1))
        for index in _INDEX.findall(m.group(2)):
            if not index.isdigit():
                raise ScenarioError(path, f"bad index [{index}]: an index is a whole number >= 0")
            keys.append(int(index))
    return keys


def path_text(keys: Keys) -> str:
    """The canonical spelling of a path: ``workload[0].degree``."""
    text = ""
    for key in keys:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def parse_value(text: str) -> Any:
    """A TOML value (``32``, ``true``, ``"dctcp"``, ``[1, 2]``); else the text as a bare string."""
    text = text.strip()
    if not text:
        raise ValueError('no value (write an empty string as "")')
    try:
        doc = tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError as e:
        if text.startswith(_STRUCTURED):
            raise ValueError(f"`{text}` is not a TOML value: {e}") from None
        return text
    if set(doc) != {"v"}:  # text that closes the value and goes on with more TOML
        raise ValueError(f"`{text}` is more than one TOML value")
    return doc["v"]


def parse_assignment(text: str) -> tuple[str, Any]:
    """``"transport.cc=dctcp"`` -> ``("transport.cc", "dctcp")``, the path in its canonical spelling."""
    path, eq, value = text.partition("=")
    if not eq or not path.strip():
        raise ScenarioError("", f"--set {text}: expected PATH=VALUE, e.g. --set transport.cc=dctcp")
    keys = parse_path(path)
    try:
        return path_text(keys), parse_value(value)
    except ValueError as e:
        raise ScenarioError(path_text(keys), f"{e} (in --set {text})") from None


def parse_assignments(texts: Iterable[str]) -> dict[str, Any]:
    """Several ``PATH=VALUE`` texts; a path given twice keeps its last value, as in a shell."""
    out: dict[str, Any] = {}
    for text in texts:
        path, value = parse_assignment(text)
        out.pop(path, None)
        out[path] = value
    return out


def canonical(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The overrides with every path in its canonical spelling (checked)."""
    return {path_text(parse_path(p)): v for p, v in overrides.items()}


def _kind(node: Any) -> str:
    if isinstance(node, dict | list):
        return "a table" if isinstance(node, dict) else "an array"
    return f"a value ({json.dumps(node, default=str)})"


def _check_step(node: Any, key: str | int, keys: Keys, i: int, path: str) -> None:
    """Whether ``node[key]`` can be read or created; ``keys[:i]`` leads to ``node``."""
    here = path_text(keys[:i]) or "the scenario"
    if isinstance(key, int):
        if not isinstance(node, list):
            raise ScenarioError(path, f"{here} is {_kind(node)}, not an array: no index [{key}]")
        if key >= len(node):
            entries = "1 entry" if len(node) == 1 else f"{len(node)} entries"
            raise ScenarioError(path, f"index [{key}] is out of range: {here} has {entries}")
    elif not isinstance(node, dict):
        raise ScenarioError(path, f"{here} is {_kind(node)}, not a table: no field `{key}`")


def _check_reachable(data: dict[str, Any], keys: Keys, path: str) -> None:
    """Every step of the path exists or is a table field that can be created."""
    node: Any = data
    for i, key in enumerate(keys):
        _check_step(node, key, keys, i, path)
        if isinstance(key, str) and key not in node:
            if i + 1 < len(keys) and isinstance(keys[i + 1], int):
                raise ScenarioError(
                    path, f"index [{keys[i + 1]}] is out of range: {path_text(keys[: i + 1])} is not set"
                )
            return  # the rest is created
        node = node[key]


def apply(scenario: Scenario, overrides: Mapping[str, Any]) -> Scenario:
    """A copy of ``scenario`` with the overrides set, in order; raises ScenarioError for a path that cannot be."""
    out = scenario.copy()
    for path, value in overrides.items():
        keys = parse_path(path)
        _check_reachable(out.data, keys, path)
        out.set(path_text(keys), value)
    return out


def overlaps(a: str, b: str) -> bool:
    """Whether two paths name the same field or one lies inside the other."""
    try:
        ka, kb = parse_path(a), parse_path(b)
    except ScenarioError:  # not a field path (an engine error about the whole file has none)
        return False
    n = min(len(ka), len(kb))
    return ka[:n] == kb[:n]


def _naming(error: ScenarioError, overrides: Mapping[str, Any]) -> ScenarioError | None:
    """The error, saying which override it came from; None if no override touches its field."""
    for path in overrides:
        if overlaps(error.path, path):
            return ScenarioError(error.path, f"{error.message} (in the override {path})", error.allowed)
    return None


def check(scenario: Scenario, overrides: Mapping[str, Any]) -> None:
    """Asks the engine about an overridden scenario; raises only the errors of overridden fields.

    Other problems are left to whoever runs or validates the scenario, as without overrides
    (a template may be completed later).
    """
    try:
        scenario.validate()
    except ScenarioError as e:
        named = _naming(e, overrides)
        if named is not None:
            raise named from None


def overridden(scenario: Scenario, overrides: Mapping[str, Any] | None) -> Scenario:
    """``scenario`` with the overrides applied and checked by the engine (itself if there are none)."""
    if not overrides:
        return scenario
    out = apply(scenario, overrides)
    check(out, overrides)
    return out
