"""`fanin plan`: Superways' placement heuristic (`place`) and cost model (`cost`), docs/plan.md."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from fanin.cli_common import out, user_errors
from fanin.plan import cost as c
from fanin.plan.inputs import PlanError, load_apps
from fanin.plan.output import fragment, plan_json
from fanin.plan.placement import Plan, Seed, place

plan_app = typer.Typer(
    no_args_is_help=True, help="Superways (WWW '21): place incast apps on servers, price the extra links."
)

JsonOption = Annotated[bool, typer.Option("--json", help="print JSON instead of tables")]


def _print_json(data: dict[str, Any]) -> None:
    # Plain stdout: rich would read the JSON's brackets as markup.
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _num(x: Fraction | None, digits: int = 4) -> str:
    return "-" if x is None else f"{float(x):.{digits}g}"


def _bytes(x: Fraction) -> str:
    return f"{round(x):,} B"


def seed_line(server: int, name: str, s: Seed) -> str:
    """Eq. 1-8 for the app that opened a server, as the paper's worked example writes them."""
    parts = [f"U = {_num(s.U)}"]
    if s.r_l is not None:
        parts.append(f"r_l = {_bytes(s.r_l)}")
    if s.U_prime is not None:
        parts.append(f"U' = {_num(s.U_prime)}")
    if s.N is not None:
        parts.append(f"N = {_num(s.N)}")
    parts.append(f"beta = {s.beta.numerator}/{s.beta.denominator}")
    if s.packs_leaf:
        parts.append(f"no extra link, r_l <- r_l(1 - U') = {_bytes(s.r_l_left)}")
    else:
        parts.append(f"L = {_num(s.L)} -> {s.links} link{'s' * (s.links != 1)}, r_s = {_bytes(s.r_s)}")
    return f"server {server}, opened by {name}: " + ", ".join(parts)


def plan_tables(plan: Plan, degrees: dict[str, int]) -> tuple[Table, Table]:
    apps = Table(title="apps", box=None, padding=(0, 2))
    for col in ("app", "d", "server", "leaf senders", "extra-link senders"):
        apps.add_column(col, justify="left" if col == "app" else "right")
    for a in plan.apps:
        cells = (degrees[a.name], a.server, a.leaf_senders, a.extra_link_senders)
        apps.add_row(escape(a.name), *map(str, cells))
    servers = Table(title="servers", box=None, padding=(0, 2))
    for col in ("server", "extra links", "residual spine buffer", "residual leaf buffer"):
        servers.add_column(col, justify="right")
    for s in plan.servers:
        servers.add_row(str(s.server), str(s.links), _bytes(s.r_s), _bytes(s.r_l))
    return apps, servers


@plan_app.command("place")
def place_cmd(
    apps_file: Annotated[Path, typer.Argument(metavar="APPS.toml", help="\\[parameters] and \\[\\[app]] tables")],
    json_out: JsonOption = False,
) -> None:
    """Place incast apps with the paper's heuristic (Eq. 1-8, PACK_LEAF, PACK_SPINE): servers,
    extra links, senders' paths, and a scenario fragment."""
    with user_errors():
        params, apps = load_apps(apps_file)
    plan = place(apps, params)
    if json_out:
        _print_json(plan_json(plan))
        return
    out.print(
        f"alpha = {float(params.alpha):g}, s = {params.s:,} B, B_l = {params.B_l:,} B, "
        f"B_s = {params.B_s:,} B, theta = {float(params.theta):g}"
    )
    for s in plan.servers:
        out.print(escape(seed_line(s.server, s.seed_app, s.seed)), soft_wrap=True)
    for table in plan_tables(plan, {a.name: a.d for a in apps}):
        out.print(table)
    out.print(escape(fragment(plan)), end="", soft_wrap=True)


def parse_share(text: str) -> Fraction:
    """``3%`` or ``3`` (per cent) -> 3/100."""
    try:
        share = Fraction(text.strip().removesuffix("%")) / 100
    except (ValueError, ZeroDivisionError):
        raise PlanError("--share", f"expected a percentage of the servers such as 3%, got {text!r}") from None
    if not 0 < share <= 1:
        raise PlanError("--share", f"must be more than 0% and at most 100%, got {text!r}")
    return share


