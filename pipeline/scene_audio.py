"""Each scene's narration at the platforms' loudness, and its AAC, cached per scene.

A scene's beats are placed on a track of exactly the scene's length, brought to −14 LUFS
under the true-peak ceiling (``pipeline.loudness``) and kept in the segment store under
what it is made from (the beats' sound and places, the length, the loudness settings). The
video's track is these joined end to end, encoded as AAC a scene at a time and joined by
packet copy (``pipeline.aac_track``); each clip's sound is cut from its scene's encode. So
after a changed number only the scenes whose speech changed are measured and limited
again, and only the scenes whose samples changed or moved are encoded again; before, the
whole track was, three loudness passes and an AAC encode over 17 minutes per language and a
second AAC encode for the clips.

Scenes each at −14 LUFS join into a track at −14 LUFS (integrated loudness is a power
mean over the gated blocks); the master's own measurement is what the manifest reports.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common.digests import file_digest, sha256_file
from narration.scripts import SceneScript
from narration.types import SpeechClip
from pipeline import aac_track, loudness, soundtrack
from pipeline.keys import versions
from pipeline.segments import SegmentStore
from pipeline.store import Entry

CODE = [file_digest(Path(m.__file__)) for m in (loudness, soundtrack)]  # type: ignore[arg-type]


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


def scene_sound(script: SceneScript, entry: Entry, clips: dict[tuple[str, str], SpeechClip],
                fps: int) -> SceneSound:
    """A rendered scene's beats as its sound places them: each beat's clip at the time the
    scene reports for it."""
    return SceneSound(tuple((bt.start, clips[(script.scene_id, beat.id)].path)
                            for beat, bt in zip(script.beats, entry.times.beats, strict=True)),
                      entry.video.frames, fps)


def scene_voice(store: SegmentStore, scene: SceneSound) -> Path:
    """A scene's narration as a 48 kHz WAV of exactly its length, at −14 LUFS (cached)."""
    parts = [[(round(t * soundtrack.RATE), sha256_file(p)) for t, p in scene.placements],
             scene.samples, loudness.TARGET_LUFS, loudness.HEADROOM_DB,
             loudness.CEILING_DBTP, CODE, versions()]

    def make(out: Path) -> None:
        raw = out.with_name(f"{out.stem}.raw.wav")
        try:
            soundtrack.build(scene.placements, scene.samples, raw)
            loudness.normalize(raw, out)
        finally:
            raw.unlink(missing_ok=True)

    return store.get("voice", parts, make, ".wav")


class EarlyVoices:
    """Scenes' voices (:func:`scene_voice`) made on one thread as their scenes are rendered
    or found, into each language's store: the scene stage's last scenes leave a core idle,
    and the soundtrack then finds them made (a store makes a file once, however many ask).
    What fails here is made, and fails, again when the soundtrack asks."""

    def __init__(self, stores: dict[str, SegmentStore], fps: int) -> None:
        self.stores, self.fps = stores, fps
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="early-voices")

    def start(self, lang: str, script: SceneScript, entry: Entry,
              clips: dict[tuple[str, str], SpeechClip]) -> None:
        self._pool.submit(scene_voice, self.stores[lang],
                          scene_sound(script, entry, clips, self.fps))

    def close(self) -> None:
        """Wait for the voice being made; drop those not started."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def scene_voices(store: SegmentStore, scenes: Sequence[SceneSound], workers: int
                 ) -> list[Path]:
    """Each scene's narration (:func:`scene_voice`), ``workers`` at a time."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(lambda scene: scene_voice(store, scene), scenes))


def encode_sound(store: SegmentStore, voices: Sequence[Path], lang: str, workers: int,
                 work: Path) -> aac_track.Sound:
    """The video's AAC track and each scene clip's, from the scenes' narration (``voices``,
    in order): each scene encoded once, cached by its samples (``pipeline.aac_track``)."""
    parts = [soundtrack.read_wav(v) for v in voices]
    offsets = list(itertools.accumulate((len(p) for p in parts[:-1]), initial=0))
    pcm = np.concatenate(parts) if parts else np.zeros(0, np.int16)
    encodes = aac_track.encode_scenes(store, pcm, offsets, workers)
    return aac_track.join(store, encodes, offsets, len(pcm), lang, work)
