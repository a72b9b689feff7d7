"""Each scene's narration at the platforms' loudness, and its clip's AAC, cached per scene.

A scene's beats are placed on a track of exactly the scene's length, brought to −14 LUFS
under the true-peak ceiling (``pipeline.loudness``) and kept in the segment store under
what it is made from (the beats' sound and places, the length, the loudness settings). The
video's track is these joined end to end, and each clip's sound is its scene's, encoded
once. So after a changed number only the scenes whose speech changed are measured,
limited and encoded again; before, the whole track was, three loudness passes over
17 minutes per language and a second AAC encode for the clips.

Scenes each at −14 LUFS join into a track at −14 LUFS (integrated loudness is a power
mean over the gated blocks); the master's own measurement is what the manifest reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from common.digests import file_digest, sha256_file
from pipeline import loudness, media, soundtrack
from pipeline.keys import versions
from pipeline.segments import SegmentStore

CODE = [file_digest(Path(m.__file__)) for m in (loudness, soundtrack)]  # type: ignore[arg-type]
CLIP_AAC = [*media.AAC_ARGS, "-b:a", "160k"]


@dataclass(frozen=True)
class SceneSound:
    """One scene's beats: where each clip starts (seconds from the scene's start), and the
    scene's length in frames at ``fps``."""

    placements: tuple[tuple[float, Path], ...]
    frames: int
    fps: int

    @property
    def samples(self) -> int:
        return round(self.frames * soundtrack.RATE / self.fps)


def scene_voices(store: SegmentStore, scenes: Sequence[SceneSound], workers: int
                 ) -> list[Path]:
    """Each scene's narration as a 48 kHz WAV of exactly its length, at −14 LUFS (cached)."""

    def one(scene: SceneSound) -> Path:
        parts = [[(round(t * soundtrack.RATE), sha256_file(p)) for t, p in scene.placements],
                 scene.samples, loudness.TARGET_LUFS, loudness.TOLERANCE_LU,
                 loudness.CEILING_DBTP, CODE, versions()]

        def make(out: Path) -> None:
            raw = out.with_name(f"{out.stem}.raw.wav")
            try:
                soundtrack.build(scene.placements, scene.samples, raw)
                loudness.normalize(raw, out)
            finally:
                raw.unlink(missing_ok=True)

        return store.get("voice", parts, make, ".wav")

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, scenes))


def clip_sounds(store: SegmentStore, voices: Sequence[Path], lang: str, workers: int
                ) -> list[Path]:
    """Each scene's narration as the clips' AAC (cached by the narration's own key)."""

    def one(voice: Path) -> Path:
        def make(out: Path) -> None:
            media.run_ffmpeg(["-i", str(voice), "-map", "0:a:0", *CLIP_AAC, "-metadata:s:a:0",
                              f"language={media.LANG_TAGS[lang]}", "-vn", str(out)])

        return store.get("clip-sound", [voice.stem, lang, CLIP_AAC, versions()], make, ".m4a")

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, voices))
