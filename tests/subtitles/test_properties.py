"""Hypothesis properties on random Chinese and English text with synthetic timings."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from narration.subtitles import cues_for_beat
from narration.types import WordTiming

from .support import check_layout, check_timing

CJK = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可"
ZH_PUNCT = "，。！？、；：“”（）《》——…"
ZH_ALPHABET = CJK * 4 + ZH_PUNCT + "0123456789.%·QKVabc "

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def timed_text(draw, zh: bool):
    if zh:
        text = draw(st.text(alphabet=ZH_ALPHABET, min_size=1, max_size=220))
        units = [(i, i + 1) for i, c in enumerate(text) if not c.isspace()]
    else:
        word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzQKV019", min_size=1, max_size=12)
        punct = st.sampled_from(["", "", "", ",", ".", "?", "!", ";", ":", "—", "%"])
        pieces = draw(st.lists(st.tuples(word, punct), min_size=1, max_size=45))
        text = " ".join(w + p for w, p in pieces)
        units, pos = [], 0
        for w, p in pieces:
            units.append((pos, pos + len(w)))
            pos += len(w) + len(p) + 1
    t = draw(st.floats(0.0, 0.5))
    words = []
    for s, e in units:
        dur = draw(st.floats(0.1, 0.4))
        if draw(st.integers(0, 9)) > 0:  # about 10 % of the units have no timing
            words.append(WordTiming(t, t + dur, s, e))
        t += dur + draw(st.sampled_from([0.0, 0.02, 0.3]))
    speech_end = t + draw(st.floats(0.0, 1.0))
    offset = draw(st.floats(0.0, 500.0))
    return text, words, offset, speech_end


def check_track(cues, offset: float, speech_end: float) -> None:
    """The full timing rules, unless the speech is too short to space the cues at all."""
    if speech_end >= 0.2 * len(cues):
        check_timing(cues, [(offset, offset + speech_end)] * len(cues))
    else:  # the gap is shrunk by design; cues still ordered, non-overlapping, in bounds
        assert all(a.end <= b.start for a, b in itertools.pairwise(cues))
        assert all(offset - 1e-6 <= c.start <= c.end <= offset + speech_end + 1e-6
                   for c in cues)


@SETTINGS
@given(timed_text(zh=True))
def test_random_chinese(case) -> None:
    text, words, offset, speech_end = case
    cues = cues_for_beat(text, words, "zh", offset, speech_end)
    check_layout(text, cues, zh=True)
    check_track(cues, offset, speech_end)


@SETTINGS
@given(timed_text(zh=False))
def test_random_english(case) -> None:
    text, words, offset, speech_end = case
    cues = cues_for_beat(text, words, "en", offset, speech_end)
    check_layout(text, cues, zh=False)
    check_track(cues, offset, speech_end)
    tokens = text.replace("—", "— ").split()
    assert " ".join(line for c in cues for line in c.lines).replace("—", "— ").split() == tokens
