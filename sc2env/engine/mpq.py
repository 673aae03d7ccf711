"""MPQ archives, StarCraft II's container for replays and maps: write one, and read the files of one."""

from __future__ import annotations

import bz2
import hashlib
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from sc2env.gamedata.replay_format import MPQ_ARCHIVE_MAGIC as ARCHIVE_MAGIC
from sc2env.gamedata.replay_format import MPQ_USER_DATA_MAGIC as USER_DATA_MAGIC

LISTFILE = "(listfile)"
"""The file naming the archive's other files, one a line: the hash table keeps only hashes of names."""

# Block flags (the block table's fourth field).
EXISTS = 0x80000000
SINGLE_UNIT = 0x01000000  # stored whole, not in sectors (as StarCraft II stores a replay's files)
SECTOR_CRC = 0x04000000  # a sectored file's offset table has one more entry: the sectors' checksums
DELETE_MARKER = 0x02000000
PATCH_FILE = 0x00100000
ENCRYPTED = 0x00010000
COMPRESSED = 0x00000200  # each sector (or the single unit) starts with a byte naming its compression
IMPLODED = 0x00000100  # PKWARE DCL, the old compression of Diablo and StarCraft
_ZLIB, _BZIP2 = 0x02, 0x10  # the compression bytes that StarCraft II writes and mpyq reads

_FORMAT = 3  # the header StarCraft II writes: 208 bytes, table sizes and MD5s (StormLib's "version 4")
_SECTOR_SIZE_SHIFT = 5  # sectors of 512 << 5 bytes, as StarCraft II's own archives have
_USER_DATA_HEADER = struct.Struct("<4sIII")  # magic, space reserved, offset of the archive, header's length
_HEADER = struct.Struct("<4sIIHHIIII")  # magic, header size, archive size, format, sector shift, tables
_HEADER_HIGH = struct.Struct("<QHH")  # format >= 1: hi-block table, high 16 bits of the tables' offsets
_HEADER_SIZES = struct.Struct("<QQQ")  # format >= 2: 64-bit archive size, BET and HET table offsets
_HEADER_MD5S = struct.Struct("<QQQQQI16s16s16s16s16s")  # format 3: table sizes, raw chunk size, MD5s
_HEADER_SIZE = _HEADER.size + _HEADER_HIGH.size + _HEADER_SIZES.size + _HEADER_MD5S.size + 16
_HASH_ENTRY = struct.Struct("<IIHHI")  # hash A, hash B, locale, platform, block index
_BLOCK_ENTRY = struct.Struct("<IIII")  # offset, stored size, size, flags
_EMPTY_SLOT, _DELETED_SLOT = 0xFFFFFFFF, 0xFFFFFFFE  # hash table entries' block index when not a file
_MAX_TABLE_ENTRIES = 1 << 16  # decryption is a Python loop: a forged table of millions would take minutes

# The hash types of MPQ's name hash: where a name's search starts, its two check hashes, and table keys.
_OFFSET, _NAME_A, _NAME_B, _KEY = 0, 1, 2, 3


def _crypt_table() -> tuple[int, ...]:
    """MPQ's 1280 constants for its name hash and its cipher (five rows of 256)."""
    table = [0] * 0x500
    seed = 0x00100001
    for column in range(0x100):
        for row in range(5):
            seed = (seed * 125 + 3) % 0x2AAAAB
            high = (seed & 0xFFFF) << 16
            seed = (seed * 125 + 3) % 0x2AAAAB
            table[row * 0x100 + column] = high | (seed & 0xFFFF)
    return tuple(table)


_CRYPT = _crypt_table()


class MpqError(ValueError):
    """Bytes that are no readable MPQ archive; the message says what is wrong with them."""


def name_hash(name: str, kind: int) -> int:
    """MPQ's hash of a file name (ASCII case-insensitive, as the format is) of one of the four kinds."""
    seed1, seed2 = 0x7FED7FED, 0xEEEEEEEE
    for char in name.encode("utf-8").upper():
        seed1 = (_CRYPT[(kind << 8) + char] ^ (seed1 + seed2)) & 0xFFFFFFFF
        seed2 = (char + seed1 + seed2 + (seed2 << 5) + 3) & 0xFFFFFFFF
    return seed1


