"""`fanin crosscheck imc24`: the IMC '24 study in fanin and in ns-3 (optional: pip install fanin[ns3])."""

from __future__ import annotations

import importlib.util
from typing import Annotated

import typer
from rich.table import Table

from fanin.cli import fail, out, user_errors

crosscheck_app = typer.Typer(no_args_is_help=True, help="Compare fanin with another simulator (optional extras).")


@crosscheck_app.command("imc24")
def imc24(
    n: Annotated[str, typer.Option("--n", help="comma-separated flow counts")] = "100,500,1000",
    modes: Annotated[str, typer.Option(help="comma-separated: fidelity, paper")] = "fidelity,paper",
    duration_ms: Annotated[float, typer.Option("--duration-ms", help="burst length D")] = 15.0,
    bursts: Annotated[int, typer.Option(help="bursts per run (the first is not measured)")] = 11,
    seed: int = 1,
) -> None:
    """The IMC '24 DCTCP incast in fanin and ns-3: BCT, mean queue, drops, run-loop speed."""
    with user_errors():
        try:
            ns_list = tuple(int(x) for x in n.split(","))
        except ValueError:
            fail(f"--n: expected comma-separated integers, got {n!r}")
        mode_list = tuple(m.strip() for m in modes.split(","))
        bad = [m for m in mode_list if m not in ("fidelity", "paper")]
        if bad or bursts < 2 or any(x < 1 for x in ns_list):
            fail("--modes: allowed fidelity, paper; --bursts >= 2; --n >= 1")
        if importlib.util.find_spec("ns") is None:
            fail("ns-3's Python bindings are not installed (pip install 'fanin[ns3]')")
        from fanin.crosscheck.ns3_imc24 import crosscheck

        cases, setup_s = crosscheck(ns_list, mode_list, duration_ms, bursts, seed)
    t = Table(title=f"IMC '24 incast, D = {duration_ms:g} ms, bursts 2-{bursts} (fanin / ns-3)")
    for col in ("mode", "N", "BCT ms", "mean queue pkts", "drops/burst", "run s", "speed-up"):
        t.add_column(col, justify="right")
    for c in cases:
        f, s = c.fanin, c.ns3
        t.add_row(
            c.mode,
            str(c.n),
            f"{f.bct_ms:.3f} / {s.bct_ms:.3f}",
            f"{f.mean_queue_pkts:.1f} / {s.mean_queue_pkts:.1f}",
            f"{f.drops_per_burst:.1f} / {s.drops_per_burst:.1f}",
            f"{f.run_s:.2f} / {s.run_s:.1f}",
            f"{s.run_s / f.run_s:.0f}x",
        )
    out.print(t)
    out.print(f"ns-3 import and C++ build: {setup_s:.1f} s (not counted)")
