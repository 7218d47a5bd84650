"""Real Linux hosts on this machine: network namespaces, veth links, a rate-limited bottleneck.

>>> from fanin.testbed import run_incast, unavailable_reason
>>> unavailable_reason() or run_incast("out/testbed", senders=4)   # doctest: +SKIP
"""

from fanin.testbed.incast import IncastRun, compare, run_incast
from fanin.testbed.netns import Network, TestbedUnavailable, unavailable_reason

__all__ = ["IncastRun", "Network", "TestbedUnavailable", "compare", "run_incast", "unavailable_reason"]