def parse_count(text: str, option: str) -> int:
    """A whole number >= 1, parsed here so a bad one is one line (not Typer's usage box)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise PlanError(option, f"expected a whole number >= 1, got {text!r}")
    return int(text)


def parse_model(text: str) -> str:
    model = text.strip().upper()
    if model not in c.MODELS:
        raise PlanError("--model", f"unknown cost model {text!r}", c.MODELS)
    return model


def cost_json(share: Fraction, sup: c.Superways, sub: c.Subways, model: str) -> dict[str, Any]:
    return {
        "servers": sub.servers,
        "share_percent": float(share * 100),
        "model": model,
        "superways": {
            "incast_servers": sup.n,
            "links": sup.L,
            "spines": sup.S,
            "dollars": sup.items,
            "total": sup.total,
        },
        "subways": {"extra_leaves": sub.extra_leaves, "dollars": sub.items, "total": sub.total},
        "ratio": float(Fraction(sub.total, sup.total)),
        "prices": {
            "leaf": c.LEAF_PRICE,
            "spine": c.SPINE_PRICE,
            "nic": c.NIC_PRICE,
            "cable_10ft": c.CABLE_10FT_PRICE,
            "cable_50ft": c.CABLE_50FT_PRICE,
        },
    }


def cost_table(share: Fraction, sup: c.Superways, sub: c.Subways, model: str) -> Table:
    t = Table(box=None, padding=(0, 2), show_header=False)
    t.add_column(style="bold")
    t.add_column()
    t.add_column(justify="right")
    links = sup.n * sup.L
    who = f"{float(share * 100):g}% of {sub.servers:,} servers = {sup.n}, {sup.L} link(s) each"
    t.add_row(f"Superways, model {model}", who, "")
    t.add_row("  cables", f"{links:,} x ${c.CABLE_50FT_PRICE} (50 ft)", f"${sup.items['cables']:,}")
    t.add_row("  NICs", f"{links:,} x ${c.NIC_PRICE}", f"${sup.items['nics']:,}")
    t.add_row("  spines", f"{sup.S} x ${c.SPINE_PRICE:,}", f"${sup.items['spines']:,}")
    t.add_row("  total", "", f"${sup.total:,}")
    t.add_row("Subways type-1", f"{sub.servers:,} servers", "")
    t.add_row("  cables", f"{sub.servers:,} x ${c.CABLE_10FT_PRICE} (10 ft)", f"${sub.items['cables']:,}")
    t.add_row("  leaves", f"{sub.extra_leaves} x ${c.LEAF_PRICE:,}", f"${sub.items['leaves']:,}")
    t.add_row("  NICs", f"{sub.servers:,} x ${c.NIC_PRICE}", f"${sub.items['nics']:,}")
    t.add_row("  total", "", f"${sub.total:,}")
    t.add_row("Subways / Superways", "", f"{float(Fraction(sub.total, sup.total)):.1f}x")
    return t


@plan_app.command("cost")
def cost_cmd(
    share: Annotated[str | None, typer.Option("--share", metavar="P%", help="incast servers, % of all")] = None,
    links: Annotated[str, typer.Option("--links", metavar="L", help="extra links per incast server")] = "1",
    model: Annotated[str, typer.Option("--model", metavar="A|B", help="new spines: A = 2, B = as ports need")] = "A",
    servers: Annotated[str, typer.Option("--servers", help="servers in the data centre")] = str(c.SERVERS),
    json_out: JsonOption = False,
) -> None:
    """Price Superways' extra links beside Subways type-1 (paper Sec. 5.3), to the dollar."""
    with user_errors():
        if share is None:
            raise PlanError("--share", "required, a percentage of the servers such as 3%")
        p, m = parse_share(share), parse_model(model)
        L, n_servers = parse_count(links, "--links"), parse_count(servers, "--servers")
        sup, sub = c.superways(p, L, m, n_servers), c.Subways(n_servers)
    if json_out:
        _print_json(cost_json(p, sup, sub, m))
    else:
        out.print(cost_table(p, sup, sub, m))
