"""Texts made once and kept on disk, for every scene process and run that shares the folder.

Making a ``Text`` (Pango lays it out as SVG; svgelements parses it into paths; the theme tags
its glyphs) took about 60 ms; reading the finished mobject back from a pickle takes about
1 ms. Scenes make hundreds of texts (tables redrawn each frame make one per label value),
and every scene process made them all again: a quarter of a dry run's time and a fifth of a
scene process's at low quality. ``scenes.theme.text`` keeps texts in memory within a process;
this keeps them between processes.

A text's file is named by what makes it: its arguments and a recipe (the source of the code
that makes and tags texts, the Manim and Pango versions, the font files), so a change to any
of them makes the text again rather than reading an old one. A file that does not read back
whole (its digest does not match) is made again; files are written by rename, never seen
half-written, and several processes may write the same one. Where the folder lives is the
caller's: ``scenes.run`` gives the plan's (``<cache>/texts``), and ``QKV_TEXT_CACHE`` names
one for a process that has no plan (the tests share one across their workers this way).

Pickle, not a format of our own: a text is a tree of Manim objects with arrays and tags,
and pickle reads it back as it was. Only our own cache folder is ever read.

A file's time stamp is when a text was last read or made: :func:`prune` (at the end of every
build) removes those unused for ``KEEP_DAYS``, as the build's other stores do, so texts of
old numbers and of older code do not pile up.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import time
from functools import cache
from pathlib import Path

from common.atomic import atomic_write_bytes
from common.digests import digest, file_digest, sha256_bytes
from common.retention import DAY, KEEP_DAYS, LEFTOVER_SECONDS
from scenes.contract import TEXT_CACHE_ENV as ENV

_CHECK = 16  # hex digits of the payload's sha256 at the head of each file
SUFFIX = ".pkl"
_folder: Path | None = None


def use(folder: Path | None) -> None:
    """Keep texts in ``folder`` from now on (None: in memory only, unless ``QKV_TEXT_CACHE``
    names a folder)."""
    global _folder
    shared = os.environ.get(ENV)
    _folder = Path(folder) if folder is not None else Path(shared) if shared else None


use(None)  # a process without a plan: the folder QKV_TEXT_CACHE names, if any


def folder() -> Path | None:
    return _folder


@cache
def recipe() -> str:
    """What every text is made with besides its arguments."""
    import manim  # here, not at the top: a build prunes the folder without loading Manim
    import manimpango

    from narration import style
    from scenes.theme import LATIN_QUOTES_FONT

    here = Path(__file__).resolve().parent
    sources = {p.name: file_digest(p) for p in (here / "theme.py", here / "legibility.py",
                                                Path(style.__file__), Path(__file__))}
    font = style.FONT_FILE
    return digest((sources, manim.__version__, manimpango.__version__,
                   manimpango.pango_version(), style.FONT, font.name, font.stat().st_size,
                   system_font(LATIN_QUOTES_FONT)))


def system_font(family: str) -> tuple[str, int] | None:
    """The name and size of the file fontconfig gives Pango for ``family`` (English text's
    curly quotes are set in a system face), None where it cannot say. ``fc-match`` ships
    with fontconfig, which Pango depends on; its command line rather than bindings: one
    call per process."""
    try:
        found = subprocess.run(["fc-match", "-f", "%{file}", family], capture_output=True,
                               text=True, timeout=10).stdout.strip()
        path = Path(found)
        return (path.name, path.stat().st_size) if found else None
    except (OSError, subprocess.SubprocessError):
        return None


def _path(key: tuple) -> Path | None:
    if _folder is None:
        return None
    return _folder / f"{digest((recipe(), key))}{SUFFIX}"


def load(key: tuple) -> object | None:
    """The mobject kept for ``key``, or None (no folder, not made yet, or damaged)."""
    path = _path(key)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, payload = data[:_CHECK], data[_CHECK:]
    if head != sha256_bytes(payload)[:_CHECK].encode():
        return None
    try:
        mob = pickle.loads(payload)
    except Exception:  # a file from another Manim, or damaged: made again
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # used now: kept by prune()
    return mob


def save(key: tuple, mob: object) -> None:
    """Keep ``mob`` for ``key``; a folder that cannot be written only costs the time."""
    path = _path(key)
    if path is None:
        return
    payload = pickle.dumps(mob, protocol=pickle.HIGHEST_PROTOCOL)
    with contextlib.suppress(OSError):
        atomic_write_bytes(path, sha256_bytes(payload)[:_CHECK].encode() + payload,
                           durable=False)


def prune(folder: Path, older_than_days: float = KEEP_DAYS) -> int:
    """Remove the texts in ``folder`` neither read nor made for ``older_than_days`` (and
    files left half-written by an interrupted run); returns how many went. Another run using
    the folder meanwhile loses nothing it needs: a text gone is made again."""
    now = time.time()
    gone = 0
    for f in folder.iterdir() if folder.is_dir() else ():
        with contextlib.suppress(OSError):
            age = now - f.stat().st_mtime
            if (f.suffix == SUFFIX and age > older_than_days * DAY) or \
                    (f.suffix == ".tmp" and age > LEFTOVER_SECONDS):
                f.unlink()
                gone += f.suffix == SUFFIX
    return gone
