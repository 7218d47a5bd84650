"""Typed stubs for the native extension (crates/py)."""

from collections.abc import Callable

class ScenarioError(ValueError):
    """args = (message_line, path, allowed)."""

    args: tuple[str, str, list[str]]

Column = tuple[str, str, bytes | tuple[bytes, bytes]]
"""(name, dtype, data): dtype in u8, i8, u4, f8 (little-endian bytes), bool (bytes of 0/1), str and
str64 (Arrow's layout: offsets, i32 or i64 little-endian, and the UTF-8 text), u8? and f8?
(nullable: the values, 0 where null, then one validity byte per row)."""

def validate(toml: str, search_dirs: list[str], memory_limit: int | None = None) -> dict[str, str | int]:
    """Parses and builds the scenario; returns {"name": str, "seed": int}. Raises ScenarioError,
    also (before building) when the estimated memory need exceeds ``memory_limit`` bytes."""

def run(
    toml: str,
    search_dirs: list[str],
    progress: Callable[[int, int | None], None] | None = None,
    progress_every_ps: int = 0,
    memory_limit: int | None = None,
    threads: int = 1,
    on_flows: Callable[[list[Column]], None] | None = None,
    flow_rows: int = 131072,
) -> tuple[dict[str, list[Column]], dict[str, float]]:
    """Runs the scenario with the GIL released; returns (tables, summary).

    summary holds the engine's scalars plus wall_s (seconds in the run loop, unless the
    engine reports it) and setup_wall_s (parsing and building). A scenario with
    `[record] flows = "stream"` calls on_flows(columns) with the rows of flow_rows finished
    flows at a time, and last the flows left at the end (the returned tables then have no
    flows table).

    Raises ScenarioError for a bad scenario, RuntimeError("internal error: ...") if the
    engine fails an internal invariant, KeyboardInterrupt on Ctrl-C (checked between chunks).
    """

def version() -> str: ...

def machine_walk_ns(bytes: int, steps: int) -> float:
    """Nanoseconds a step of a random walk through every 64-byte line of ``bytes``."""

def machine_fresh_huge_page_ms(bytes: int) -> float | None:
    """Milliseconds the first touch of a fresh huge page takes (None: not measured here)."""

def parse_bytes(text: str) -> int:
    """A size in the scenario grammar ("8GB", "64KiB") as bytes. Raises ValueError."""

def parse_time(text: str) -> int:
    """A time in the scenario grammar ("1.5ms", "200us") as picoseconds. Raises ValueError."""

def parse_rate(text: str) -> int:
    """A rate in the scenario grammar ("10Gbps", "25G") as bits per second. Raises ValueError."""

def parse_cm(text: str) -> dict[str, list[int]]:
    """A .cm file's flows as lists src, dst, id, start_ps, size_bytes. Raises ValueError."""

def format_cm(nodes: int, src: list[int], dst: list[int], start_ps: list[int], size_bytes: list[int]) -> str:
    """.cm text for the flows (ids 1, 2, ... in order)."""

def mixed_poisson(
    dc_of: list[int],
    nic_bps: int,
    load: float,
    intra_fraction: float,
    intra_cdf: str,
    inter_cdf: str,
    flows: int,
    seed: int,
    index: int = 0,
    start_ps: int = 0,
) -> dict[str, list[int]]:
    """The mixed_poisson workload's flows as lists src, dst, start_ps, size_bytes."""
