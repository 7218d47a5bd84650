"""`fanin plan`: Superways' placement heuristic and cost model (Rezaei & Vamanan, WWW '21), exact.

>>> from fanin.plan import load_apps, place, plan_json
>>> params, apps = load_apps("apps.toml")           # doctest: +SKIP
>>> plan_json(place(apps, params))["servers"]       # doctest: +SKIP

``seed`` is Eq. 1-8 for one app, ``place`` the whole heuristic (PACK_LEAF, PACK_SPINE);
``fanin.plan.cost`` prices the result beside Subways type-1. See docs/plan.md.
"""

from fanin.plan import cost
from fanin.plan.inputs import App, Parameters, PlanError, load_apps, parse_apps
from fanin.plan.output import fragment, plan_json
from fanin.plan.placement import Placed, Plan, Seed, Server, extra_links, pack_leaf, pack_spine, place, seed

__all__ = [
    "App",
    "Parameters",
    "Placed",
    "Plan",
    "PlanError",
    "Seed",
    "Server",
    "cost",
    "extra_links",
    "fragment",
    "load_apps",
    "pack_leaf",
    "pack_spine",
    "parse_apps",
    "place",
    "plan_json",
    "seed",
]
