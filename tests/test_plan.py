"""`fanin plan`: Superways' placement heuristic and cost model against the numbers worked by hand
in the spec (§1.2, §1.5), exactly; and bad input as one line, exit 2."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from conftest import DEMO, fanin_cli, one_line
from fanin import Scenario, ScenarioError
from fanin.run import run
from fanin.plan import (
    App,
    Parameters,
    Plan,
    PlanError,
    cost,
    extra_links,
    pack_leaf,
    pack_spine,
    parse_apps,
    place,
    plan_json,
    seed,
)

B = 240_000  # the simulation's 240 KB port buffer, leaf and spine


def params(s: str = "3533B", **kw: Any) -> dict[str, Any]:
    p = {"alpha": 0.8, "flow_size": s, "leaf_buffer": "240KB", "spine_buffer": "240KB", "theta": 4}
    return p | kw


def apps_doc(apps: list[tuple[str, int, int]], **kw: Any) -> dict[str, Any]:
    return {
        "parameters": params(**kw),
        "app": [{"name": n, "degree": d, "local_senders": local} for n, d, local in apps],
    }


def load(apps: list[tuple[str, int, int]], **kw: Any) -> tuple[Parameters, list[App]]:
    return parse_apps(apps_doc(apps, **kw))


def write_apps(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "apps.toml"
    path.write_text(tomli_w.dumps(doc))
    return path


# ---- Eq. 1-8, the spec's worked example ----


def test_worked_example_one_extra_link() -> None:
    """alpha 0.8, s 3533 B, B 240,000 B, theta 4, d 96 with 5 local senders (spec §1.2)."""
    p, (a,) = load([("search", 96, 5)])
    s = seed(a, p)
    assert s.U == Fraction(4 * 5 * 3533, 5 * B) and f"{float(s.U):.4f}" == "0.0589"
    assert s.r_l == 225_868  # 240,000 - 0.8 * 5 * 3533
    assert s.U_prime == Fraction(4 * 91 * 3533, 5 * 225_868) and f"{float(s.U_prime):.3f}" == "1.139"
    assert s.N == Fraction(225_868 * 5, 4 * 3533) and f"{float(s.N):.1f}" == "79.9"
    assert s.leaf_senders == 5 + 79 == 84 and s.beta == Fraction(84, 96)
    assert s.L == Fraction(4 * 12 * 3533, 5 * 4 * B) == Fraction(3533, 100_000)  # 0.0353: the 12 others
    assert s.links == 1 and s.r_s == Fraction(1_157_604, 5) and round(s.r_s) == 231_521
    assert not s.packs_leaf


def test_after_the_worked_example_any_app_up_to_327_senders_fits() -> None:
    p, (a,) = load([("search", 96, 5)])
    r_s = seed(a, p).r_s
    waiting = [App("big", 328, 0), App("fits", 327, 0)]
    taken, left = pack_spine(waiting, p, r_s)
    assert [t.name for t in taken] == ["fits"] and [w.name for w in waiting] == ["big"]
    assert left == r_s - Fraction(4 * 327 * 3533, 5 * 4) == Fraction(2313, 5)  # 462.6 B


def test_worked_example_with_1500_byte_flows_needs_no_link() -> None:
    p, (a,) = load([("search", 96, 5)], s="1500B")
    s = seed(a, p)
    assert s.U_prime == Fraction(7, 15) and f"{float(s.U_prime):.3f}" == "0.467"
    assert s.links == 0 and s.leaf_senders == 96 and s.packs_leaf
    assert s.r_l_left == 234_000 * Fraction(8, 15) == 124_800  # Eq. 8 with the unit fix


def test_eq_4_5_round_up_and_keep_the_rest() -> None:
    assert extra_links(Fraction(6, 5), B) == (2, Fraction(4, 5) * B)  # L = 1.2: 2 links, r_s = 0.8 B_s
    assert extra_links(Fraction(1), B) == (1, Fraction(0))


def test_local_senders_alone_overflow_the_leaf_fig_4_beta() -> None:
    """3.1.1: 4 local senders of 1,000 B overflow a 2,500 B leaf port (U = 1.6): N = 2.5, so 2 of
    the 6 senders stay on the leaf link, beta = 2/6 as in Fig. 4; 4,000 B over a 10,000 B spine
    port is L = 0.4."""
    p, (a,) = load([("x", 6, 4)], alpha=1, s="1000B", leaf_buffer="2500B", spine_buffer="10KB", theta=1)
    assert a.beta == Fraction(4, 6)
    s = seed(a, p)
    assert s.U == Fraction(8, 5) and s.r_l is None and s.U_prime is None and s.N == Fraction(5, 2)
    assert s.beta == Fraction(2, 6) and s.leaf_senders == 2
    assert s.L == Fraction(2, 5) and s.links == 1 and s.r_s == 6_000


# ---- PACK_SPINE and PACK_LEAF through place() ----


def placed(plan: Plan) -> list[tuple[str, int, int, int]]:
    """(name, server, leaf senders, extra-link senders) of every app, in placement order."""
    return [(a.name, a.server, a.leaf_senders, a.extra_link_senders) for a in plan.apps]


def test_pack_spine_fills_the_extra_link_then_opens_a_server() -> None:
    """Each later d = 96 app needs 0.8 * 96 * 3533 / 4 = 67,833.6 B of the 231,520.8 B: three fit
    (28,020 B left), the fifth opens server 1, and a d = 30 app (21,198 B) still fits server 0."""
    p, apps = load([(f"a{i}", 96, 5) for i in range(5)] + [("small", 30, 1)])
    plan = place(apps, p)
    assert placed(plan) == [
        ("a0", 0, 84, 12),
        ("a1", 0, 0, 96),
        ("a2", 0, 0, 96),
        ("a3", 0, 0, 96),
        ("small", 0, 0, 30),
        ("a4", 1, 84, 12),
    ]
    assert [(s.server, s.links, s.r_s) for s in plan.servers] == [
        (0, 1, Fraction(6_822)),  # 28,020 - 21,198
        (1, 1, Fraction(1_157_604, 5)),
    ]


def test_pack_leaf_fills_the_leaf_port() -> None:
    """s = 1500 B: the seed leaves 124,800 B of leaf port; another d = 96 (115,200 B) fits, d = 60
    (72,000 B) and d = 40 (48,000 B) do not. d = 60 opens server 1: U' = 0.3, 168,000 B left,
    and d = 40 fits there (120,000 B left). No server needs an extra link."""
    p, apps = load([("d60", 60, 0), ("d40", 40, 0), ("seed", 96, 5), ("d96", 96, 0)], s="1500B")
    plan = place(apps, p)
    assert placed(plan) == [
        ("seed", 0, 96, 0),
        ("d96", 0, 96, 0),
        ("d60", 1, 60, 0),
        ("d40", 1, 40, 0),
    ]
    assert [(s.links, s.r_l, s.r_s) for s in plan.servers] == [
        (0, Fraction(9_600), Fraction(0)),
        (0, Fraction(120_000), Fraction(0)),
    ]
    assert plan.servers[1].seed.U_prime == Fraction(3, 10)


def test_a_burst_that_exactly_fills_the_buffer_does_not_fit() -> None:
    """alpha * d * s / r_l < 1 is strict: with s = 1500 B, d = 104 is exactly 124,800 B."""
    p, _ = load([("x", 1, 0)], s="1500B")
    waiting = [App("exact", 104, 0), App("under", 103, 0)]
    taken, left = pack_leaf(waiting, p, Fraction(124_800))
    assert [a.name for a in taken] == ["under"] and left == 1_200


def test_place_through_the_cli_json_and_table(tmp_path: Path) -> None:
    path = write_apps(tmp_path, apps_doc([("search", 96, 5), ("web", 48, 2)]))
    r = fanin_cli("plan", "place", str(path), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["apps"] == [
        {"name": "search", "server": 0, "leaf_senders": 84, "extra_link_senders": 12},
        {"name": "web", "server": 0, "leaf_senders": 0, "extra_link_senders": 48},
    ]
    # 231,520.8 - 0.8 * 48 * 3533 / 4
    assert data["servers"] == [
        {"server": 0, "extra_links": 1, "residual_spine_buffer_bytes": 197_604.0, "residual_leaf_buffer_bytes": 0.0}
    ]
    assert data["scenario_fragment"].endswith("[topology.superways]\nservers = [\n  { server = 0, links = 1, leaf_senders = 84 },\n]\n")
    p, apps = load([("search", 96, 5), ("web", 48, 2)])
    assert data == plan_json(place(apps, p))
    r = fanin_cli("plan", "place", str(path))
    assert r.returncode == 0, r.stderr
    assert "U = 0.05888, r_l = 225,868 B, U' = 1.139, N = 79.91, beta = 7/8, L = 0.03533 -> 1 link" in r.stdout
    assert "r_s = 231,521 B" in r.stdout and "197,604 B" in r.stdout
    assert "{ server = 0, links = 1, leaf_senders = 84 }," in r.stdout


# ---- cost model ----


@pytest.mark.parametrize(
    ("model", "percent", "n", "spines", "total", "ratio"),
    [
        ("A", 3, 70, 2, 28_820, "15.1"),
        ("A", 4, 93, 2, 31_120, "14.0"),
        ("A", 5, 116, 2, 33_420, "13.0"),
        ("B", 3, 70, 2, 28_820, "15.1"),
        ("B", 4, 93, 3, 42_030, "10.4"),
        ("B", 5, 116, 4, 55_240, "7.9"),
    ],
)
def test_fig_10_costs(model: str, percent: int, n: int, spines: int, total: int, ratio: str) -> None:
    share = Fraction(percent, 100)
    sup = cost.superways(share, 1, model)
    assert (sup.n, sup.S, sup.total) == (n, spines, total)
    assert sup.total == n * (20 + 80) + spines * 10_910
    assert f"{float(cost.ratio(share, 1, model)):.1f}" == ratio


def test_subways_type_1_and_the_3_percent_items() -> None:
    sub = cost.Subways(2304)
    assert sub.items == {"cables": 11_520, "leaves": 240_000, "nics": 184_320} and sub.total == 435_840
    assert cost.superways(Fraction(3, 100), 1, "A").items == {"cables": 1_400, "nics": 5_600, "spines": 21_820}


def test_fig_11_more_links_stay_cheaper_than_subways_up_to_13() -> None:
    def model_b(L: int) -> int:
        return cost.Superways(70, L, cost.spines("B", 70, L)).total

    assert [model_b(L) for L in (1, 2, 3, 4)] == [28_820, 68_550, 97_370, 126_190]
    assert model_b(13) == 407_390 < 435_840 < model_b(14) == 436_210


def test_cost_through_the_cli() -> None:
    r = fanin_cli("plan", "cost", "--share", "4%", "--links", "1", "--model", "B", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["superways"] == {
        "incast_servers": 93,
        "links": 1,
        "spines": 3,
        "dollars": {"cables": 1_860, "nics": 7_440, "spines": 32_730},
        "total": 42_030,
    }
    assert data["subways"]["total"] == 435_840 and data["ratio"] == 435_840 / 42_030
    r = fanin_cli("plan", "cost", "--share", "3%", "--links", "1", "--model", "A", "--servers", "2304")
    assert r.returncode == 0, r.stderr
    assert "$28,820" in r.stdout and "$435,840" in r.stdout and "15.1x" in r.stdout and "2 x $10,910" in r.stdout


# ---- bad input ----


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ({"alpha": 1.5}, "parameters.alpha: must be in (0, 1], got 1.5"),
        ({"alpha": True}, "parameters.alpha: expected a number in (0, 1], e.g. 0.8, got True"),
        ({"theta": 0.5}, "parameters.theta: must be >= 1 (spine / leaf link speed), got 0.5"),
        ({"flow_size": 3533}, 'parameters.flow_size: expected a size with a unit such as "240KB" or "3533B", got 3533'),
        ({"leaf_buffer": "240XB"}, "parameters.leaf_buffer: size `240XB` has unknown unit `XB`"),
        ({"spine_buffer": "0B"}, "parameters.spine_buffer: must be a positive size, got '0B'"),
        ({"colour": 1}, "parameters.colour: unknown field (allowed: alpha, flow_size, leaf_buffer,"),
    ],
)
def test_bad_parameters(change: dict[str, Any], line: str) -> None:
    doc = apps_doc([("a", 4, 1)])
    doc["parameters"] |= change
    with pytest.raises(PlanError) as e:
        parse_apps(doc)
    assert str(e.value).startswith(line)


@pytest.mark.parametrize(
    ("app", "line"),
    [
        ({"name": "a", "degree": 0, "local_senders": 0}, "app[1].degree: expected an integer >= 1, got 0"),
        ({"name": "a", "degree": 4, "local_senders": 5}, "app[1].local_senders: 5 is more than the app's degree 4"),
        ({"name": "b", "degree": 4}, "app[1].local_senders: expected an integer >= 0, missing"),
        ({"name": "", "degree": 4, "local_senders": 0}, "app[1].name: expected a non-empty string"),
        ({"name": "a", "degree": 4, "local_senders": 0}, "app[1].name: 'a' is already the name of app[0]"),
        ({"name": "b", "degree": 4, "local_senders": 0, "rack": 2}, "app[1].rack: unknown field (allowed: degree,"),
    ],
)
def test_bad_apps(app: dict[str, Any], line: str) -> None:
    doc = apps_doc([("a", 4, 1)])
    doc["app"].append(app)
    with pytest.raises(PlanError) as e:
        parse_apps(doc)
    assert str(e.value).startswith(line)


def test_bad_apps_file_through_the_cli(tmp_path: Path) -> None:
    doc = apps_doc([("a", 4, 1)], theta=0)
    r = fanin_cli("plan", "place", str(write_apps(tmp_path, doc)))
    assert r.returncode == 2 and r.stdout == ""
    assert one_line(r.stderr) == "error: parameters.theta: must be >= 1 (spine / leaf link speed), got 0"
    (tmp_path / "apps.toml").write_text("[parameters]\nalpha = 0.8\n")
    assert one_line(fanin_cli("plan", "place", str(tmp_path / "apps.toml")).stderr).startswith(
        "error: parameters.flow_size: expected a size with a unit"
    )
    (tmp_path / "apps.toml").write_text("[[app]\n")
    r = fanin_cli("plan", "place", str(tmp_path / "apps.toml"))
    assert r.returncode == 2 and "is not valid TOML" in one_line(r.stderr)
    r = fanin_cli("plan", "place", str(tmp_path / "none.toml"))
    assert r.returncode == 2 and one_line(r.stderr) == f"error: apps file not found: {tmp_path}/none.toml"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        ([], "--share: required, a percentage of the servers such as 3%"),
        (["--share", "three"], "--share: expected a percentage of the servers such as 3%, got 'three'"),
        (["--share", "0%"], "--share: must be more than 0% and at most 100%, got '0%'"),
        (["--share", "3%", "--model", "C"], "--model: unknown cost model 'C' (allowed: A, B)"),
        (["--share", "3%", "--links", "1.5"], "--links: expected a whole number >= 1, got '1.5'"),
        (["--share", "3%", "--servers", "0"], "--servers: expected a whole number >= 1, got '0'"),
    ],
)
def test_bad_cost_options(args: list[str], line: str) -> None:
    r = fanin_cli("plan", "cost", *args)
    assert r.returncode == 2 and r.stdout == ""
    assert one_line(r.stderr) == f"error: {line}"


def test_missing_tables() -> None:
    with pytest.raises(PlanError, match=r"^parameters: missing table \[parameters\]"):
        parse_apps({"app": [{"name": "a", "degree": 1, "local_senders": 0}]})
    with pytest.raises(PlanError, match=r"^app: expected one or more \[\[app\]\] tables"):
        parse_apps({"parameters": params()})
    with pytest.raises(PlanError, match=r"^apps: unknown field \(allowed: app, parameters\)"):
        parse_apps({"parameters": params(), "app": [], "apps": []})


LEAF_SPINE = """[topology]
kind = "leaf_spine"
leaves = 3
spines = 2
hosts_per_leaf = 4
[[workload]]
kind = "flow"
src = "h5"
dst = "h0"
bytes = "10KB"
"""


def test_the_fragment_places_the_links_in_a_scenario(tmp_path: Path) -> None:
    """The plan's fragment, pasted under a leaf-spine, gives server 0 its extra link to spine 0;
    a dumbbell has no spines and refuses it, naming the table."""
    p, apps = load([("search", 96, 5)])
    frag = plan_json(place(apps, p))["scenario_fragment"]
    scenario = tmp_path / "s.toml"
    scenario.write_text(LEAF_SPINE + frag)
    r = run(Scenario.load(scenario))
    assert r.flows["completed"].all()
    ports = set(r.ports["port_name"])
    assert {"h0->leaf0", "h0->spine0", "spine0->h0"} <= ports and "h1->spine0" not in ports
    scenario.write_text(DEMO.read_text() + "\n" + frag)
    with pytest.raises(ScenarioError) as e:
        Scenario.load(scenario).validate()
    assert e.value.path == "topology.superways"


def test_the_fragments_split_routes_the_senders(tmp_path: Path) -> None:
    """The worked example's split (84 of d = 96 senders through the leaf port, 12 over the one
    extra link), pasted under a 6 x 20 leaf-spine with an aggregator at h0: with equal
    responses and no loss, exactly 12/96 of the bytes into h0 arrive over the extra link."""
    p, apps = load([("search", 96, 5)])
    frag = plan_json(place(apps, p))["scenario_fragment"]
    pool = ", ".join(f'"h{h}"' for h in [*range(1, 6), *range(20, 120)])
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        f"""[topology]
kind = "leaf_spine"
leaves = 6
spines = 2
hosts_per_leaf = 20
[[workload]]
kind = "aggregator_incast"
aggregators = ["h0"]
senders = [{pool}]
degree = 96
sizes = "constant 3KB"
load = 0.5
capacity = "10Gbps"
stop = "10ms"
"""
        + frag
    )
    ports = run(Scenario.load(scenario)).ports.set_index("port_name")["tx_bytes"]
    extra, leaf = int(ports["spine0->h0"]), int(ports["leaf0->h0"])
    assert extra > 0 and extra * 96 == (extra + leaf) * 12
