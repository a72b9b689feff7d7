"""Whether the scenes' scripts, as written, can show a numbers file.

Some on-screen text is written for the example's words: the hook's fill-in-the-blank
sentence must contain every token of ``fill_blank``, and the party has one guest, with a
badge written in the script, per token. A script that reads a list entry by entry (every
word's score, every product of q and k) must read all of it: with more entries the voice
would skip what the screen shows. A numbers file whose words differ is refused up front,
naming the numbers key and the script to edit, instead of failing deep inside a render.
"""

from __future__ import annotations

import re
from pathlib import Path

from narration.scripts import SceneScript
from qkv_math.numbers import Numbers, NumbersError

# Facts that are one entry of a list each, and the numbers key that sets the list's length.
ENUMERATED = {
    "worked_example.tokens": re.compile(r"we\.(?:score|scaled|exp|weight)\.(\d+)"),
    "fill_blank.tokens": re.compile(r"fb\.(?:score|exp|weight|weight_scaled)\.(\d+)"),
    "fill_blank.features": re.compile(r"fb\.(?:query|k\.0)\.(\d+)"),
}


def _check_enumerations(numbers_path: Path, numbers: Numbers, script: SceneScript) -> None:
    for key, entry in ENUMERATED.items():
        read = [int(m[1]) for name in script.reads if (m := entry.fullmatch(name))]
        section, name = key.split(".")
        have = len(getattr(getattr(numbers, section), name)[script.lang])
        if read and max(read) + 1 != have:
            raise NumbersError(numbers_path, f"{key}.{script.lang}", (
                f"{have} entries, but {script.source} reads {max(read) + 1} of them one by "
                f"one; the voice would skip or miss some: give it {max(read) + 1} or "
                f"rewrite that script"))

def check_fit(numbers_path: Path, numbers: Numbers,
              scripts: dict[str, list[SceneScript]]) -> None:
    """NumbersError (one line) if a chosen scene's script cannot show these numbers."""
    for lang, chosen in scripts.items():
        tokens = numbers.fill_blank.tokens[lang]
        key = f"fill_blank.tokens.{lang}"
        for script in chosen:
            if script.scene_id == "hook":
                lines = script.items("sentence")
                for tok in tokens:
                    pattern = re.escape(tok) if lang == "zh" else rf"(?<!\w){re.escape(tok)}(?!\w)"
                    if not any(re.search(pattern, line) for line in lines):
                        raise NumbersError(numbers_path, key, (
                            f"{tok!r} is not in the hook's sentence ({script.source}: "
                            f"screen.sentence); the fill-in-the-blank words and that "
                            f"sentence must agree: edit both"))
            if script.scene_id == "blind_date":
                badges = sum(1 for k in script.screen if re.fullmatch(r"badge_\d+", k))
                if badges != len(tokens):
                    raise NumbersError(numbers_path, key, (
                        f"{len(tokens)} words, but the party in {script.source} has "
                        f"{badges} guests (screen.badge_0 ...); give it one badge per word"))
            _check_enumerations(numbers_path, numbers, script)
