"""A plan as JSON and as the scenario fragment a `superways` topology will read (docs/plan.md)."""

from __future__ import annotations

from typing import Any

from fanin.plan.placement import Plan

FRAGMENT_HEADER = """\
# Superways placement by `fanin plan place`: incast server slots (0 = first server of the rack
# closest to the spines) and their extra links to spines. Not yet read by the engine: the
# `superways` topology that will consume this table does not exist yet (docs/plan.md).
"""


def plan_json(plan: Plan) -> dict[str, Any]:
    """The plan as JSON-ready data; residual buffers in bytes (floats of the exact values)."""
    return {
        "apps": [
            {
                "name": a.name,
                "server": a.server,
                "leaf_senders": a.leaf_senders,
                "extra_link_senders": a.extra_link_senders,
            }
            for a in plan.apps
        ],
        "servers": [
            {
                "server": s.server,
                "extra_links": s.links,
                "residual_spine_buffer_bytes": float(s.r_s),
                "residual_leaf_buffer_bytes": float(s.r_l),
            }
            for s in plan.servers
        ],
        "scenario_fragment": fragment(plan),
    }


def fragment(plan: Plan) -> str:
    """TOML text: ``[topology.superways]`` with one ``{ server, links }`` per incast server,
    servers without extra links included (they still host aggregators)."""
    rows = "".join(f"  {{ server = {s.server}, links = {s.links} }},\n" for s in plan.servers)
    return f"{FRAGMENT_HEADER}[topology.superways]\nservers = [\n{rows}]\n"
