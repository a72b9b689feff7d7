"""The master as platforms ask for it: a constant frame rate across scene joins, no edit
lists, sound in step with the picture, the chapter track tagged with the video's language,
and the description's chapter times the container's."""

from __future__ import annotations

import itertools
import subprocess
from collections import Counter
from pathlib import Path

import av
import numpy as np
import pytest

from common import mp4box
from pipeline import aac_track, kit, media, soundtrack
from pipeline.kit import container_chapters
from pipeline.segments import SegmentStore
from scenes.held_frames import HeldFrameEncoder

FPS = 60
# Scene lengths in frames whose millisecond lengths round down (62/60 s = 1033.3 ms): the
# concat joined them 5/15360 s early.
FRAMES = (62, 122, 61, 92)


def _segment(path: Path, frames: int, shade: int) -> Path:
    enc = HeldFrameEncoder(path, 320, 180, FPS)
    for k, n in enumerate((frames // 2, frames - frames // 2)):
        img = np.zeros((180, 320, 4), np.uint8)
        img[..., :3], img[..., 3] = shade + 20 * k, 255
        enc.put(img, n)
    enc.close()
    return path


def _pcm(samples: int) -> np.ndarray:
    """Silence with a click every 0.37 s, the first within the first packet's reach."""
    pcm = np.zeros(samples, np.int16)
    for at in range(700, samples - 100, int(0.37 * soundtrack.RATE)):
        pcm[at:at + 48] = 20000
    return pcm


def _decoded_audio(path: Path) -> np.ndarray:
    out = subprocess.run([str(media.FFMPEG), "-v", "error", "-i", str(path), "-map", "0:a:0",
                          "-f", "s16le", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(out, np.int16).reshape(-1, 2)[:, 0].astype(np.float64)


@pytest.fixture(scope="module")
def master(tmp_path_factory) -> tuple[Path, np.ndarray, list[tuple[float, float, str]]]:
    tmp = tmp_path_factory.mktemp("master")
    segs = []
    for i, n in enumerate(FRAMES):  # every one called picture.mp4, as the store keeps them
        (tmp / f"s{i}").mkdir()
        segs.append((_segment(tmp / f"s{i}" / "picture.mp4", n, 30 + 40 * i), n / FPS))
    video = tmp / "video-only.mp4"
    media.concat_videos(segs, video)
    rate = soundtrack.RATE
    offsets = [round(sum(FRAMES[:i]) * rate / FPS) for i in range(len(FRAMES))]
    total = round(sum(FRAMES) * rate / FPS)
    pcm = _pcm(total)
    store = SegmentStore(tmp / "cache")
    sound = aac_track.join(store, aac_track.encode_scenes(store, pcm, offsets, workers=1),
                           offsets, total, "zh", tmp / "sound")
    chapters, start = [], 0.0
    for i, n in enumerate(FRAMES):
        chapters.append(kit.Chapter(start, start + n / FPS, f"第{i + 1}章"))
        start += n / FPS
    meta = tmp / "chapters.txt"
    meta.write_text(media.ffmetadata_chapters(chapters, "标题"), "utf-8")
    srt = tmp / "zh.srt"
    srt.write_text("1\n00:00:00,100 --> 00:00:01,000\n你好\n", "utf-8")
    out = tmp / "video.mp4"
    media.mux_master(video, sound.track, [media.SubtitleTrack(srt, "zh", True)], meta, out)
    return out, pcm, chapters


def test_every_frame_lasts_the_same_across_joins(master) -> None:
    path = master[0]
    with av.open(str(path)) as c:
        v = c.streams.video[0]
        pts = sorted(p.pts for p in c.demux(v) if p.pts is not None)
        tick = round(1 / (FPS * v.time_base))
    assert len(pts) == sum(FRAMES)
    assert Counter(b - a for a, b in itertools.pairwise(pts)) == {tick: len(pts) - 1}
    assert pts[0] == 0


def test_no_edit_lists_and_sound_in_step_with_the_picture(master) -> None:
    path, pcm, _ = master
    assert b"elst" not in mp4box.box_kinds(path)
    with av.open(str(path)) as c:
        first_audio = next(p.pts for p in c.demux(c.streams.audio[0]) if p.size)
    assert first_audio == 0
    got = _decoded_audio(path)
    assert abs(len(got) - len(pcm)) < soundtrack.RATE / FPS  # as long, within a frame
    clicks = np.flatnonzero(pcm[1:] > pcm[:-1] + 10000) + 1
    heard = [int(np.argmax(np.abs(got[max(0, c - 2000):c + 2000]))) + max(0, c - 2000)
             for c in clicks]
    lags = [h - c for h, c in zip(heard, clicks, strict=True)]
    # every click where it was put: far within one frame (800 samples at 60 fps)
    assert max(abs(x) for x in lags) < 64, lags


def test_chapter_track_is_tagged_with_the_video_language(master) -> None:
    path, _, chapters = master
    assert mp4box.chapter_language(path) == "chi"
    info = media.probe(path)
    assert [t for _s, t in info.chapters] == [c[2] for c in chapters]


def test_description_lists_the_containers_chapter_times(master) -> None:
    path, _, chapters = master
    held = container_chapters(path, chapters)
    assert [round(s, 3) for s, _e, _t in held] == [round(s, 3) for s, _t in
                                                   media.probe(path).chapters]
    lines = kit.chapter_lines([(s, e + 10 * i, t) for i, (s, e, t) in enumerate(held)])
    assert lines[0].startswith("00:00 ")


def test_pack_language_round_trips() -> None:
    v = mp4box.pack_language("eng")
    assert "".join(chr(((v >> s) & 31) + 0x60) for s in (10, 5, 0)) == "eng"
    with pytest.raises(ValueError):
        mp4box.pack_language("english")
