"""manifest.json (times, voices, loudness: what the page, the deck and a creator read) and
report.json (what was measured on what was made: ``pipeline.quality``)."""

from __future__ import annotations

from collections.abc import Sequence

from common import atomic
from narration import pronunciation
from narration.types import Cue
from pipeline import loudness, quality
from pipeline.config import BuildConfig, Inputs
from pipeline.placement import LanguageParts
from pipeline.progress import BuildProgress, Timer
from pipeline.scene_jobs import SceneJob
from pipeline.subtitle_tracks import other_lang


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
                 both: Sequence[Cue], other_texts: Sequence[str],
                 progress: BuildProgress) -> dict:
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
    report["bilingual"] = quality.bilingual_report(
        both, own_zh=lang == "zh",
        beats=[(text, other, offset, end) for (text, _w, offset, end), other
               in zip(beats, other_texts, strict=True)])
    report["seconds_to_measure"] = round(t_report.seconds, 2)
    atomic.write_json(parts.staged / "report.json", report)
    return report


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
