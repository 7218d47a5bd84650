"""fanin: a fast, deterministic packet-level incast simulator.

>>> import fanin
>>> s = fanin.Scenario.load("scenarios/incast_dumbbell.toml")   # doctest: +SKIP
>>> r = fanin.run(s, seed=2)                                     # doctest: +SKIP
>>> r.flows[["flow_id", "fct_ps", "slowdown"]]                   # doctest: +SKIP
"""

from typing import TYPE_CHECKING, Any

from fanin import _native
from fanin.errors import ScenarioError
from fanin.results import Results
from fanin.run import run
from fanin.scenario import Scenario

if TYPE_CHECKING:
    from fanin import sweep
    from fanin.sweep import Sweep

__version__: str = _native.version()

__all__ = ["Results", "Scenario", "ScenarioError", "Sweep", "__version__", "run", "sweep"]


def __getattr__(name: str) -> Any:
    """``Sweep`` and ``sweep`` on first use: sweeps bring in pandas, which would otherwise
    be most of the start-up of every ``fanin`` command (about 0.4 s)."""
    if name in ("Sweep", "sweep"):
        import fanin.sweep

        return fanin.sweep if name == "sweep" else fanin.sweep.Sweep
    raise AttributeError(f"module 'fanin' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
