"""fanin: a fast, deterministic packet-level incast simulator.

>>> import fanin
>>> s = fanin.Scenario.load("scenarios/incast_dumbbell.toml")   # doctest: +SKIP
>>> r = fanin.run(s, seed=2)                                     # doctest: +SKIP
>>> r.flows[["flow_id", "fct_ps", "slowdown"]]                   # doctest: +SKIP
"""

from fanin import _native, sweep
from fanin.errors import ScenarioError
from fanin.results import Results
from fanin.run import run
from fanin.scenario import Scenario
from fanin.sweep import Sweep

__version__: str = _native.version()

__all__ = ["Results", "Scenario", "ScenarioError", "Sweep", "__version__", "run", "sweep"]
