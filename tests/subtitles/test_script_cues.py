"""The video's own narration, spoken by the offline voice: its subtitles read well.

Every beat of every scene of both cuts is synthesized with espeak-ng (its word timings are
its own, and it speaks the whole script of both languages in seconds, where Piper took two
and a half minutes for the English and Kokoro, the default Chinese voice, a quarter of an
hour; the default voices' cues are judged by the same rules in every render's report, and
the end-to-end renders assert them) at the narration rate, split into cues from the
engine's word timings, and checked with the report's own rules
(``narration.breaks``): no bad break (inside a number, bracket, quote, word or phrase, or
against the grammar rules), reading speed within the limits. The same beats timed from the
text alone (as the other language's track is, with no word timings) are checked in seconds,
with every cue at least 1.2 s.
"""

from __future__ import annotations

import statistics

import pytest

from narration.facts import build_facts
from narration.marks import display_words
from narration.numfmt import LANGS
from narration.scripts import load_script
from narration.subtitles import build_track
from narration.timeline import beat_slot, estimate_speech
from narration.tts.base import narration_rate
from narration.tts.cache import AudioCache
from narration.tts.select import choose_engine
from pipeline.quality import CPS_LIMIT, CPS_MEDIAN_LIMIT, cue_report
from qkv_math import derive, load_numbers
from scenes.registry import discover


@pytest.fixture(scope="module")
def tracks(tmp_path_factory) -> dict[str, tuple[list, list]]:
    cache = AudioCache(tmp_path_factory.mktemp("audio"))
    engine = choose_engine("espeak", warn=print)
    engines = {"en": engine, "zh": engine}
    numbers = load_numbers()
    facts = build_facts(numbers, derive(numbers))
    out = {}
    for lang in LANGS:
        beats, t = [], 0.0
        for info in discover(cut=None):
            for beat in load_script(info.scene_id, lang, facts).beats:
                clip = cache.get_or_synthesize(engines[lang], beat.text.spoken, None,
                                               narration_rate(lang), lang)
                beats.append((beat.text.display, display_words(beat.text, clip.words), t,
                              clip.duration))
                t += beat_slot(clip.duration)
        out[lang] = (build_track(beats, lang), beats)
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_no_break_inside_numbers_brackets_or_words(tracks, lang: str) -> None:
    cues, beats = tracks[lang]
    assert cue_report(cues, beats, lang)["bad_breaks"] == []


@pytest.mark.parametrize("lang", LANGS)
def test_reading_speed(tracks, lang: str) -> None:
    cues, beats = tracks[lang]
    rep = cue_report(cues, beats, lang)
    assert rep["over_cps"] == []
    assert rep["cps"]["max"] <= CPS_LIMIT[lang]
    assert rep["cps"]["median"] <= CPS_MEDIAN_LIMIT[lang]
    assert statistics.median(c.end - c.start for c in cues) >= 1.0


@pytest.fixture(scope="module")
def estimated() -> dict[str, tuple[list, list]]:
    numbers = load_numbers()
    facts = build_facts(numbers, derive(numbers))
    out = {}
    for lang in LANGS:
        beats, t = [], 0.0
        for info in discover(cut=None):
            for beat in load_script(info.scene_id, lang, facts).beats:
                speech = estimate_speech(beat.text.spoken, lang)
                beats.append((beat.text.display, [], t, speech))
                t += beat_slot(speech)
        out[lang] = (build_track(beats, lang), beats)
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_estimated_timings_no_bad_breaks_nor_short_cues(estimated, lang: str) -> None:
    cues, beats = estimated[lang]
    rep = cue_report(cues, beats, lang)
    assert rep["bad_breaks"] == []
    assert rep["durations_out_of_range"] == []
