"""Build one language's video: voice, plan, scene renders, soundtrack, subtitles, mux."""

from __future__ import annotations

import sys
import time
from argparse import Namespace
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from narration import style, subtitle_files
from narration.bilingual import bilingual_cues
from narration.marks import mark_times
from narration.numfmt import LANGS
from narration.placeholders import Resolved
from narration.scripts import SceneScript, video_summary, video_title
from narration.subtitles import build_track
from narration.timeline import SceneTimes, beat_slot
from narration.tts.base import narration_rate
from narration.tts.cache import AudioCache
from narration.types import Clip, Cue, WordTiming
from pipeline import atomic, kit, loudness, media, quality, soundtrack
from pipeline import clips as scene_clips
from pipeline.scene_render import QUALITIES, RenderedScene, render_scene
from scenes.context import ScenePlan


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class PlacedBeat:
    scene_id: str
    beat_id: str
    text: Resolved
    start: float  # absolute seconds in the video
    end: float
    clip: Clip


def synthesize(lang: str, scripts: list[SceneScript], engine, cache: AudioCache
               ) -> dict[tuple[str, str], Clip]:
    """One clip per beat (cached); progress on stderr."""
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
            _say(f"[{lang}] voice {n}/{len(beats)}: {scene_id}.{beat.id} "
                 f"({clip.engine}, {clip.duration:.1f} s)")
    synthesized = cache.synthesized - before
    _say(f"[{lang}] voice: {len(beats)} beats, {synthesized} synthesized, "
         f"{len(beats) - synthesized} from cache ({time.monotonic() - t0:.1f} s)")
    return clips


def make_plan(lang: str, scripts: list[SceneScript], clips: dict[tuple[str, str], Clip],
              numbers_path: Path, times_dir: Path) -> ScenePlan:
    """Beat slots, speech lengths and cue-mark times for the scenes, from the clips."""
    durations, speech, marks = {}, {}, {}
    for s in scripts:
        beat_clips = {b.id: clips[(s.scene_id, b.id)] for b in s.beats}
        durations[s.scene_id] = {b: beat_slot(c.duration) for b, c in beat_clips.items()}
        speech[s.scene_id] = {b: c.duration for b, c in beat_clips.items()}
        marks[s.scene_id] = {b.id: mark_times(b.text, beat_clips[b.id].words,
                                              beat_clips[b.id].duration) for b in s.beats}
    return ScenePlan(lang, numbers_path, durations, times_dir, speech, marks)


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


def write_subtitles(staged: Path, lang: str, beats: list[tuple[str, list[WordTiming], float,
                                                                float]],
                    other_texts: list[str]) -> tuple[list[Cue], list[Cue]]:
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
    return cues, other_cues


def burn(staged: Path, work: Path, lang: str, cues: list[Cue], picture: Path,
         fps: int) -> None:
    """video.burned.mp4: the master with this language's subtitles drawn in the band."""
    width, height = media.frame_size(picture)
    ass = work / "burn.ass"
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
    with atomic.atomic_path(staged / "video.burned.mp4") as tmp:
        media.burn_subtitles(staged / "video.mp4", ass, fonts, fps, tmp.with_suffix(".mp4"))
        tmp.with_suffix(".mp4").replace(tmp)


def write_kit(staged: Path, work: Path, lang: str, chapters: list[tuple[float, float, str]],
              picture: Path, scripts: list[SceneScript]) -> None:
    """description.txt (title, summary, chapter list) and thumbnail.png."""
    title = video_title(lang)
    kit.write_description(staged / "description.txt", title, video_summary(lang), chapters,
                          lang)
    # A frame from the formula scene when it is there (it shows the whole idea), else a
    # third of the way in.
    at = chapters[-1][1] / 3
    for script, (start, end, _t) in zip(scripts, chapters, strict=True):
        if script.scene_id == "formula":
            at = start + 0.6 * (end - start)
    frame = work / "thumb_frame.png"
    media.frame_png(picture, at, frame)
    kit.thumbnail(frame, title, lang, staged / "thumbnail.png")


def render_scenes(inputs, plan_path: Path, quality: str, work: Path, jobs: int, lang: str
                  ) -> list[RenderedScene]:
    infos = inputs.scenes
    done = 0
    t0 = time.monotonic()

    def one(info):
        nonlocal done
        r = render_scene(info, plan_path, quality, work / "media", work / "logs" / lang)
        done += 1
        _say(f"[{lang}] scene {done}/{len(infos)} {info.scene_id} rendered in {r.seconds:.1f} s")
        return r

    _say(f"[{lang}] rendering {len(infos)} scene(s) at {QUALITIES[quality][1]} "
         f"with {jobs} process(es)...")
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, infos))
    _say(f"[{lang}] scenes rendered in {time.monotonic() - t0:.1f} s")
    return results


