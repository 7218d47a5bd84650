"""The proxy paper's testbed in network namespaces (HotNets '25 §4, spec "Netns replica").

    sender --veth--+
                   switch (a bridge) --veth--> proxy          (streamlined: TC eBPF; naive: user space)
    receiver ------+                                           latency phase: receiver on the switch

    sender --veth--+               [tbf + TC eBPF trimmer toward the proxy: the bottleneck]
                   switch ---veth [tbf]--- wan (user-space delay line) ---veth--- receiver
    proxy ---------+                                           incast phase: the long-haul path

All three hosts share one /24 on the bridge; the sender and the receiver route each other's
address via the proxy, so every packet between them passes the proxy's TC hook, in both
directions (data, ACKs). The proxy does not forward in its kernel (ip_forward=0): only its TC
program moves packets. Names carry the run's pid, as the incast testbed's do (leftovers.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field

from fanin.testbed.leftovers import run_prefix
from fanin.testbed.netns import Namespaces, _run

SENDER_ADDR, PROXY_ADDR, RECEIVER_ADDR = "10.199.50.1", "10.199.50.2", "10.199.50.3"
PROXY_PORT = "prx"  # the switch's port toward the proxy: the bottleneck
RELAY = ("rl0", "rl1")  # the proxy's veth pair to its user-space relay (TC side, relay side)
TBF_LIMIT_BYTES = 4_000_000  # far above any trimming buffer: the tbf itself never drops


@dataclass
class ProxyNetwork(Namespaces):
    """The hosts, the switch and, with ``long_haul``, the delay line's namespace, the bottleneck
    tbf at ``rate_bps`` toward the proxy and a tbf at the same rate on the long-haul path."""

    long_haul: bool
    rate_bps: int = 100_000_000
    prefix: str = field(default_factory=lambda: run_prefix(os.getpid()))

    @property
    def switch(self) -> str:
        return f"{self.prefix}-sw"

    @property
    def sender(self) -> str:
        return f"{self.prefix}-snd"

    @property
    def proxy(self) -> str:
        return f"{self.prefix}-prx"

    @property
    def receiver(self) -> str:
        return f"{self.prefix}-rcv"

    @property
    def wan(self) -> str:
        return f"{self.prefix}-wan"

    def namespaces(self) -> list[str]:
        return [self.switch, self.sender, self.proxy, self.receiver, self.wan]

    def _veth(self, ns_a: str, name_a: str, ns_b: str, name_b: str) -> None:
        a, b = self.links()
        _run(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
        for tmp, ns, name in ((a, ns_a, name_a), (b, ns_b, name_b)):
            _run(["ip", "link", "set", tmp, "netns", ns])
            self._ns(ns, "ip", "link", "set", tmp, "name", name)
            self._ns(ns, "ip", "link", "set", name, "gso_max_segs", "1", "up")

    def _host(self, ns: str, addr: str) -> None:
        self._ns(ns, "ip", "addr", "add", f"{addr}/24", "dev", "eth0")

    def _port(self, name: str) -> None:
        self._ns(self.switch, "ip", "link", "set", name, "master", "br0")

    def _tbf(self, port: str) -> None:
        rate = f"{self.rate_bps}bit"
        self._ns(self.switch, "tc", "qdisc", "add", "dev", port, "root", "tbf", "rate", rate, "burst", "3028",
                 "limit", str(TBF_LIMIT_BYTES))  # fmt: skip

    def up(self) -> ProxyNetwork:
        try:
            for ns in self.namespaces()[: 5 if self.long_haul else 4]:
                _run(["ip", "netns", "add", ns])
                self._ns(ns, "ip", "link", "set", "lo", "up")
                self._ns(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
                self._ns(ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
            self._ns(self.switch, "ip", "link", "add", "br0", "type", "bridge")
            self._ns(self.switch, "ip", "link", "set", "br0", "up")
            self._veth(self.sender, "eth0", self.switch, "snd")
            self._veth(self.proxy, "eth0", self.switch, PROXY_PORT)
            if self.long_haul:
                self._veth(self.wan, "lan", self.switch, "wan")
                self._veth(self.receiver, "eth0", self.wan, "rcv")
                self._port("wan")
                self._tbf(PROXY_PORT)
                self._tbf("wan")
            else:
                self._veth(self.receiver, "eth0", self.switch, "rcv")
                self._port("rcv")
            self._port("snd")
            self._port(PROXY_PORT)
            for ns, addr in ((self.sender, SENDER_ADDR), (self.proxy, PROXY_ADDR), (self.receiver, RECEIVER_ADDR)):
                self._host(ns, addr)
            self._ns(self.sender, "ip", "route", "add", f"{RECEIVER_ADDR}/32", "via", PROXY_ADDR)
            self._ns(self.receiver, "ip", "route", "add", f"{SENDER_ADDR}/32", "via", PROXY_ADDR)
            self._ns(self.proxy, "sysctl", "-qw", "net.ipv4.ip_forward=0")  # only the TC program forwards
            self._ns(self.proxy, "ip", "link", "add", RELAY[0], "type", "veth", "peer", "name", RELAY[1])
            for name in RELAY:
                self._ns(self.proxy, "ip", "link", "set", name, "up")
        except BaseException:
            self.down()
            raise
        return self

    def tbf_stats(self, port: str = PROXY_PORT) -> dict[str, int]:
        """The tbf's sent and dropped packets on a switch port (the trimmer's promise: no drops)."""
        r = subprocess.run([*self.exec_args(self.switch), "tc", "-j", "-s", "qdisc", "show", "dev", port],
                           capture_output=True, text=True, timeout=30)  # fmt: skip
        q = next((q for q in json.loads(r.stdout or "[]") if q.get("kind") == "tbf"), {})
        return {"sent_packets": int(q.get("packets", 0)), "dropped": int(q.get("drops", 0))}
