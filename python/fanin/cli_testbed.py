"""`fanin testbed incast|proxy|clean` and `fanin sample`: real Linux hosts in network namespaces
(kernel TCP incasts, the proxy paper's eBPF and user-space proxies) and the eBPF Millisampler."""

from __future__ import annotations

import json
from dataclasses import replace
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
    from fanin.cli_common import fail, out, user_errors
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


@testbed_app.command("proxy")
def proxy_cmd(
    output: Annotated[Path, typer.Option("-o", "--output", help="directory: tables, figures, summary, captures")],
    quick: Annotated[bool, typer.Option(help="a few seconds: 2 s per proxy, 300 packets per sender")] = False,
    duration: Annotated[float, typer.Option(min=0.5, max=600, help="seconds of load through each proxy")] = 30.0,
    senders: Annotated[int, typer.Option(min=1, max=32, help="incast senders")] = 4,
    packets: Annotated[int, typer.Option(min=1, max=100_000, help="packets (1400 B) per incast sender")] = 1000,
    rate: Annotated[str, typer.Option(help="bottleneck rate toward the proxy (and of the long-haul path)")] = "100M",
    buffer: Annotated[str, typer.Option(help="the trimmer's buffer at the bottleneck")] = "30KB",
    delay: Annotated[str, typer.Option(help="one-way delay of the long-haul path")] = "1ms",
    keep_captures: Annotated[bool, typer.Option(help="keep the latency phase's captures (large)")] = False,
) -> None:
    """The proxy paper's testbed (HotNets '25 Figs 4-5): per-packet latency of a streamlined
    proxy (TC eBPF) and a naive one (user-space relay), and an incast through the streamlined
    proxy with a trimming bottleneck and a long-haul delay line. Needs root, Linux 6.6+, `make bpf`."""
    from fanin._fs import check_replaceable
    from fanin.bursts.counters import BurstInputError
    from fanin.bursts.units import parse_bytes, parse_rate_bps, parse_time_ps
    from fanin.cli_common import fail, user_errors
    from fanin.testbed.netns import TestbedUnavailable
    from fanin.testbed.proxy import PROXY_JSON, QUICK, ProxySettings, run_proxy

    with user_errors():
        try:
            s = ProxySettings(duration_s=duration, senders=senders, packets_per_sender=packets,
                              rate_bps=parse_rate_bps(rate, "--rate"), buffer_bytes=parse_bytes(buffer, "--buffer"),
                              delay_us=parse_time_ps(delay, "--delay") // 10**6,
                              keep_captures=keep_captures)  # fmt: skip
            if quick:
                s = replace(s, **QUICK)
            check_replaceable(output, PROXY_JSON)
            run_proxy(output, s)
        except (BurstInputError, TestbedUnavailable) as e:
            fail(str(e))
    _print_proxy(output)


def _print_proxy(output: Path) -> None:
    import pandas as pd

    from fanin.cli_common import out

    summary = pd.read_parquet(output / "summary.parquet")
    t = Table(title="per-packet latency (us) beside the paper's", box=None)
    t.add_column("phase proxy measure path")
    for c in ("n", "median", "p99", "paper med.", "paper p99", "Mbit/s"):
        t.add_column(c, justify="right")
    for r in summary.itertuples():
        t.add_row(f"{r.phase} {r.proxy} {r.measure} {r.path}", str(r.samples), f"{r.median_us:.3f}",
                  f"{r.p99_us:.3f}", _num(r.paper_median_us), _num(r.paper_p99_us),
                  _num(r.data_rate_bps / 1e6))  # fmt: skip
    out.print(t)
    agreement = json.loads((output / "incast.json").read_text())
    t = Table(title="incast through the streamlined proxy: counters against the captures", box=None)
    t.add_column("counter")
    t.add_column("value", justify="right")
    for k, v in agreement["counters"].items():
        t.add_row(k, str(v))
    for k, ok in agreement["checks"].items():
        t.add_row(k, "yes" if ok else "NO")
    out.print(t)
    out.print(f"tables, figures and records: {escape(str(output))}")


def _num(v: object) -> str:
    return "" if v is None or v != v else f"{v:.4g}"  # NaN != NaN


def _collector_agreement(output: Path, receiver_file: str, receiver: str) -> None:
    """The eBPF Millisampler's receiver counters against the capture: writes and prints the agreement."""
    from fanin._fs import atomic_write_bytes
    from fanin.cli_common import out
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
    from fanin.cli_common import fail, out, user_errors
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
    from fanin.cli_common import fail, out, user_errors
    from fanin.testbed.leftovers import clean_leftovers
    from fanin.testbed.netns import unavailable_reason

    with user_errors():
        reason = unavailable_reason()
        if reason:
            fail(reason)
        said = clean_leftovers()
    for line in said or ["nothing left by killed testbed runs"]:
        out.print(escape(line), soft_wrap=True)
