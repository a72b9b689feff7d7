"""A language's outputs from its scenes' pictures and its beats' audio, stage by stage:
soundtrack and subtitles (``subtitle_tracks``), master (``master``), clips and deck
(``clips_and_deck``), burned copy (``burn``), kit (``kit``), manifest and report
(``records``); written into a staging folder and moved into place whole."""

from __future__ import annotations

import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import atomic
from common.digests import FileContent, digest
from narration.marks import display_words
from narration.scripts import video_file, video_title
from narration.types import SpeechClip
from pipeline import media, quality, scene_audio
from pipeline.burn import burn
from pipeline.clips_and_deck import encode_deck_pictures, write_clips_and_deck
from pipeline.config import BuildConfig, Inputs
from pipeline.keys import pipeline_code, versions
from pipeline.kit import write_kit
from pipeline.loudness import TARGET_LUFS
from pipeline.master import write_master
from pipeline.placement import LanguageParts, place_beats
from pipeline.progress import BuildProgress, Timer
from pipeline.records import write_manifest, write_report
from pipeline.scene_jobs import SceneJob
from pipeline.segments import SegmentStore
from pipeline.subtitle_tracks import other_lang, write_subtitles
from scenes.registry import CUTS as CUT_NAMES

BUILD_FORMAT = 1


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
        "video": FileContent.of(video_file(lang, inputs.cut, inputs.script_root)),
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


def build_language(config: BuildConfig, inputs: Inputs, lang: str, jobs: list[SceneJob],
                   clips: dict[tuple[str, str], SpeechClip], key: str, staged: Path,
                   progress: BuildProgress, segments: SegmentStore) -> None:
    """Every output of one language into ``staged``, then moved to its folder
    (``OUT/<lang>``, or ``OUT/<lang>/overview`` for the overview); its stored parts are
    kept in ``segments`` (the build's, where its scenes' voices may already be made)."""
    cut = inputs.cut
    title = video_title(lang, inputs.script_root, cut)
    work = config.out / ".work" / (lang if cut == "full" else f"{lang}-{cut}")
    work.mkdir(parents=True, exist_ok=True)
    staged.mkdir(parents=True, exist_ok=True)
    scripts = inputs.scripts[lang]
    fps = config.quality.fps
    say = progress.say

    placed, chapters = place_beats(scripts, jobs, clips, fps)
    total = sum(j.entry.video.frames for j in jobs if j.entry) / fps

    parts = LanguageParts(lang, cut, title, scripts, jobs, placed, chapters, fps, staged, work)
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix=f"outputs-{lang}") as bg:
        # The subtitles (Python: segmentation and line breaks) are written while the sound
        # (mostly ffmpeg and NumPy) is made, and the deck's pictures (ffmpeg), which need
        # the cues but no sound, are encoded from then on beside it.
        beats = [(p.text.display, display_words(p.text, p.clip.words), p.start,
                  p.clip.duration) for p in placed]
        other = other_lang(lang)
        other_text = {(s.scene_id, b.id): b.text.display for s in inputs.scripts[other]
                      for b in s.beats}
        other_texts = [other_text[(p.scene_id, p.beat_id)] for p in placed]
        subtitles = bg.submit(write_subtitles, staged, lang, beats, other_texts)
        pictures = (bg.submit(lambda: encode_deck_pictures(parts, config, segments,
                                                           subtitles.result()[0]))
                    if config.clips and config.deck_captions else None)
        with Timer(progress, "soundtrack and subtitles"):
            # Each scene's narration at −14 LUFS (cached per scene), joined.
            sounds = [scene_audio.scene_sound(sc, job.entry, clips, fps)
                      for sc, job in zip(scripts, jobs, strict=True) if job.entry]
            scene_voices = scene_audio.scene_voices(segments, sounds, config.jobs)
            # The AAC of each scene (cached by its samples), joined: the video's and clips'
            # sound.
            sound = scene_audio.encode_sound(segments, scene_voices, lang, config.jobs,
                                             work / "sound")
            meta = work / "chapters.txt"
            meta.write_text(media.ffmetadata_chapters(chapters, title), "utf-8")
            cues, other_cues, both = subtitles.result()
        made = segments.made["voice"]  # some while the scenes rendered (EarlyVoices)
        say(f"[{lang}] narration at {TARGET_LUFS:.0f} LUFS: {made} scene(s) normalised, "
            f"{len(sounds) - made} reused")

        # The master is mostly one ffmpeg (the AAC encode, then copies): made on its own
        # thread while the clips and the deck, which do not need it, are encoded.
        master = bg.submit(write_master, parts, config, sound.track, meta, total, progress)
        if config.clips:
            write_clips_and_deck(parts, config, inputs, segments, sound.clips,
                                 (cues, other_cues), progress, pictures)
        final = master.result()
    if config.burn_subs:
        with Timer(progress, "burned subtitles") as t:
            burn(parts, segments, sound.track, meta, cues, config.jobs)
        say(f"[{lang}] subtitles burned in {t.seconds:.1f} s")
    with Timer(progress, "kit"):
        write_kit(staged, lang, chapters, cut, inputs.script_root)
    say(f"[{lang}] master loudness: {final.integrated_lufs:.1f} LUFS, true peak "
        f"{final.true_peak_dbtp:.1f} dBTP")
    write_manifest(parts, config, inputs, final, (cues, other_cues), total)
    report = write_report(parts, beats, cues, both, other_texts, progress)
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


def move_into_place(staged: Path, final: Path, cut: str) -> None:
    """Replace the language's folder with ``staged`` whole; the full explainer's folder
    holds the other cuts' folders: they are carried over."""
    if cut == "full":
        for name in CUT_NAMES:
            if name != "full" and (final / name).is_dir():
                os.replace(final / name, staged / name)
    atomic.replace_dir(staged, final)
