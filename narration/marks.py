"""When the voice reaches each cue mark of a beat, from the engine's own word timings.

A mark sits between words of the spoken text (``Resolved.marks``). Its time is the start of
the first timed word at or after it; a mark after the last word is the end of the speech.
Engines report word timings (espeak-ng WORD events, edge-tts WordBoundary), so no speech
recognition is involved. Without timings (an estimate for previews) the speech time is
spread over the spoken characters.
"""

from __future__ import annotations

from collections.abc import Sequence

from narration.placeholders import Resolved
from narration.types import WordTiming


def mark_times(text: Resolved, words: Sequence[WordTiming], speech_end: float
               ) -> dict[str, float]:
    """Seconds from the clip start at which the voice reaches each mark of ``text``."""
    if not text.marks:
        return {}
    timed = sorted((w for w in words if w.end >= w.start >= 0), key=lambda w: w.char_start)
    if not timed:
        return estimate_mark_times(text, speech_end)
    out: dict[str, float] = {}
    for name, pos in text.marks:
        following = [w for w in timed if w.char_end > pos]
        if not following:
            out[name] = speech_end
            continue
        w = following[0]
        if w.char_start >= pos:
            out[name] = w.start
        else:  # the mark falls inside a timed span (e.g. a whole number read as one word)
            share = (pos - w.char_start) / max(1, w.char_end - w.char_start)
            out[name] = w.start + share * (w.end - w.start)
    # Marks are in text order; keep their times in that order too.
    last = 0.0
    for name, _ in text.marks:
        last = out[name] = min(max(out[name], last), speech_end)
    return out


def estimate_mark_times(text: Resolved, speech_end: float) -> dict[str, float]:
    """Mark times spread by spoken characters over ``[0, speech_end]`` (no word timings)."""
    spoken = text.spoken
    counted = [c.isalnum() for c in spoken]
    total = max(1, sum(counted))
    return {name: speech_end * sum(counted[:pos]) / total for name, pos in text.marks}


def display_words(beat_text: Resolved, words: tuple[WordTiming, ...]) -> list[WordTiming]:
    """Word timings re-pointed from the spoken text to the displayed text."""
    out = []
    for w in words:
        a, b = beat_text.display_pos(w.char_start), beat_text.display_pos(w.char_end)
        if b > a:
            out.append(WordTiming(w.start, w.end, a, b))
    return out
