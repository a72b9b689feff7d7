"""The narration's AAC, encoded a scene at a time and joined by packet copy.

A whole-track AAC encode cost about 16 CPU seconds a language for 17 minutes, every run,
although a changed number changes the sound of two or three scenes. Here each scene's
stretch of the track is encoded on its own, cached under the exact samples it was encoded
from, and the video's track is the scenes' packets one after the other. After a change
only the scenes whose samples changed are encoded again, and those after a scene whose
length changed (they moved against the 1024-sample grid, unless by whole packets); a first
build encodes them on every core.

AAC packets are 1024-sample frames whose windows overlap their neighbours, so a stretch cut
out of a track cannot simply be encoded alone: its first and last frames would be coded
against silence. Each scene's encode therefore starts ``ROLL`` samples before the packets
it owns and ends ``ROLL`` after (pre- and post-roll, on the track's 1024-sample grid); the
packets it owns are coded from the same samples a whole-track encode sees, and neighbouring
packets from two encodes overlap-add to the signal within the coding noise (measured in
tests/test_aac_track.py against a whole-track encode). The video's track owns packet
boundaries at the 1024-sample grid point nearest each scene's start.

A scene clip's sound is cut from its scene's encode (which covers the scene and its rolls):
the packets from one before the scene's first sample to the one holding its last, the
samples before the scene skipped by the MP4 edit list and the last packet's duration cut to
the scene's end. No second encode, and clip and video carry the same packets.

Written with PyAV's muxer (packets in, MP4 out) because ffmpeg's command line has no way to
join packets from several files at chosen timestamps.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from common.digests import file_digest, sha256_bytes
from common.h264 import MediaError
from pipeline import media, soundtrack
from pipeline.keys import versions
from pipeline.segments import SegmentStore

FRAME = 1024
"""Samples in one AAC-LC packet."""
ROLL = 4 * FRAME
"""Samples encoded before and after the packets a scene's encode owns."""
BITRATE = "192k"
AAC = [*media.AAC_ARGS, "-b:a", BITRATE]
CODE = file_digest(Path(__file__))


@dataclass(frozen=True)
class SceneEncode:
    """One scene's encode: the cached file, and where in the track its input began."""

    path: Path
    lo: int  # the track's sample fed to the encoder first


@dataclass(frozen=True)
class Sound:
    """The video's AAC track and each scene clip's AAC, in scene order."""

    track: Path
    clips: tuple[Path, ...]


def _grid(offsets: Sequence[int]) -> list[int]:
    """Where each scene's owned packets start (presentation time of its first owned packet,
    in samples): the grid point nearest its first sample; the first scene owns the
    encoder's priming packet too."""
    bounds = [-FRAME]
    for s in offsets[1:]:
        bounds.append(max(bounds[-1] + FRAME, round(s / FRAME) * FRAME))
    return bounds


def encode_scenes(store: SegmentStore, pcm: np.ndarray, offsets: Sequence[int],
                  workers: int) -> list[SceneEncode]:
    """Each scene's encode (cached by its samples), the scenes starting at ``offsets``
    (samples) in the track ``pcm`` (48 kHz mono int16)."""
    total = len(pcm)
    bounds = _grid(offsets)
    stretches = []
    for i, b in enumerate(bounds):
        lo = 0 if i == 0 else max(0, b - ROLL)
        hi = total if i + 1 == len(bounds) else min(total, bounds[i + 1] + ROLL)
        # This also covers the scene's clip: its first sample is at most half a packet
        # before its grid point and its last at most half a packet after the next one,
        # well inside the rolls.
        stretches.append((lo, hi))

    def one(stretch: tuple[int, int]) -> SceneEncode:
        lo, hi = stretch
        samples = pcm[lo:hi]

        def make(out: Path) -> None:
            wav = out.with_name(f"{out.stem}.in.wav")
            try:
                soundtrack.write_wav(samples, wav)
                media.run_ffmpeg(["-i", str(wav), "-map", "0:a:0", *AAC, "-vn", str(out)])
            finally:
                wav.unlink(missing_ok=True)

        key = [sha256_bytes(samples.tobytes()), len(samples), AAC, CODE,
               versions()]
        return SceneEncode(store.get("aac", key, make, ".m4a"), lo)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, stretches))


