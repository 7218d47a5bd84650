"""The receiver of the testbed's protocol (runs inside its namespace; standard library only).

ACKs every DATA packet, echoing its flow, seq and attempt; NACKs a header-only one (trimmed
after the proxy). Until SIGTERM; then prints one JSON line: per flow the distinct packets and
payload bytes that arrived, duplicates, and the headers it NACKed.
"""

import json
import signal
import socket

from _proto import ACK, DATA, HEADER, NACK, PORT, SO_NO_CHECK, header
from _realtime import realtime


def main() -> None:
    realtime()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_NO_CHECK, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", PORT))
    s.settimeout(0.1)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    flows: dict[int, dict[str, object]] = {}
    print("ready", flush=True)
    while True:
        try:
            data, addr = s.recvfrom(65536)
        except (TimeoutError, InterruptedError):
            if stop:
                break
            continue
        kind, _, flow, seq, attempt, _ = HEADER.unpack_from(data)
        if kind != DATA:
            continue
        f = flows.setdefault(flow, {"seqs": set(), "bytes": 0, "duplicates": 0, "nacked": 0})
        payload = len(data) - HEADER.size
        if payload == 0:
            f["nacked"] += 1  # type: ignore[operator]
            s.sendto(header(NACK, flow, seq, attempt), addr)
            continue
        s.sendto(header(ACK, flow, seq, attempt), addr)
        if seq in f["seqs"]:  # type: ignore[operator]
            f["duplicates"] += 1  # type: ignore[operator]
            continue
        f["seqs"].add(seq)  # type: ignore[attr-defined]
        f["bytes"] += payload  # type: ignore[operator]
    counts = ("bytes", "duplicates", "nacked")
    report = {
        str(k): {"packets": len(v["seqs"]), **{n: v[n] for n in counts}}  # type: ignore[arg-type]
        for k, v in flows.items()
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
