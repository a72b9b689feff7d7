"""A language's subtitle files: its own track timed from the voice, the other language's
text on the same beats, and the bilingual track."""

from __future__ import annotations

from pathlib import Path

from narration import subtitle_files
from narration.bilingual import bilingual_cues
from narration.numfmt import LANGS
from narration.subtitles import build_track
from narration.types import Cue, WordTiming
from pipeline.media import SubtitleTrack


def other_lang(lang: str) -> str:
    """The video's other language (its second subtitle track)."""
    return next(x for x in LANGS if x != lang)


def soft_tracks(staged: Path, lang: str) -> list[SubtitleTrack]:
    """The two soft subtitle tracks a master carries (the master and its burned copy): this
    language's SRT first and default, the other language's second, as ``write_subtitles``
    wrote them into ``staged``."""
    other = other_lang(lang)
    return [SubtitleTrack(staged / "video.srt", lang, True),
            SubtitleTrack(staged / f"video.{other}.srt", other, False)]


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
