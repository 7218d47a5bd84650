"""The incast receiver (runs inside its namespace; standard library only).

Opens one persistent connection per sender, waits for "go" on stdin, sends a UDP marker
(the capture starts at it, so bins start there), then every PERIOD sends a 4-byte request
to every sender at once and reads until each has delivered its bytes. Prints one JSON line
with the request and completion time (CLOCK_REALTIME ns, the capture's clock) of each burst.
"""

import json
import selectors
import socket
import sys
import time

from _realtime import realtime

MARKER = b"fanin-testbed-marker"


def main() -> None:
    realtime()
    cfg = json.loads(sys.argv[1])
    socks = []
    for addr in cfg["senders"]:
        s = socket.create_connection((addr, cfg["port"]), timeout=10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        socks.append(s)
    print("connected", flush=True)
    sys.stdin.readline()
    t0 = time.time_ns()
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(MARKER, (cfg["marker_addr"], 9))
    bursts = []
    for k in range(cfg["bursts"]):
        target = t0 + (k + 1) * cfg["period_ns"]
        time.sleep(max(0.0, (target - time.time_ns()) / 1e9))
        request = time.time_ns()
        for s in socks:
            s.send(b"burs")
        got = [0] * len(socks)
        sel = selectors.DefaultSelector()
        for i, s in enumerate(socks):
            sel.register(s, selectors.EVENT_READ, i)
        while min(got) < cfg["bytes"]:
            for key, _ in sel.select(timeout=10):
                got[key.data] += len(key.fileobj.recv(1 << 20))
        sel.close()
        bursts.append({"request_ns": request, "done_ns": time.time_ns(), "bytes": got})
    for s in socks:
        s.close()
    print(json.dumps({"marker_ns": t0, "bursts": bursts}), flush=True)


if __name__ == "__main__":
    main()
