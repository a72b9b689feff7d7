"""The clip cache: reruns synthesize nothing, failures leave nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from narration.tts.base import wav_duration
from narration.tts.cache import AudioCache, cache_key
from narration.types import TTSError

from .helpers import CountingEspeak, MidWriteFailure, read_wav

TEXT = "Attention lets every token look at the others."


def test_rerun_synthesizes_nothing(tmp_path: Path) -> None:
    engine = CountingEspeak()
    first = AudioCache(tmp_path).get_or_synthesize(engine, TEXT, "en-us", "+0%", "en")
    assert engine.calls == 1
    stamp = first.path.stat().st_mtime_ns
    content = first.path.read_bytes()

    again = AudioCache(tmp_path).get_or_synthesize(engine, TEXT, "en-us", "+0%", "en")  # rerun
    assert engine.calls == 1
    assert again == first
    assert again.path.stat().st_mtime_ns == stamp and again.path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"{first.path.stem}.json",
        first.path.name,
    ]


def test_clip_metadata(tmp_path: Path) -> None:
    clip = AudioCache(tmp_path).get_or_synthesize(CountingEspeak(), "猫追球。", None, None, "zh")
    assert (clip.engine, clip.voice) == ("espeak", "cmn")
    assert clip.path == tmp_path / f"{cache_key('espeak', 'cmn', '+0%', '猫追球。')}.wav"
    rate, _, _, samples = read_wav(clip.path)
    assert clip.duration == len(samples) / rate == wav_duration(clip.path)
    assert [(w.char_start, w.char_end) for w in clip.words] == [(0, 1), (1, 2), (2, 3)]
    meta = json.loads(clip.path.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["engine"] == "espeak" and meta["voice"] == "cmn" and meta["text"] == "猫追球。"
    assert meta["duration"] == clip.duration and len(meta["words"]) == 3


def test_key_depends_on_every_input(tmp_path: Path) -> None:
    base = ("espeak", "en-us", "+0%", TEXT)
    keys = {cache_key(*base)}
    for i, other in enumerate(["edge", "en-gb", "+10%", TEXT + "!"]):
        changed = list(base)
        changed[i] = other
        keys.add(cache_key(*changed))
    assert len(keys) == 5
    engine = CountingEspeak()
    cache = AudioCache(tmp_path)
    a = cache.get_or_synthesize(engine, TEXT, "en-us", "+0%", "en")
    b = cache.get_or_synthesize(engine, TEXT, "en-us", "+20%", "en")
    assert engine.calls == 2 and a.path != b.path and b.duration < a.duration


def test_failed_synthesis_leaves_no_file(tmp_path: Path) -> None:
    engine = MidWriteFailure()
    root = tmp_path / "cache"
    with pytest.raises(TTSError, match="half way"):
        AudioCache(root).get_or_synthesize(engine, TEXT, "en-us", "+0%", "en")
    assert list(root.iterdir()) == []
    # and the next (working) run synthesizes for real
    good = CountingEspeak()
    clip = AudioCache(root).get_or_synthesize(good, TEXT, "en-us", "+0%", "en")
    assert good.calls == 1 and clip.duration > 1


def test_real_engine_failure_leaves_no_file(tmp_path: Path) -> None:
    with pytest.raises(TTSError):
        AudioCache(tmp_path).get_or_synthesize(CountingEspeak(), TEXT, "xx-nope", "+0%", "en")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage", ["corrupt json", "missing json", "missing wav"])
def test_damaged_entries_are_resynthesized(tmp_path: Path, damage: str) -> None:
    engine = CountingEspeak()
    cache = AudioCache(tmp_path)
    clip = cache.get_or_synthesize(engine, TEXT, "en-us", "+0%", "en")
    meta = clip.path.with_suffix(".json")
    if damage == "corrupt json":
        meta.write_text('{"key": "trunc')
    elif damage == "missing json":
        meta.unlink()
    else:
        clip.path.unlink()
    again = cache.get_or_synthesize(engine, TEXT, "en-us", "+0%", "en")
    assert engine.calls == 2
    assert again.path == clip.path and again.path.is_file() and meta.is_file()
    assert cache.get_or_synthesize(engine, TEXT, "en-us", "+0%", "en") == again
    assert engine.calls == 2


def test_prune_keeps_what_was_used_and_what_is_recent(tmp_path):
    import os
    import time

    from narration.tts.espeak import EspeakEngine

    engine = EspeakEngine()
    old_cache = AudioCache(tmp_path)
    old = old_cache.get_or_synthesize(engine, "Old words.", "en-us", "+0%", "en")
    recent = old_cache.get_or_synthesize(engine, "Recent words.", "en-us", "+0%", "en")
    month_ago = time.time() - 40 * 86400
    for p in (old.path, old.path.with_suffix(".json")):
        os.utime(p, (month_ago, month_ago))
    orphan = tmp_path / ("f" * 64 + ".wav")  # an interrupted synthesis: no JSON
    orphan.write_bytes(b"RIFF")
    os.utime(orphan, (month_ago, month_ago))
    run = AudioCache(tmp_path)  # a later run that used only the recent clip
    assert run.lookup("espeak", "Recent words.", "en-us", "+0%") == recent
    assert run.prune() == 1
    assert not old.path.exists() and not orphan.exists()
    assert recent.path.exists()
