"""The voice stage: every beat's clip (synthesized or from the audio cache), and each
beat's slot and cue-mark times from its clip."""

from __future__ import annotations

import sys
import time

from narration.marks import mark_times
from narration.scripts import SceneScript
from narration.timeline import beat_slot
from narration.tts.base import narration_rate
from narration.tts.cache import AudioCache
from narration.types import Clip
from scenes.contract import BeatPlan


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def synthesize(lang: str, scripts: list[SceneScript], engine, cache: AudioCache,
               say=_stderr) -> dict[tuple[str, str], Clip]:
    """One clip per beat (cached); progress through ``say`` (default: stderr)."""
    beats = [(s.scene_id, b) for s in scripts for b in s.beats]
    clips: dict[tuple[str, str], Clip] = {}
    t0 = time.monotonic()
    before = cache.synthesized
    for n, (scene_id, beat) in enumerate(beats, 1):
        made = cache.synthesized
        clip = cache.get_or_synthesize(engine, beat.text.spoken, None, narration_rate(lang),
                                       lang, breaks=tuple(p for _, p in beat.text.marks))
        clips[(scene_id, beat.id)] = clip
        if cache.synthesized > made:
            say(f"[{lang}] voice {n}/{len(beats)}: {scene_id}.{beat.id} "
                f"({clip.engine}, {clip.duration:.1f} s)")
    made = cache.synthesized - before
    if made:
        say(f"[{lang}] voice: {len(beats)} beats, {made} synthesized, "
            f"{len(beats) - made} from cache ({time.monotonic() - t0:.1f} s)")
    return clips


def beat_plans(script: SceneScript, clips: dict[tuple[str, str], Clip]
               ) -> tuple[BeatPlan, ...]:
    """Slot, speech length and cue-mark times of each beat, from its clip."""
    out = []
    for b in script.beats:
        c = clips[(script.scene_id, b.id)]
        out.append(BeatPlan(b.id, beat_slot(c.duration), c.duration,
                            mark_times(b.text, c.words, c.duration)))
    return tuple(out)


def cached_clips(cache: AudioCache, engine, scripts: list[SceneScript], lang: str
                 ) -> tuple[dict[tuple[str, str], Clip], list[str]]:
    """The beats' clips already cached, and the beats (scene.beat) still to synthesize."""
    from narration.tts.select import route

    found: dict[tuple[str, str], Clip] = {}
    missing = []
    rate = narration_rate(lang)
    for s in scripts:
        for b in s.beats:
            def look(eng, v, text=b.text.spoken,
                     breaks=tuple(p for _, p in b.text.marks)):
                clip = cache.lookup(eng.name, text, v, rate, breaks)
                if clip is None:
                    raise LookupError(text)
                return clip

            try:
                found[(s.scene_id, b.id)] = route(engine, look, engine.default_voice(lang))
            except Exception:  # not cached, or an engine that cannot even route
                missing.append(f"{s.scene_id}.{b.id}")
    return found, missing
