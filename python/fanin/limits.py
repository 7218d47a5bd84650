"""How much memory a run may take before it starts.

The engine estimates what a scenario needs before it builds anything large (the routing
table, the flows, the recorded series; see ``crates/engine/src/sim/memory.rs``) and refuses
one over the limit with one line naming the field. The limit is, in order: the
``memory_limit`` argument, the ``FANIN_MEMORY_LIMIT`` environment variable (bytes, or a size
such as ``"16GB"``), or half of this machine's memory (its cgroup's limit if lower): the
estimate is a lower bound, and the machine runs other work too.
"""

from __future__ import annotations

import os
from pathlib import Path

from fanin import _native
from fanin.errors import ScenarioError

ENV = "FANIN_MEMORY_LIMIT"
MACHINE_SHARE = 0.5
_CGROUP_MAX = Path("/sys/fs/cgroup/memory.max")


def machine_memory() -> int:
    """Physical memory in bytes, or the cgroup's limit when it is lower (a container)."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        text = _CGROUP_MAX.read_text().strip()
    except OSError:
        return int(physical)
    return int(min(physical, int(text))) if text.isdigit() else int(physical)


def memory_limit(explicit: int | str | None = None) -> int:
    """The limit in bytes (see the module's doc); a bad value raises :class:`ScenarioError`."""
    value: int | str | None = explicit if explicit is not None else os.environ.get(ENV)
    where = "memory_limit" if explicit is not None else ENV
    if value is None or value == "":
        return int(machine_memory() * MACHINE_SHARE)
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    else:
        text = str(value).strip()
        try:
            size = int(text) if text.isdigit() else _native.parse_bytes(text)
        except ValueError as e:
            raise ScenarioError(where, f"{text!r}: {e}") from None
    if size <= 0:
        raise ScenarioError(where, f"must be a positive size, got {value!r}")
    return size
