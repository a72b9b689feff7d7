"""The deck's captioned clips: a slide plays them from the start, so a long GOP and a higher
CRF than the master's keep the deck small without a visible loss on a projector. Their
pictures are cached, and encoded here or on a Dask cluster."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from common.digests import FileContent
from narration import style
from narration.types import Cue
from pipeline import media
from pipeline.burn import burn_picture
from pipeline.keys import pipeline_code, versions
from pipeline.segments import SegmentStore


class RemoteBurner(Protocol):
    """Encodes one deck picture elsewhere (``pipeline.dask_pool.RemoteBurner``)."""

    def burn(self, clip: Path, starts: Sequence[int], cues: Sequence[Cue], lang: str,
             fps: int, out: Path, height: int) -> None: ...

    def close(self) -> None: ...


DECK_CRF = 24
DECK_MAX_FPS = 30
"""The deck's clips play in slides: 30 frames a second is plenty, and halves the encode of
a 60 fps video's."""


def deck_fps(fps: int) -> int:
    """The deck clips' frame rate for a video at ``fps``."""
    return min(fps, DECK_MAX_FPS)


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
               fps: int, height: int, jobs: int, remote: RemoteBurner | None = None
               ) -> list[Path]:
    """The deck's clips: each scene's picture at ``deck_fps``, scaled to ``height``, its
    subtitles drawn in, encoded for slides (CRF ``DECK_CRF``, GOPs of at most 2 s), with
    the clip's sound and subtitle tracks. The encoded picture is cached under the scene
    picture's digest, the cues and the settings, and the clip's tracks are muxed onto it
    by copy: so a scene whose picture and cues did not change is not encoded again, even
    when its sound's packets did (they move when an earlier scene's length changes). The
    pictures to encode run ``jobs`` at a time here, or all at once on a Dask cluster through
    ``remote`` (``pipeline.dask_pool.RemoteBurner``, closed here)."""

    work.mkdir(parents=True, exist_ok=True)

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
    captioned and encoded for slides (``pipeline.burn.burn_picture``)."""
    burn_picture(clip, starts, cues, lang, work, f"{clip.stem}-deck", fps, out,
                 rate=deck_fps(fps), height=height, crf=DECK_CRF, gop_seconds=2.0)
