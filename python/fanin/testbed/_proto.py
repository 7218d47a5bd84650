"""The testbed's minimal reliable protocol over UDP (bpf/proto.h is its twin; standard library only).

Header (16 B, network order) after the UDP header: kind (1 DATA, 2 ACK, 3 NACK), flags (1 =
trimmed by the switch), flow, seq (packet number in the flow), attempt (0 for the first
transmission), count (packets in the flow). The receiver listens on PORT, ACKs every DATA packet
(echoing flow, seq and attempt) and NACKs a header-only one; a NACK from the proxy is the trimmed
header itself, turned around.
"""

import struct

PORT = 7000
DATA, ACK, NACK = 1, 2, 3
TRIMMED = 1
HEADER = struct.Struct("!BBHIII")
SO_NO_CHECK = 11  # no UDP checksum: a trimmed packet's would cover payload that is gone


def header(kind: int, flow: int, seq: int, attempt: int, count: int = 0, flags: int = 0) -> bytes:
    return HEADER.pack(kind, flags, flow, seq, attempt, count)
