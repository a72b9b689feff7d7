"""Publishing kit: chapter lists platforms parse, covers, subtitles burned into the band."""

from __future__ import annotations

import re
from pathlib import Path

import av
import numpy as np
import pytest

from narration import style
from narration.scripts import ScriptError, video_cover
from narration.types import Cue
from pipeline import cover, kit, media


def test_chapter_list_starts_at_zero_and_keeps_chapters_of_ten_seconds() -> None:
    chapters = [(0.4, 61.0, "Hook"), (61.0, 65.0, "Tiny"), (65.0, 3700.0, "Long"),
                (3700.0, 3800.0, "Late")]
    lines = kit.chapter_lines(chapters)
    assert lines == ["00:00 Hook", "01:05 Long", "1:01:40 Late"]
    text = kit.description("T", "Summary.", chapters, "en")
    stamps = re.findall(r"^(\d+(?::\d\d)+) ", text, re.M)
    assert stamps[0] == "00:00" and len(stamps) == 3


@pytest.mark.parametrize("cut", ["full", "overview"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_cover_is_drawn_for_it_and_reads_at_320x180(lang: str, cut: str, tmp_path: Path) -> None:
    """The shipped covers: 1280x720 under 2 MB; the title in at most three lines, whole words
    only, at least 64 px (16 px at 320x180), clear of the cards, the edges and the bottom
    strip where platforms show the video's length; the cards'
    borders in Q's, K's and V's colours; a plain background (no frame of the video)."""
    from PIL import Image

    text = video_cover(lang, cut=cut)
    out = tmp_path / "thumbnail.png"
    layout = cover.draw_cover(text, out)
    img = Image.open(out).convert("RGB")
    assert img.size == (1280, 720) and out.stat().st_size < 2_000_000
    joiner = "" if lang == "zh" else " "
    assert joiner.join(layout.lines) == text.title and 1 <= len(layout.lines) <= 3
    assert layout.title_size >= 64
    lowest_card = max(c[3] for c in layout.cards)
    for x0, y0, x1, y1 in layout.title_boxes:
        assert x0 >= cover.MARGIN and x1 <= 1280 - cover.MARGIN and y1 <= 720 - 90
        assert y0 > lowest_card
    for (x0, y0, x1, _y1), colour in zip(layout.cards, style.ROLE_COLORS, strict=True):
        mid = img.getpixel(((x0 + x1) // 2, y0 + 2))
        assert mid == tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    # shrunk to 320x180, the title's lines are still about 16 px tall and bright
    small = np.asarray(img.resize((320, 180), Image.LANCZOS).convert("L"), dtype=float)
    x0, y0, x1, y1 = (v // 4 for v in layout.title_boxes[0])
    rows = np.flatnonzero((small[y0:y1 + 1, x0:x1 + 1] > 160).any(axis=1))
    assert rows.size and rows[-1] - rows[0] >= 12
    # the background between the cards and the title is plain
    band = np.asarray(img)[lowest_card + 8:layout.title_boxes[0][1] - 8]
    assert band.size and (band == np.array(img.getpixel((4, 4)))).all()


def test_cover_lines_are_balanced_and_break_only_between_words() -> None:
    from PIL import ImageFont

    font = ImageFont.truetype(str(style.FONT_FILE), 40, index=style.FONT_INDEX_SC)
    width = font.getlength
    title = "Attention weights in transformers explained"
    lines = cover.balanced_lines(title, width, width(title) * 0.6)
    assert lines is not None and len(lines) == 2 and " ".join(lines) == title
    assert max(map(width, lines)) < width(title) * 0.6
    zh = "两分钟看懂Transformer注意力的三个向量"
    lines = cover.balanced_lines(zh, width, width(zh) * 0.6)
    assert lines is not None and "".join(lines) == zh
    assert all("Transformer" in line or not any(c.isascii() and c.isalpha() for c in line)
               for line in lines)
    assert cover.balanced_lines("Unbreakable", width, 10) is None


def test_cover_roles_must_be_three_words(tmp_path: Path) -> None:
    (tmp_path / "zh").mkdir()
    (tmp_path / "zh" / "_video.toml").write_text(
        'title = "T"\nsummary = "S"\ncover = "C"\ncover_roles = ["查询", "键"]\n', "utf-8")
    with pytest.raises(ScriptError, match=r"_video.toml: cover_roles: must be three"):
        video_cover("zh", root=tmp_path)


def test_burned_subtitles_sit_inside_the_bottom_band(tmp_path: Path) -> None:
    """A scene's picture with its cues drawn in (the burned copy's scenes): inside the band,
    from the cue's start to its end even inside a held frame, CJK glyphs drawn; the
    picture as it was above the band."""
    from pipeline.burn import burn_picture
    from scenes.held_frames import HeldFrameEncoder

    assert media.has_libass()
    picture = tmp_path / "picture.mp4"
    enc = HeldFrameEncoder(picture, 854, 480, 15)
    for shade in (16, 60, 16):  # held frames of 1 s each
        img = np.zeros((480, 854, 4), np.uint8)
        img[..., :3], img[..., 3] = shade, 255
        enc.put(img, 15)
    enc.close()
    out = tmp_path / "burned.mp4"
    cues = [Cue(0.5, 2.5, ("注意力机制里的三个向量", "Query, Key and Value"))]
    burn_picture(picture, enc.starts, cues, "zh", tmp_path / "work", "s", 15, out)
    with av.open(str(out)) as c:
        v = c.streams.video[0]
        assert (v.codec_context.width, v.codec_context.height, v.average_rate) == (854, 480, 15)
        frames = [f.to_ndarray(format="gray").astype(int) for f in c.decode(v)]
    assert len(frames) == 45
    band_top = round(480 * (1 - style.SUBTITLE_BAND_SHARE))
    shades = [round(f[:band_top].mean()) for f in frames]
    assert shades[:15] == shades[30:] and shades[15] - shades[14] > 30  # the picture kept
    lit = frames[8] - frames[7]  # 0.53 s against 0.47 s: the cue comes in mid-hold
    rows = np.flatnonzero(np.abs(lit).max(axis=1) > 60)
    assert rows.size, "nothing was drawn"
    assert rows.min() >= band_top and rows.max() < 480
    # Two lines of text: CJK glyphs drew (not boxes) and span a good part of the width.
    cols = np.flatnonzero(np.abs(lit).max(axis=0) > 60)
    assert cols.max() - cols.min() > 200
    drawn = [np.abs(f[band_top:] - np.median(f[band_top:])).max() > 60 for f in frames]
    assert drawn[8:37] == [True] * 29 and not any(drawn[:7]) and not any(drawn[38:])


def test_a_60fps_scene_becomes_a_720p30_deck_clip_with_its_captions(tmp_path: Path) -> None:
    """The deck's clips: at most 30 fps and 720p, as long as the clip, with its sound; the
    captions drawn from their cue times even inside a held frame, the picture changing
    where the scene's does. The picture is encoded from the scene's segment alone (the
    build does it while the sound is made) and muxed onto the clip's sound."""
    from pipeline.deck_clips import DeckItem, deck_movies, deck_pictures
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
    (deck_picture,) = deck_pictures(store, [DeckItem(picture, "picture-1", enc.starts, cues)], "zh",
                                    tmp_path / "work", 60, 720, jobs=1)
    assert [s.kind for s in media.probe(deck_picture).streams] == ["video"]  # no sound
    (out,) = deck_movies(store, [deck_picture], [clip], jobs=1)
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

    # The same picture and cues with other sound (its packets moved), in a later build: the
    # encoded picture is reused, the new sound muxed onto it.
    store = SegmentStore(tmp_path / "segments")
    other = tmp_path / "other.mp4"
    media.run_ffmpeg(["-i", str(picture), "-f", "lavfi", "-i", "sine=f=440:r=48000",
                      "-t", "2", "-map", "0:v", "-map", "1:a", "-c:v", "copy",
                      "-c:a", "aac", "-ac", "2", str(other)])
    (drawn_again,) = deck_pictures(store, [DeckItem(picture, "picture-1", enc.starts, cues)],
                                   "zh", tmp_path / "work", 60, 720, jobs=1)
    (again,) = deck_movies(store, [drawn_again], [other], jobs=1)
    assert (store.made["deck-picture"], store.reused["deck-picture"]) == (0, 1)
    assert again != out
    assert [s.codec for s in media.probe(again).streams] == \
        [s.codec for s in media.probe(out).streams]
    # Other cues: encoded again.
    deck_pictures(store, [DeckItem(picture, "picture-1", enc.starts, [Cue(0.5, 1.6, ("换",))])],
                  "zh", tmp_path / "work", 60, 720, jobs=1)
    assert store.made["deck-picture"] == 1
