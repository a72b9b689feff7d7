"""A language's outputs from its scenes' pictures and its beats' audio: soundtrack,
subtitles, master, burned copy, kit, clips and deck, manifest and report, written into a
staging folder and moved into place whole."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from common import atomic
from common.digests import FileContent, digest
from narration import pronunciation, style, subtitle_files
from narration.bilingual import bilingual_cues
from narration.numfmt import LANGS
from narration.placeholders import Resolved
from narration.scripts import SceneScript, video_cover, video_summary, video_title
from narration.subtitles import build_track
from narration.types import Cue, SpeechClip, WordTiming
from pipeline import clips as scene_clips
from pipeline import deck, gops, kit, loudness, media, quality, scene_audio
from pipeline.config import BuildConfig, Inputs
from pipeline.cover import draw_cover
from pipeline.keys import pipeline_code, versions
from pipeline.kit import Chapter
from pipeline.progress import BuildProgress, Timer
from pipeline.scene_jobs import SceneJob
from pipeline.segments import SegmentStore
from scenes.registry import CUTS as CUT_NAMES

BUILD_FORMAT = 1


@dataclass(frozen=True)
class PlacedBeat:
    scene_id: str
    beat_id: str
    text: Resolved
    start: float  # absolute seconds in the video
    end: float
    clip: SpeechClip


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


def language_key(config: BuildConfig, inputs: Inputs, lang: str, jobs: list[SceneJob],
                 clips: dict[tuple[str, str], SpeechClip]) -> str:
    """The digest of everything a language's outputs are made from (all scenes reused)."""
    other = other_lang(lang)
    return digest({
        "format": BUILD_FORMAT, "lang": lang, "cut": inputs.cut,
        "options": config.output_options(),
        "render": (config.quality.width, config.quality.height, config.quality.fps),
        "scenes": [j.entry.key if j.entry else None for j in jobs],
        "pictures": [j.entry.video.sha256 if j.entry else None for j in jobs],
        "audio": [clips[(s.scene_id, b.id)].path.name for s in inputs.scripts[lang]
                  for b in s.beats],
        "texts": [b.text.display for s in inputs.scripts[lang] for b in s.beats],
        "other": [b.text.display for s in inputs.scripts[other] for b in s.beats],
        "titles": [s.title for s in inputs.scripts[lang]],
        # the path is written into the manifest; what the file holds is its content
        "numbers": [str(inputs.numbers_path), FileContent.of(Path(inputs.numbers_path))],
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
DECK_MAX_FPS = 30
"""The deck's clips play in slides: 30 frames a second is plenty, and halves the encode of
a 60 fps video's."""


def deck_fps(fps: int) -> int:
    """The deck clips' frame rate for a video at ``fps``."""
    return min(fps, DECK_MAX_FPS)


def burn(staged: Path, work: Path, lang: str, cues: list[Cue], fps: int) -> None:
    """video.burned.mp4: the master with this language's subtitles drawn in the band."""
    burn_cues(staged / "video.mp4", cues, lang, work, "burn", fps, staged / "video.burned.mp4")


def subtitle_drawing(cues: Sequence[Cue], lang: str, work: Path, name: str, width: int,
                     height: int) -> tuple[Path, Path]:
    """The ASS file drawing ``cues`` inside the subtitle band of a ``width`` x ``height``
    picture, in the bundled font, and the fonts folder libass reads it with."""
    work.mkdir(parents=True, exist_ok=True)
    ass = work / f"{name}.ass"
    if lang == "en":
        # The bundled CJK font draws curly quotes full-width, with wide gaps in English.
        table = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
        cues = [Cue(c.start, c.end, tuple(line.translate(table) for line in c.lines))
                for c in cues]
    subtitle_files.write_burn_ass(cues, ass, width, height, style.SUBTITLE_BAND_SHARE,
                                  style.FONT)
    fonts = work / "fonts"  # libass wants a folder holding only font files
    fonts.mkdir(parents=True, exist_ok=True)
    link = fonts / style.FONT_FILE.name
    with contextlib.suppress(FileExistsError):  # deck clips are burned side by side
        link.symlink_to(style.FONT_FILE)
    return ass, fonts


def burn_cues(video: Path, cues: Sequence[Cue], lang: str, work: Path, name: str, fps: int,
              out: Path) -> None:
    """``video`` (the master) with ``cues`` drawn into the picture, every frame encoded
    again (its burned copy)."""
    width, height = media.frame_size(video)
    ass, fonts = subtitle_drawing(cues, lang, work, name, width, height)
    with atomic.atomic_path(out) as tmp:
        media.burn_subtitles(video, ass, fonts, fps, tmp.with_suffix(".mp4"))
        tmp.with_suffix(".mp4").replace(tmp)


def cue_changes(cues: Sequence[Cue], fps: int) -> list[int]:
    """The frames at ``fps`` where the drawn cues may change: both frames around each cue's
    start and end, widened by the ASS file's centisecond rounding."""
    out: set[int] = set()
    for c in cues:
        for t in (c.start, c.end):
            out.update(range(math.floor((t - 0.01) * fps), math.ceil((t + 0.01) * fps) + 1))
    return sorted(f for f in out if f > 0)


@dataclass(frozen=True)
class DeckItem:
    """One scene for the deck: its clip (picture, sound, subtitle tracks), its picture's
    digest and where its distinct frames start (as its segment was written), and its cues
    timed from its start."""

    clip: Path
    picture: str
    starts: Sequence[int]
    cues: Sequence[Cue]


def deck_clips(segments: SegmentStore, items: Sequence[DeckItem], lang: str, work: Path,
               fps: int, height: int, jobs: int, scheduler: str | None = None) -> list[Path]:
    """The deck's clips: each scene's picture at ``deck_fps``, scaled to ``height``, its
    subtitles drawn in, encoded for slides (CRF ``DECK_CRF``, GOPs of at most 2 s), with
    the clip's sound and subtitle tracks. The encoded picture is cached under the scene
    picture's digest, the cues and the settings, and the clip's tracks are muxed onto it
    by copy: so a scene whose picture and cues did not change is not encoded again, even
    when its sound's packets did (they move when an earlier scene's length changes). The
    pictures to encode run ``jobs`` at a time here, or on the Dask cluster at
    ``scheduler``."""

    work.mkdir(parents=True, exist_ok=True)
    remote = None
    if scheduler:
        from pipeline.dask_pool import RemoteBurner

        remote = RemoteBurner(scheduler)

    def one(item: DeckItem) -> Path:
        parts = [item.picture, list(item.starts),
                 [(c.start, c.end, c.lines) for c in item.cues], lang, deck_fps(fps), height,
                 DECK_CRF, media.x264_args(deck_fps(fps), DECK_CRF, 2.0), "held-gops",
                 style.FONT, pipeline_code(), versions()]

        def make(out: Path) -> None:
            if remote is not None:
                remote.burn(item.clip, item.starts, item.cues, lang, fps, out, height)
            else:
                burn_deck_picture(item.clip, item.starts, item.cues, lang, work, fps, out,
                                  height)

        picture = segments.get("deck-picture", parts, make)
        return segments.get("deck", [segments.stored(picture), FileContent.of(item.clip)],
                            lambda out: media.replace_picture(item.clip, picture, out))

    try:
        with ThreadPoolExecutor(max_workers=len(items) if remote else max(1, jobs)) as pool:
            # The most distinct frames (the most work) first, so no long one runs alone last.
            order = sorted(range(len(items)), key=lambda i: -len(items[i].starts))
            done = dict(zip(order, pool.map(one, [items[i] for i in order]), strict=True))
            return [done[i] for i in range(len(items))]
    finally:
        if remote is not None:
            remote.close()


def burn_deck_picture(clip: Path, starts: Sequence[int], cues: Sequence[Cue], lang: str,
                      work: Path, fps: int, out: Path, height: int) -> None:
    """One deck clip's picture (see :func:`deck_clips`), encoded here, no sound: the scene's
    ``clip`` (its picture at ``fps``, its distinct frames starting at ``starts``) scaled,
    captioned and encoded with each held frame (between cue changes) encoded once
    (``pipeline.gops``)."""
    rate = deck_fps(fps)
    width, full = media.frame_size(clip)
    ass, fonts = subtitle_drawing(cues, lang, work, f"{clip.stem}-deck",
                                  media.scaled_width(width, full, height), height)
    held = work / f"{clip.stem}-held.mp4"
    try:
        gops.thin(clip, starts, fps, held)  # each held frame decoded once
        gops.encode_held_picture(held, rate, out, crf=DECK_CRF, gop_seconds=2.0,
                                 height=height, subtitles=(ass, fonts),
                                 changes=cue_changes(cues, rate))
    finally:
        held.unlink(missing_ok=True)


def container_chapters(master: Path, chapters: Sequence[Chapter]
                       ) -> list[Chapter]:
    """``chapters`` with the times the master's container holds (milliseconds), so the
    description lists what a player shows."""
    held = media.probe(master).chapters
    if len(held) != len(chapters):
        raise media.MediaError(f"{master.name} holds {len(held)} chapter(s), "
                               f"expected {len(chapters)}")
    starts = [t for t, _title in held]
    ends = [*starts[1:], chapters[-1].end] if chapters else []
    return [Chapter(s, e, c.title) for s, e, c in zip(starts, ends, chapters, strict=True)]


def write_kit(staged: Path, lang: str, chapters: list[Chapter],
              cut: str = "full") -> None:
    """description.txt (title, summary, chapter list at the master's own chapter times) and
    thumbnail.png (the cut's cover, ``pipeline.cover``)."""
    title = video_title(lang, cut=cut)
    kit.write_description(staged / "description.txt", title, video_summary(lang, cut=cut),
                          container_chapters(staged / "video.mp4", chapters), lang)
    draw_cover(video_cover(lang, cut=cut), staged / "thumbnail.png")


@dataclass(frozen=True)
class LanguageParts:
    """What one language's outputs after the soundtrack are made from: its scenes (scripts
    and rendered jobs, in video order), where each beat and scene landed, and its folders."""

    lang: str
    cut: str
    title: str
    scripts: Sequence[SceneScript]
    jobs: Sequence[SceneJob]
    placed: Sequence[PlacedBeat]
    chapters: Sequence[Chapter]
    fps: int
    staged: Path  # the language's outputs, published whole at the end
    work: Path  # its scratch files

    @property
    def segments(self) -> list[Path]:
        """Each scene's picture: its master segment."""
        return [job.entry.picture for job in self.jobs if job.entry]

    @property
    def timed_segments(self) -> list[tuple[Path, float]]:
        """Each scene's segment and its exact length in seconds."""
        return [(job.entry.picture, job.entry.video.frames / self.fps)
                for job in self.jobs if job.entry]


def write_master(parts: LanguageParts, config: BuildConfig, sound: Path, meta: Path,
                 total: float, progress: BuildProgress) -> loudness.Loudness:
    """video.mp4: the scenes' segments joined and muxed with the soundtrack (``sound``,
    AAC), both subtitle tracks and the chapters (``meta``); checked, then measured."""
    lang, staged, other = parts.lang, parts.staged, other_lang(parts.lang)
    segs = parts.segments
    width, height = config.quality.width, config.quality.height
    with Timer(progress, "master") as t:
        video = parts.work / "video-only.mp4"
        media.concat_videos(parts.timed_segments, video)
        media.mux_master(video, sound,
                         [media.SubtitleTrack(staged / "video.srt", lang, True),
                          media.SubtitleTrack(staged / f"video.{other}.srt", other, False)],
                         meta, staged / "video.mp4")
        media.check_format(staged / "video.mp4", width, height, parts.fps, total, "the master")
    progress.say(f"[{lang}] master in {t.seconds:.1f} s ({len(segs)} scene segment(s) joined)")
    return loudness.measure(staged / "video.mp4")


def write_clips_and_deck(parts: LanguageParts, config: BuildConfig, inputs: Inputs,
                         segments: SegmentStore, clip_sounds: Sequence[Path],
                         tracks: tuple[Sequence[Cue], Sequence[Cue]],
                         progress: BuildProgress) -> None:
    """clips/ (each scene's segment copied, with its sound, both subtitle tracks and
    posters) and slides.pptx (its movies captioned with ``tracks``' first, this language's
    cues)."""
    lang, fps, staged = parts.lang, parts.fps, parts.staged
    other = other_lang(lang)
    cues, other_cues = tracks
    width, height = config.quality.width, config.quality.height
    with Timer(progress, "clips and deck") as t:
        spans = []
        for sc, c in zip(parts.scripts, parts.chapters, strict=True):
            mine = [p for p in parts.placed if p.scene_id == sc.scene_id]
            spans.append(scene_clips.SceneSpan(
                sc.scene_id, sc.title, c.start, c.end, " ".join(p.text.display for p in mine),
                mine[0].end, mine[-1].end))
        # The clips' pictures are the master's segments, copied: no second encode.
        made = scene_clips.write_clips(
            staged / "clips", parts.work / "clips",
            clip_sounds, fps, spans,
            [(lang, cues), (other, other_cues)], parts.segments, silent=config.silent_clips,
            store=segments)
        for c in made:
            media.check_format(c.video, width, height, fps,
                               round((c.end - c.start) * fps) / fps, "the clip")
        videos = [clip.video for clip in made]
        if config.deck_captions:  # PowerPoint shows no soft subtitle track
            videos = deck_clips(
                segments, [DeckItem(clip.video, job.entry.video.sha256,
                                    job.entry.video.starts,
                                    scene_clips.shift_cues(cues, c.start, c.end))
                           for job, clip, c in zip(parts.jobs, made, parts.chapters,
                                                   strict=True)],
                lang, parts.work / "deck", fps, min(config.clip_height, height), config.jobs,
                config.scheduler)
        slides: list[deck.Slide] = []
        by_id = {sc.scene_id: sc for sc in parts.scripts}
        for sc, c, clip, video in zip(parts.scripts, parts.chapters, made, videos,
                                      strict=True):
            slides.append(deck.MovieSlide(video, clip.poster_last, tuple(
                deck.SlideBeat(p.start - c.start, p.text.display)
                for p in parts.placed if p.scene_id == sc.scene_id), sc.title))
            slides += deck.static_slides(sc, lang, inputs.numbers, inputs.derived, by_id)
        deck.write_deck(deck.Deck(parts.title, deck.FORMULA,
                                  video_summary(lang, cut=parts.cut), tuple(slides), lang),
                        staged / "slides.pptx")
    size = (staged / "slides.pptx").stat().st_size / 1e6
    progress.say(f"[{lang}] {len(made)} scene clips and slides.pptx ({len(slides) + 1} "
                 f"slides, {size:.1f} MB) in {t.seconds:.1f} s")


def build_language(config: BuildConfig, inputs: Inputs, lang: str, jobs: list[SceneJob],
                   clips: dict[tuple[str, str], SpeechClip], key: str, staged: Path,
                   progress: BuildProgress) -> None:
    """Every output of one language into ``staged``, then moved to its folder
    (``OUT/<lang>``, or ``OUT/<lang>/overview`` for the overview)."""
    cut = inputs.cut
    title = video_title(lang, cut=cut)
    work = config.out / ".work" / (lang if cut == "full" else f"{lang}-{cut}")
    work.mkdir(parents=True, exist_ok=True)
    staged.mkdir(parents=True, exist_ok=True)
    scripts = inputs.scripts[lang]
    fps = config.quality.fps
    say = progress.say

    placed, chapters = place_beats(scripts, jobs, clips, fps)
    total = sum(j.entry.video.frames for j in jobs if j.entry) / fps

    segments = SegmentStore(config.cache / "segments")
    with Timer(progress, "soundtrack and subtitles"):
        # Each scene's narration at −14 LUFS (cached per scene), joined.
        sounds = [scene_audio.SceneSound(
            tuple((p.start - c.start, p.clip.path) for p in placed if p.scene_id == sc.scene_id),
            job.entry.video.frames, fps)
            for sc, c, job in zip(scripts, chapters, jobs, strict=True) if job.entry]
        scene_voices = scene_audio.scene_voices(segments, sounds, config.jobs)
        # The AAC of each scene (cached by its samples), joined: the video's and clips' sound.
        sound = scene_audio.encode_sound(segments, scene_voices, lang, config.jobs,
                                         work / "sound")
        beats = [(p.text.display, display_words(p.text, p.clip.words), p.start,
                  p.clip.duration) for p in placed]
        other = other_lang(lang)
        other_text = {(s.scene_id, b.id): b.text.display for s in inputs.scripts[other]
                      for b in s.beats}
        cues, other_cues, both = write_subtitles(
            staged, lang, beats, [other_text[(p.scene_id, p.beat_id)] for p in placed])
        meta = work / "chapters.txt"
        meta.write_text(media.ffmetadata_chapters(chapters, title), "utf-8")
    say(f"[{lang}] narration at {loudness.TARGET_LUFS:.0f} LUFS: {segments.made['voice']} "
        f"scene(s) normalised, {segments.reused['voice']} reused")

    parts = LanguageParts(lang, cut, title, scripts, jobs, placed, chapters, fps, staged, work)
    # The master is mostly one ffmpeg (the AAC encode, then copies): made on its own thread
    # while the clips and the deck, which do not need it, are encoded.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"master-{lang}") as bg:
        master = bg.submit(write_master, parts, config, sound.track, meta, total, progress)
        if config.clips:
            write_clips_and_deck(parts, config, inputs, segments, sound.clips,
                                 (cues, other_cues), progress)
        final = master.result()
    if config.burn_subs:
        with Timer(progress, "burned subtitles") as t:
            burn(staged, work, lang, cues, fps)
        say(f"[{lang}] subtitles burned in {t.seconds:.1f} s")
    with Timer(progress, "kit"):
        write_kit(staged, lang, chapters, cut)
    say(f"[{lang}] master loudness: {final.integrated_lufs:.1f} LUFS, true peak "
        f"{final.true_peak_dbtp:.1f} dBTP")
    write_manifest(parts, config, inputs, final, (cues, other_cues), total)
    report = write_report(parts, beats, cues, both, progress)
    for line in quality.summary(report):
        say(f"[{lang}] {line}")
    segments.prune()
    files = {p.relative_to(staged).as_posix(): p.stat().st_size
             for p in sorted(staged.rglob("*")) if p.is_file()}
    atomic.write_json(staged / "build.json", {"key": key, "files": files})
    final_dir = inputs.out_dir(config.out, lang)
    move_into_place(staged, final_dir, cut)
    shutil.rmtree(work, ignore_errors=True)  # the joined picture and wavs: not needed again
    say(f"[{lang}] wrote {final_dir / 'video.mp4'} ({total:.1f} s, {len(cues)} cues)")


def place_beats(scripts: Sequence[SceneScript], jobs: Sequence[SceneJob],
                clips: dict[tuple[str, str], SpeechClip], fps: int
                ) -> tuple[list[PlacedBeat], list[Chapter]]:
    """Where every beat landed, from the scenes' own reports, and each scene's chapter;
    scene lengths are whole frames."""
    placed: list[PlacedBeat] = []
    chapters: list[Chapter] = []
    offset = 0.0
    for script, job in zip(scripts, jobs, strict=True):
        entry = job.entry
        assert entry is not None
        length = entry.video.frames / fps
        for beat, bt in zip(script.beats, entry.times.beats, strict=True):
            placed.append(PlacedBeat(script.scene_id, beat.id, beat.text,
                                     offset + bt.start, offset + bt.end,
                                     clips[(script.scene_id, beat.id)]))
        chapters.append(Chapter(offset, offset + length, script.title))
        offset += length
    return placed, chapters


def write_manifest(parts: LanguageParts, config: BuildConfig, inputs: Inputs,
                   final: loudness.Loudness, tracks: tuple[Sequence[Cue], Sequence[Cue]],
                   total: float) -> None:
    """manifest.json: the video's title, length, loudness, subtitles, voices and every
    scene's and beat's times (what the page, the deck and a creator read)."""
    lang, placed, other = parts.lang, parts.placed, other_lang(parts.lang)
    cues, other_cues = tracks
    manifest = {
        "lang": lang,
        "title": parts.title,
        "cut": parts.cut,
        "duration": round(total, 3),
        "quality": config.quality.name,
        "loudness": {"integrated_lufs": final.integrated_lufs,
                     "true_peak_dbtp": final.true_peak_dbtp,
                     "target_lufs": loudness.TARGET_LUFS,
                     "normalised": "each scene"},
        "subtitles": {"tracks": [lang, other], "cues": len(cues),
                      f"cues_{other}": len(other_cues)},
        "numbers": str(inputs.numbers_path),
        "voices": sorted({f"{p.clip.engine}:{p.clip.voice}" for p in placed}),
        "scenes": [
            {
                "id": s.scene_id, "title": s.title,
                "start": round(c.start, 3), "end": round(c.end, 3),
                "beats": [
                    {"id": p.beat_id, "text": p.text.display, "spoken": p.text.spoken,
                     "voice": f"{p.clip.engine}:{p.clip.voice}", "start": round(p.start, 3),
                     "end": round(p.end, 3), "speech_end": round(p.start + p.clip.duration, 3)}
                    for p in placed if p.scene_id == s.scene_id
                ],
            }
            for s, c in zip(parts.scripts, parts.chapters, strict=True)
        ],
    }
    atomic.write_json(parts.staged / "manifest.json", manifest)


def write_report(parts: LanguageParts, beats: list, cues: Sequence[Cue],
                 both: Sequence[Cue], progress: BuildProgress) -> dict:
    """report.json: still pictures, cues, layout, type sizes, overlaps, pronunciation and the
    bilingual track, measured on what was made (``pipeline.quality``)."""
    lang, jobs, chapters, placed, fps = (parts.lang, parts.jobs, parts.chapters, parts.placed,
                                         parts.fps)
    with Timer(progress, "report") as t_report:
        stills = measure_stills(jobs, fps)
        report = quality.build_report(
            lang, None, [(p.start, p.start + p.clip.duration) for p in placed], cues,
            beats, [(j.info.scene_id, c.start, c.end, j.entry.times.warnings,
                     j.entry.times.layout) for j, c in zip(jobs, chapters, strict=True)
                    if j.entry], fps,
            spans=quality.join_spans([(c.start, st) for c, st in zip(chapters, stills,
                                                                   strict=True)]),
            hold_limit=quality.HOLD_LIMITS[parts.cut],
            smallest_text={j.info.scene_id: j.entry.times.smallest_text
                           for j in jobs if j.entry},
            lopsided={j.info.scene_id: j.entry.times.lopsided for j in jobs if j.entry},
            overlaps={j.info.scene_id: j.entry.times.overlaps for j in jobs if j.entry})
        report["cut"] = parts.cut
    with Timer(progress, "pronunciation"):
        report["pronunciation"] = pronunciation.check(
            lang, [(p.scene_id, p.beat_id, p.text) for p in placed]).to_json()
    report["bilingual"] = quality.bilingual_report(both, own_zh=lang == "zh")
    report["seconds_to_measure"] = round(t_report.seconds, 2)
    atomic.write_json(parts.staged / "report.json", report)
    return report


def move_into_place(staged: Path, final: Path, cut: str) -> None:
    """Replace the language's folder with ``staged`` whole; the full explainer's folder
    holds the other cuts' folders: they are carried over."""
    if cut == "full":
        for name in CUT_NAMES:
            if name != "full" and (final / name).is_dir():
                os.replace(final / name, staged / name)
    atomic.replace_dir(staged, final)


def measure_stills(jobs: list[SceneJob], fps: int) -> list[list[tuple[float, float]]]:
    """Each scene picture's still stretches, as its writer recorded them while storing the
    frames (no frame is decoded); measured on the picture's frames for an entry stored
    without them."""
    out = []
    for job in jobs:
        assert job.entry is not None
        if job.entry.stills is not None:
            out.append(list(job.entry.stills))
        else:
            out.append(quality.still_frames(job.entry.picture, fps=fps)[0])
    return out
