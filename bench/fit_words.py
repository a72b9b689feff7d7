"""How long a word of the examples can be before a scene runs off the frame (prints figures;
nothing here asserts). It is how ``qkv_math.numbers.WORD_COLUMNS`` and ``FEATURE_COLUMNS``
were chosen.

    .venv/bin/python bench/fit_words.py [--lang zh,en] [--kind fill,feat,vfeat,worked]
                                        [--lengths 4,6,8] [--scenes ID,...]

For each language, kind of text and length it writes a numbers file whose words of that kind
all have that length (distinct, made-up words), builds every scene with it as a Manim dry run
(no video; beat lengths estimated from the text) and prints the layout problems the scenes
report: text crossing the frame edge or entering the subtitle band. The limits in
``qkv_math.numbers`` refuse a file before this could happen, so this script loads the file
without them.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PYTHONHASHSEED", "0")

from manim import tempconfig  # noqa: E402

import qkv_math.numbers as numbers_module  # noqa: E402
import scenes.context as context  # noqa: E402
from common.text import columns  # noqa: E402
from scenes.registry import discover  # noqa: E402
from tests.scenes.conftest import load_scene_class  # noqa: E402

# made-up words cut to any length, so no word repeats another
POOL = {"zh": "卢森堡大公国列支敦士登公国圣马力诺共和国", "en": "Liechtensteinerlandisch"}
# kind -> (table, key, how many entries)
KINDS = {"fill": ("fill_blank", "tokens", 4), "feat": ("fill_blank", "features", 3),
         "vfeat": ("fill_blank", "value_features", 3), "worked": ("worked_example", "tokens", 3)}


def words(lang: str, n: int, count: int) -> list[str]:
    pool = POOL[lang]
    return [(pool[k:] + pool)[:n].capitalize() for k in range(count)]


def numbers_text(lang: str, kind: str, n: int) -> str:
    """The default numbers file with every text of ``kind`` in ``lang`` ``n`` characters long."""
    table, key, count = KINDS[kind]
    lines = numbers_module.DEFAULT_NUMBERS.read_text("utf-8").split("\n")
    start = lines.index(f"[{table}]")
    listed = ", ".join(f'"{w}"' for w in words(lang, n, count))
    for i in range(start + 1, len(lines)):
        if re.match(rf"{key}\s*=", lines[i]):
            lines[i] = re.sub(rf"({lang}\s*=\s*)\[[^\]]*\]", lambda m: m.group(1) + f"[{listed}]",
                              lines[i], count=1)
            return "\n".join(lines)
    raise SystemExit(f"no {table}.{key} in the default numbers file")


def problems(path: Path, lang: str, scene_ids: set[str] | None, media: str) -> dict[str, str]:
    """Scene id -> its first layout problem (or error), for the scenes that report one."""
    load = context.load_numbers
    context.load_numbers = lambda _p=None: load(path)
    limits = numbers_module.WORD_COLUMNS, numbers_module.FEATURE_COLUMNS
    numbers_module.WORD_COLUMNS = numbers_module.FEATURE_COLUMNS = 10_000  # measure, not refuse
    os.environ["QKV_LANG"] = lang
    found: dict[str, str] = {}
    try:
        for info in discover(cut=None):
            if scene_ids and info.scene_id not in scene_ids:
                continue
            cls = load_scene_class(info)
            with tempconfig({"dry_run": True, "quality": "low_quality", "media_dir": media,
                             "disable_caching": True, "progress_bar": "none",
                             "verbosity": "ERROR"}):
                scene = cls()
                try:
                    scene.render()
                    issues = list(scene.layout_issues)
                except Exception as e:  # a scene that fails is a finding too
                    issues = [f"error: {e!r}"[:160]]
            if issues:
                found[info.scene_id] = f"{issues[0]} ({len(issues)} in all)"
    finally:
        context.load_numbers = load
        numbers_module.WORD_COLUMNS, numbers_module.FEATURE_COLUMNS = limits
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="zh,en")
    ap.add_argument("--kind", default="fill", help=", ".join(KINDS))
    ap.add_argument("--lengths", default=None,
                    help="characters per word (default: 4,6,8 for zh, 8,12,16 for en)")
    ap.add_argument("--scenes", default=None, help="only these scene ids")
    args = ap.parse_args()
    scene_ids = set(args.scenes.split(",")) if args.scenes else None
    with tempfile.TemporaryDirectory() as tmp:
        for lang in args.lang.split(","):
            default = "4,6,8" if lang == "zh" else "8,12,16"
            for kind in args.kind.split(","):
                for n in (int(x) for x in (args.lengths or default).split(",")):
                    path = Path(tmp) / f"{lang}-{kind}-{n}.toml"
                    path.write_text(numbers_text(lang, kind, n), "utf-8")
                    cols = columns(words(lang, n, 1)[0])
                    found = problems(path, lang, scene_ids, str(Path(tmp) / "media"))
                    print(f"{lang} {kind} {n} characters ({cols} columns): "
                          f"{len(found)} scene(s) with layout problems", flush=True)
                    for sid, first in found.items():
                        print(f"    {sid}: {first}", flush=True)


if __name__ == "__main__":
    main()
