"""Publishing kit: chapter lists platforms parse, thumbnails, subtitles burned into the band."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import av
import numpy as np
import pytest

from narration import style, subtitle_files
from narration.types import Cue
from pipeline import kit, media


def test_chapter_list_starts_at_zero_and_keeps_chapters_of_ten_seconds() -> None:
    chapters = [(0.4, 61.0, "Hook"), (61.0, 65.0, "Tiny"), (65.0, 3700.0, "Long"),
                (3700.0, 3800.0, "Late")]
    lines = kit.chapter_lines(chapters)
    assert lines == ["00:00 Hook", "01:05 Long", "1:01:40 Late"]
    text = kit.description("T", "Summary.", chapters, "en")
    stamps = re.findall(r"^(\d+(?::\d\d)+) ", text, re.M)
    assert stamps[0] == "00:00" and len(stamps) == 3


def test_thumbnail_is_1280x720_under_2mb(tmp_path: Path) -> None:
    frame = tmp_path / "f.png"
    subprocess.run([media.FFMPEG, "-v", "error", "-f", "lavfi", "-i",
                    "testsrc2=s=854x480:d=1", "-frames:v", "1", str(frame)], check=True)
    out = tmp_path / "thumb.png"
    kit.thumbnail(frame, "Query、Key、Value：注意力机制里的三个向量", "zh", out)
    from PIL import Image

    img = Image.open(out)
    assert img.size == (1280, 720)
    assert out.stat().st_size < 2_000_000


@pytest.fixture(scope="module")
def plain_video(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("burn") / "plain.mp4"
    media.run_ffmpeg(["-f", "lavfi", "-i", "color=c=0x10131a:s=854x480:r=15:d=3",
                      "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "3",
                      *media.x264_args(15), "-c:a", "aac", str(out)])
    return out


def test_burned_subtitles_sit_inside_the_bottom_band(plain_video: Path, tmp_path: Path) -> None:
    assert media.has_libass()
    ass = tmp_path / "s.ass"
    cues = [Cue(0.5, 2.5, ("注意力机制里的三个向量", "Query, Key and Value"))]
    subtitle_files.write_burn_ass(cues, ass, 854, 480, style.SUBTITLE_BAND_SHARE, style.FONT)
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    (fonts / style.FONT_FILE.name).symlink_to(style.FONT_FILE)
    out = tmp_path / "burned.mp4"
    media.burn_subtitles(plain_video, ass, fonts, 15, out)
    with av.open(str(out)) as c:
        frames = [f.to_ndarray(format="gray").astype(int) for f in c.decode(c.streams.video[0])]
    lit = frames[len(frames) // 2] - frames[0]  # 1.5 s (subtitle) against 0 s (none)
    rows = np.flatnonzero(np.abs(lit).max(axis=1) > 60)
    assert rows.size, "nothing was drawn"
    band_top = 480 * (1 - style.SUBTITLE_BAND_SHARE)
    assert rows.min() >= band_top and rows.max() < 480
    # Two lines of text: CJK glyphs drew (not boxes) and span a good part of the width.
    cols = np.flatnonzero(np.abs(lit).max(axis=0) > 60)
    assert cols.max() - cols.min() > 200


def test_a_60fps_scene_becomes_a_720p30_deck_clip_with_its_captions(tmp_path: Path) -> None:
    """The deck's clips: at most 30 fps and 720p, as long as the clip, with its sound; the
    captions drawn from their cue times even inside a held frame, the picture changing
    where the scene's does."""
    from pipeline.outputs import DeckItem, deck_clips
    from pipeline.segments import SegmentStore
    from scenes.held_frames import HeldFrameEncoder

    picture = tmp_path / "picture.mp4"
    enc = HeldFrameEncoder(picture, 1920, 1080, 60)
    for shade in (20, 90):  # two held frames of a second each
        img = np.zeros((1080, 1920, 4), np.uint8)
        img[..., :3], img[..., 3] = shade, 255
        enc.put(img, 60)
    enc.close()
    clip = tmp_path / "clip.mp4"
    media.run_ffmpeg(["-i", str(picture), "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo",
                      "-t", "2", "-map", "0:v", "-map", "1:a", "-c:v", "copy",
                      "-c:a", "aac", str(clip)])  # as the scene clips are made
    store = SegmentStore(tmp_path / "segments")
    cues = [Cue(0.4, 1.6, ("注意力机制里的三个向量",))]
    (out,) = deck_clips(store, [DeckItem(clip, "picture-1", enc.starts, cues)], "zh",
                        tmp_path / "work", 60, 720, jobs=1)
    with av.open(str(out)) as c:
        v = c.streams.video[0]
        assert (v.codec_context.width, v.codec_context.height) == (1280, 720)
        assert v.average_rate == 30
        assert c.streams.audio, "the clip's sound is kept"
        frames = [f.to_ndarray(format="gray").astype(int) for f in c.decode(v)]
    assert len(frames) == 60  # 2 s at 30 fps
    top = slice(0, 360)  # above the subtitle band: the picture alone
    assert abs(frames[29][top].mean() - frames[0][top].mean()) < 2  # one held frame
    assert frames[30][top].mean() - frames[29][top].mean() > 40  # the next, at 1 s
    drawn = [np.abs(f[600:] - f[600:].min()).max() > 60 for f in frames]  # in the band
    assert drawn[13:47] == [True] * 34  # 0.43 s - 1.57 s: the caption
    assert not any(drawn[:11]) and not any(drawn[49:])  # before 0.37 s and after 1.63 s

    # The same picture and cues with other sound (its packets moved): the encoded picture
    # is reused, the new sound muxed onto it.
    other = tmp_path / "other.mp4"
    media.run_ffmpeg(["-i", str(picture), "-f", "lavfi", "-i", "sine=f=440:r=48000",
                      "-t", "2", "-map", "0:v", "-map", "1:a", "-c:v", "copy",
                      "-c:a", "aac", "-ac", "2", str(other)])
    (again,) = deck_clips(store, [DeckItem(other, "picture-1", enc.starts, cues)], "zh",
                          tmp_path / "work", 60, 720, jobs=1)
    assert (store.made["deck-picture"], store.reused["deck-picture"]) == (1, 1)
    assert again != out
    assert [s.codec for s in media.probe(again).streams] == \
        [s.codec for s in media.probe(out).streams]
    # Other cues: encoded again.
    deck_clips(store, [DeckItem(other, "picture-1", enc.starts, [Cue(0.5, 1.6, ("换",))])],
               "zh", tmp_path / "work", 60, 720, jobs=1)
    assert store.made["deck-picture"] == 2
