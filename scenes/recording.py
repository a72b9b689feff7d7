"""Which inputs a scene reads, and which project code it runs, as digests.

A scene sees the numbers and the derived results through :class:`Recorded` views. Every
attribute it reads is remembered with a digest of its value, so the build can tell later
whether a changed numbers file changes anything this scene shows: a scene that never reads
a number is not rebuilt when that number changes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from pathlib import Path
from typing import Any

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent


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


class Recorded:
    """A read-only view of ``target`` that records each attribute read as name -> digest."""

    def __init__(self, target: object, name: str, log: dict[str, str]) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_log", log)

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        key = f"{self._name}.{attr}"
        if key not in self._log:
            self._log[key] = digest(value)
        return value

    def __setattr__(self, attr: str, value: object) -> None:
        raise AttributeError(f"{self._name} is read-only")


def read_inputs(names: list[str], roots: dict[str, object]) -> dict[str, str]:
    """Digests of ``names`` ("numbers.x", "derived.y") for the current values in ``roots``;
    a name that no longer exists gets the digest "missing"."""
    out = {}
    for name in names:
        root, _, attr = name.partition(".")
        try:
            out[name] = digest(getattr(roots[root], attr))
        except (KeyError, AttributeError):
            out[name] = "missing"
    return out


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_digest(path: Path) -> str:
    return sha256_file(path)[:20]


def project_code() -> dict[str, str]:
    """Digests of the project's source files loaded in this process (path relative to the
    project)."""
    out = {}
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if not f:
            continue
        p = Path(f).resolve()
        if p.suffix == ".py" and p.is_relative_to(PROJECT) and ".venv" not in p.parts:
            out[p.relative_to(PROJECT).as_posix()] = file_digest(p)
    return dict(sorted(out.items()))


def code_digests(paths: list[str]) -> dict[str, str]:
    """Current digests of project files (relative paths); "missing" for a deleted one."""
    out = {}
    for rel in paths:
        p = PROJECT / rel
        out[rel] = file_digest(p) if p.is_file() else "missing"
    return out
