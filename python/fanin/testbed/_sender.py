"""One incast sender (runs inside its namespace; standard library only).

Listens on PORT; for every 4-byte request on the accepted connection it writes BYTES bytes
in one call, as the IMC '24 artifact's senders answer the aggregator.
"""

import socket
import sys

from _realtime import realtime


def recv_exact(conn: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return b""
        buf += chunk
    return buf


def main() -> None:
    realtime()
    port, nbytes = int(sys.argv[1]), int(sys.argv[2])
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    print("listening", flush=True)
    conn, _ = srv.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    payload = bytes(nbytes)
    while recv_exact(conn, 4):
        conn.sendall(payload)
    conn.close()


if __name__ == "__main__":
    main()
