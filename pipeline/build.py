"""Build the videos of one cut: the voice (``pipeline.voice``), the scene jobs, reused or
rendered in one executor (``pipeline.scene_jobs``: a local pool or a Dask cluster), then
each language's outputs (``pipeline.outputs``).

Every artefact is keyed on what it is made from:

- a beat's audio by engine, voice, rate and text (``narration.tts.cache``);
- a scene's picture by its filled-in script, beat durations and cue marks, the versions of
  Manim/PyAV/ffmpeg, and what it read and ran while rendering (``pipeline.store``);
- a language's outputs by its scenes' pictures, its beats' audio, the other language's
  texts (its second subtitle track), the output options and the pipeline's own code
  (``build.json`` in the language's output folder).

So a run with nothing changed synthesizes nothing, renders nothing and rewrites nothing.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from narration.tts.base import Engine
from narration.tts.cache import AudioCache
from narration.types import SpeechClip
from pipeline.config import BuildConfig, Inputs
from pipeline.outputs import build_language, language_key, previous_key
from pipeline.progress import BuildProgress, Timer
from pipeline.scene_audio import EarlyVoices
from pipeline.scene_jobs import SceneServer, render_jobs, scene_jobs
from pipeline.segments import SegmentStore
from pipeline.store import Lookup, SceneStore
from pipeline.voice import cached_clips, synthesize
from scenes import text_store


class LayoutError(RuntimeError):
    """A scene drew something across the frame edge, the subtitle band or another element."""


@dataclass
class Summary:
    """What a build did, for the final lines and for tests."""

    synthesized: int = 0
    voiced: int = 0
    rendered: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    langs_built: list[str] = field(default_factory=list)
    langs_reused: list[str] = field(default_factory=list)

    @classmethod
    def combine(cls, parts: Sequence[Summary]) -> Summary:
        """One summary of several builds (one per cut)."""
        out = cls()
        for p in parts:
            out.synthesized += p.synthesized
            out.voiced += p.voiced
            for name in ("rendered", "reused", "langs_built", "langs_reused"):
                getattr(out, name).extend(getattr(p, name))
        return out


def build(config: BuildConfig, inputs: Inputs, engine: Engine, progress: BuildProgress,
          plan_only: bool = False) -> Summary:
    """Build every language in ``inputs.langs``; with ``plan_only``, only say what would be
    reused or rebuilt, and why."""
    stores = {lang: SegmentStore(config.cache / "segments") for lang in inputs.langs}
    early = EarlyVoices(stores, config.quality.fps)
    try:
        return _build(config, inputs, engine, progress, plan_only, early)
    finally:
        early.close()


def _build(config: BuildConfig, inputs: Inputs, engine: Engine, progress: BuildProgress,
           plan_only: bool, early: EarlyVoices) -> Summary:
    summary = Summary()
    store = SceneStore(config.scene_cache)
    server = SceneServer(config, config.out / ".work", inputs.langs)
    cache = AudioCache(config.audio_cache)
    clips: dict[str, dict[tuple[str, str], SpeechClip]] = {}
    complete = list(inputs.scenes)
    if config.scheduler and not plan_only:
        # Reached before the voice is made: a wrong address is one line at once, not after
        # minutes of synthesis.
        from pipeline.dask_pool import connect  # distributed, only when asked

        connect(config.scheduler).close()
    try:
        # Clips to synthesize: the scene processes' server loads Manim while they are made.
        # (Started here, on the main thread: it dies with the thread that started it.)
        looked = {lang: cached_clips(cache, engine, inputs.scripts[lang], lang)
                  for lang in inputs.langs}
        if not plan_only and any(missing for _found, missing in looked.values()):
            server.start()
        with Timer(progress, "voice"):
            for lang in inputs.langs:
                if plan_only:  # look up, never synthesize
                    clips[lang], missing = looked[lang]
                    if missing:
                        more = " ..." if len(missing) > 4 else ""
                        progress.say(f"[{lang}] voice: {len(missing)} beat(s) to synthesize "
                                     f"({', '.join(missing[:4])}{more})")
                        for s in inputs.scripts[lang]:
                            if any(m.startswith(f"{s.scene_id}.") for m in missing):
                                progress.say(f"[{lang}] {s.scene_id:<18} rebuild voice changed")
                                complete = [i for i in complete if i.scene_id != s.scene_id]
                    continue
                made = cache.synthesized
                clips[lang] = synthesize(lang, inputs.scripts[lang], engine, cache,
                                         found=looked[lang][0],
                                         say=progress.say)
                summary.synthesized += cache.synthesized - made
                summary.voiced += sum(len(s.beats) for s in inputs.scripts[lang])
        if plan_only:
            keep = {i.scene_id for i in complete}
            plan_inputs = dataclasses.replace(
                inputs, scenes=complete,
                scripts={lang: [s for s in scripts if s.scene_id in keep]
                         for lang, scripts in inputs.scripts.items()})
        else:
            plan_inputs = inputs
        jobs = scene_jobs(config, plan_inputs, store, clips)
        for job in jobs:
            if job.lookup.entry is not None:
                job.entry = job.lookup.entry
                store.touch(job.entry)
        if plan_only:
            outputs = "outputs" if inputs.cut == "full" else f"{inputs.cut} outputs"
            for job in jobs:
                verdict = "reuse  " if job.entry else "rebuild"
                progress.say(f"{job.label:<22} {verdict} {job.lookup.reason}")
            for lang in plan_inputs.langs:
                mine = [j for j in jobs if j.lang == lang]
                if mine and all(j.entry for j in mine) and len(complete) == len(inputs.scenes):
                    same = previous_key(inputs.out_dir(config.out, lang)) == language_key(
                        config, plan_inputs, lang, mine, clips[lang])
                    progress.say(f"[{lang}] {outputs:<18} "
                                 + ("reuse   unchanged" if same else "rebuild inputs changed"))
                else:
                    progress.say(f"[{lang}] {outputs:<18} rebuild scenes re-rendered")
            return summary

        # Languages that will be rebuilt read their reused pictures: check them whole first,
        # and render again any that is damaged (instead of failing on it at every run).
        for lang in plan_inputs.langs:
            mine = [j for j in jobs if j.lang == lang]
            if all(j.entry for j in mine) and previous_key(
                    inputs.out_dir(config.out, lang)) == language_key(
                    config, plan_inputs, lang, mine, clips[lang]):
                continue
            for j in mine:
                if j.entry is not None and not j.entry.verify():
                    shutil.rmtree(j.entry.path, ignore_errors=True)
                    j.entry, j.lookup = None, Lookup(None, "cached picture damaged")
        todo = [j for j in jobs if j.entry is None]
        summary.reused = [j.label for j in jobs if j.entry is not None]
        summary.rendered = [j.label for j in todo]
        for j in todo:
            progress.say(f"{j.label}: render ({j.lookup.reason})")
        if todo:
            server.start()  # if no clip was synthesized
        render_jobs(todo, config, plan_inputs, store, progress, config.out / ".work",
                    server.zygote, lambda job: early.start(job.lang, job.script, job.entry,
                                                           clips[job.lang]))
    finally:
        server.kill()  # nothing to render, or it failed (a pool closes its own)

    problems = [w for j in jobs if j.entry is not None for w in j.entry.times.layout]
    if problems and not config.accept_layout:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise LayoutError(f"layout: {problems[0]}{more}; nothing was published. Shorten the "
                          f"text or the numbers, or pass --accept-layout to publish anyway")
    todo_langs: list[tuple[str, str]] = []
    for lang in plan_inputs.langs:
        mine = [j for j in jobs if j.lang == lang]
        key = language_key(config, plan_inputs, lang, mine, clips[lang])
        if previous_key(inputs.out_dir(config.out, lang)) == key:
            summary.langs_reused.append(lang)
        else:
            todo_langs.append((lang, key))

    def outputs(lang: str, key: str) -> None:
        staged = config.out / (f".{lang}.staging" if inputs.cut == "full"
                               else f".{lang}-{inputs.cut}.staging")
        shutil.rmtree(staged, ignore_errors=True)
        try:
            build_language(config, plan_inputs, lang, [j for j in jobs if j.lang == lang],
                           clips[lang], key, staged, progress, early.stores[lang])
        finally:
            shutil.rmtree(staged, ignore_errors=True)

    # The languages' outputs side by side (with --jobs 2 or more): much of each is one
    # ffmpeg process on one core (the soundtrack's AAC, the loudness measure, the joins).
    # Each language is published whole or not at all; the first failure is raised once
    # both have finished.
    with ThreadPoolExecutor(max_workers=max(1, min(len(todo_langs), config.jobs))) as pool:
        futures = [(lang, pool.submit(outputs, lang, key)) for lang, key in todo_langs]
    failed = [(lang, f.exception()) for lang, f in futures]
    summary.langs_built += [lang for lang, err in failed if err is None]
    if errors := [err for _, err in failed if err is not None]:
        raise errors[0]
    cache.prune()
    text_store.prune(config.text_cache)  # texts the scene processes read or made stay
    return summary
