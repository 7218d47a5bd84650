"""A small incast network of Linux network namespaces on this machine.

    sender s_i --veth--+
                       router --veth [bottleneck: htb or tbf]--> receiver
    sender s_j --veth--+

Every address lives inside the namespaces made here (10.199.0.0/16), so nothing on the
host's own network changes. The namespaces (and with them every veth) are deleted on exit,
also when the run fails; their names carry the run's pid (leftovers.py says how what a
killed run left is found).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from fanin.testbed.leftovers import run_prefix

RECEIVER_ADDR = "10.199.0.2"
ROUTER_RECEIVER_SIDE = "10.199.0.1"
QUEUES = ("fair", "fifo")


class TestbedUnavailable(RuntimeError):
    """The machine cannot host the testbed (not Linux, not root, no iproute2, no namespaces)."""


def sender_addr(i: int) -> str:
    return f"10.199.{i + 1}.2"


def unavailable_reason() -> str | None:
    """Why the testbed cannot run here, in one line; None if it can."""
    if not sys.platform.startswith("linux"):
        return "the testbed needs Linux network namespaces"
    if os.geteuid() != 0:
        return "the testbed needs root (network namespaces, veth links, tc)"
    missing = [tool for tool in ("ip", "tc") if shutil.which(tool) is None]
    if missing:
        return f"the testbed needs iproute2 ({' and '.join(missing)} not found; apt-get install iproute2)"
    probe = f"{run_prefix(os.getpid())}-probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot create a network namespace here: {made.stderr.strip() or 'ip netns add failed'}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _run(args: Sequence[str]) -> None:
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stderr.strip()}")


class Namespaces:
    """What every testbed network shares: its names carry ``prefix`` (the run's), a veth pair is
    made under two temporary names in the host's namespace, and it goes away whole."""

    prefix: str

    def namespaces(self) -> list[str]:
        raise NotImplementedError

    def up(self) -> Namespaces:
        raise NotImplementedError

    def links(self) -> list[str]:
        """A veth pair's names while it is in the host's namespace (at most 15 characters)."""
        return [f"{self.prefix}a", f"{self.prefix}b"]

    def exec_args(self, ns: str) -> list[str]:
        return ["ip", "netns", "exec", ns]

    def _ns(self, ns: str, *args: str) -> None:
        _run([*self.exec_args(ns), *args])

    def down(self) -> None:
        for ns in self.namespaces():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)

    def __enter__(self) -> Namespaces:
        return self.up()

    def __exit__(self, *exc: object) -> None:
        self.down()


@dataclass
class Network(Namespaces):
    """``senders`` namespaces, a router and a receiver; ``rate_bps`` toward the receiver."""

    senders: int
    rate_bps: int
    queue: str = "fair"
    buffer_bytes: int | None = None  # the bottleneck's queue; None: large enough never to drop
    prefix: str = field(default_factory=lambda: run_prefix(os.getpid()))

    @property
    def receiver(self) -> str:
        return f"{self.prefix}-r"

    @property
    def router(self) -> str:
        return f"{self.prefix}-x"

    def sender(self, i: int) -> str:
        return f"{self.prefix}-s{i}"

    @property
    def receiver_iface(self) -> str:
        return "eth0"

    def namespaces(self) -> list[str]:
        return [self.receiver, self.router, *(self.sender(i) for i in range(self.senders))]

    def _link(self, ns: str, ns_addr: str, router_iface: str, router_addr: str) -> None:
        """A veth pair between ``ns`` (eth0) and the router, a /24 between them."""
        a, b = self.links()
        _run(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
        _run(["ip", "link", "set", a, "netns", ns])
        _run(["ip", "link", "set", b, "netns", self.router])
        self._ns(ns, "ip", "link", "set", a, "name", "eth0")
        self._ns(self.router, "ip", "link", "set", b, "name", router_iface)
        self._ns(ns, "ip", "addr", "add", f"{ns_addr}/24", "dev", "eth0")
        self._ns(self.router, "ip", "addr", "add", f"{router_addr}/24", "dev", router_iface)
        # one MSS per packet: no TSO/GSO super-packets, so the wire and the capture see real frames
        self._ns(ns, "ip", "link", "set", "eth0", "gso_max_segs", "1", "up")
        self._ns(self.router, "ip", "link", "set", router_iface, "gso_max_segs", "1", "up")
        self._ns(ns, "ip", "route", "add", "default", "via", router_addr)

    def up(self) -> Network:
        if self.queue not in QUEUES:
            raise ValueError(f"--queue: {self.queue!r} (allowed: {', '.join(QUEUES)})")
        try:
            for ns in self.namespaces():
                _run(["ip", "netns", "add", ns])
                self._ns(ns, "ip", "link", "set", "lo", "up")
                # no IPv6 chatter (router solicitations, MLD) in the capture
                self._ns(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
                self._ns(ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
            self._ns(self.router, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            self._link(self.receiver, RECEIVER_ADDR, "tor", ROUTER_RECEIVER_SIDE)
            for i in range(self.senders):
                self._link(self.sender(i), sender_addr(i), f"up{i}", f"10.199.{i + 1}.1")
            self._bottleneck()
        except BaseException:
            self.down()
            raise
        return self

    def _bottleneck(self) -> None:
        """The rate-limited ToR downlink at the router's port toward the receiver.

        ``fifo``: one tbf queue, packets leave in arrival order. ``fair``: htb with one class
        per sender (selected by source address, u32 filter) under one class at the full rate;
        classes share it round-robin a frame at a time, as a per-flow fair switch would.
        ``buffer_bytes`` is the tbf's limit, or split evenly over the per-sender classes.
        (This kernel has no fq/sfq/drr; htb, tbf and u32 are the portable pieces.)
        """

        def tc(command: str) -> None:
            _run([*self.exec_args(self.router), "tc", *command.split()])

        rate = f"{self.rate_bps}bit"
        if self.queue == "fifo":
            tc(f"qdisc add dev tor root tbf rate {rate} burst 3028 limit {self.buffer_bytes or 4_000_000}")
            return
        tc("qdisc add dev tor root handle 1: htb default 1")
        # buckets of two frames, a quantum of one: classes take turns frame by frame
        shape = "burst 3028 cburst 3028 quantum 1514"
        tc(f"class add dev tor parent 1: classid 1:1 htb rate {rate} ceil {rate} {shape}")
        share = f"{max(self.rate_bps // self.senders, 8000)}bit"
        for i in range(self.senders):
            cls = f"1:{i + 10:x}"
            tc(f"class add dev tor parent 1:1 classid {cls} htb rate {share} ceil {rate} {shape}")
            per_class = f"bfifo limit {self.buffer_bytes // self.senders}" if self.buffer_bytes else "pfifo limit 10000"
            tc(f"qdisc add dev tor parent {cls} {per_class}")
            tc(f"filter add dev tor parent 1: protocol ip prio 1 u32 match ip src {sender_addr(i)}/32 flowid {cls}")
