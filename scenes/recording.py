"""Which inputs a scene reads, and which project code it runs, as digests.

A scene sees the numbers and the derived results through :class:`Recorded` views. Every
value it reads (down to a field of a field) is remembered with a digest, so the build can tell later
whether a changed numbers file changes anything this scene shows: a scene that never reads
a number is not rebuilt when that number changes.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from common.digests import digest, file_digest

PROJECT = Path(__file__).resolve().parent.parent


class Recorded:
    """A read-only view of ``target`` that records each value read as name -> digest.

    A field that is itself a dataclass (``numbers.worked_example``, ``derived.worked_all``)
    comes back as a view of its own, so what is recorded is the leaf read
    (``numbers.worked_example.tokens``): a scene showing the example's words is not rebuilt
    when its V changes. A method read records its whole object (its result may depend on
    any field)."""

    def __init__(self, target: object, name: str, log: dict[str, str]) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_log", log)

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        key = f"{self._name}.{attr}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return Recorded(value, key, self._log)
        if callable(value):
            key, recorded = self._name, self._target
        else:
            recorded = value
        if key not in self._log:
            self._log[key] = digest(recorded)
        return value

    def __setattr__(self, attr: str, value: object) -> None:
        raise AttributeError(f"{self._name} is read-only")


def read_inputs(names: list[str], roots: dict[str, object]) -> dict[str, str]:
    """Digests of ``names`` ("numbers.x", "derived.y.z") for the current values in
    ``roots``; a name that no longer exists gets the digest "missing"."""
    out = {}
    for name in names:
        root, *path = name.split(".")
        try:
            value = roots[root]
            for attr in path:
                value = getattr(value, attr)
            out[name] = digest(value)
        except (KeyError, AttributeError):
            out[name] = "missing"
    return out


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