def build_language(lang: str, scripts: list[SceneScript], inputs, args: Namespace, engine,
                   staged: Path) -> None:
    work = args.out / ".work"
    lang_work = work / lang
    lang_work.mkdir(parents=True, exist_ok=True)
    staged.mkdir(parents=True, exist_ok=True)
    cache = AudioCache(args.cache)

    clips = synthesize(lang, scripts, engine, cache)
    plan = make_plan(lang, scripts, clips, inputs.numbers_path, lang_work / "times")
    plan_path = lang_work / f"plan-{lang}.json"
    atomic.write_json(plan_path, plan.to_json())

    rendered = render_scenes(inputs, plan_path, args.quality, work, args.jobs, lang)

    # Where every beat actually landed, from the scenes' own reports and the files' lengths.
    placed: list[PlacedBeat] = []
    reports: list[SceneTimes] = []
    chapters: list[tuple[float, float, str]] = []
    offset = 0.0
    fps = QUALITIES[args.quality][2]
    for script, r in zip(scripts, rendered, strict=True):
        times = SceneTimes.read(plan.times_dir / f"{script.scene_id}.json")
        if [b.id for b in times.beats] != [b.id for b in script.beats]:
            raise RuntimeError(f"scene {script.scene_id} reported beats unlike its script")
        for w in times.warnings + times.layout:
            _say(f"warning: {w}")
        reports.append(times)
        length = media.probe(r.video).duration
        if abs(length - times.duration) > 1.5 / fps:
            _say(f"warning: scene {script.scene_id}: file is {length:.3f} s, scene reported "
                 f"{times.duration:.3f} s")
        for beat, bt in zip(script.beats, times.beats, strict=True):
            clip = clips[(script.scene_id, beat.id)]
            placed.append(PlacedBeat(script.scene_id, beat.id, beat.text,
                                     offset + bt.start, offset + bt.end, clip))
        chapters.append((offset, offset + length, script.title))
        offset += length

    video_only = lang_work / "picture.mp4"
    media.concat_videos([r.video for r in rendered], video_only)
    # The master is re-encoded frame by frame: its length is whole frames.
    total = round(media.probe(video_only).duration * fps) / fps
    audio = lang_work / "narration.wav"
    soundtrack.build([(p.start, p.clip.path) for p in placed], total, audio)

    beats = [(p.text.display, display_words(p.text, p.clip.words), p.start, p.clip.duration)
             for p in placed]
    other = other_lang(lang)
    other_text = {(s.scene_id, b.id): b.text.display for s in inputs.scripts[other]
                  for b in s.beats}
    cues, other_cues = write_subtitles(staged, lang, beats,
                                       [other_text[(p.scene_id, p.beat_id)] for p in placed])

    meta = lang_work / "chapters.txt"
    meta.write_text(media.ffmetadata_chapters(chapters, video_title(lang)), "utf-8")
    t_master = time.monotonic()
    voice = lang_work / "narration.loud.wav"
    raw = loudness.measure(audio)
    loudness.normalize(audio, voice)
    media.encode_master(video_only, voice,
                        [media.SubtitleTrack(staged / "video.srt", lang, True),
                         media.SubtitleTrack(staged / f"video.{other}.srt", other, False)],
                        meta, fps, staged / "video.mp4")
    final = loudness.measure(staged / "video.mp4")
    _say(f"[{lang}] master encoded in {time.monotonic() - t_master:.1f} s: "
         f"{final.integrated_lufs:.1f} LUFS, true peak {final.true_peak_dbtp:.1f} dBTP")
    if getattr(args, "burn_subs", False):
        t_burn = time.monotonic()
        burn(staged, lang_work, lang, cues, video_only, fps)
        _say(f"[{lang}] subtitles burned in {time.monotonic() - t_burn:.1f} s")
    write_kit(staged, lang_work, lang, chapters, video_only, scripts)
    if getattr(args, "clips", True):
        t_clips = time.monotonic()
        scenes = []
        for sc, c in zip(scripts, chapters, strict=True):
            mine = [p for p in placed if p.scene_id == sc.scene_id]
            scenes.append(scene_clips.SceneSpan(
                sc.scene_id, sc.title, c[0], c[1], " ".join(p.text.display for p in mine),
                mine[0].end, mine[-1].end))
        made = scene_clips.write_clips(
            staged / "clips", lang_work / "clips", video_only, voice, fps, scenes,
            [(lang, cues), (other, other_cues)],
            height=getattr(args, "clip_height", scene_clips.CLIP_HEIGHT),
            silent=getattr(args, "silent_clips", False))
        scene_clips.write_deck(made, video_title(lang), staged / "slides.pptx")
        _say(f"[{lang}] {len(made)} scene clips and slides.pptx in "
             f"{time.monotonic() - t_clips:.1f} s")

    manifest = {
        "lang": lang,
        "title": video_title(lang),
        "duration": round(total, 3),
        "quality": args.quality,
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
                    {"id": p.beat_id, "text": p.text.display, "start": round(p.start, 3),
                     "end": round(p.end, 3), "speech_end": round(p.start + p.clip.duration, 3)}
                    for p in placed if p.scene_id == s.scene_id
                ],
            }
            for s, c in zip(scripts, chapters, strict=True)
        ],
    }
    atomic.write_json(staged / "manifest.json", manifest)
    t_report = time.monotonic()
    report = quality.build_report(
        lang, video_only, [(p.start, p.start + p.clip.duration) for p in placed], cues, beats,
        [(r.scene_id, c[0], c[1], r.warnings, r.layout) for r, c in
         zip(reports, chapters, strict=True)])
    report["seconds_to_measure"] = round(time.monotonic() - t_report, 2)
    atomic.write_json(staged / "report.json", report)
    for line in quality.summary(report):
        _say(f"[{lang}] {line}")
    atomic.replace_dir(staged, args.out / lang)
    _say(f"[{lang}] wrote {args.out / lang / 'video.mp4'} ({total:.1f} s, {len(cues)} cues)")
