"""Cross-checks of fanin against other simulators.

Everything here is optional: the external simulators are not dependencies of
fanin, and nothing is imported from them until a cross-check actually runs.

* :mod:`fanin.crosscheck.ns3_incast` -- the N-to-1 DCTCP incast star run in
  mainline ns-3 (the PyPI ``ns3`` wheel, ``from ns import ns``).
* :mod:`fanin.crosscheck.ns3_imc24` -- the IMC '24 study (``fanin crosscheck imc24``).
* :mod:`fanin.crosscheck.ns3_tcp` -- a grid of NewReno/DCTCP incasts and DCTCP long
  flows in fanin and ns-3 with a verdict per row (``fanin crosscheck tcp``).

The names below are resolved lazily, so importing this package costs nothing and
``python -m fanin.crosscheck.ns3_incast`` runs the module only once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ns3_incast import Ns3IncastResult, available, run_ns3_incast

__all__ = ["Ns3IncastResult", "available", "run_ns3_incast"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import ns3_incast

        return getattr(ns3_incast, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
