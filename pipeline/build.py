"""Build the videos: voice, scene jobs (reused or rendered in one pool), then per language
the soundtrack, subtitles, master, clips, deck, kit and report.

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
import functools
import json
import os
import shutil
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from narration import pronunciation, style, subtitle_files
from narration.bilingual import bilingual_cues
from narration.marks import mark_times
from narration.numfmt import LANGS
from narration.placeholders import Resolved
from narration.scripts import SCRIPTS_DIR, SceneScript, video_summary, video_title
from narration.spoken import LEXICON_DIR
from narration.subtitles import build_track
from narration.timeline import SCENE_TAIL, beat_slot
from narration.tts.base import narration_rate
from narration.tts.cache import AudioCache
from narration.types import Clip, Cue, WordTiming
from pipeline import atomic, deck, kit, loudness, media, quality, soundtrack
from pipeline import clips as scene_clips
from pipeline.config import BuildConfig, Inputs
from pipeline.progress import BuildProgress, Timer
from pipeline.scene_render import QUALITIES, RenderedScene, RenderPool
from pipeline.segments import SegmentStore
from pipeline.store import Entry, Lookup, Probe, SceneStore
from scenes.context import script_digest
from scenes.contract import BeatPlan, ScenePlan
from scenes.recording import PROJECT, digest, file_digest, read_inputs, sha256_file
from scenes.registry import CUTS as CUT_NAMES
from scenes.registry import SceneInfo

BUILD_FORMAT = 1


class LayoutError(RuntimeError):
    """A scene drew something across the frame edge, the subtitle band or another element."""


@functools.cache
def versions() -> dict[str, str]:
    """The tools whose versions change a picture or a master."""
    out = {}
    for pkg in ("manim", "av", "manimpango", "manimgx-fonts-cjk", "imageio-ffmpeg"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "-"
    out["ffmpeg"] = Path(media.FFMPEG).name
    return out


@dataclass(frozen=True)
class PlacedBeat:
    scene_id: str
    beat_id: str
    text: Resolved
    start: float  # absolute seconds in the video
    end: float
    clip: Clip


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
        fps = QUALITIES[self.probe.quality][2]
        return round((sum(b.slot for b in self.beats) + SCENE_TAIL) * fps)


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


# -- voice --------------------------------------------------------------------------------
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
                                       lang)
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


# -- scene jobs ---------------------------------------------------------------------------
def make_probe(store: SceneStore, inputs: Inputs, lang: str, quality: str,
               script: SceneScript, beats: tuple[BeatPlan, ...]) -> Probe:
    parts = {"beats": digest([b.id for b in beats]), "versions": digest(versions()),
             # The picture's format is part of what it is made from: the slot's folder name
             # alone let a 4k run find the high picture's segments (same key, same fps).
             "render": digest([quality, *QUALITIES[quality]])}
    for b in beats:
        parts[f"beat {b.id} timing"] = digest([b.slot, b.speech, b.marks])
    names, _files = store.recorded_names(script.scene_id, lang, quality)
    current = read_inputs(sorted(n for n in names if "." in n),
                          {"numbers": inputs.numbers, "derived": inputs.derived})
    current["script"] = script_digest(script)
    return Probe(script.scene_id, lang, quality, parts, current)


def scene_jobs(config: BuildConfig, inputs: Inputs, store: SceneStore,
               clips: dict[str, dict[tuple[str, str], Clip]]) -> list[SceneJob]:
    jobs = []
    for lang in inputs.langs:
        for info, script in zip(inputs.scenes, inputs.scripts[lang], strict=True):
            beats = beat_plans(script, clips[lang])
            probe = make_probe(store, inputs, lang, config.quality, script, beats)
            jobs.append(SceneJob(lang, info, script, beats, probe, store.lookup(probe)))
    return jobs


def write_plan(job: SceneJob, inputs: Inputs, work: Path, verbose: bool = False
               ) -> tuple[Path, ScenePlan]:
    """The job's plan, in a folder of its own run: a process left over from an interrupted
    run can only ever write into its own folder."""
    run_id = uuid.uuid4().hex
    d = work / "jobs" / f"{job.lang}-{job.info.scene_id}-{run_id[:12]}"
    d.mkdir(parents=True)
    plan = ScenePlan(run_id, job.info.scene_id, job.lang, inputs.numbers_path,
                     job.probe.quality, job.beats, d / "picture.mp4", d / "report.json",
                     work / "media" / f"{job.lang}-{job.info.scene_id}", verbose=verbose)
    path = d / "plan.json"
    plan.write(path)
    return path, plan


def render_jobs(todo: list[SceneJob], config: BuildConfig, inputs: Inputs,
                store: SceneStore, progress: BuildProgress, work: Path) -> None:
    """Render ``todo`` in one pool of ``config.jobs`` processes (longest first)."""
    if not todo:
        return
    order = sorted(todo, key=lambda j: -j.frames)
    shutil.rmtree(work / "jobs", ignore_errors=True)  # earlier runs' (the lock is ours)
    by_run: dict[str, SceneJob] = {}
    work_items = []
    for job in order:
        path, plan = write_plan(job, inputs, work, config.verbose)
        by_run[plan.run_id] = job
        work_items.append((path, plan))
    echo = progress.say if config.verbose else None
    if config.scheduler:
        from pipeline.dask_pool import DaskPool

        pool: RenderPool | DaskPool = DaskPool(config.scheduler, work / "logs", echo=echo)
        progress.say(f"scenes: {len(order)} job(s) to the Dask scheduler at "
                     f"{config.scheduler}")
    else:
        pool = RenderPool(config.jobs, work / "logs", echo=echo)
    progress.start_renders(len(order), sum(j.frames for j in order))

    def done(r: RenderedScene) -> None:
        job = by_run[r.plan.run_id]
        job.entry = store.put(job.probe, r.report)
        shutil.rmtree(r.plan.video.parent, ignore_errors=True)
        progress.scene_done(job.label, job.frames, r.seconds)
        for w in r.report.times.warnings + r.report.times.layout:
            progress.say(f"warning: {w}")

    try:
        with Timer(progress, "scenes"):
            pool.map(work_items,
                     lambda p: progress.scene_started(by_run[p.run_id].label,
                                                      by_run[p.run_id].frames),
                     lambda p, d, _t: progress.scene_frames(by_run[p.run_id].label, d),
                     done)
    finally:
        progress.end_renders()


# -- a language's outputs -----------------------------------------------------------------
def display_words(beat_text: Resolved, words: tuple[WordTiming, ...]) -> list[WordTiming]:
    """Word timings re-pointed from the spoken text to the displayed text."""
    out = []
    for w in words:
        a, b = beat_text.display_pos(w.char_start), beat_text.display_pos(w.char_end)
        if b > a:
            out.append(WordTiming(w.start, w.end, a, b))
    return out


def other_lang(lang: str) -> str:
    return next(x for x in LANGS if x != lang)


@functools.cache
def pipeline_code() -> dict[str, str]:
    """Digests of the code and data that turn pictures and audio into the outputs."""
    files = sorted([*PROJECT.glob("pipeline/*.py"), *PROJECT.glob("narration/*.py"),
                    *SCRIPTS_DIR.glob("*/_*.toml"), *LEXICON_DIR.glob("*.toml")])
    out = {f.relative_to(PROJECT).as_posix(): file_digest(f) for f in files}
    out["font"] = f"{style.FONT_FILE.name}:{style.FONT_FILE.stat().st_size}" \
        if style.FONT_FILE.is_file() else "-"
    return out


def language_key(config: BuildConfig, inputs: Inputs, lang: str, jobs: list[SceneJob],
                 clips: dict[tuple[str, str], Clip]) -> str:
    """The digest of everything a language's outputs are made from (all scenes reused)."""
    other = other_lang(lang)
    return digest({
        "format": BUILD_FORMAT, "lang": lang, "cut": inputs.cut,
        "options": config.output_options(),
        "render": QUALITIES[config.quality],
        "scenes": [j.entry.key if j.entry else None for j in jobs],
        "pictures": [j.entry.video.sha256 if j.entry else None for j in jobs],
        "audio": [clips[(s.scene_id, b.id)].path.name for s in inputs.scripts[lang]
                  for b in s.beats],
        "texts": [b.text.display for s in inputs.scripts[lang] for b in s.beats],
        "other": [b.text.display for s in inputs.scripts[other] for b in s.beats],
        "titles": [s.title for s in inputs.scripts[lang]],
        "numbers": str(inputs.numbers_path),
        "code": pipeline_code(), "versions": versions(),
    })


