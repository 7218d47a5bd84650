"""The naive proxy's user-space relay (runs inside the proxy's namespace; standard library only).

Reads every frame TC hands it on IFACE (AF_PACKET), keeps per-flow counts of what it relayed
(the state a user-space proxy holds), and sends the frame back the way it came, where TC
forwards it. Until SIGTERM; then prints the counts as one JSON line.
"""

import json
import signal
import socket
import struct
import sys

from _proto import HEADER
from _realtime import realtime

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
UDP_HEADER_AT = 14 + 20 + 8


def main() -> None:
    realtime()
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    s.bind((sys.argv[1], 0))
    s.settimeout(0.1)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    relayed: dict[str, int] = {}
    print("ready", flush=True)
    while True:
        try:
            frame, addr = s.recvfrom(65536)
        except (TimeoutError, InterruptedError):
            if stop:
                break
            continue
        if addr[2] == PACKET_OUTGOING or len(frame) < UDP_HEADER_AT + HEADER.size:
            continue
        kind, _, flow = struct.unpack_from("!BBH", frame, UDP_HEADER_AT)
        key = f"{flow}/{kind}"
        relayed[key] = relayed.get(key, 0) + 1
        s.send(frame)
    print(json.dumps(relayed), flush=True)


if __name__ == "__main__":
    main()
