"""Scene jobs: what each scene is made from (its probe and cache lookup), its plan, and
rendering the ones to redo in one executor: the local pool of processes, or a Dask cluster
(``--scheduler``)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from common.digests import digest
from narration.scripts import SceneScript
from narration.timeline import SCENE_TAIL
from narration.types import SpeechClip
from pipeline.config import BuildConfig, Inputs
from pipeline.keys import versions
from pipeline.progress import BuildProgress, Timer
from pipeline.scene_render import QUALITIES, RenderedScene, RenderPool, Zygote
from pipeline.store import Entry, Lookup, Probe, SceneStore
from pipeline.voice import beat_plans
from scenes.context import script_digest
from scenes.contract import BeatPlan, Quality, ScenePlan
from scenes.recording import read_inputs
from scenes.registry import SceneInfo


@dataclass
class SceneJob:
    lang: str
    info: SceneInfo
    script: SceneScript
    beats: tuple[BeatPlan, ...]
    probe: Probe
    lookup: Lookup
    entry: Entry | None = None  # set once reused or rendered

    @property
    def label(self) -> str:
        return f"[{self.lang}] {self.info.scene_id}"

    @property
    def frames(self) -> int:
        fps = Quality.of(self.probe.quality).fps
        return round((sum(b.slot for b in self.beats) + SCENE_TAIL) * fps)


def make_probe(store: SceneStore, inputs: Inputs, lang: str, quality: str,
               script: SceneScript, beats: tuple[BeatPlan, ...]) -> Probe:
    parts = {"beats": digest([b.id for b in beats]), "versions": digest(versions()),
             # The picture's format is part of what it is made from: the slot's folder name
             # alone let a 4k run find the high picture's segments (same key, same fps).
             "render": digest([quality, *QUALITIES[quality]])}  # as Quality.of(quality)
    for b in beats:
        parts[f"beat {b.id} timing"] = digest([b.slot, b.speech, b.marks])
    names, _files = store.recorded_names(script.scene_id, lang, quality)
    current = read_inputs(sorted(n for n in names if "." in n),
                          {"numbers": inputs.numbers, "derived": inputs.derived})
    current["script"] = script_digest(script)
    return Probe(script.scene_id, lang, quality, parts, current)


def scene_jobs(config: BuildConfig, inputs: Inputs, store: SceneStore,
               clips: dict[str, dict[tuple[str, str], SpeechClip]]) -> list[SceneJob]:
    jobs = []
    for lang in inputs.langs:
        for info, script in zip(inputs.scenes, inputs.scripts[lang], strict=True):
            beats = beat_plans(script, clips[lang])
            probe = make_probe(store, inputs, lang, config.quality.name, script, beats)
            jobs.append(SceneJob(lang, info, script, beats, probe, store.lookup(probe)))
    return jobs


def start_zygote(config: BuildConfig, work: Path, langs: Sequence[str]) -> Zygote | None:
    """The local pool's scene processes' server (None with a Dask scheduler); with Chinese
    among ``langs``, what Chinese scenes load is loaded once there too."""
    return None if config.scheduler else Zygote(work / "logs", chinese="zh" in langs)


class SceneServer:
    """The scene processes' server, started by the first :meth:`start`: before the voice
    when it has clips to synthesize (so Manim loads meanwhile), else once the plan has
    scenes to render. A build that renders none (a rerun, a change to the outputs only)
    never starts it: loading Manim (and jieba, for Chinese) cost 1.5-4 CPU s there.
    Start it on the thread that lives as long as the build: the server is killed when
    the thread that started it ends (``PR_SET_PDEATHSIG``)."""

    def __init__(self, config: BuildConfig, work: Path, langs: Sequence[str]) -> None:
        self._args = (config, work, langs)
        self._started = False
        self.zygote: Zygote | None = None

    def start(self) -> None:
        if not self._started:
            self._started = True
            self.zygote = start_zygote(*self._args)

    def kill(self) -> None:
        self._started = True  # none started after this
        if self.zygote is not None:
            self.zygote.kill()


def write_plan(job: SceneJob, inputs: Inputs, work: Path, verbose: bool = False,
               texts: Path | None = None) -> tuple[Path, ScenePlan]:
    """The job's plan, in a folder of its own run: a process left over from an interrupted
    run can only ever write into its own folder."""
    run_id = uuid.uuid4().hex
    d = work / "jobs" / f"{job.lang}-{job.info.scene_id}-{run_id[:12]}"
    d.mkdir(parents=True)
    plan = ScenePlan(run_id, job.info.scene_id, job.lang, inputs.numbers_path,
                     job.probe.quality, job.beats, d / "picture.mp4", d / "report.json",
                     work / "media" / f"{job.lang}-{job.info.scene_id}", verbose=verbose,
                     scripts=inputs.scripts_dir, texts=texts)
    path = d / "plan.json"
    plan.write(path)
    return path, plan


def render_jobs(todo: list[SceneJob], config: BuildConfig, inputs: Inputs,
                store: SceneStore, progress: BuildProgress, work: Path,
                zygote: Zygote | None = None,
                rendered: Callable[[SceneJob], None] | None = None) -> None:
    """Render ``todo`` in one pool of ``config.jobs`` processes (longest first), forked from
    ``zygote`` if given (see ``SceneServer``); ``rendered(job)`` is called as each job's
    entry is stored."""
    if not todo:
        return
    order = sorted(todo, key=lambda j: -j.frames)
    shutil.rmtree(work / "jobs", ignore_errors=True)  # earlier runs' (the lock is ours)
    by_run: dict[str, SceneJob] = {}
    work_items = []
    for job in order:
        path, plan = write_plan(job, inputs, work, config.verbose, config.text_cache)
        by_run[plan.run_id] = job
        work_items.append((path, plan))
    echo = progress.say if config.verbose else None
    if config.scheduler:
        from pipeline.dask_pool import DaskPool

        pool: RenderPool | DaskPool = DaskPool(config.scheduler, work / "logs", echo=echo)
        progress.say(f"scenes: {len(order)} job(s) to the Dask scheduler at "
                     f"{config.scheduler}")
    else:
        pool = RenderPool(config.jobs, work / "logs", echo=echo, zygote=zygote)
    progress.start_renders(len(order), sum(j.frames for j in order))

    def done(r: RenderedScene) -> None:
        job = by_run[r.plan.run_id]
        job.entry = store.put(job.probe, r.report)
        shutil.rmtree(r.plan.video.parent, ignore_errors=True)
        progress.scene_done(job.label, job.frames, r.seconds)
        for w in r.report.times.warnings + r.report.times.layout:
            progress.say(f"warning: {w}")
        if rendered is not None:
            rendered(job)

    try:
        with Timer(progress, "scenes"):
            pool.map(work_items,
                     lambda p: progress.scene_started(by_run[p.run_id].label,
                                                      by_run[p.run_id].frames),
                     lambda p, d, _t: progress.scene_frames(by_run[p.run_id].label, d),
                     done)
    finally:
        progress.end_renders()
