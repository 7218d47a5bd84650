"""One sender of the testbed's protocol (runs inside its namespace; standard library only).

Sends ``packets`` DATA packets of ``payload`` bytes to the receiver (or, with ``duration_s``,
as many as it can for that long), at most ``cwnd`` unacknowledged. An ACK frees its packet and
grows cwnd by 1/cwnd up to ``window``; a NACK (from the proxy, or the receiver) puts the packet
first in line for retransmission and shrinks cwnd by one packet (floor 1), the spec's
"NACK: cwnd -= 1 MSS"; a packet neither ACKed nor NACKed within ``rto_ms`` is sent again (a
timeout). Waits for "go" on stdin; prints one JSON line of counters when every packet is ACKed.
"""

import json
import socket
import sys
import time
from collections import deque

from _proto import ACK, DATA, HEADER, NACK, PORT, SO_NO_CHECK, header
from _realtime import realtime


def main() -> None:
    realtime()
    cfg = json.loads(sys.argv[1])
    flow, total, payload = cfg["flow"], cfg.get("packets", 0), bytes(cfg["payload"])
    duration_ns = int(cfg.get("duration_s", 0) * 1e9)
    rto_ns, window = int(cfg["rto_ms"] * 1e6), float(cfg["window"])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_NO_CHECK, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect((cfg["dst"], PORT))
    print("ready", flush=True)
    sys.stdin.readline()
    c = {"flow": flow, "sent": 0, "retransmitted": 0, "nacks": 0, "acks": 0, "timeouts": 0, "stale": 0}
    inflight: dict[int, tuple[int, int]] = {}  # seq -> (sent at, attempt)
    attempts: dict[int, int] = {}
    again: deque[int] = deque()
    cwnd, next_seq = window, 0
    start = time.monotonic_ns()
    c["start_ns"] = time.time_ns()

    def send(seq: int) -> None:
        attempt = attempts.get(seq, -1) + 1
        attempts[seq] = attempt
        s.send(header(DATA, flow, seq, attempt, total) + payload)
        inflight[seq] = (time.monotonic_ns(), attempt)
        c["sent"] += 1
        c["retransmitted"] += attempt > 0

    while True:
        now = time.monotonic_ns()
        more = (now - start < duration_ns) if duration_ns else next_seq < total
        if not more and not inflight and not again:
            break
        while len(inflight) < cwnd and (again or more):
            if again:
                send(again.popleft())
            else:
                send(next_seq)
                next_seq += 1
                more = (time.monotonic_ns() - start < duration_ns) if duration_ns else next_seq < total
        oldest = min((t for t, _ in inflight.values()), default=now)
        s.settimeout(max(0.0, (oldest + rto_ns - time.monotonic_ns()) / 1e9) or 0.0005)
        try:
            kind, _, _, seq, attempt, _ = HEADER.unpack_from(s.recv(2048))
        except TimeoutError:
            now = time.monotonic_ns()
            for seq, (t, _) in list(inflight.items()):
                if now - t >= rto_ns:
                    del inflight[seq]
                    again.append(seq)
                    c["timeouts"] += 1
            continue
        if seq not in inflight or inflight[seq][1] != attempt:
            c["stale"] += 1  # for an earlier attempt, or already settled
        elif kind == ACK:
            del inflight[seq]
            c["acks"] += 1
            cwnd = min(window, cwnd + 1 / cwnd)
        elif kind == NACK:
            del inflight[seq]
            again.append(seq)
            c["nacks"] += 1
            cwnd = max(1.0, cwnd - 1)
    c["end_ns"] = time.time_ns()
    c["packets"] = next_seq
    print(json.dumps(c), flush=True)


if __name__ == "__main__":
    main()
