"""Stable digests of values (numbers, arrays, strings, dataclasses) and of files: the
parts of every cache key."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


def _feed(h: Any, value: object) -> None:
    """Feed a canonical encoding of ``value`` to hash ``h``."""
    if isinstance(value, np.ndarray):
        h.update(f"nd{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(f"dc{type(value).__qualname__}(".encode())
        for f in dataclasses.fields(value):
            h.update(f.name.encode() + b"=")
            _feed(h, getattr(value, f.name))
        h.update(b")")
    elif isinstance(value, dict):
        h.update(b"{")
        for k in sorted(value, key=repr):
            _feed(h, k)
            h.update(b":")
            _feed(h, value[k])
        h.update(b"}")
    elif isinstance(value, (list, tuple)):
        h.update(b"[" if isinstance(value, list) else b"(")
        for x in value:
            _feed(h, x)
            h.update(b",")
        h.update(b"]")
    elif isinstance(value, (str, int, float, bool, type(None), np.generic, Path)):
        h.update(f"{type(value).__name__}:{value!r}".encode())
    else:
        raise TypeError(f"cannot digest a {type(value).__name__}")


def digest(value: object) -> str:
    """A stable digest of a value made of numbers, arrays, strings and dataclasses."""
    h = hashlib.sha256()
    _feed(h, value)
    return h.hexdigest()[:20]


def sha256_bytes(data: bytes) -> str:
    """The sha256 hex digest of ``data`` (the one home of hashing, with the helpers here)."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_digest(path: Path) -> str:
    return sha256_file(path)[:20]


@dataclass(frozen=True)
class FileContent:
    """A file in a cache key, standing for its bytes: a key names what a file holds, never
    where it lies (every scene picture is called ``picture.mp4``)."""

    sha256: str

    @classmethod
    def of(cls, path: Path) -> FileContent:
        """The content of ``path`` (hashed once a process while its size and mtime hold)."""
        st = os.stat(path)
        memo = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)
        known = _CONTENT.get(memo)
        if known is None:
            known = _CONTENT[memo] = sha256_file(path)
        return cls(known)


_CONTENT: dict[tuple[str, int, int], str] = {}


def file_names(value: object) -> list[str]:
    """Where ``value`` (a key's parts) names a file instead of its content: every Path, and
    every string that is the path of an existing file. A mapping's keys are not looked at:
    ``{path: digest}`` (the code a stage ran) names files beside their content. Empty for a
    sound key."""
    found: list[str] = []
    if isinstance(value, Path):
        found.append(str(value))
    elif isinstance(value, str):
        if (os.sep in value or value.startswith(".")) and len(value) < 4096 \
                and os.path.exists(value):
            found.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            found += file_names(v)
    elif isinstance(value, (list, tuple)):
        for x in value:
            found += file_names(x)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found += file_names(getattr(value, f.name))
    return found
