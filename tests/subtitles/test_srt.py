"""SRT writing (atomic, UTF-8) and reading back."""

from __future__ import annotations

from pathlib import Path

import pytest

from narration.subtitles import Cue, build_track, read_srt, write_srt

from .support import EN_SENTENCE, ZH_SENTENCE, en_word_timings, zh_char_timings


def test_round_trip_zh_and_en(tmp_path: Path) -> None:
    zw, ze = zh_char_timings(ZH_SENTENCE)
    ew, ee = en_word_timings(EN_SENTENCE)
    for text, words, end, lang in ((ZH_SENTENCE, zw, ze, "zh"), (EN_SENTENCE, ew, ee, "en")):
        cues = build_track([(text, words, 61.25, end)], lang)
        path = tmp_path / f"{lang}.srt"
        write_srt(cues, path)
        assert read_srt(path) == cues
        raw = path.read_bytes()
        assert not raw.startswith(b"\xef\xbb\xbf")
        raw.decode("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["en.srt", "zh.srt"]


def test_srt_format(tmp_path: Path) -> None:
    cues = [Cue(1.0, 2.5, ("查询、键和值", "第二行")), Cue(3661.001, 3662.0, ("Q·K 0.71 39%",))]
    path = tmp_path / "a.srt"
    path.write_text("old", encoding="utf-8")
    write_srt(cues, path)
    assert path.read_text(encoding="utf-8") == (
        "1\n00:00:01,000 --> 00:00:02,500\n查询、键和值\n第二行\n\n"
        "2\n01:01:01,001 --> 01:01:02,000\nQ·K 0.71 39%\n\n"
    )
    assert read_srt(path) == cues


def test_failed_write_leaves_old_file(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "a.srt"
    write_srt([Cue(0.0, 1.0, ("old",))], path)

    def boom(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("common.atomic.os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        write_srt([Cue(0.0, 1.0, ("new",))], path)
    assert read_srt(path) == [Cue(0.0, 1.0, ("old",))]
    assert [p.name for p in tmp_path.iterdir()] == ["a.srt"]


def test_webvtt_for_browsers(tmp_path: Path) -> None:
    from narration.subtitle_files import write

    cues = [Cue(1.0, 2.5, ("查询、键和值", "第二行")), Cue(3661.001, 3662.0, ("Q·K 0.71 39%",))]
    path = tmp_path / "a.vtt"
    write(cues, path, "vtt")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("WEBVTT")
    assert "00:00:01.000 --> 00:00:02.500\n查询、键和值\n第二行" in text
    assert "01:01:01.001 --> 01:01:02.000" in text
    assert read_srt(path) == cues
