"""The long-haul path's delay line (runs inside its namespace; standard library only).

Bridges two interfaces at layer 2: every frame that arrives on one (AF_PACKET, its own
transmissions ignored) leaves the other ``delay_us`` later, in arrival order. The kernel has
no netem here, so the delay is kept in user space; frames wait in memory, never dropped.
"""

import heapq
import select
import signal
import socket
import sys
import time

from _realtime import realtime

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33


def main() -> None:
    realtime()
    a, b, delay_ns = sys.argv[1], sys.argv[2], int(float(sys.argv[3]) * 1000)
    socks = []
    for iface in (a, b):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
        s.bind((iface, 0))
        s.setblocking(False)
        socks.append(s)
    other = {socks[0].fileno(): socks[1], socks[1].fileno(): socks[0]}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    due: list[tuple[int, int, bytes, socket.socket]] = []  # (time, order, frame, out)
    order = 0
    print("ready", flush=True)
    while not stop:
        wait = max(0.0, (due[0][0] - time.monotonic_ns()) / 1e9) if due else 0.1
        try:
            readable, _, _ = select.select(socks, [], [], wait)
        except InterruptedError:
            continue
        now = time.monotonic_ns()
        for s in readable:
            while True:
                try:
                    frame, addr = s.recvfrom(65536)
                except BlockingIOError:
                    break
                if addr[2] != PACKET_OUTGOING:
                    heapq.heappush(due, (now + delay_ns, order, frame, other[s.fileno()]))
                    order += 1
        now = time.monotonic_ns()
        while due and due[0][0] <= now:
            _, _, frame, out = heapq.heappop(due)
            out.send(frame)


if __name__ == "__main__":
    main()
