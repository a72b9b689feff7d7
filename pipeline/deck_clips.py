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

    def burn(self, picture: Path, starts: Sequence[int], cues: Sequence[Cue], lang: str,
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
    """One scene for the deck: its picture (the scene's segment, or a clip of it), the
    picture's digest and where its distinct frames start (as its segment was written), and
    its cues timed from its start."""

    picture: Path
    digest: str
    starts: Sequence[int]
    cues: Sequence[Cue]


def deck_pictures(segments: SegmentStore, items: Sequence[DeckItem], lang: str, work: Path,
                  fps: int, height: int, jobs: int, remote: RemoteBurner | None = None
                  ) -> list[Path]:
    """The deck clips' pictures: each scene's picture at ``deck_fps``, scaled to
    ``height``, its subtitles drawn in, encoded for slides (CRF ``DECK_CRF``, GOPs of at
    most 2 s), no sound. Each is cached under the scene picture's digest, the cues and the
    settings: a scene whose picture and cues did not change is not encoded again, even
    when its sound's packets did (they move when an earlier scene's length changes). They
    need no sound, so a build encodes them while it makes the soundtrack. They run ``jobs``
    at a time here, or all at once on a Dask cluster through ``remote``
    (``pipeline.dask_pool.RemoteBurner``, closed here)."""
    work.mkdir(parents=True, exist_ok=True)

    def one(k: int) -> Path:
        item = items[k]
        parts = [item.digest, list(item.starts),
                 [(c.start, c.end, c.lines) for c in item.cues], lang, deck_fps(fps), height,
                 DECK_CRF, media.x264_args(deck_fps(fps), DECK_CRF, 2.0), "held-gops",
                 style.FONT, pipeline_code(), versions()]

        def make(out: Path) -> None:
            if remote is not None:
                remote.burn(item.picture, item.starts, item.cues, lang, fps, out, height)
            else:
                burn_deck_picture(item.picture, item.starts, item.cues, lang, work, fps, out,
                                  height, name=f"{k:02d}-deck")

        return segments.get("deck-picture", parts, make)

    try:
        with ThreadPoolExecutor(max_workers=len(items) if remote else max(1, jobs)) as pool:
            # The most distinct frames (the most work) first, so no long one runs alone last.
            order = sorted(range(len(items)), key=lambda i: -len(items[i].starts))
            done = dict(zip(order, pool.map(one, order), strict=True))
            return [done[i] for i in range(len(items))]
    finally:
        if remote is not None:
            remote.close()


def deck_movies(segments: SegmentStore, pictures: Sequence[Path], clips: Sequence[Path],
                jobs: int) -> list[Path]:
    """The deck's clips: each deck picture (:func:`deck_pictures`) with its scene clip's
    sound and subtitle tracks muxed on by copy (cached under both)."""
    def one(picture: Path, clip: Path) -> Path:
        return segments.get("deck", [segments.stored(picture), FileContent.of(clip)],
                            lambda out: media.replace_picture(clip, picture, out))

    if len(pictures) != len(clips):
        raise ValueError(f"{len(pictures)} deck pictures for {len(clips)} clips")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, pictures, clips))


def burn_deck_picture(picture: Path, starts: Sequence[int], cues: Sequence[Cue], lang: str,
                      work: Path, fps: int, out: Path, height: int, name: str = "deck"
                      ) -> None:
    """One deck clip's picture (see :func:`deck_pictures`), encoded here, no sound: the
    scene's ``picture`` (at ``fps``, its distinct frames starting at ``starts``) scaled,
    captioned and encoded for slides (``pipeline.burn.burn_picture``); ``name`` keeps its
    files in ``work`` apart from those of pictures encoded beside it."""
    burn_picture(picture, starts, cues, lang, work, name, fps, out,
                 rate=deck_fps(fps), height=height, crf=DECK_CRF, gop_seconds=2.0)
