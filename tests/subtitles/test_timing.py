"""Cue timing: word starts, min/max durations, gaps, beat bounds, missing timings."""

from __future__ import annotations

import itertools

import pytest

from narration.subtitles import MAX_DURATION, MIN_DURATION, build_track, cues_for_beat
from narration.types import WordTiming

from .support import (
    EN_SENTENCE,
    ZH_SENTENCE,
    check_layout,
    check_timing,
    en_word_timings,
    first_spoken,
    timing_at,
    zh_char_timings,
)


@pytest.mark.parametrize(("text", "lang", "timings"), [
    (ZH_SENTENCE, "zh", zh_char_timings),
    (EN_SENTENCE, "en", en_word_timings),
])
def test_cues_follow_word_timings(text, lang, timings) -> None:
    words, end = timings(text)
    offset = 12.5
    cues = cues_for_beat(text, words, lang, offset, end)
    spans = check_layout(text, cues, zh=lang == "zh")
    check_timing(cues, [(offset, offset + end)] * len(cues))
    for cue, span in zip(cues, spans, strict=True):
        word = timing_at(words, first_spoken(text, span))
        assert word is not None
        assert cue.start == pytest.approx(offset + word.start, abs=0.001)
        last = timing_at(words, max(i for i in range(*span) if text[i].isalnum()))
        assert last is not None
        assert cue.end >= min(offset + last.end, cue.start + MIN_DURATION) - 0.001 - 0.08


def test_missing_timings_are_interpolated() -> None:
    words, end = zh_char_timings(ZH_SENTENCE)
    kept = [w for k, w in enumerate(words) if k % 4 and 0 < k < len(words) - 3]
    cues = cues_for_beat(ZH_SENTENCE, kept, "zh", 1.0, end)
    check_layout(ZH_SENTENCE, cues, zh=True)
    check_timing(cues, [(1.0, 1.0 + end)] * len(cues))
    full = cues_for_beat(ZH_SENTENCE, words, "zh", 1.0, end)
    assert [c.lines for c in cues] == [c.lines for c in full]
    for a, b in zip(cues, full, strict=True):
        assert abs(a.start - b.start) < 0.5

    en_words, en_end = en_word_timings(EN_SENTENCE)
    cues = cues_for_beat(EN_SENTENCE, en_words[2:-2:2], "en", 0.0, en_end)
    check_layout(EN_SENTENCE, cues, zh=False)
    check_timing(cues, [(0.0, en_end)] * len(cues))


def test_no_timings_spreads_speech_over_characters() -> None:
    cues = cues_for_beat(EN_SENTENCE, [], "en", 2.0, 14.0)
    check_layout(EN_SENTENCE, cues, zh=False)
    check_timing(cues, [(2.0, 16.0)] * len(cues))
    assert cues[0].start == pytest.approx(2.0)
    assert 15.8 <= cues[-1].end <= 16.0


def test_garbage_timings_do_not_crash() -> None:
    text = "查询和键做点积。"
    words = [WordTiming(5.0, 4.0, 0, 1), WordTiming(-1.0, 99.0, 1, 2),
             WordTiming(0.5, 0.6, 50, 60), WordTiming(0.2, 0.3, 3, 3),
             WordTiming(float("nan"), 1.0, 4, 5), WordTiming(0.9, 1.0, 6, 7)]
    cues = cues_for_beat(text, words, "zh", 0.0, 2.0)
    check_layout(text, cues, zh=True)
    check_timing(cues, [(0.0, 2.0)] * len(cues))


def test_short_cue_is_extended_to_min_duration() -> None:
    cues = cues_for_beat("Yes.", [WordTiming(0.1, 0.35, 0, 3)], "en", 4.0, 2.0)
    assert len(cues) == 1
    assert cues[0].start == pytest.approx(4.1)
    assert cues[0].end - cues[0].start >= MIN_DURATION


def test_short_cue_never_extends_past_speech_end() -> None:
    cues = cues_for_beat("Yes.", [WordTiming(0.1, 0.35, 0, 3)], "en", 4.0, 0.4)
    assert cues[0].end == pytest.approx(4.4)


def test_slow_speech_is_split_below_max_duration() -> None:
    text = "one two three four five six seven eight nine ten eleven twelve thirteen"
    words, end = en_word_timings(text, per_char=0.25)
    cues = cues_for_beat(text, words, "en", 0.0, end)
    check_layout(text, cues, zh=False)
    check_timing(cues, [(0.0, end)] * len(cues))
    assert all(c.end - c.start <= MAX_DURATION for c in cues)
    assert len(cues) >= 3


@pytest.mark.parametrize("gap", [0.0, 0.08, 0.2])
def test_gap_is_a_parameter(gap: float) -> None:
    words, end = zh_char_timings(ZH_SENTENCE, pause=0.0)
    cues = cues_for_beat(ZH_SENTENCE, words, "zh", 0.0, end, gap=gap)
    check_timing(cues, [(0.0, end)] * len(cues), gap=gap)