def previous_key(out: Path) -> str | None:
    """The build key recorded with an output folder, if all its files are still there."""
    try:
        data = json.loads((out / "build.json").read_text("utf-8"))
        for rel, size in data["files"].items():
            if (out / rel).stat().st_size != size:
                return None
        return str(data["key"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_subtitles(staged: Path, lang: str, beats: list[tuple[str, list[WordTiming], float,
                                                                float]],
                    other_texts: list[str]) -> tuple[list[Cue], list[Cue], list[Cue]]:
    """video.srt/.vtt (this language, timed from the voice), video.<other>.srt/.vtt (the
    same beats' other text, timed to this voice) and video.bilingual.srt."""
    other = other_lang(lang)
    cues = build_track(beats, lang)
    other_cues = build_track([(t, [], off, end) for t, (_d, _w, off, end)
                              in zip(other_texts, beats, strict=True)], other)
    for name, track in (("video", cues), (f"video.{other}", other_cues)):
        subtitle_files.write(track, staged / f"{name}.srt", "srt")
        subtitle_files.write(track, staged / f"{name}.vtt", "vtt")
    single = build_track(beats, lang, max_lines=1)
    both = bilingual_cues(single, [(off, end) for _d, _w, off, end in beats], other_texts,
                          own_zh=lang == "zh")
    subtitle_files.write(both, staged / "video.bilingual.srt", "srt")
    return cues, other_cues, both


# The deck's captioned clips: a slide plays them from the start, so a long GOP and a higher
# CRF than the master's keep the deck small without a visible loss on a projector.
DECK_CRF = 24


def burn(staged: Path, work: Path, lang: str, cues: list[Cue], fps: int) -> None:
    """video.burned.mp4: the master with this language's subtitles drawn in the band."""
    burn_cues(staged / "video.mp4", cues, lang, work, "burn", fps, staged / "video.burned.mp4")


def burn_cues(video: Path, cues: Sequence[Cue], lang: str, work: Path, name: str, fps: int,
              out: Path, crf: int = 18, gop_seconds: float = 0.5,
              height: int | None = None) -> None:
    """``video`` with ``cues`` drawn into the picture, in the bundled font, inside the
    subtitle band (the master's burned copy, the deck's captioned clips), scaled to
    ``height`` first if given."""
    width, full = media.frame_size(video)
    if height is not None and height != full:
        width = 2 * round(width * height / full / 2)
    else:
        height = full
    ass = work / f"{name}.ass"
    if lang == "en":
        # The bundled CJK font draws curly quotes full-width, with wide gaps in English.
        table = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
        cues = [Cue(c.start, c.end, tuple(line.translate(table) for line in c.lines))
                for c in cues]
    subtitle_files.write_burn_ass(cues, ass, width, height, style.SUBTITLE_BAND_SHARE,
                                  style.FONT)
    fonts = work / "fonts"  # libass wants a folder holding only font files
    fonts.mkdir(exist_ok=True)
    link = fonts / style.FONT_FILE.name
    if not link.exists():
        link.symlink_to(style.FONT_FILE)
    with atomic.atomic_path(out) as tmp:
        media.burn_subtitles(video, ass, fonts, fps, tmp.with_suffix(".mp4"), crf, gop_seconds,
                             height if height != full else None)
        tmp.with_suffix(".mp4").replace(tmp)


def thumbnail_time(placed: Sequence[PlacedBeat], chapters: list[tuple[float, float, str]]
                   ) -> float:
    """Where the thumbnail's frame is taken: in the formula scene (it shows the whole idea),
    60% of the way in; in the overview's, at the end of its recap beat, with all four steps
    of the formula lit; else a third of the way into the video."""
    for p in placed:
        if p.scene_id == "ov_formula" and p.beat_id == "recap":
            return p.end - 0.2
    for start, end, _title in chapters:
        if any(p.scene_id == "formula" and start <= p.start < end for p in placed):
            return start + 0.6 * (end - start)
    return chapters[-1][1] / 3


def deck_clip(segments: SegmentStore, clip: Path, cues: Sequence[Cue], lang: str,
              work: Path, fps: int, height: int) -> Path:
    """A scene clip for the deck: scaled to ``height``, its subtitles drawn in, encoded for
    slides (CRF ``DECK_CRF``, 2 s GOP). Cached under the clip's own bytes (its picture and
    voice), the cues and the settings, so an unchanged scene is not encoded again."""
    parts = [sha256_file(clip), [(c.start, c.end, c.lines) for c in cues], lang, fps, height,
             DECK_CRF, media.x264_args(fps, DECK_CRF, 2.0), style.FONT, pipeline_code(),
             versions()]
    work.mkdir(parents=True, exist_ok=True)
    return segments.get("deck", parts, lambda out: burn_cues(
        clip, cues, lang, work, clip.stem, fps, out, crf=DECK_CRF, gop_seconds=2.0,
        height=height))


def write_kit(staged: Path, work: Path, lang: str, chapters: list[tuple[float, float, str]],
              at: float, cut: str = "full") -> None:
    """description.txt (title, summary, chapter list) and thumbnail.png (the frame at
    ``at`` seconds, see :func:`thumbnail_time`)."""
    title = video_title(lang, cut=cut)
    kit.write_description(staged / "description.txt", title, video_summary(lang, cut=cut),
                          chapters, lang)
    frame = work / "thumb_frame.png"
    media.frame_png(staged / "video.mp4", at, frame)
    kit.thumbnail(frame, title, lang, staged / "thumbnail.png")


def build_language(config: BuildConfig, inputs: Inputs, lang: str, jobs: list[SceneJob],
                   clips: dict[tuple[str, str], Clip], key: str, staged: Path,
                   progress: BuildProgress) -> None:
    """Every output of one language into ``staged``, then moved to its folder
    (``OUT/<lang>``, or ``OUT/<lang>/overview`` for the overview)."""
    cut = inputs.cut
    title = video_title(lang, cut=cut)
    work = config.out / ".work" / (lang if cut == "full" else f"{lang}-{cut}")
    work.mkdir(parents=True, exist_ok=True)
    staged.mkdir(parents=True, exist_ok=True)
    scripts = inputs.scripts[lang]
    fps = QUALITIES[config.quality][2]
    say = progress.say

    # Where every beat landed, from the scenes' own reports; scene lengths are whole frames.
    placed: list[PlacedBeat] = []
    chapters: list[tuple[float, float, str]] = []
    offset = 0.0
    for script, job in zip(scripts, jobs, strict=True):
        entry = job.entry
        assert entry is not None
        times = entry.times
        length = entry.video.frames / fps
        for beat, bt in zip(script.beats, times.beats, strict=True):
            placed.append(PlacedBeat(script.scene_id, beat.id, beat.text,
                                     offset + bt.start, offset + bt.end,
                                     clips[(script.scene_id, beat.id)]))
        chapters.append((offset, offset + length, script.title))
        offset += length
    total_frames = sum(j.entry.video.frames for j in jobs if j.entry)
    total = total_frames / fps

    with Timer(progress, "soundtrack and subtitles"):
        audio = work / "narration.wav"
        soundtrack.build([(p.start, p.clip.path) for p in placed], total, audio)
        beats = [(p.text.display, display_words(p.text, p.clip.words), p.start,
                  p.clip.duration) for p in placed]
        other = other_lang(lang)
        other_text = {(s.scene_id, b.id): b.text.display for s in inputs.scripts[other]
                      for b in s.beats}
        cues, other_cues, both = write_subtitles(
            staged, lang, beats, [other_text[(p.scene_id, p.beat_id)] for p in placed])
        meta = work / "chapters.txt"
        meta.write_text(media.ffmetadata_chapters(chapters, title), "utf-8")

    segments = SegmentStore(config.cache / "segments")
    with Timer(progress, "master") as t_master:
        voice = work / "narration.loud.wav"
        raw = loudness.measure(audio)
        loudness.normalize(audio, voice)
        segs = encode_all(segments, "master", jobs, fps, None, config.jobs)
        video = work / "video-only.mp4"
        media.concat_videos(segs, video)
        media.encode_master(video, voice,
                            [media.SubtitleTrack(staged / "video.srt", lang, True),
                             media.SubtitleTrack(staged / f"video.{other}.srt", other, False)],
                            meta, staged / "video.mp4")
        final = loudness.measure(staged / "video.mp4")
        width, height, _fps = QUALITIES[config.quality]
        media.check_format(staged / "video.mp4", width, height, fps, total, "the master")
    say(f"[{lang}] master in {t_master.seconds:.1f} s ({segments.made} scene segment(s) "
        f"encoded, {segments.reused} reused): "
        f"{final.integrated_lufs:.1f} LUFS, true peak {final.true_peak_dbtp:.1f} dBTP")
    if config.burn_subs:
        with Timer(progress, "burned subtitles") as t:
            burn(staged, work, lang, cues, fps)
        say(f"[{lang}] subtitles burned in {t.seconds:.1f} s")
    with Timer(progress, "kit"):
        write_kit(staged, work, lang, chapters, thumbnail_time(placed, chapters), cut)
    if config.clips:
        with Timer(progress, "clips and deck") as t:
            spans = []
            for sc, c, job in zip(scripts, chapters, jobs, strict=True):
                mine = [p for p in placed if p.scene_id == sc.scene_id]
                assert job.entry is not None
                spans.append(scene_clips.SceneSpan(
                    sc.scene_id, sc.title, c[0], c[1], " ".join(p.text.display for p in mine),
                    mine[0].end, mine[-1].end))
            # The clips' pictures are the master's segments, copied: no second encode.
            made = scene_clips.write_clips(
                staged / "clips", work / "clips", voice, fps, spans,
                [(lang, cues), (other, other_cues)], segs, silent=config.silent_clips)
            for c in made:
                media.check_format(c.video, width, height, fps,
                                   round((c.end - c.start) * fps) / fps, "the clip")
            slides: list[deck.Slide] = []
            by_id = {sc.scene_id: sc for sc in scripts}
            for sc, c, clip in zip(scripts, chapters, made, strict=True):
                video = clip.video
                if config.deck_captions:  # PowerPoint shows no soft subtitle track
                    video = deck_clip(segments, clip.video,
                                      scene_clips.shift_cues(cues, c[0], c[1]), lang,
                                      work / "deck", fps, min(config.clip_height, height))
                slides.append(deck.MovieSlide(video, clip.poster_first, tuple(
                    deck.Beat(p.start - c[0], p.text.display)
                    for p in placed if p.scene_id == sc.scene_id)))
                slides += deck.static_slides(sc, lang, inputs.numbers, inputs.derived, by_id)
            deck.write_deck(deck.Deck(title, deck.FORMULA, video_summary(lang, cut=cut),
                                      tuple(slides)), staged / "slides.pptx")
        size = (staged / "slides.pptx").stat().st_size / 1e6
        say(f"[{lang}] {len(made)} scene clips and slides.pptx ({len(slides) + 1} slides, "
            f"{size:.1f} MB) in {t.seconds:.1f} s")

    manifest = {
        "lang": lang,
        "title": title,
        "cut": cut,
        "duration": round(total, 3),
        "quality": config.quality,
        "loudness": {"integrated_lufs": final.integrated_lufs,
                     "true_peak_dbtp": final.true_peak_dbtp,
                     "target_lufs": loudness.TARGET_LUFS,
                     "narration_before_lufs": raw.integrated_lufs,
                     "narration_before_true_peak_dbtp": raw.true_peak_dbtp},
        "subtitles": {"tracks": [lang, other], "cues": len(cues),
                      f"cues_{other}": len(other_cues)},
        "numbers": str(inputs.numbers_path),
        "voices": sorted({f"{p.clip.engine}:{p.clip.voice}" for p in placed}),
        "scenes": [
            {
                "id": s.scene_id, "title": s.title,
                "start": round(c[0], 3), "end": round(c[1], 3),
                "beats": [
                    {"id": p.beat_id, "text": p.text.display, "spoken": p.text.spoken,
                     "voice": f"{p.clip.engine}:{p.clip.voice}", "start": round(p.start, 3),
                     "end": round(p.end, 3), "speech_end": round(p.start + p.clip.duration, 3)}
                    for p in placed if p.scene_id == s.scene_id
                ],
            }
            for s, c in zip(scripts, chapters, strict=True)
        ],
    }
    atomic.write_json(staged / "manifest.json", manifest)
    with Timer(progress, "report") as t_report:
        stills = measure_stills(jobs, fps)
        report = quality.build_report(
            lang, None, [(p.start, p.start + p.clip.duration) for p in placed], cues,
            beats, [(j.info.scene_id, c[0], c[1], j.entry.times.warnings,
                     j.entry.times.layout) for j, c in zip(jobs, chapters, strict=True)
                    if j.entry], fps,
            spans=quality.join_spans([(c[0], st) for c, st in zip(chapters, stills,
                                                                   strict=True)]),
            hold_limit=quality.HOLD_LIMITS[cut])
        report["cut"] = cut
    with Timer(progress, "pronunciation"):
        report["pronunciation"] = pronunciation.check(
            lang, [(p.scene_id, p.beat_id, p.text) for p in placed]).to_json()
    report["bilingual"] = quality.bilingual_report(both, own_zh=lang == "zh")
    report["seconds_to_measure"] = round(t_report.seconds, 2)
    atomic.write_json(staged / "report.json", report)
    segments.prune()
    for line in quality.summary(report):
        say(f"[{lang}] {line}")
    files = {p.relative_to(staged).as_posix(): p.stat().st_size
             for p in sorted(staged.rglob("*")) if p.is_file()}
    atomic.write_json(staged / "build.json", {"key": key, "files": files})
    final = inputs.out_dir(config.out, lang)
    if cut == "full":
        # The other cuts' folders live inside the full explainer's: carry them over.
        for name in CUT_NAMES:
            if name != "full" and (final / name).is_dir():
                os.replace(final / name, staged / name)
    atomic.replace_dir(staged, final)
    shutil.rmtree(work, ignore_errors=True)  # the joined picture and wavs: not needed again
    say(f"[{lang}] wrote {final / 'video.mp4'} ({total:.1f} s, {len(cues)} cues)")


def measure_stills(jobs: list[SceneJob], fps: int) -> list[list[tuple[float, float]]]:
    """Each scene picture's still stretches, from the held frames its writer recorded
    (read from the picture's packets; no frame is decoded)."""
    out = []
    for job in jobs:
        assert job.entry is not None
        out.append(quality.held_stills(job.entry.picture, fps))
    return out


def encode_all(segments: SegmentStore, kind: str, jobs: list[SceneJob], fps: int,
               height: int | None, workers: int) -> list[Path]:
    """Each scene's picture encoded as H.264 (cached): master segments (``height`` None)
    or clip pictures scaled to ``height``."""
    from concurrent.futures import ThreadPoolExecutor

    def one(job: SceneJob) -> Path:
        assert job.entry is not None
        picture = job.entry.picture
        # The picture's own digest and format, not the entry's key or slot alone.
        fmt = QUALITIES[job.probe.quality]
        parts = [job.entry.video.sha256, fmt, fps, height, media.x264_args(fps), versions()]
        return segments.get(kind, parts, lambda out: media.encode_picture(
            picture, fps, out, height=height))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, jobs))


