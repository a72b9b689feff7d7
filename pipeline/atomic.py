"""Writing outputs so that a failure never leaves a half-written or half-replaced file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from narration.atomic import atomic_path, atomic_write_text

__all__ = ["atomic_path", "replace_dir", "write_json", "write_text"]


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
