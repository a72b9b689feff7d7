"""Finds the scenes of each cut, in order.

The full explainer's scenes are ``scenes/sNN_<id>.py``, the two-minute overview's
``scenes/oNN_<id>.py``; each file has a NarratedScene subclass whose ``scene_id`` is ``<id>``.
Scene ids are unique across cuts: they name the scripts, the cached pictures and the clips.

Read with ``ast`` so listing scenes does not import Manim.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

SCENES_DIR = Path(__file__).resolve().parent
CUTS = {"full": "s", "overview": "o"}
"""Each cut and the letter its scene files start with; ``full`` is the default cut."""
_FILE = re.compile(r"([a-z])(\d\d)_(\w+)\.py")


@dataclass(frozen=True)
class SceneInfo:
    scene_id: str
    order: int
    path: Path
    class_name: str
    cut: str = "full"


def _read(path: Path) -> tuple[SceneInfo, ...]:
    """The scene a scene file defines (none if its name is not a scene file's); a file is
    parsed again only when it has changed (tests look scenes up hundreds of times)."""
    st = path.stat()
    return _parsed(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=256)
def _parsed(path: Path, _mtime_ns: int, _size: int) -> tuple[SceneInfo, ...]:
    by_letter = {letter: name for name, letter in CUTS.items()}
    m = _FILE.fullmatch(path.name)
    if not m or m.group(1) not in by_letter:
        return ()
    found = []
    tree = ast.parse(path.read_text("utf-8"), str(path))
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                    and stmt.targets[0].id == "scene_id"
                    and isinstance(stmt.value, ast.Constant)):
                if stmt.value.value != m.group(3):
                    raise ValueError(f"{path}: scene_id {stmt.value.value!r} differs from "
                                     f"the file's name ({m.group(3)!r}); output files "
                                     f"are named after it")
                found.append(SceneInfo(stmt.value.value, int(m.group(2)), path, node.name,
                                       by_letter[m.group(1)]))
    return tuple(found)


def find(scene_id: str, root: Path = SCENES_DIR) -> SceneInfo | None:
    """The scene ``scene_id`` of any cut (None if there is none), reading only the files
    named for it (a scene process needs one scene: :func:`discover` parses them all)."""
    found = [info for path in sorted(root.glob(f"[a-z][0-9][0-9]_{scene_id}.py"))
             for info in _read(path) if info.scene_id == scene_id]
    if len(found) > 1:
        raise ValueError(f"scene ids defined twice: {scene_id}")
    return found[0] if found else None


def discover(root: Path = SCENES_DIR, cut: str | None = "full") -> list[SceneInfo]:
    """The scenes of ``cut`` in order (``None``: every cut's, the full explainer's first)."""
    if cut is not None and cut not in CUTS:
        raise ValueError(f"unknown cut {cut!r}; known: {', '.join(CUTS)}")
    found = [info for path in sorted(root.glob("[a-z][0-9][0-9]_*.py"))
             for info in _read(path)]
    ids = [s.scene_id for s in found]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"scene ids defined twice: {', '.join(sorted(dupes))}")
    cuts = list(CUTS)
    found.sort(key=lambda s: (cuts.index(s.cut), s.order))
    return [s for s in found if cut is None or s.cut == cut]
