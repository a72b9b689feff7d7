"""Finds the scenes: every ``scenes/sNN_<id>.py`` with a NarratedScene subclass, in NN order.

Read with ``ast`` so listing scenes does not import Manim.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

SCENES_DIR = Path(__file__).resolve().parent
_FILE = re.compile(r"s(\d\d)_(\w+)\.py")


@dataclass(frozen=True)
class SceneInfo:
    scene_id: str
    order: int
    path: Path
    class_name: str


def discover(root: Path = SCENES_DIR) -> list[SceneInfo]:
    found: list[SceneInfo] = []
    for path in sorted(root.glob("s[0-9][0-9]_*.py")):
        m = _FILE.fullmatch(path.name)
        if not m:
            continue
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            for stmt in node.body:
                if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)
                        and stmt.targets[0].id == "scene_id"
                        and isinstance(stmt.value, ast.Constant)):
                    if stmt.value.value != m.group(2):
                        raise ValueError(f"{path}: scene_id {stmt.value.value!r} differs from "
                                         f"the file's name ({m.group(2)!r}); output files "
                                         f"are named after it")
                    found.append(SceneInfo(stmt.value.value, int(m.group(1)), path, node.name))
    found.sort(key=lambda s: s.order)
    ids = [s.scene_id for s in found]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"scene ids defined twice: {', '.join(sorted(dupes))}")
    return found
