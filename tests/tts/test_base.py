"""Rates, language tags and atomic writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from narration.tts.base import (
    atomic_path,
    atomic_write_text,
    lang_key,
    lang_of_voice,
    rate_percent,
    rate_wpm,
)


@pytest.mark.parametrize(
    ("rate", "lang", "percent", "wpm"),
    [
        ("+0%", "zh", 0, 200),
        ("+0%", "en", 0, 175),
        ("+10%", "zh", 10, 220),
        ("-20%", "en", -20, 140),
        ("15%", "en", 15, 201),
        (200, "zh", 0, 200),
        (175, "en", 0, 175),
        (350, "en", 100, 350),
        (150, "zh", -25, 150),
    ],
)
def test_rates_mean_the_same_for_every_engine(
    rate: int | str, lang: str, percent: int, wpm: int
) -> None:
    assert rate_percent(rate, lang) == percent
    assert rate_wpm(rate, lang) == wpm


@pytest.mark.parametrize("rate", ["fast", "+10", "10 percent", "-100%", 0, -5, True, 1.5])
def test_bad_rates_are_rejected(rate: object) -> None:
    with pytest.raises(ValueError):
        rate_percent(rate, "en")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        rate_wpm(rate, "en")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("voice", "lang"),
    [("zh-CN-XiaoxiaoNeural", "zh"), ("cmn", "zh"), ("en-US-AriaNeural", "en"), ("en-us", "en")],
)
def test_language_of_voices(voice: str, lang: str) -> None:
    assert lang_of_voice(voice) == lang
    assert lang_key(lang.upper() + "_X") == lang


def test_atomic_path_replaces_target_on_success(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "clip.json"
    atomic_write_text(target, "old")
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert [p.name for p in target.parent.iterdir()] == ["clip.json"]


def test_atomic_path_leaves_nothing_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "clip.wav"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_bytes(b"half a file")
        raise RuntimeError("crash mid-write")
    assert list(tmp_path.iterdir()) == []


def test_atomic_path_keeps_the_old_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "clip.json"
    atomic_write_text(target, "complete")
    with pytest.raises(KeyboardInterrupt), atomic_path(target) as tmp:
        tmp.write_text("trunc")
        raise KeyboardInterrupt
    assert target.read_text() == "complete"
    assert list(tmp_path.iterdir()) == [target]
