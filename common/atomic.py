"""Atomic file writes: a temp file beside the target, then a rename; no partial file ever
(and a folder replaced whole), so a failure never leaves a half-written output."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


@contextmanager
def atomic_path(target: Path, durable: bool = True) -> Iterator[Path]:
    """Yield a temp path next to ``target``; on success move it onto ``target``.

    The caller writes the temp path (which does not exist yet). If the block raises, the
    temp file is deleted and ``target`` is left untouched, so no partial file ever appears.
    ``durable=False`` skips flushing to disk before the rename: for a cache whose files
    check themselves, where a file lost in a crash is only made again.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        yield tmp
        if durable:
            with open(tmp, "rb") as f:  # flush to disk before the rename makes it visible
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with suppress(FileNotFoundError):
            tmp.unlink()
        raise


def atomic_write_bytes(target: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``target`` atomically (see :func:`atomic_path`)."""
    with atomic_path(target, durable) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(target: Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``target`` atomically."""
    atomic_write_bytes(target, text.encode("utf-8"))


def write_text(path: Path, data: str) -> None:
    atomic_write_text(path, data)


def write_json(path: Path, data: object) -> None:
    write_text(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def replace_dir(staged: Path, final: Path) -> None:
    """Move a fully written ``staged`` directory to ``final``, replacing any previous one."""
    final.parent.mkdir(parents=True, exist_ok=True)
    old = final.with_name(f".{final.name}.old")
    if old.exists():
        shutil.rmtree(old)
    if final.exists():
        os.replace(final, old)
    os.replace(staged, final)
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)
