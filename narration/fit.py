"""Whether the scenes' scripts, as written, can show a numbers file.

Some on-screen text is written for the example's words: the hook's fill-in-the-blank
sentence must contain every token of ``fill_blank``, and the party has one guest, with a
badge written in the script, per token. A numbers file whose words differ is refused up
front, naming the numbers key and the script line to edit, instead of failing deep inside
a render.
"""

from __future__ import annotations

import re
from pathlib import Path

from narration.scripts import SceneScript
from qkv_math.numbers import Numbers, NumbersError


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
