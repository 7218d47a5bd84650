"""A scenario: TOML on disk, a nested dict in Python, validated by the engine.

The engine owns the schema (docs/scenario.md); this class only reads, edits and writes the
document and asks the engine whether it can run.
"""

from __future__ import annotations

import copy as _copy
import itertools
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w

from fanin import _native
from fanin._fs import atomic_write_bytes
from fanin.errors import ScenarioError, native_errors

DATA_DIR = Path(__file__).resolve().parent / "data" / "workloads"
"""Workload files shipped with fanin (flow-size CDFs); searched after the scenario's own dir."""

_PART = re.compile(r"^([^\[\]]*)((?:\[-?\d+\])*)$")
_INDEX = re.compile(r"\[(-?\d+)\]")
_MISSING: Any = object()


def split_path(path: str) -> list[str | int]:
    """``"workload[0].degree"`` -> ``["workload", 0, "degree"]``."""
    keys: list[str | int] = []
    for part in path.split("."):
        m = _PART.match(part)
        if m is None or (not m.group(1) and not m.group(2)):
            raise KeyError(f"bad field path {path!r}")
        if m.group(1):
            keys.append(m.group(1))
        keys.extend(int(i) for i in _INDEX.findall(m.group(2)))
    if not keys or not isinstance(keys[0], str):
        raise KeyError(f"bad field path {path!r}")
    return keys


class Scenario:
    """An editable scenario document.

    >>> s = Scenario.load("scenarios/incast_dumbbell.toml")   # doctest: +SKIP
    >>> s.set("transport.cc", "newreno")                       # doctest: +SKIP
    >>> s.get("workload[0].degree")                            # doctest: +SKIP
    32
    """

    def __init__(self, data: Mapping[str, Any], *, base_dir: str | os.PathLike[str] | None = None) -> None:
        self._data: dict[str, Any] = _copy.deepcopy(dict(data))
        self.base_dir: Path | None = Path(base_dir).resolve() if base_dir is not None else None
        # The text the document came from, kept (comments and all) while it is unedited.
        self._source: str | None = None
        self._source_data: dict[str, Any] | None = None
        self._info: tuple[str, dict[str, Any]] | None = None  # (text validated, answer)

    # ------------------------------------------------------------ construction

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, set: Mapping[str, Any] | None = None) -> Scenario:
        """Reads a TOML scenario file; files it names resolve against its directory.

        ``set`` overrides fields, ``{"transport.cc": "newreno"}`` (see :mod:`fanin.overrides`).
        """
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"scenario file not found: {p}")
        loaded = cls.from_toml(p.read_text(encoding="utf-8"), base_dir=p.parent, origin=str(p))
        from fanin.overrides import overridden  # it builds on this module

        return overridden(loaded, set)

    @classmethod
    def from_toml(
        cls, text: str, base_dir: str | os.PathLike[str] | None = None, *, origin: str = "scenario"
    ) -> Scenario:
        """Parses TOML text. ``base_dir`` is where files it names are looked up first."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError("", f"{origin} is not valid TOML: {exc}") from None
        s = cls(data, base_dir=base_dir)
        s._source, s._source_data = text, _copy.deepcopy(data)
        return s

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: str | os.PathLike[str] | None = None) -> Scenario:
        """A scenario from a nested dict (copied)."""
        return cls(data, base_dir=base_dir)

    def copy(self) -> Scenario:
        """An independent copy (same base directory)."""
        other = Scenario(self._data, base_dir=self.base_dir)
        other._source, other._source_data = self._source, _copy.deepcopy(self._source_data)
        return other

    # ------------------------------------------------------------ serialisation

    @property
    def data(self) -> dict[str, Any]:
        """The document as a nested dict (live: edits change the scenario)."""
        return self._data

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the document."""
        return _copy.deepcopy(self._data)

    def to_toml(self) -> str:
        """The TOML text: the original text while unedited, else a fresh rendering."""
        if self._source is not None and self._data == self._source_data:
            return self._source
        try:
            return tomli_w.dumps(self._data)
        except TypeError as exc:
            raise ScenarioError("", f"cannot write as TOML: {exc}") from None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the TOML atomically (temporary file in the same directory, then rename)."""
        atomic_write_bytes(path, self.to_toml().encode("utf-8"))

    # ------------------------------------------------------------ access

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Scenario(name={self._data.get('name')!r})"

    def get(self, path: str, default: Any = _MISSING) -> Any:
        """Reads a dotted field such as ``"switch.queue.limit"`` or ``"workload[0].degree"``."""
        node: Any = self._data
        try:
            for key in split_path(path):
                node = node[key]
        except (KeyError, IndexError, TypeError):
            if default is _MISSING:
                raise KeyError(path) from None
            return default
        return node

    def set(self, path: str, value: Any) -> Scenario:
        """Sets a dotted field, creating missing tables on the way; returns ``self``."""
        keys = split_path(path)
        node: Any = self._data
        for key, nxt in itertools.pairwise(keys):
            if isinstance(key, str) and isinstance(node, dict) and key not in node:
                node[key] = {} if isinstance(nxt, str) else []
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                raise KeyError(f"{path}: no such field") from None
        last = keys[-1]
        try:
            node[last] = value
        except (IndexError, TypeError):
            raise KeyError(f"{path}: no such field") from None
        return self

    # ------------------------------------------------------------ engine

    def search_dirs(self) -> list[str]:
        """Where files named by the scenario are looked up, in order."""
        first = self.base_dir if self.base_dir is not None else Path.cwd()
        from fanin.workloads import artifact_dirs  # the .cm traffic matrices

        return [str(first), str(DATA_DIR), *artifact_dirs()]

    def validate(self) -> dict[str, Any]:
        """Asks the engine; returns ``{"name", "seed"}`` or raises :class:`ScenarioError`."""
        text = self.to_toml()
        if self._info is None or self._info[0] != text:
            with native_errors():
                self._info = (text, dict(_native.validate(text, self.search_dirs())))
        return dict(self._info[1])

    @property
    def name(self) -> str:
        value = self._data.get("name")
        return value if isinstance(value, str) else str(self.validate()["name"])

    @property
    def seed(self) -> int:
        value = self._data.get("seed")
        return value if isinstance(value, int) and not isinstance(value, bool) else int(self.validate()["seed"])
