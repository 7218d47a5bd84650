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
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from fanin import _native
from fanin._fs import atomic_write_bytes
from fanin.errors import ScenarioError
from fanin.limits import memory_limit as memory_limit_bytes
from fanin.scenario_files import NamedFile, engine_errors, engine_text, resolve_all

DATA_DIR = Path(__file__).resolve().parent / "data" / "workloads"
"""Workload files shipped with fanin (flow-size CDFs); searched after the scenario's own dir."""

_PART = re.compile(r"^([^\[\]]*)((?:\[-?\d+\])*)$")
_INDEX = re.compile(r"\[(-?\d+)\]")
_MISSING: Any = object()
MAX_NESTING = 64
"""Arrays and tables deeper than this are refused: no scenario needs them, and Python's and
the engine's TOML parsers give up at a few hundred and about 80."""

DataDirs = Iterable[str | os.PathLike[str]]


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

    def __init__(
        self, data: Mapping[str, Any], *, base_dir: str | os.PathLike[str] | None = None, data_dirs: DataDirs = ()
    ) -> None:
        self._data: dict[str, Any] = _copy.deepcopy(dict(data))
        self.base_dir: Path | None = Path(base_dir).resolve() if base_dir is not None else None
        # Folders besides base_dir and fanin's data that the files a scenario names may come from.
        self.data_dirs: list[Path] = [Path(d).resolve() for d in data_dirs]
        # The text the document came from, kept (comments and all) while it is unedited.
        self._source: str | None = None
        self._source_data: dict[str, Any] | None = None
        self._info: tuple[str, dict[str, Any]] | None = None  # (text validated, answer)

    # ------------------------------------------------------------ construction

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], *, data_dirs: DataDirs = (), set: Mapping[str, Any] | None = None
    ) -> Scenario:
        """Reads a TOML scenario file; files it names resolve in its directory, then in
        ``data_dirs``, then in fanin's data. ``set`` overrides fields, ``{"transport.cc":
        "newreno"}`` (see :mod:`fanin.overrides`)."""
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"scenario file not found: {p}")
        loaded = cls.from_toml(read_text(p), base_dir=p.parent, origin=str(p), data_dirs=data_dirs)
        from fanin.overrides import overridden  # it builds on this module

        return overridden(loaded, set)

    @classmethod
    def from_toml(
        cls,
        text: str,
        base_dir: str | os.PathLike[str] | None = None,
        *,
        origin: str = "scenario",
        data_dirs: DataDirs = (),
    ) -> Scenario:
        """Parses TOML text. ``base_dir`` is where files it names are looked up first."""
        data = parse_toml(text, origin)
        s = cls(data, base_dir=base_dir, data_dirs=data_dirs)
        s._source, s._source_data = text, _copy.deepcopy(data)
        return s

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], base_dir: str | os.PathLike[str] | None = None, *, data_dirs: DataDirs = ()
    ) -> Scenario:
        """A scenario from a nested dict (copied)."""
        return cls(data, base_dir=base_dir, data_dirs=data_dirs)

    def copy(self) -> Scenario:
        """An independent copy (same base directory and data folders)."""
        other = Scenario(self._data, base_dir=self.base_dir, data_dirs=self.data_dirs)
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
        """Where files named by the scenario are looked up, in order; nothing outside them is read."""
        first = self.base_dir if self.base_dir is not None else Path.cwd()
        from fanin.workloads import artifact_dirs  # the .cm traffic matrices

        return [str(first), *map(str, self.data_dirs), str(DATA_DIR), *artifact_dirs()]

    def named_files(self) -> list[NamedFile]:
        """The files the engine will read for this scenario, resolved; raises :class:`ScenarioError`
        for one it may not read or cannot find."""
        return resolve_all(self._data, [Path(d) for d in self.search_dirs()])

    def engine_input(self) -> tuple[str, list[NamedFile]]:
        """The TOML the engine is given (file fields as resolved paths) and the files it names."""
        files = self.named_files()
        return engine_text(self._data, self.to_toml(), files), files

    def validate(self, *, memory_limit: int | str | None = None) -> dict[str, Any]:
        """Asks the engine; returns ``{"name", "seed"}`` or raises :class:`ScenarioError`
        (also for a scenario estimated to need more than ``memory_limit``: see
        :mod:`fanin.limits`)."""
        text, files = self.engine_input()
        if self._info is None or self._info[0] != text:
            with engine_errors(files):  # the resolved files; the engine too reads only inside the roots
                self._info = (text, dict(_native.validate(text, self.search_dirs(), memory_limit_bytes(memory_limit))))
        return dict(self._info[1])

    @property
    def name(self) -> str:
        value = self._data.get("name")
        return value if isinstance(value, str) else str(self.validate()["name"])

    @property
    def seed(self) -> int:
        value = self._data.get("seed")
        return value if isinstance(value, int) and not isinstance(value, bool) else int(self.validate()["seed"])


# ------------------------------------------------------------ reading TOML


def read_text(path: Path) -> str:
    """A TOML file's text; bytes that are not UTF-8 are one :class:`ScenarioError` naming where."""
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ScenarioError("", f"{path} is not UTF-8 text (line {line}, byte offset {e.start})") from None


def _depth(node: Any) -> int:
    """How deeply arrays and tables nest, counted without recursion."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING:  # deeper than that is refused whatever lies below
            children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
            stack += [(c, depth + 1) for c in children if isinstance(c, dict | list)]
    return deepest


def parse_toml(text: str, origin: str) -> dict[str, Any]:
    """The document, or one :class:`ScenarioError` naming ``origin`` (syntax, nesting)."""
    too_deep = ScenarioError("", f"{origin} is not valid TOML: arrays or tables nested more than {MAX_NESTING} deep")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError("", f"{origin} is not valid TOML: {exc}") from None
    except RecursionError:
        raise too_deep from None
    if _depth(data) > MAX_NESTING:
        raise too_deep
    return data
