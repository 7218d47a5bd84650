"""A packet capture on one interface, written as pcap by itself (no tcpdump needed).

AF_PACKET raw socket with kernel timestamps (SO_TIMESTAMPNS); frames before the first one
that carries MARKER are dropped, so the capture (and its bins) starts at the marker. Stops on
SIGTERM once the socket's queue is drained, then prints how many frames the kernel dropped
before the socket. An optional fourth argument keeps only that many bytes of each frame (the
record still carries the frame's length). Runs inside a testbed namespace; standard library only.
"""

import signal
import socket
import struct
import sys

from _realtime import realtime

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6
PCAP_NS_MAGIC = 0xA1B23C4D
LINKTYPE_ETHERNET = 1


def main() -> None:
    realtime()
    iface, path, marker = sys.argv[1], sys.argv[2], sys.argv[3].encode()
    snap = int(sys.argv[4]) if len(sys.argv) > 4 else 65535
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.settimeout(0.1)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    started = False
    with open(path, "wb") as f:
        f.write(struct.pack("=IHHiIII", PCAP_NS_MAGIC, 2, 4, 0, 0, snap, LINKTYPE_ETHERNET))
        print("ready", flush=True)
        while True:
            try:
                data, anc, _, _ = s.recvmsg(65535, 64)
            except (TimeoutError, InterruptedError):
                if stop:  # asked to stop and nothing left queued: a busy machine may lag behind the traffic
                    break
                continue
            started = started or marker in data
            if not started:
                continue
            sec, nsec = next(
                (
                    struct.unpack("qq", d[:16])
                    for lvl, typ, d in anc
                    if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS
                ),
                (0, 0),
            )
            f.write(struct.pack("=IIII", sec, nsec, min(len(data), snap), len(data)) + data[:snap])
    # frames the kernel could not queue to this socket (reading the counters resets them)
    _, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    print(f"drops {drops}", flush=True)


if __name__ == "__main__":
    main()
