"""The voice stage: every beat's clip (synthesized or from the audio cache), and each
beat's slot and cue-mark times from its clip."""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from narration.marks import mark_times
from narration.pronunciation import record_engine
from narration.scripts import SceneScript
from narration.timeline import beat_slot
from narration.tts.base import Engine, narration_rate
from narration.tts.cache import AudioCache
from narration.types import SpeechClip
from scenes.contract import BeatPlan


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def synthesize(lang: str, scripts: list[SceneScript], engine: Engine, cache: AudioCache,
               say=_stderr, found: dict[tuple[str, str], SpeechClip] | None = None
               ) -> dict[tuple[str, str], SpeechClip]:
    """One clip per beat (cached); progress through ``say`` (default: stderr). ``found``:
    clips already looked up (:func:`cached_clips`), not looked up again.

    Kokoro's beats are made by a few threads sharing the process's one ONNX Runtime
    session (one intra-op thread each; the model runs outside the GIL), so the voice uses
    the machine's cores; the other engines speak one beat at a time, as before.
    """
    beats = [(s.scene_id, b) for s in scripts for b in s.beats]
    clips: dict[tuple[str, str], SpeechClip] = {}
    t0 = time.monotonic()
    before = cache.synthesized

    known = found or {}

    def one(scene_id: str, beat) -> tuple[SpeechClip, bool]:
        if (scene_id, beat.id) in known:
            return known[(scene_id, beat.id)], False
        made = cache.synthesized_by_this_thread()
        clip = cache.get_or_synthesize(engine, beat.text.spoken, None, narration_rate(lang),
                                       lang)
        return clip, cache.synthesized_by_this_thread() > made

    def report(n: int, scene_id: str, beat, clip: SpeechClip, fresh: bool) -> None:
        clips[(scene_id, beat.id)] = clip
        record_engine(beat.text.spoken, clip.engine)  # the pronunciation check reads it
        if fresh:
            say(f"[{lang}] voice {n}/{len(beats)}: {scene_id}.{beat.id} "
                f"({clip.engine}, {clip.duration:.1f} s)")

    workers = _voice_workers(engine, lang)
    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(one, scene_id, beat): (scene_id, beat)
                       for scene_id, beat in beats}
            for n, fut in enumerate(as_completed(futures), 1):
                report(n, *futures[fut], *fut.result())
    else:
        for n, (scene_id, beat) in enumerate(beats, 1):
            report(n, scene_id, beat, *one(scene_id, beat))
    clips = {(s, b.id): clips[(s, b.id)] for s, b in beats}  # in script order
    made = cache.synthesized - before
    if made:
        say(f"[{lang}] voice: {len(beats)} beats, {made} synthesized, "
            f"{len(beats) - made} from cache ({time.monotonic() - t0:.1f} s)")
    return clips


def _voice_workers(engine: Engine, lang: str) -> int:
    """Threads for the voice stage: up to 4 (the cores) when Kokoro speaks, else 1."""
    from narration.tts.select import route

    try:
        name = route(engine, lambda eng, _v: eng.name, engine.default_voice(lang))
    except Exception:  # an engine that cannot even route: one at a time
        return 1
    return max(1, min(4, os.cpu_count() or 1)) if name == "kokoro" else 1


def beat_plans(script: SceneScript, clips: dict[tuple[str, str], SpeechClip]
               ) -> tuple[BeatPlan, ...]:
    """Slot, speech length and cue-mark times of each beat, from its clip."""
    out = []
    for b in script.beats:
        c = clips[(script.scene_id, b.id)]
        out.append(BeatPlan(b.id, beat_slot(c.duration), c.duration,
                            mark_times(b.text, c.words, c.duration)))
    return tuple(out)


def cached_clips(cache: AudioCache, engine: Engine, scripts: list[SceneScript], lang: str
                 ) -> tuple[dict[tuple[str, str], SpeechClip], list[str]]:
    """The beats' clips already cached, and the beats (scene.beat) still to synthesize:
    what :func:`synthesize` would find and make (nothing is synthesized)."""
    found: dict[tuple[str, str], SpeechClip] = {}
    missing = []
    rate = narration_rate(lang)
    for s in scripts:
        for b in s.beats:
            try:
                clip = cache.cached(engine, b.text.spoken, None, rate, lang)
            except Exception:  # an engine that cannot even route
                clip = None
            if clip is None:
                missing.append(f"{s.scene_id}.{b.id}")
            else:
                found[(s.scene_id, b.id)] = clip
    return found, missing
