"""Encoded video and sound per scene, cached by what it is made from.

The master's picture is the scenes' H.264 segments joined without re-encoding (each scene
clip copies its segment); each scene's narration, its AAC and its clip's sound, and the
deck's captioned pictures, scaled and with their subtitles drawn in, are kept here too.
Each is kept under a key of what it is made from (the beats' sound and places; the exact
samples encoded; for a deck picture, the scene picture's digest, its cues and the encoding
settings). So after a changed number or sentence only the scenes that changed are encoded
again; the video's sound track (the scenes' AAC packets, copied), subtitles and chapters,
which span the whole video, are muxed anew each time (that takes seconds).

A file is written under a temporary name and renamed into place, then recorded with its
size and the parts of its key in ``<key>.json``: a segment without that record, or of
another size, is never used. A key names the files it is made from by their content
(``FileContent``, or another stored file's key): the store refuses a key holding a path,
since a path says nothing of what the file holds (every scene picture is ``picture.mp4``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from common.atomic import atomic_path, atomic_write_text
from common.digests import digest, file_names
from common.retention import DAY, KEEP_DAYS, LEFTOVER_SECONDS


class SegmentStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.made: Counter[str] = Counter()  # by kind
        self.reused: Counter[str] = Counter()
        self.used: set[Path] = set()
        self._lock = threading.Lock()
        self._making: dict[Path, threading.Event] = {}  # made now, on another thread

    def get(self, kind: str, parts: object, make: Callable[[Path], None],
            suffix: str = ".mp4") -> Path:
        """The cached file for ``parts`` (anything digestible), made by ``make(path)`` on a
        miss; ``suffix`` names its format (ffmpeg picks the container by it). Raises
        TypeError if ``parts`` names a file by its path rather than its content."""
        named = file_names(parts)
        if named:
            raise TypeError(f"segment store key {kind!r} names a file by its path "
                            f"({named[0]}): give its content (FileContent.of) instead")
        key = digest([kind, parts])
        path = self.root / kind / f"{key}{suffix}"
        while True:  # one thread makes a file; another asking for it meanwhile waits
            with self._lock:
                busy = self._making.get(path)
                if busy is None:
                    self._making[path] = threading.Event()
                    break
            busy.wait()
        try:
            return self._get(kind, parts, make, path, suffix)
        finally:
            with self._lock:
                self._making.pop(path).set()

    def _get(self, kind: str, parts: object, make: Callable[[Path], None], path: Path,
             suffix: str) -> Path:
        meta = path.with_suffix(".json")
        try:
            if json.loads(meta.read_text("utf-8"))["size"] == path.stat().st_size:
                self.reused[kind] += 1
                self.used.add(path)
                os.utime(meta)
                return path
        except (OSError, ValueError, KeyError, TypeError):
            pass
        meta.unlink(missing_ok=True)
        with atomic_path(path) as tmp:
            out = tmp.with_suffix(suffix)
            try:
                make(out)
                out.replace(tmp)
            finally:
                out.unlink(missing_ok=True)
        atomic_write_text(meta, json.dumps({"size": path.stat().st_size, "kind": kind,
                                            "parts": parts}, default=_plain,
                                           ensure_ascii=False))
        self.made[kind] += 1
        self.used.add(path)
        return path

    def stored(self, path: Path) -> str:
        """The key of ``path``, a file this store made: it stands for the file's content in
        another key (it is the digest of what made it)."""
        path = Path(path)
        if path.parent.parent != self.root or not path.with_suffix(".json").is_file():
            raise ValueError(f"{path} is not a file of the segment store at {self.root}")
        return path.stem

    def prune(self, older_than_days: float = KEEP_DAYS) -> None:
        """Remove files unused by this run and untouched for ``older_than_days``."""
        now = time.time()
        if not self.root.is_dir():
            return
        for meta in self.root.glob("*/*.json"):
            files = [f for f in meta.parent.glob(f"{meta.stem}.*") if f != meta]
            if any(f in self.used for f in files) or \
                    now - meta.stat().st_mtime < older_than_days * DAY:
                continue
            for f in files:
                f.unlink(missing_ok=True)
            meta.unlink(missing_ok=True)
        for f in self.root.glob("*/*"):
            if f.suffix not in (".json", ".tmp") and not f.with_suffix(".json").exists() \
                    and now - f.stat().st_mtime > LEFTOVER_SECONDS:
                f.unlink(missing_ok=True)  # its record never got written: never trusted


def _plain(value: object) -> object:
    """JSON for the parts of a key that json cannot write itself (for reading, not keys)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {type(value).__name__: dataclasses.asdict(value)}
    if hasattr(value, "tolist"):
        return value.tolist()
    return repr(value)
