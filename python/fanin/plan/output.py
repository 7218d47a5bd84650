"""A plan as JSON and as the scenario fragment the `superways` topology reads (docs/plan.md)."""

from __future__ import annotations

from typing import Any

from fanin.plan.placement import Plan

FRAGMENT_HEADER = """\
# Superways placement by `fanin plan place`: incast server slots (0 = first server of the rack
# closest to the spines, taken as host h0 of the base topology), their extra links to
# spines 0, 1, ..., and how many of their incast senders keep to the leaf port (the rest use
# the extra links; list each server's first-placed app's workload first) (docs/plan.md).
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
    """TOML text: ``[topology.superways]`` with one ``{ server, links, leaf_senders }`` per
    incast server that needs extra links (``leaf_senders``: its apps' senders through the leaf
    port, the heuristic's split); those that need none (they still host aggregators) are named
    in a comment, as the topology takes 1 link or more per listed server."""
    linked = [s for s in plan.servers if s.links > 0]
    bare = [str(s.server) for s in plan.servers if s.links == 0]
    note = f"# incast servers with no extra link (leaf port only): {', '.join(bare)}\n" if bare else ""
    leaf = {s.server: sum(a.leaf_senders for a in plan.apps if a.server == s.server) for s in linked}
    rows = "".join(f"  {{ server = {s.server}, links = {s.links}, leaf_senders = {leaf[s.server]} }},\n" for s in linked)
    if not linked:
        return f"{FRAGMENT_HEADER}{note}# no server needs an extra link: no [topology.superways] table\n"
    return f"{FRAGMENT_HEADER}{note}[topology.superways]\nservers = [\n{rows}]\n"
