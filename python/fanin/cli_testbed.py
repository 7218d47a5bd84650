"""`fanin testbed incast`: a real kernel-TCP incast in network namespaces, measured by `fanin bursts`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

testbed_app = typer.Typer(no_args_is_help=True, help="Real Linux hosts (network namespaces) on this machine.")


@testbed_app.command("incast")
def incast_cmd(
    output: Annotated[Path, typer.Option("-o", "--output", help="directory: capture.pcap, testbed.json, bursts/")],
    senders: Annotated[int, typer.Option(min=1, max=64, help="sender namespaces")] = 4,
    bytes_per_sender: Annotated[str, typer.Option("--bytes", help="each sender's reply per burst")] = "100KB",
    bursts: Annotated[int, typer.Option(min=1, max=100, help="number of bursts")] = 3,
    rate: Annotated[str, typer.Option(help="bottleneck rate toward the receiver")] = "100M",
    queue: Annotated[str, typer.Option(help="bottleneck queue: fair (per-sender round robin) | fifo")] = "fair",
) -> None:
    """Run an incast of real kernel TCP through a rate-limited bottleneck, capture it at the
    receiver, and find its bursts. Needs root and iproute2."""
    import fanin.bursts as fb
    from fanin._fs import atomic_write_bytes, check_replaceable
    from fanin.bursts.analysis import summarize
    from fanin.bursts.output import write
    from fanin.bursts.units import parse_bytes, parse_rate_bps
    from fanin.cli import fail, out, user_errors
    from fanin.cli_bursts import summary_table
    from fanin.testbed.incast import TESTBED_JSON, compare, run_incast
    from fanin.testbed.leftovers import clean_leftovers
    from fanin.testbed.netns import QUEUES, RECEIVER_ADDR, TestbedUnavailable, unavailable_reason

    with user_errors():
        try:
            size, rate_bps = parse_bytes(bytes_per_sender, "--bytes"), parse_rate_bps(rate, "--rate")
            if queue not in QUEUES:
                raise fb.BurstInputError(f"--queue: {queue!r} (allowed: {', '.join(QUEUES)})")
            check_replaceable(output, TESTBED_JSON)
            reason = unavailable_reason()
            if reason:
                raise TestbedUnavailable(reason)
            for line in clean_leftovers():  # of killed runs: run_incast would remove them silently
                out.print(escape(line), soft_wrap=True)
            run = run_incast(
                output, senders=senders, bytes_per_sender=size, bursts=bursts, rate_bps=rate_bps, queue=queue
            )
            counters = fb.load(output / run.capture)
            found = fb.find(counters, rate_bps)
            write(found, counters, output / "bursts", inputs=[str(output / run.capture)])
        except (fb.BurstInputError, TestbedUnavailable) as e:
            fail(str(e))
    receiver = found.bursts[found.bursts["host"] == RECEIVER_ADDR]
    table = compare(run, output, receiver)
    atomic_write_bytes(output / "comparison.json", (json.dumps(table.to_dict("records"), indent=2) + "\n").encode())
    hosts = found.hosts[found.hosts["host"] == RECEIVER_ADDR]
    out.print(summary_table(summarize(receiver, hosts).assign(dataset=f"receiver {RECEIVER_ADDR}")))
    t = Table(title="payload sent by the testbed vs found in bursts at the receiver (bytes)", box=None)
    for c in ("burst", "sent", "found", "frames sent", "frames found", "ms", "flows max/mean", "match"):
        t.add_column(c, justify="right")
    for r in table.itertuples():
        t.add_row(
            str(r.burst),
            str(r.sent_payload_bytes),
            str(r.found_payload_bytes),
            str(r.wire_bytes),
            str(r.found_bytes),
            f"{r.found_duration_ms:g}",
            f"{r.found_flows_max}/{r.found_flows_mean:.2f}",
            "yes" if r.matches else "no",
        )
    out.print(t)
    out.print(f"capture, tables and figures: {escape(str(output))}")


@testbed_app.command("clean")
def clean_cmd() -> None:
    """Remove what killed testbed runs left: their namespaces and links, processes still
    inside them, partial output folders. Runs still going are left alone."""
    from fanin.cli import fail, out, user_errors
    from fanin.testbed.leftovers import clean_leftovers
    from fanin.testbed.netns import unavailable_reason

    with user_errors():
        reason = unavailable_reason()
        if reason:
            fail(reason)
        said = clean_leftovers()
    for line in said or ["nothing left by killed testbed runs"]:
        out.print(escape(line), soft_wrap=True)
