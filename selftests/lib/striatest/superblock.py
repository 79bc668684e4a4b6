"""stria superblocks for the host-side tests of striactl: a real one from
the fuzz corpus, changed field by field, its checksum made right again
(Documentation/stria/ondisk-format.rst: 4 KiB, CRC-32C in the last 4
bytes over the rest)."""

from __future__ import annotations

from pathlib import Path

TOP = Path(__file__).resolve().parents[3]
CORPUS = TOP / "selftests" / "fuzz" / "corpus" / "ondisk"
SB_SIZE = 4096


def crc32c(data: bytes) -> int:
    """CRC-32C as the superblock's checksum (init ~0, final xor ~0)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def from_corpus(seed: str | Path) -> bytearray:
    """The superblock of a corpus file (after its flag byte): a name in
    the corpus, or a path."""
    path = seed if isinstance(seed, Path) else CORPUS / seed
    return bytearray(path.read_bytes()[1:1 + SB_SIZE])


def write_member(path: Path, sb: bytearray) -> Path:
    """@sb with its checksum made right, then 1 MiB of zeroes, at @path:
    a member image striactl examines like a disk."""
    sb[SB_SIZE - 4:] = crc32c(bytes(sb[:SB_SIZE - 4])).to_bytes(4, "little")
    path.write_bytes(bytes(sb) + bytes(1 << 20))
    return path
