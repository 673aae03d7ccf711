"""sc2env's MPQ archives: what write_archive writes, mpyq reads; what StarCraft II writes, MpqArchive reads."""

from __future__ import annotations

import io
import re
import struct

import numpy as np
import pytest

from sc2env.engine import mpq

FILES = {
    "replay.details": b"details " * 40,  # compresses
    "replay.gamemetadata.json": b'{"BaseBuild":"Base75689"}',  # too short to gain from compression
    "noise": np.random.default_rng(0).bytes(40_000),  # incompressible, and larger than a sector
    "empty": b"",
    "Sub\\Folder.txt": "déjà vu".encode(),
}


def mpyq_archive(data: bytes):
    mpyq = pytest.importorskip("mpyq", reason="mpyq (the tools extra) reads MPQ archives")
    return mpyq.MPQArchive(io.BytesIO(data))


@pytest.mark.parametrize("user_data", [None, b"\x05\x12header", bytes(700)], ids=["plain", "header", "long"])
def test_mpyq_reads_what_we_write(user_data):
    data = mpq.write_archive(FILES, user_data=user_data)
    archive = mpyq_archive(data)
    assert archive.files == [name.encode() for name in FILES], "the (listfile) names every file, in order"
    for name, contents in FILES.items():
        assert (archive.read_file(name) or b"") == contents, name  # mpyq gives None for an empty file
    if user_data is None:
        assert data.startswith(mpq.ARCHIVE_MAGIC) and "user_data_header" not in archive.header
    else:
        header = archive.header["user_data_header"]
        assert header["content"] == user_data
        assert header["mpq_header_offset"] == (1024 if len(user_data) <= 512 else 2048)
    assert archive.header["format_version"] == 3 and archive.header["header_size"] == 208
    assert archive.header["offset"] + archive.header["archive_size"] == len(data)


def test_files_are_stored_whole_and_compressed_only_when_that_is_smaller():
    archive = mpyq_archive(mpq.write_archive(FILES))
    flags = {
        name: archive.block_table[archive.get_hash_table_entry(name).block_table_index].flags
        for name in FILES
    }
    whole = mpq.EXISTS | mpq.SINGLE_UNIT
    assert flags["replay.details"] == whole | mpq.COMPRESSED
    assert flags["noise"] == flags["replay.gamemetadata.json"] == flags["empty"] == whole


def test_our_reader_reads_what_we_write():
    data = mpq.write_archive(FILES, user_data=b"head")
    archive = mpq.MpqArchive(data)
    assert archive.user_data == b"head" and archive.offset == 1024 and archive.end == len(data)
    assert archive.names() == list(FILES)
    for name, contents in FILES.items():
        assert archive.read(name) == contents
        assert archive.block(name).size == len(contents)
    assert archive.read("REPLAY.DETAILS") == FILES["replay.details"], "MPQ names ignore ASCII case"
    assert archive.read("missing") is None and archive.block("missing") is None


def test_many_files_are_all_found_through_the_hash_table():
    files = {f"file{n:03d}.txt": f"contents {n}".encode() for n in range(300)}
    archive = mpq.MpqArchive(mpq.write_archive(files))
    assert all(archive.read(name) == contents for name, contents in files.items())
    assert archive.names() == list(files)


def test_the_listfile_is_written_by_the_writer_only():
    with pytest.raises(ValueError, match=r"\(listfile\) is written by write_archive itself"):
        mpq.write_archive({mpq.LISTFILE: b"x"})


def test_our_reader_reads_starcraft_s_own_archives_as_mpyq_does(shared_dir):
    """SMAC's maps were written by StarCraft II's editor: format 3, MD5s, files whole and in sectors."""
    maps = sorted((shared_dir / "realdata" / "smac_maps").glob("*.SC2Map"))
    assert len(maps) > 20
    sectored = 0
    for path in maps:
        data = path.read_bytes()
        theirs, ours = mpyq_archive(data), mpq.MpqArchive(data)
        assert [name.decode() for name in theirs.files] == ours.names()
        for name in ours.names():
            assert ours.read(name) == theirs.read_file(name), f"{path.name}: {name}"
            sectored += not ours.block(name).flags & mpq.SINGLE_UNIT
    assert sectored > 10, "files stored in sectors (with their checksums) were read too"


def test_our_archives_are_bit_for_bit_the_same_each_time():
    assert mpq.write_archive(FILES, b"h") == mpq.write_archive(dict(FILES), b"h")


def _with_block(data: bytes, flags: int) -> bytes:
    """`data` (a one-file archive without user data) with that file's flags changed; MD5s zeroed (not kept)."""
    header = struct.unpack_from("<4sIIHHIIII", data)
    block_at = header[6]
    key = mpq.name_hash("(block table)", 3)
    table = bytearray(mpq._cipher(data[block_at : block_at + 32], key, decrypt=True))
    struct.pack_into("<I", table, 12, flags)
    out = bytearray(data)
    out[block_at : block_at + 32] = mpq._cipher(bytes(table), key, decrypt=False)
    out[112:208] = bytes(96)  # 0 MD5s: "not kept"
    return bytes(out)


@pytest.mark.parametrize(
    "flags, message",
    [
        (mpq.EXISTS | mpq.SINGLE_UNIT | mpq.ENCRYPTED, "x is encrypted, which sc2env does not read"),
        (mpq.EXISTS | mpq.SINGLE_UNIT | mpq.IMPLODED, "x is imploded (PKWARE), which sc2env does not read"),
    ],
)
def test_what_the_reader_does_not_read_is_named(flags, message):
    data = _with_block(mpq.write_archive({"x": b"abc" * 50}), flags)
    with pytest.raises(mpq.MpqError, match=re.escape(message)):
        mpq.MpqArchive(data).read("x")


def test_a_deleted_file_is_no_file():
    data = _with_block(mpq.write_archive({"x": b"abc" * 50}), mpq.EXISTS | mpq.DELETE_MARKER)
    assert mpq.MpqArchive(data).read("x") is None


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: b"PK\x03\x04" + d[4:], "no MPQ archive: it starts with b'PK"),
        (lambda d: d[:600], "it is truncated"),
        (lambda d: d[:2000], "the hash table .* lies past the end"),
        (lambda d: d[:1024] + b"MPQ\x1a" + d[1028:1040], "the archive header .* it is truncated"),
        (
            lambda d: d[:8] + struct.pack("<I", 16) + d[12:],
            "points at byte 16, where no archive header starts",
        ),
        (lambda d: d[:1100] + bytes([d[1100] ^ 1]) + d[1101:], "header does not match its MD5"),
    ],
    ids=["magic", "cut-in-header", "cut-in-tables", "short-header", "bad-offset", "md5"],
)
def test_damaged_archives_are_refused_saying_what_is_wrong(damage, message):
    data = mpq.write_archive({"x": b"abc" * 50, "y": FILES["noise"]}, user_data=b"head")
    with pytest.raises(mpq.MpqError, match=message):
        mpq.MpqArchive(damage(data))


def test_a_file_whose_contents_were_damaged_is_refused():
    data = mpq.write_archive({"x": b"abcdefgh" * 500})
    block = mpq.MpqArchive(data).block("x")
    assert block is not None and block.flags & mpq.COMPRESSED
    at = block.offset + block.stored_size // 2
    damaged = data[:at] + bytes([data[at] ^ 0x55]) + data[at + 1 :]
    with pytest.raises(mpq.MpqError, match=r"x's compressed data is damaged|x holds"):
        mpq.MpqArchive(damaged).read("x")