def _cipher(data: bytes, key: int, decrypt: bool) -> bytes:
    """MPQ's stream cipher over 32-bit words; its state runs on the plain words, so the two ways differ."""
    words = struct.unpack(f"<{len(data) // 4}I", data[: len(data) // 4 * 4])
    seed1, seed2 = key, 0xEEEEEEEE
    out = []
    for word in words:
        seed2 = (seed2 + _CRYPT[0x400 + (seed1 & 0xFF)]) & 0xFFFFFFFF
        changed = word ^ ((seed1 + seed2) & 0xFFFFFFFF)
        plain = changed if decrypt else word
        seed1 = (((~seed1 << 0x15) + 0x11111111) | (seed1 >> 0x0B)) & 0xFFFFFFFF
        seed2 = (plain + seed2 + (seed2 << 5) + 3) & 0xFFFFFFFF
        out.append(changed)
    return struct.pack(f"<{len(out)}I", *out)


def _table_key(table: str) -> int:
    return name_hash(f"({table} table)", _KEY)


# ---- writing -------------------------------------------------------------------------------------------------
def write_archive(files: Mapping[str, bytes], user_data: bytes | None = None) -> bytes:
    """An MPQ archive of `files` (name -> contents) and a (listfile) naming them, as StarCraft II writes one.

    Format 3 with its MD5s, each file stored whole and compressed with zlib when that makes it smaller. With
    `user_data` (a replay's header), the archive follows a user data header holding it, at byte 1024 as in
    StarCraft II's replays.
    """
    if LISTFILE in files:
        raise ValueError(f"{LISTFILE} is written by write_archive itself: leave it out of `files`")
    names = [*files, LISTFILE]
    contents = [*files.values(), "".join(f"{name}\r\n" for name in files).encode("utf-8")]
    body = bytearray(_HEADER_SIZE)  # the header goes here once the tables are placed
    blocks = []
    for content in contents:
        packed = bytes([_ZLIB]) + zlib.compress(content, 9)
        stored, flags = (packed, COMPRESSED) if len(packed) < len(content) else (content, 0)
        blocks.append(_BLOCK_ENTRY.pack(len(body), len(stored), len(content), EXISTS | SINGLE_UNIT | flags))
        body += stored
    slots = 16
    while slots < 2 * len(names):  # at most half full: a lookup probes a slot or two
        slots *= 2
    table: list[bytes | None] = [None] * slots
    for index, name in enumerate(names):
        slot = name_hash(name, _OFFSET) & (slots - 1)
        while table[slot] is not None:
            slot = (slot + 1) & (slots - 1)
        table[slot] = _HASH_ENTRY.pack(name_hash(name, _NAME_A), name_hash(name, _NAME_B), 0, 0, index)
    hash_table = _cipher(b"".join(e or b"\xff" * _HASH_ENTRY.size for e in table), _table_key("hash"), False)
    block_table = _cipher(b"".join(blocks), _table_key("block"), False)
    hash_at = len(body)
    body += hash_table
    block_at = len(body)
    body += block_table
    header = (
        _HEADER.pack(
            ARCHIVE_MAGIC,
            _HEADER_SIZE,
            len(body),
            _FORMAT,
            _SECTOR_SIZE_SHIFT,
            hash_at,
            block_at,
            slots,
            len(blocks),
        )
        + _HEADER_HIGH.pack(0, 0, 0)
        + _HEADER_SIZES.pack(len(body), 0, 0)
        + _HEADER_MD5S.pack(
            len(hash_table),
            len(block_table),
            0,
            0,
            0,
            0,
            _md5(block_table),
            _md5(hash_table),
            bytes(16),
            bytes(16),
            bytes(16),
        )
    )
    body[:_HEADER_SIZE] = header + _md5(header)
    if user_data is None:
        return bytes(body)
    # StarCraft II reserves 512 bytes for its header and starts the archive at 1024; more if it needs more.
    reserved = -(-len(user_data) // 0x200) * 0x200
    start = -(-(_USER_DATA_HEADER.size + reserved) // 0x400) * 0x400
    head = _USER_DATA_HEADER.pack(USER_DATA_MAGIC, reserved, start, len(user_data)) + user_data
    return head + bytes(start - len(head)) + body


# ---- reading -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    """Where one file lies in an archive (from its start) and how it is stored."""

    offset: int
    stored_size: int
    size: int
    flags: int


class MpqArchive:
    """The tables of an MPQ archive in `data`; `read(name)` gives a file's contents, `names()` the listed ones.

    Reads what StarCraft II and `write_archive` write: files stored whole or in sectors, plain, zlib or bzip2
    compressed. Encrypted and imploded files, patch archives and archives past 4 GiB are refused (MpqError).
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.user_data: bytes | None = None
        """The user data header's contents (a replay's header), None when the archive has none."""
        start = 0
        if data[:4] == USER_DATA_MAGIC:
            _, _, start, length = _unpack(_USER_DATA_HEADER, data, 0, "the user data header")
            self.user_data = _slice(data, _USER_DATA_HEADER.size, length, "the user data")
        elif data[:4] != ARCHIVE_MAGIC:
            raise MpqError(f"no MPQ archive: it starts with {bytes(data[:8])!r}, not {ARCHIVE_MAGIC!r}")
        magic, header_size, size, version, shift, hash_at, block_at, hashes, blocks = _unpack(
            _HEADER, data, start, "the archive header"
        )
        if magic != ARCHIVE_MAGIC:
            raise MpqError(f"the user data header points at byte {start}, where no archive header starts")
        stored = _header_md5s(data, start, header_size) if version >= 3 else {}
        if version >= 1:
            high_blocks, hash_high, block_high = _unpack(
                _HEADER_HIGH, data, start + _HEADER.size, "the header"
            )
            if high_blocks:
                raise MpqError(
                    "the archive is larger than 4 GiB (it has a hi-block table): sc2env does not read it"
                )
            hash_at, block_at = hash_at | hash_high << 32, block_at | block_high << 32
        if version >= 2:
            size = _unpack(_HEADER_SIZES, data, start + _HEADER.size + _HEADER_HIGH.size, "the header")[0]
        self.offset = start
        self.end = start + size
        """Where the archive ends: bytes after it are no part of it."""
        self.sector_size = 512 << shift
        tables = {}
        for kind, at, entries in (("hash", hash_at, hashes), ("block", block_at, blocks)):
            table = _slice(data, start + at, _table_bytes(entries, kind), f"the {kind} table")
            if kind in stored:
                _check_table(kind, table, *stored[kind])
            tables[kind] = _cipher(table, _table_key(kind), True)
        self._hashes = [_HASH_ENTRY.unpack_from(tables["hash"], n * _HASH_ENTRY.size) for n in range(hashes)]
        self._blocks = [Block(*_BLOCK_ENTRY.unpack_from(tables["block"], n * 16)) for n in range(blocks)]

    def block(self, name: str) -> Block | None:
        """Where file `name` is stored (its `size` is its length), None if the archive has no such file."""
        count = len(self._hashes)
        if not count:
            return None
        if count & (count - 1):
            raise MpqError(f"the hash table has {count} entries, not a power of two")
        wanted = name_hash(name, _NAME_A), name_hash(name, _NAME_B)
        slot = name_hash(name, _OFFSET) & (count - 1)
        for _ in range(count):  # open addressing: probe on until an empty slot
            hash_a, hash_b, _, _, index = self._hashes[slot]
            if index == _EMPTY_SLOT:
                return None
            if (hash_a, hash_b) == wanted and index != _DELETED_SLOT:
                if index >= len(self._blocks):
                    raise MpqError(f"{name}: its hash entry names block {index} of {len(self._blocks)}")
                found = self._blocks[index]
                return found if found.flags & EXISTS and not found.flags & DELETE_MARKER else None
            slot = (slot + 1) & (count - 1)
        return None

    def read(self, name: str) -> bytes | None:
        """The contents of file `name`, None if the archive has none of that name."""
        block = self.block(name)
        if block is None:
            return None
        for flag, what in (
            (ENCRYPTED, "encrypted"),
            (IMPLODED, "imploded (PKWARE)"),
            (PATCH_FILE, "a patch"),
        ):
            if block.flags & flag:
                raise MpqError(f"{name} is {what}, which sc2env does not read")
        stored = _slice(self.data, self.offset + block.offset, block.stored_size, name)
        if block.flags & SINGLE_UNIT or not block.size:
            compressed = block.flags & COMPRESSED and block.stored_size < block.size
            return (
                _inflate(stored, block.size, name)
                if compressed
                else _exact(stored[: block.size], block.size, name)
            )
        count = -(-block.size // self.sector_size)
        if not block.flags & COMPRESSED:
            return _exact(stored[: block.size], block.size, name)
        entries = count + 1 + bool(block.flags & SECTOR_CRC)
        offsets = struct.unpack_from(f"<{entries}I", _slice(stored, 0, 4 * entries, f"{name}'s sector table"))
        out = bytearray()
        for n in range(count):
            want = min(self.sector_size, block.size - n * self.sector_size)
            sector = _slice(stored, offsets[n], offsets[n + 1] - offsets[n], f"{name}'s sector {n}")
            out += _inflate(sector, want, f"{name}'s sector {n}") if len(sector) < want else sector[:want]
        return _exact(bytes(out), block.size, name)

    def names(self) -> list[str]:
        """The files its (listfile) names (what readers such as mpyq list and extract); [] without one."""
        listed = self.read(LISTFILE) or b""
        return [name for line in listed.decode("utf-8", "replace").splitlines() if (name := line.strip())]


def _table_bytes(entries: int, kind: str) -> int:
    if entries > _MAX_TABLE_ENTRIES:
        raise MpqError(
            f"the {kind} table has {entries} entries, more than the {_MAX_TABLE_ENTRIES} sc2env reads"
        )
    return entries * 16


def _header_md5s(data: bytes, start: int, header_size: int) -> dict[str, tuple[int, bytes]]:
    """A format 3 header, checked against its own MD5: the stored size and MD5 of its "hash" and "block" tables.

    The format keeps MD5s of its header and of its tables as stored (zero when not kept), so damage shows
    before anything is read from where a damaged field points.
    """
    if header_size < _HEADER_SIZE:
        raise MpqError(f"a format 3 archive header of {header_size} bytes, not {_HEADER_SIZE}")
    header = _slice(data, start, _HEADER_SIZE, "the archive header")
    if any(header[-16:]) and _md5(header[:-16]) != header[-16:]:
        raise MpqError("the archive's header does not match its MD5: the file is damaged")
    hash_size, block_size, *_, block_md5, hash_md5, _, _, _ = _HEADER_MD5S.unpack_from(
        header, _HEADER_SIZE - 16 - _HEADER_MD5S.size
    )
    return {"hash": (hash_size, hash_md5), "block": (block_size, block_md5)}


def _check_table(kind: str, table: bytes, stored_size: int, md5: bytes) -> None:
    if stored_size and stored_size < len(table):
        raise MpqError(f"the archive's {kind} table is compressed, which sc2env does not read")
    if any(md5) and _md5(table) != md5:
        raise MpqError(f"the archive's {kind} table does not match its MD5: the file is damaged")


def _md5(data: bytes) -> bytes:
    return hashlib.md5(
        data, usedforsecurity=False
    ).digest()  # a checksum, not security: FIPS systems allow it


def _unpack(layout: struct.Struct, data: bytes, at: int, what: str) -> tuple:
    return layout.unpack(_slice(data, at, layout.size, what))


def _slice(data: bytes, at: int, length: int, what: str) -> bytes:
    if at < 0 or length < 0 or at + length > len(data):
        raise MpqError(
            f"{what} (bytes {at} to {at + length}) lies past the end of the data ({len(data)} bytes): it is truncated"
        )
    return data[at : at + length]


def _exact(data: bytes, size: int, what: str) -> bytes:
    if len(data) != size:
        raise MpqError(f"{what} holds {len(data)} bytes, not the {size} its block says")
    return data


def _inflate(stored: bytes, size: int, what: str) -> bytes:
    """A compressed unit: its first byte names the compression; never inflated past `size` (+1 to notice)."""
    kind, packed = stored[:1], stored[1:]
    try:
        if kind == bytes([_ZLIB]):
            out = zlib.decompressobj().decompress(packed, size + 1)
        elif kind == bytes([_BZIP2]):
            out = bz2.BZ2Decompressor().decompress(packed, size + 1)
        else:
            raise MpqError(
                f"{what} is compressed with {kind.hex() or 'nothing'} (sc2env reads zlib 02 and bzip2 10)"
            )
    except (zlib.error, OSError, EOFError) as e:
        raise MpqError(f"{what}'s compressed data is damaged ({e})") from None
    return _exact(out, size, what)