# -- the whole build ----------------------------------------------------------------------
def build(config: BuildConfig, inputs: Inputs, engine, progress: BuildProgress,
          plan_only: bool = False) -> Summary:
    """Build every language in ``inputs.langs``; with ``plan_only``, only say what would be
    reused or rebuilt, and why."""
    summary = Summary()
    store = SceneStore(config.scene_cache)
    cache = AudioCache(config.audio_cache)
    clips: dict[str, dict[tuple[str, str], Clip]] = {}
    complete = list(inputs.scenes)
    with Timer(progress, "voice"):
        for lang in inputs.langs:
            if plan_only:  # look up, never synthesize
                clips[lang], missing = cached_clips(cache, engine, inputs.scripts[lang], lang)
                if missing:
                    progress.say(f"[{lang}] voice: {len(missing)} beat(s) to synthesize "
                                 f"({', '.join(missing[:4])}{' ...' if len(missing) > 4 else ''})")
                    for s in inputs.scripts[lang]:
                        if any(m.startswith(f"{s.scene_id}.") for m in missing):
                            progress.say(f"[{lang}] {s.scene_id:<18} rebuild voice changed")
                            complete = [i for i in complete if i.scene_id != s.scene_id]
                continue
            made = cache.synthesized
            clips[lang] = synthesize(lang, inputs.scripts[lang], engine, cache,
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
    render_jobs(todo, config, plan_inputs, store, progress, config.out / ".work")

    problems = [w for j in jobs if j.entry is not None for w in j.entry.times.layout]
    if problems and not config.accept_layout:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise LayoutError(f"layout: {problems[0]}{more}; nothing was published. Shorten the "
                          f"text or the numbers, or pass --accept-layout to publish anyway")
    for lang in plan_inputs.langs:
        mine = [j for j in jobs if j.lang == lang]
        key = language_key(config, plan_inputs, lang, mine, clips[lang])
        if previous_key(inputs.out_dir(config.out, lang)) == key:
            summary.langs_reused.append(lang)
            continue
        staged = config.out / (f".{lang}.staging" if inputs.cut == "full"
                               else f".{lang}-{inputs.cut}.staging")
        shutil.rmtree(staged, ignore_errors=True)
        try:
            build_language(config, plan_inputs, lang, mine, clips[lang], key, staged,
                           progress)
        finally:
            shutil.rmtree(staged, ignore_errors=True)
        summary.langs_built.append(lang)
    cache.prune()
    return summary


def cached_clips(cache: AudioCache, engine, scripts: list[SceneScript], lang: str
                 ) -> tuple[dict[tuple[str, str], Clip], list[str]]:
    """The beats' clips already cached, and the beats (scene.beat) still to synthesize."""
    from narration.tts.select import route

    found: dict[tuple[str, str], Clip] = {}
    missing = []
    rate = narration_rate(lang)
    for s in scripts:
        for b in s.beats:
            def look(eng, v, text=b.text.spoken):
                clip = cache.lookup(eng.name, text, v, rate)
                if clip is None:
                    raise LookupError(text)
                return clip

            try:
                found[(s.scene_id, b.id)] = route(engine, look, engine.default_voice(lang))
            except Exception:  # not cached, or an engine that cannot even route
                missing.append(f"{s.scene_id}.{b.id}")
    return found, missing
