"""The projection scene's narration: it works on the main example and says which word asks."""

from __future__ import annotations

import re

import pytest

from narration.facts import build_facts
from narration.numfmt import LANGS
from narration.scripts import load_script, script_path
from qkv_math import derive, load_numbers

NUMBERS = load_numbers()
FACTS = build_facts(NUMBERS, derive(NUMBERS))


@pytest.mark.parametrize("lang", LANGS)
def test_the_asking_word_is_the_word_before_the_blank_in_the_hooks_sentence(lang: str) -> None:
    """The scene names the last word before the blank as the one whose q asks (a next-word
    model predicts the blank there): it must be that word of the sentence the hook shows."""
    hook = load_script("hook", lang, FACTS)
    proj = load_script("projections", lang, FACTS)
    sentence = "".join(hook.items("sentence")).rstrip()
    blank = hook.s("blank")
    assert sentence.endswith(blank)
    before = sentence[: -len(blank)].rstrip()
    asker = proj.s("asker")
    assert before.endswith(asker)
    # the voice says it, in the beat that introduces the word vector, and the note shows it
    said = {b.id: b.text.display for b in proj.beats}
    assert asker in said["intro"]
    assert any(asker in line for line in proj.items("asker_note"))


@pytest.mark.parametrize("lang", LANGS)
def test_the_numbers_said_are_the_examples_query_key_and_value(lang: str) -> None:
    """q's entries are said from the projections' facts, and the projections' q, k and v are
    the vectors the later scenes use (fb.query, fb.k.0, fb.v.0)."""
    fb = NUMBERS.fill_blank
    assert FACTS["pj.q"] == tuple(fb.query) == FACTS["fb.query"]
    assert FACTS["pj.k"] == tuple(fb.K[0]) == FACTS["fb.k.0"]
    assert FACTS["pj.v"] == tuple(fb.V[0]) == FACTS["fb.v.0"]
    raw = script_path("projections", lang).read_text("utf-8")
    multiply = re.search(r'id = "multiply_q"\ntext = "(.*)"', raw)
    assert multiply is not None
    # every entry of q is said, each at its own cue mark, where the working line shows
    for j in range(len(fb.query)):
        assert f"{{@r{j}}}{{pj.q.{j}}}" in multiply.group(1)