def test_build_track_enforces_gap_across_beats() -> None:
    zh_words, zh_end = zh_char_timings(ZH_SENTENCE, start=0.0)
    # Speech runs right up to the clip end, and the next beat starts immediately.
    last = zh_words[-1]
    zh_end = last.end
    second = "然后把权重乘到值向量上，再加起来。"
    w2, end2 = zh_char_timings(second, start=0.0)
    beats = [(ZH_SENTENCE, zh_words, 1.0, zh_end), (second, w2, 1.0 + zh_end, end2),
             ("", [], 1.0 + zh_end + end2, 0.0)]
    track = build_track(beats, "zh")
    first = cues_for_beat(ZH_SENTENCE, zh_words, "zh", 1.0, zh_end)
    n = len(first)
    bounds = [(1.0, 1.0 + zh_end)] * n + [(1.0 + zh_end, 1.0 + zh_end + end2)] * (len(track) - n)
    check_timing(track, bounds)
    assert track[n].start == pytest.approx(1.0 + zh_end)
    assert track[n - 1].end <= track[n].start - 0.08 + 1e-9
    check_layout(ZH_SENTENCE + second, track, zh=True)


def test_build_track_rejects_overlapping_beats() -> None:
    with pytest.raises(ValueError, match="starts before"):
        build_track([("a b", [], 0.0, 2.0), ("c d", [], 1.0, 2.0)], "en")


def test_crowded_beat_still_orders_cues() -> None:
    text = "一二三四五六七八九十" * 20
    cues = cues_for_beat(text, [], "zh", 0.0, 1.0)
    check_layout(text, cues, zh=True)
    assert all(a.end <= b.start for a, b in itertools.pairwise(cues))
    assert all(0.0 <= c.start <= c.end <= 1.0 for c in cues)


def test_a_short_beat_keeps_its_cue_readable_in_the_pause_after_it() -> None:
    from narration.subtitles import GRACE, MIN_DURATION, build_track
    from narration.types import WordTiming

    words = [WordTiming(0.05, 0.6, 0, 3)]
    cues = build_track([("想一想", words, 10.0, 0.65), ("下一句话开始了。", [], 14.0, 2.0)], "zh")
    first = cues[0]
    # as long as the grace after the speech allows (0.55 s spoken + 0.5 s), short of 1.2 s
    assert first.end - first.start >= min(MIN_DURATION, 0.65 - 0.05 + GRACE) - 1e-3
    assert first.end == pytest.approx(10.0 + 0.65 + GRACE, abs=1e-3)
    # With the next beat right after the speech, it ends before that beat's cue starts.
    tight = build_track([("想一想", words, 10.0, 0.65), ("下一句话开始了。", [], 10.7, 2.0)], "zh")
    assert tight[0].end <= tight[1].start - 0.08 + 1e-3


def _evenly(text: str, seconds: float) -> list[WordTiming]:
    """Each word of ``text`` timed evenly over ``seconds`` (as fast as a voice may read)."""
    import re

    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    step = seconds / len(spans)
    return [WordTiming(i * step, (i + 1) * step, a, b) for i, (a, b) in enumerate(spans)]


FAST = "It is tagged “a place name” and “where I grew up”."  # 50 characters


@pytest.mark.parametrize("before", [0.0, 0.05, 1.0])
def test_a_cue_spoken_too_fast_starts_up_to_three_frames_early(before: float) -> None:
    """Spoken in 2.45 s (20.4 characters a second) right before the next beat: the cue may
    start up to 3 frames before its speech to be read at 20 a second, never before the
    previous beat's speech ends; a beat alone keeps its cue inside it."""
    from narration.subtitles import LEAD, MAX_CPS, reading_chars

    offset = 10.0
    beats = [("Before.", _evenly("Before.", 1.0), offset - before - 1.0, 1.0),
             (FAST, _evenly(FAST, 2.45), offset, 2.45),
             ("After this.", _evenly("After this.", 1.0), offset + 2.53, 1.0)]
    cues = build_track(beats, "en")
    fast = next(c for c in cues if c.lines[0].startswith("It is"))
    rate = reading_chars(fast.lines, False) / (fast.end - fast.start)
    assert fast.end <= offset + 2.45 + 1e-6
    assert fast.start > offset - before or fast.start == offset  # after the speech before
    if before >= LEAD + 0.08:  # room for the lead and the gap after the cue before
        assert fast.start >= offset - LEAD - 1e-6 and rate <= MAX_CPS[False]
    elif before == 0.0:
        assert fast.start == pytest.approx(offset) and rate > MAX_CPS[False]
    alone = cues_for_beat(FAST, _evenly(FAST, 2.45), "en", offset, 2.45)
    assert alone[0].start >= offset
    # "Before." is spoken in 1.0 s: it stays into the pause after it if there is one,
    # else it starts 3 frames early (still short of 1.2 s, by design)
    first = cues[0]
    if before >= 0.2:
        assert first.end - first.start >= MIN_DURATION - 1e-3
    else:
        assert first.start == pytest.approx(beats[0][2] - LEAD)
    for a, b in itertools.pairwise(cues):
        assert b.start - a.end >= 0.08 - 1e-6
