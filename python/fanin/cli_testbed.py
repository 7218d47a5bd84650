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
    buffer: Annotated[str | None, typer.Option(help="bottleneck buffer, e.g. 30KB (default: never drops)")] = None,
    collector: Annotated[
        str | None, typer.Option(help="also count every host: ebpf (1 ms Millisampler files in DIR/millisampler)")
    ] = None,
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
    from fanin.testbed.incast import COLLECTORS, TESTBED_JSON, compare, run_incast
    from fanin.testbed.leftovers import clean_leftovers
    from fanin.testbed.netns import QUEUES, RECEIVER_ADDR, TestbedUnavailable, unavailable_reason

    with user_errors():
        try:
            size, rate_bps = parse_bytes(bytes_per_sender, "--bytes"), parse_rate_bps(rate, "--rate")
            if queue not in QUEUES:
                raise fb.BurstInputError(f"--queue: {queue!r} (allowed: {', '.join(QUEUES)})")
            if collector not in COLLECTORS:
                allowed = ", ".join(c for c in COLLECTORS if c)
                raise fb.BurstInputError(f"--collector: {collector!r} (allowed: {allowed})")
            buffer_bytes = parse_bytes(buffer, "--buffer") if buffer is not None else None
            check_replaceable(output, TESTBED_JSON)
            reason = unavailable_reason()
            if reason:
                raise TestbedUnavailable(reason)
            for line in clean_leftovers():  # of killed runs: run_incast would remove them silently
                out.print(escape(line), soft_wrap=True)
            run = run_incast(
                output,
                senders=senders,
                bytes_per_sender=size,
                bursts=bursts,
                rate_bps=rate_bps,
                queue=queue,
                buffer_bytes=buffer_bytes,
                collector=collector,
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
    if run.millisampler:
        _collector_agreement(output, run.millisampler[0], RECEIVER_ADDR)
    out.print(f"capture, tables and figures: {escape(str(output))}")


def _collector_agreement(output: Path, receiver_file: str, receiver: str) -> None:
    """The eBPF Millisampler's receiver counters against the capture: writes and prints the agreement."""
    from fanin._fs import atomic_write_bytes
    from fanin.cli import out
    from fanin.testbed.collector import agreement

    t = agreement(output / "capture.pcap", output / receiver_file, receiver)
    summary = {
        "bins": len(t),
        "max_bin_bytes_difference": int((t["ebpf_bytes"] - t["capture_bytes"]).abs().max()),
        "ebpf_bytes": int(t["ebpf_bytes"].sum()),
        "capture_bytes": int(t["capture_bytes"].sum()),
        "ebpf_rxmit_bytes": int(t["ebpf_rxmit_bytes"].sum()),
        "capture_rxmit_bytes": int(t["capture_rxmit_bytes"].sum()),
        "capture_rxmit_segments": int(t["capture_rxmit_segments"].sum()),
    }
    atomic_write_bytes(output / "collector_agreement.json", (json.dumps(summary, indent=2) + "\n").encode())
    out.print(
        f"eBPF Millisampler vs capture at the receiver, {summary['bins']} bins of 1 ms: bytes "
        f"{summary['ebpf_bytes']} vs {summary['capture_bytes']} "
        f"(per bin within {summary['max_bin_bytes_difference']} B), "
        f"retransmitted {summary['ebpf_rxmit_bytes']} vs {summary['capture_rxmit_bytes']} B "
        f"({summary['capture_rxmit_segments']} segments); files in {escape(str(output / 'millisampler'))}",
        soft_wrap=True,
    )


def sample_cmd(
    iface: Annotated[str, typer.Argument(help="the interface to count (of this host's namespace)")],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="directory: <IFACE>-zip/rackId_local_hostId_<host>.txt.gz")
    ],
    duration: Annotated[float, typer.Option(min=0.001, max=3600, help="seconds to count")] = 2.0,
) -> None:
    """Count IFACE's traffic in 1 ms bins with the eBPF Millisampler (ingress/egress bytes,
    retransmitted bytes in and out, ECN-CE bytes in, active connections), written as the public
    Millisampler files `fanin bursts DIR` reads. Needs root, Linux 6.6+ and `make bpf`."""
    from fanin._fs import check_replaceable
    from fanin.cli import fail, out, user_errors
    from fanin.testbed.collector import INFO, sample
    from fanin.testbed.ebpf import unavailable_reason

    with user_errors():
        reason = unavailable_reason("millisampler")
        if reason:
            fail(reason)
        if not Path("/sys/class/net", iface).exists() or "/" in iface or iface in (".", ".."):
            fail(f"IFACE: no interface named {iface!r} in this namespace (see `ip link`)")
        check_replaceable(output, INFO)
        path = sample(iface, duration, output)
    out.print(f"eBPF Millisampler counters of {escape(iface)} for {duration:g} s: {escape(str(path))}", soft_wrap=True)


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
