"""Capture files (pcap, pcapng) read record by record, every length checked before it is read.

dpkt's readers trust a record's length field: a file cut inside a record gives a short last
frame without a word, and a corrupt length makes them read (and allocate) whatever it claims.
Here dpkt's classes still parse the headers and the timestamps are computed as dpkt's readers
compute them (so valid captures give the same packets), but a record that runs past the end of
the file or claims more than a record can hold ends the reading, and ``cut`` says where and why.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import BinaryIO

import dpkt

from fanin.bursts.counters import BurstInputError

MAX_RECORD_BYTES = 262_144
"""libpcap's largest snap length: the bound on a pcap record when the file's own is 0 or larger."""

MAX_BLOCK_BYTES = 2 * MAX_RECORD_BYTES
"""A pcapng block that runs past the end of the file is called corrupt rather than cut when it
claims more than this: a packet of the largest snap length, and as much again for headers and options."""

PCAP_FILE_HEADER_BYTES = 24
PCAPNG_SHB_TYPE = b"\x0a\x0d\x0d\x0a"
_PCAPNG_ORDER = {b"\x1a\x2b\x3c\x4d": ">", b"\x4d\x3c\x2b\x1a": "<"}
_NANO_MAGICS = (dpkt.pcap.TCPDUMP_MAGIC_NANO, dpkt.pcap.PMUDPCT_MAGIC_NANO)
# dpkt's parsers for (big-endian, little-endian) files
_SECTION_HEADER = (dpkt.pcapng.SectionHeaderBlock, dpkt.pcapng.SectionHeaderBlockLE)
_INTERFACE = (dpkt.pcapng.InterfaceDescriptionBlock, dpkt.pcapng.InterfaceDescriptionBlockLE)
_PACKET_BLOCKS = {
    dpkt.pcapng.PCAPNG_BT_EPB: (dpkt.pcapng.EnhancedPacketBlock, dpkt.pcapng.EnhancedPacketBlockLE),
    dpkt.pcapng.PCAPNG_BT_PB: (dpkt.pcapng.PacketBlock, dpkt.pcapng.PacketBlockLE),
}

Record = tuple[float | Decimal, bytes]


class _Cut(Exception):
    """Reading stops at the record that starts at ``offset``."""

    def __init__(self, offset: int, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.offset, self.kind, self.detail = offset, kind, detail


class CaptureReader:
    """The records of one open capture: iterate for (timestamp, frame bytes).

    ``linktype`` is known once the first record is out. After the loop ``cut`` is None if the
    whole file was read, else one line saying where reading stopped and why; a capture whose
    first record is already unreadable raises :class:`BurstInputError` (nothing to analyse).
    """

    def __init__(self, f: BinaryIO, path: Path) -> None:
        self._f, self._path = f, path
        self._size = os.fstat(f.fileno()).st_size
        self.linktype = -1
        self.records = 0
        self.cut: str | None = None
        head = f.read(4)
        f.seek(0)
        if not head:
            raise BurstInputError(f"{path}: empty file (expected a pcap or pcapng capture)")
        self._pcapng = head == PCAPNG_SHB_TYPE
        if not self._pcapng and (len(head) < 4 or struct.unpack(">I", head)[0] not in dpkt.pcap.MAGIC_TO_PKT_HDR):
            raise BurstInputError(
                f"{path}: not a pcap or pcapng capture (magic number {head.hex()}; "
                f"pcap starts with a1b2c3d4 or a1b23c4d in either byte order, pcapng with 0a0d0d0a)"
            )

    def __iter__(self) -> Iterator[Record]:
        try:
            for record in self._pcapng_records() if self._pcapng else self._pcap_records():
                yield record
                self.records += 1
        except _Cut as cut:
            where = f"{cut.kind} at byte {cut.offset:,} ({cut.detail})"
            if self.records == 0:
                raise BurstInputError(f"{self._path}: {where}, before any whole record") from None
            self.cut = f"{self._path}: {cut.kind} after {self.records:,} records at byte {cut.offset:,} "
            self.cut += f"({cut.detail}); analysed what was read"

    def _left(self) -> int:
        return self._size - self._f.tell()

    def _pcap_records(self) -> Iterator[Record]:
        head = self._f.read(PCAP_FILE_HEADER_BYTES)
        if len(head) < PCAP_FILE_HEADER_BYTES:
            raise BurstInputError(f"{self._path}: truncated in its {PCAP_FILE_HEADER_BYTES}-byte pcap file header")
        header = dpkt.pcap.Reader(io.BytesIO(head))  # the file header, in either byte order
        self.linktype = header.datalink()
        magic = struct.unpack(">I", head[:4])[0]
        record_header = dpkt.pcap.MAGIC_TO_PKT_HDR[magic]
        divisor: Decimal | float = Decimal("1E9") if magic in _NANO_MAGICS else 1e6  # as dpkt's Reader
        # libpcap reads records longer than the file's snap length (dpkt's writer, for one,
        # declares 1500 whatever it writes), so only libpcap's own bound makes one corrupt.
        snaplen = MAX_RECORD_BYTES
        n = record_header.__hdr_len__
        while (left := self._left()) > 0:
            start = self._f.tell()
            if left < n:
                raise _Cut(start, "truncated", f"a {n}-byte record header with {left} bytes left")
            hdr = record_header(self._f.read(n))
            if hdr.caplen > snaplen:
                raise _Cut(start, "corrupt", f"a record claims {hdr.caplen:,} bytes, the snap length is {snaplen:,}")
            if hdr.caplen > left - n:
                raise _Cut(start, "truncated", f"a record of {hdr.caplen:,} bytes with {left - n:,} left")
            yield hdr.tv_sec + (hdr.tv_usec / divisor), self._f.read(hdr.caplen)

    def _pcapng_records(self) -> Iterator[Record]:
        order, shb_bytes = self._pcapng_section()
        le = order == "<"
        shb = _SECTION_HEADER[le](shb_bytes)
        if shb.v_major != dpkt.pcapng.PCAPNG_VERSION_MAJOR:
            raise BurstInputError(f"{self._path}: pcapng version {shb.v_major}.{shb.v_minor} (1.x is supported)")
        divisor, offset = 1e6, 0
        # Like dpkt's Reader: the first interface sets link type and clock; packets before it and
        # blocks of other kinds are passed over.
        while (block := self._pcapng_block(order)) is not None:
            start, kind, raw = block
            try:
                if kind == dpkt.pcapng.PCAPNG_BT_IDB and self.linktype < 0:
                    idb = _INTERFACE[le](raw)
                    divisor, offset = _pcapng_clock(idb, le)
                    self.linktype = idb.linktype
                    continue
                if kind not in _PACKET_BLOCKS or self.linktype < 0:
                    continue
                pkt = _PACKET_BLOCKS[kind][le](raw)
            except (dpkt.dpkt.UnpackError, struct.error, ValueError) as e:
                why = f"a block of type {kind} does not parse: {e or type(e).__name__}"
                raise _Cut(start, "corrupt", why) from None
            yield offset + (((pkt.ts_high << 32) | pkt.ts_low) / divisor), pkt.pkt_data
        if self.linktype < 0:
            raise BurstInputError(f"{self._path}: no interface description block (a pcapng capture needs one)")

    def _pcapng_section(self) -> tuple[str, bytes]:
        """The byte order and the bytes of the section header block, the first in the file."""
        head = self._f.read(12)
        order = _PCAPNG_ORDER.get(head[8:12])
        if order is None:
            raise BurstInputError(f"{self._path}: not a pcapng capture (no byte-order magic in its section header)")
        claimed = struct.unpack(order + "I", head[4:8])[0]
        if not dpkt.pcapng.SectionHeaderBlock.__hdr_len__ <= claimed <= min(self._size, MAX_BLOCK_BYTES):
            why = f"section header claims {claimed:,} bytes of a {self._size:,}-byte file"
            raise BurstInputError(f"{self._path}: {why}")
        return order, head + self._f.read(claimed - 12)

    def _pcapng_block(self, order: str) -> tuple[int, int, bytes] | None:
        """(start, type, bytes) of the next block, None at the end of the file."""
        left, start = self._left(), self._f.tell()
        if left == 0:
            return None
        if left < 8:
            raise _Cut(start, "truncated", f"an 8-byte block header with {left} bytes left")
        head = self._f.read(8)
        kind, claimed = struct.unpack(order + "II", head)
        if claimed < 12:  # a block holds at least its header and its trailing length
            raise _Cut(start, "corrupt", f"a block claims {claimed} bytes, at least 12 needed")
        if claimed > left:
            kind_of_cut = "corrupt" if claimed > MAX_BLOCK_BYTES else "truncated"
            raise _Cut(start, kind_of_cut, f"a block of {claimed:,} bytes with {left:,} left")
        return start, kind, head + self._f.read(claimed - 8)


def _pcapng_clock(idb: dpkt.pcapng.InterfaceDescriptionBlock, le: bool) -> tuple[float, int]:
    """Ticks per second and offset in seconds of an interface's timestamps, as dpkt's Reader reads them."""
    divisor, offset = 1e6, 0
    for opt in idb.opts:
        if opt.code == dpkt.pcapng.PCAPNG_OPT_IF_TSRESOL:
            resol = struct.unpack("b", opt.data)[0]
            divisor = float((2 if resol & 0x80 else 10) ** (resol & 0x7F))
        elif opt.code == dpkt.pcapng.PCAPNG_OPT_IF_TSOFFSET:
            offset = struct.unpack("<q" if le else ">q", opt.data)[0]
    return divisor, offset
