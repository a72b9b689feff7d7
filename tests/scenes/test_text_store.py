"""Texts kept on disk between processes (scenes.text_store): what is read back is the text as
made, drawn pixel for pixel the same; a damaged file or another Manim's is made again."""

from __future__ import annotations

import numpy as np
import pytest
from manim import Camera

from scenes import text_store, theme


@pytest.fixture
def store(tmp_path):
    """A store of its own for the test, the session's put back after."""
    before = text_store.folder()
    text_store.use(tmp_path)
    yield tmp_path
    text_store.use(before)


def _pixels(mob) -> np.ndarray:
    cam = Camera()
    cam.capture_mobject(mob.copy().move_to([0, 0, 0]))
    return cam.pixel_array.copy()


def _glyphs(mob) -> list[tuple]:
    return [(type(g).__name__, g.points.round(9).tobytes(), g.fill_rgbas.tobytes(),
             g.stroke_rgbas.tobytes(), getattr(g, "type_text", None),
             getattr(g, "type_px0", None), getattr(g, "type_h0", None))
            for g in mob.get_family()]


@pytest.mark.parametrize("s", ["份额 3.5% 北京 “France”", "Q·K ÷ √d = 2.1"])
def test_a_text_read_back_is_the_text_as_made(store, s):
    key = ("test", s, 30.0)
    made = theme._make_text(s, 30.0, theme.FG, "NORMAL", True)
    text_store.save(key, made)
    back = text_store.load(key)
    assert back is not None and back is not made
    assert _glyphs(back) == _glyphs(made)
    assert back.type_root_text == s
    assert np.array_equal(_pixels(back), _pixels(made))


def test_theme_texts_go_through_the_store(store):
    s = "只在这个测试里出现的字 7"  # not made before in this process
    first = theme.text(s, 26)
    files = list(store.glob("*.pkl"))
    assert len(files) == 1
    key = ("text", s, 26.0, theme.FG, "NORMAL", False)
    assert _glyphs(text_store.load(key)) == _glyphs(first)


def test_a_damaged_file_is_made_again(store):
    key = ("test", "damaged", 30.0)
    text_store.save(key, theme._make_text("损坏 x", 30.0, theme.FG, "NORMAL", False))
    (path,) = store.glob("*.pkl")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # cut short
    assert text_store.load(key) is None
    path.write_bytes(data[:-20] + bytes(20))  # its end zeroed
    assert text_store.load(key) is None
    path.write_bytes(data)
    assert text_store.load(key) is not None


def _made_again_under(monkeypatch, key: tuple, s: str, change) -> None:
    """A text kept for ``key`` is read back, not while ``change(monkeypatch)`` holds (its
    recipe differs), and again once it is undone."""
    text_store.save(key, theme._make_text(s, 30.0, theme.FG, "NORMAL", False))
    assert text_store.load(key) is not None
    change(monkeypatch)
    text_store.recipe.cache_clear()
    try:
        assert text_store.load(key) is None
    finally:
        monkeypatch.undo()
        text_store.recipe.cache_clear()
    assert text_store.load(key) is not None


def test_another_manim_does_not_read_this_ones_texts(store, monkeypatch):
    _made_again_under(monkeypatch, ("test", "versions", 30.0), "版本",
                      lambda mp: mp.setattr("manim.__version__", "0.0.1"))


def test_another_latin_quotes_face_does_not_read_this_ones_texts(store, monkeypatch):
    """English curly quotes are set in a system face (``theme.LATIN_QUOTES_FONT``): the
    file fontconfig gives for it is part of every text's key, so an updated face makes the
    texts again."""
    assert text_store.system_font(theme.LATIN_QUOTES_FONT) is not None  # fc-match here
    real = text_store.system_font
    _made_again_under(monkeypatch, ("test", "quotes", 30.0), "of “chases” now",
                      lambda mp: mp.setattr(text_store, "system_font", lambda family: (
                          real(family)[0], real(family)[1] + 1)))


def test_no_folder_keeps_nothing(tmp_path, monkeypatch):
    before = text_store.folder()
    monkeypatch.delenv("QKV_TEXT_CACHE", raising=False)
    text_store.use(None)
    try:
        key = ("test", "nowhere", 30.0)
        text_store.save(key, theme._make_text("无处", 30.0, theme.FG, "NORMAL", False))
        assert text_store.load(key) is None
    finally:
        text_store.use(before)


def test_texts_unused_for_a_month_are_pruned_and_used_ones_kept(store):
    """A text's file is dated by its last read: prune removes those neither read nor made
    for ``KEEP_DAYS`` and writes left half done, keeps the rest; a pruned text is made
    again."""
    import os
    import time

    old = time.time() - (text_store.KEEP_DAYS + 1) * 86400
    keys = [("test", name, 30.0) for name in ("read", "unread", "new")]
    for key in keys:
        text_store.save(key, theme._make_text(key[1], 30.0, theme.FG, "NORMAL", False))
    read, unread, new = (text_store._path(k) for k in keys)
    for path in (read, unread):
        os.utime(path, (old, old))
    assert text_store.load(keys[0]) is not None  # read now: dated now
    leftover = store / ".x.pkl.123.abcd.tmp"  # a write cut short by a crash, long ago
    leftover.write_bytes(b"half")
    os.utime(leftover, (old, old))
    fresh_tmp = store / ".y.pkl.124.abcd.tmp"  # another process writing now
    fresh_tmp.write_bytes(b"half")

    assert text_store.prune(store) == 1
    assert read.is_file() and new.is_file() and fresh_tmp.is_file()
    assert not unread.exists() and not leftover.exists()
    assert text_store.load(keys[1]) is None  # made again when asked
    assert text_store.prune(store / "missing") == 0