def _packets(enc: SceneEncode) -> tuple[av.container.InputContainer, list[av.Packet]]:
    """The encode's packets, each given its presentation time in the whole track."""
    src = av.open(str(enc.path))
    stream = src.streams.audio[0]
    out = []
    if stream.time_base != Fraction(1, soundtrack.RATE):
        src.close()
        raise MediaError(f"{enc.path.name}: time base {stream.time_base}, expected "
                         f"1/{soundtrack.RATE}")
    for q, p in enumerate(p for p in src.demux(stream) if p.size):
        want = q * FRAME - FRAME  # the encoder's priming packet first
        if p.pts != want:
            src.close()
            raise MediaError(f"{enc.path.name}: packet {q} at {p.pts}, expected {want} "
                             f"(not an AAC-LC encode of 1024-sample packets?)")
        p.pts = p.dts = enc.lo + want
        out.append(p)
    return src, out


def _mux(packets: Sequence[av.Packet], template: av.audio.stream.AudioStream, lang: str,
         out: Path, shift: int, end: int | None = None) -> None:
    """Write ``packets`` (times in track samples) to the M4A ``out`` with ``shift`` taken
    off their times; the last one cut to end at sample ``end`` if given."""
    # The edit list is in the movie's time scale: at the default 1000 it cut up to 47
    # samples off the end.
    with av.open(str(out), "w", format="mp4",
                 options={"movie_timescale": str(soundtrack.RATE)}) as dst:
        ost = dst.add_stream_from_template(template)
        ost.metadata["language"] = media.LANG_TAGS[lang]
        ost.time_base = Fraction(1, soundtrack.RATE)
        for k, p in enumerate(packets):
            p.stream = ost
            p.time_base = ost.time_base
            p.pts = p.dts = p.pts - shift
            if end is not None and k == len(packets) - 1:
                p.duration = end - shift - p.pts
            dst.mux(p)


def join(store: SegmentStore, encodes: Sequence[SceneEncode], offsets: Sequence[int],
         total: int, lang: str, work: Path) -> Sound:
    """The video's track (each scene's owned packets, in order), written into ``work``,
    and each scene's clip sound (kept in ``store``)."""
    work.mkdir(parents=True, exist_ok=True)
    bounds = [*_grid(offsets), total]
    ends = [*offsets[1:], total]
    clips = [_clip(store, enc, start, end, lang, i)
             for i, (enc, start, end) in enumerate(zip(encodes, offsets, ends, strict=True))]
    opened = [_packets(enc) for enc in encodes]
    try:
        # The video's track starts at its first sample, without the encoder's priming
        # packet: the master has no edit list to skip it (platforms ask for none). Only
        # the first 1024 samples decode a little differently (no overlap from before).
        track = [p for i, (_src, packets) in enumerate(opened) for p in packets
                 if max(0, bounds[i]) <= p.pts < bounds[i + 1]]
        if not opened:
            raise MediaError("no scene sound to join")
        out = work / "track.m4a"
        _mux(track, opened[0][0].streams.audio[0], lang, out, 0, total)
    finally:
        for src, _ in opened:
            src.close()
    return Sound(out, tuple(clips))


def _clip(store: SegmentStore, enc: SceneEncode, start: int, end: int, lang: str,
          index: int) -> Path:
    """The sound of the scene at samples ``start`` to ``end`` of the track, cut from its
    encode ``enc``: from one packet before the one holding its first sample (the overlap
    its first samples need) through the one holding its last."""

    def make(out: Path) -> None:
        src, packets = _packets(enc)
        with src:
            first = (start - enc.lo) // FRAME * FRAME + enc.lo - FRAME
            last = (end - 1 - enc.lo) // FRAME * FRAME + enc.lo
            mine = [p for p in packets if max(first, packets[0].pts) <= p.pts <= last]
            if not mine or mine[-1].pts != last or (start > 0 and mine[0].pts != first):
                raise MediaError(f"{enc.path.name}: does not cover scene {index}'s samples")
            _mux(mine, src.streams.audio[0], lang, out, start, end)

    return store.get("clip-sound", [store.stored(enc.path), enc.lo, start, end, lang, CODE],
                     make, ".m4a")
