"""The narration's AAC encoded a scene at a time and joined by packet copy: the track and
the clips decode to exactly their lengths and to what one whole-track encode gives, and a
changed scene is the only one encoded again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from pipeline import aac_track, media, soundtrack
from pipeline.segments import SegmentStore

RATE = soundtrack.RATE


def _speech(seconds: float, seed: int) -> np.ndarray:
    """A voice-like signal: a few carriers with a syllable envelope, pauses between."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    pcm = sum(a * np.sin(2 * np.pi * f * t + p) for a, f, p in
              zip(rng.uniform(0.05, 0.2, 4), rng.uniform(120, 3000, 4),
                  rng.uniform(0, 6.28, 4), strict=True))
    pcm *= np.clip(np.sin(2 * np.pi * rng.uniform(2, 4) * t), 0, None)
    return (pcm * 32767 * 0.8).astype(np.int16)


def _decode(path: Path) -> np.ndarray:
    """The first channel, as ffmpeg plays it (edit lists applied)."""
    out = subprocess.run([str(media.FFMPEG), "-v", "error", "-i", str(path), "-f", "s16le",
                          "-"], capture_output=True, check=True).stdout
    return np.frombuffer(out, np.int16).reshape(-1, 2)[:, 0].astype(np.float64)


def _snr(got: np.ndarray, want: np.ndarray) -> float:
    assert len(got) == len(want)
    return float(10 * np.log10(np.sum(want ** 2) / max(np.sum((got - want) ** 2), 1e-9)))


def test_scene_encodes_join_into_the_whole_tracks_sound(tmp_path):
    # Scene lengths as whole frames at 15 fps, none a multiple of 1024 samples.
    scenes = [_speech(n / 15, seed) for seed, n in enumerate((47, 61, 38))]
    pcm = np.concatenate(scenes)
    offsets = [0, len(scenes[0]), len(scenes[0]) + len(scenes[1])]
    store = SegmentStore(tmp_path / "cache")
    encodes = aac_track.encode_scenes(store, pcm, offsets, workers=2)
    sound = aac_track.join(store, encodes, offsets, len(pcm), "zh", tmp_path / "work")

    whole_wav, whole = tmp_path / "whole.wav", tmp_path / "whole.m4a"
    soundtrack.write_wav(pcm, whole_wav)
    media.run_ffmpeg(["-i", str(whole_wav), *aac_track.AAC, str(whole)])
    reference = _decode(whole)
    assert len(reference) == len(pcm)

    track = _decode(sound.track)
    assert len(track) == len(pcm)  # to the sample: in step with the picture
    assert _snr(track, reference) > 40
    for at in offsets[1:]:  # where two encodes' packets meet
        near = slice(at - 4096, at + 4096)
        assert _snr(track[near], reference[near]) > 35
    info = media.probe(sound.track)
    assert [s.codec for s in info.streams] == ["aac"]

    ends = [*offsets[1:], len(pcm)]
    for clip, start, end in zip(sound.clips, offsets, ends, strict=True):
        got = _decode(clip)
        assert len(got) == end - start
        assert _snr(got, reference[start:end]) > 35

    # One scene's samples changed, lengths the same: that scene alone is encoded again.
    changed = pcm.copy()
    middle = offsets[1] + len(scenes[1]) // 2
    changed[middle:middle + 2000] //= 2
    again = SegmentStore(tmp_path / "cache")
    second = aac_track.encode_scenes(again, changed, offsets, workers=2)
    assert (again.made["aac"], again.reused["aac"]) == (1, 2)
    assert [a.path == b.path for a, b in zip(encodes, second, strict=True)] == \
        [True, False, True]
    joined = aac_track.join(again, second, offsets, len(changed), "zh", tmp_path / "work2")
    assert (again.made["clip-sound"], again.reused["clip-sound"]) == (1, 2)
    assert joined.clips[0] == sound.clips[0] and joined.clips[1] != sound.clips[1]
    assert len(_decode(joined.track)) == len(pcm)
