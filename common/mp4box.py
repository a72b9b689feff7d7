"""Reading an MP4's box tree, and setting its chapter track's language in place.

ffmpeg's MP4 muxer gives the QuickTime chapter track it writes no language (0, which
readers show as English) and has no option for it; PyAV reads no box tree. The boxes needed
here are a handful of fixed layouts (ISO/IEC 14496-12), so this walks box headers itself
and patches the two bytes of the chapter track's ``mdhd`` language where they lie: the file
is not rewritten.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"udta", b"tref",
              b"dinf", b"mvex"}


@dataclass(frozen=True)
class Box:
    kind: bytes  # four characters, e.g. b"elst"
    start: int  # offset of the header in the data
    header: int  # header length (8 or 16)
    size: int  # whole box, header included

    @property
    def body(self) -> int:
        return self.start + self.header

    @property
    def end(self) -> int:
        return self.start + self.size


def children(data: bytes, start: int = 0, end: int | None = None) -> Iterator[Box]:
    """The boxes lying one after another in ``data[start:end]``."""
    end = len(data) if end is None else end
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, pos)
        header = 8
        if size == 1:
            (size,) = struct.unpack_from(">Q", data, pos + 8)
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            raise ValueError(f"broken MP4 box {kind!r} at {pos}")
        yield Box(kind, pos, header, size)
        pos += size


def walk(data: bytes, start: int = 0, end: int | None = None) -> Iterator[Box]:
    """Every box under ``data[start:end]``, depth first (into the container boxes)."""
    for box in children(data, start, end):
        yield box
        if box.kind in CONTAINERS:
            yield from walk(data, box.body, box.end)


def read_moov(path: Path) -> tuple[int, bytes]:
    """The offset and bytes of the file's ``moov`` box (found from the top-level headers,
    without reading the media data)."""
    with open(path, "rb") as f:
        pos = 0
        while True:
            f.seek(pos)
            head = f.read(16)
            if len(head) < 8:
                raise ValueError(f"{path}: no moov box")
            size, kind = struct.unpack_from(">I4s", head)
            if size == 1:
                (size,) = struct.unpack_from(">Q", head, 8)
            elif size == 0:
                size = path.stat().st_size - pos
            if kind == b"moov":
                f.seek(pos)
                return pos, f.read(size)
            if size < 8:
                raise ValueError(f"{path}: broken box {kind!r} at {pos}")
            pos += size


def box_kinds(path: Path) -> list[bytes]:
    """The kinds of every box inside ``moov``, depth first."""
    _pos, moov = read_moov(path)
    return [b.kind for b in walk(moov)]


def pack_language(code: str) -> int:
    """An ISO 639-2/T code packed as ``mdhd`` holds it (three 5-bit letters)."""
    if len(code) != 3 or not code.isalpha() or not code.islower():
        raise ValueError(f"not an ISO 639-2 code: {code!r}")
    a, b, c = (ord(ch) - 0x60 for ch in code)
    return (a << 10) | (b << 5) | c


def _track(moov: bytes, trak: Box) -> tuple[int, bytes | None, Box | None, list[int]]:
    """A trak's id, handler type, mdhd box and the ids its ``chap`` reference names."""
    track_id, handler, mdhd, chap = 0, None, None, []
    for box in walk(moov, trak.body, trak.end):
        if box.kind == b"tkhd":
            version = moov[box.body]
            track_id = struct.unpack_from(">I", moov, box.body + (20 if version else 12))[0]
        elif box.kind == b"hdlr":
            handler = moov[box.body + 8:box.body + 12]
        elif box.kind == b"mdhd":
            mdhd = box
        elif box.kind == b"chap":
            chap += [struct.unpack_from(">I", moov, p)[0] for p in range(box.body, box.end, 4)]
    return track_id, handler, mdhd, chap


def chapter_language_offset(moov: bytes) -> int | None:
    """Where in ``moov`` the chapter track's ``mdhd`` language lies, or None (no chapters)."""
    traks = [b for b in children(moov, 8) if b.kind == b"trak"]
    tracks = [_track(moov, t) for t in traks]
    named = {i for _id, _h, _m, chap in tracks for i in chap}
    for track_id, _handler, mdhd, _chap in tracks:
        if track_id in named and mdhd is not None:
            version = moov[mdhd.body]
            # version, flags, creation and modification times, timescale, duration
            return mdhd.body + (4 + 8 + 8 + 4 + 8 if version else 4 + 4 + 4 + 4 + 4)
    return None


def chapter_language(path: Path) -> str | None:
    """The chapter track's language code, or None when the file has no chapter track."""
    _pos, moov = read_moov(path)
    at = chapter_language_offset(moov)
    if at is None:
        return None
    (v,) = struct.unpack_from(">H", moov, at)
    return "".join(chr(((v >> s) & 31) + 0x60) for s in (10, 5, 0))


def set_chapter_language(path: Path, code: str) -> bool:
    """Tag the chapter track of ``path`` with ``code`` (ISO 639-2), in place; False when
    the file has no chapter track."""
    pos, moov = read_moov(path)
    at = chapter_language_offset(moov)
    if at is None:
        return False
    with open(path, "r+b") as f:
        f.seek(pos + at)
        f.write(struct.pack(">H", pack_language(code)))
    return True
