"""The online engine: parsing edge-tts streams, and failing fast and cleanly without network."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from narration.tts.base import wav_duration
from narration.tts.edge import TICKS_PER_SECOND, EdgeEngine, parse_edge_stream
from narration.types import TTSError, TTSUnavailable

from .helpers import RecordedEdge, load_recordings, read_wav, rms

RECORDINGS = load_recordings()
PROXY_VARS = ("WSS_PROXY", "wss_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


def boundary(text: str, offset: float, duration: float = 0.2) -> dict[str, Any]:
    return {
        "type": "WordBoundary",
        "offset": round(offset * TICKS_PER_SECOND),
        "duration": round(duration * TICKS_PER_SECOND),
        "text": text,
    }


AUDIO = {"type": "audio", "data": b"\xff\xf3mp3"}


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r["voice"])
def test_recorded_stream_is_parsed(rec: dict[str, Any]) -> None:
    text, chunks = rec["text"], rec["chunks"]
    mp3, words = parse_edge_stream(chunks, text)
    assert mp3 == b"".join(c["data"] for c in chunks if c["type"] == "audio")
    expected = [c for c in chunks if c["type"] == "WordBoundary"]
    assert [text[w.char_start : w.char_end] for w in words] == [c["text"] for c in expected]
    assert [w.start for w in words] == [c["offset"] / TICKS_PER_SECOND for c in expected]
    for a, b in itertools.pairwise(words):
        assert a.start <= b.start and a.char_end <= b.char_start


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r["voice"])
def test_recorded_stream_becomes_a_48k_clip(rec: dict[str, Any], tmp_path: Path) -> None:
    engine = RecordedEdge({rec["text"]: rec["chunks"]})
    out = tmp_path / "edge.wav"
    words = engine.synthesize(rec["text"], rec["voice"], "+0%", out)
    rate, channels, width, samples = read_wav(out)
    assert (rate, channels, width) == (48_000, 1, 2)
    duration = len(samples) / rate
    assert duration == pytest.approx(wav_duration(out))
    assert duration > 1.0 and rms(samples) > 0.01
    assert all(0 <= w.start <= w.end <= duration for w in words)
    last = max(c["offset"] + c["duration"] for c in rec["chunks"] if c["type"] == "WordBoundary")
    assert duration == pytest.approx(last / TICKS_PER_SECOND, abs=0.3)


def test_repeated_words_map_to_successive_occurrences() -> None:
    text = "词看向其他词，词。"
    chunks = [boundary("词", 0.1), AUDIO, boundary("看向", 0.3), boundary("其他", 0.6),
              boundary("词", 0.9), boundary("，", 1.1), boundary("词", 1.2)]  # fmt: skip
    _, words = parse_edge_stream(chunks, text)
    assert [(w.char_start, w.char_end) for w in words] == [(0, 1), (1, 3), (3, 5), (5, 6), (7, 8)]


def test_unmatched_punctuation_and_other_events_are_skipped() -> None:
    text = "Hello, WORLD & friends!"
    chunks = [
        {"type": "SentenceBoundary", "offset": 0, "duration": 1, "text": text},
        boundary("Hello", 0.1),
        boundary(",", 0.3),
        boundary("world", 0.4),  # the service's casing differs from the text
        boundary("gibberish", 0.6),
        boundary("&", 0.7),
        AUDIO,
        boundary(" friends ", 0.8),
        boundary("", 0.9),
    ]
    audio, words = parse_edge_stream(chunks, text)
    assert audio == AUDIO["data"]
    assert [text[w.char_start : w.char_end] for w in words] == ["Hello", "WORLD", "&", "friends"]
    assert words[1].start == pytest.approx(0.4) and words[1].end == pytest.approx(0.6)


def test_stream_without_audio_is_an_error() -> None:
    with pytest.raises(TTSError, match="no audio"):
        parse_edge_stream([boundary("Hello", 0.1)], "Hello")


@given(
    st.lists(st.text(st.sampled_from("abcXYZ注意力词"), min_size=1, max_size=5), min_size=1),
    st.data(),
)
def test_words_are_found_where_they_are(words: list[str], data: st.DataObject) -> None:
    seps = [data.draw(st.sampled_from([" ", ", ", "，", "——", " (", "\n"])) for _ in words]
    text, spans = "", []
    for word, sep in zip(words, seps, strict=True):
        text += sep
        spans.append((len(text), len(text) + len(word)))
        text += word
    chunks = [AUDIO] + [boundary(w, i * 0.3) for i, w in enumerate(words)]
    _, timings = parse_edge_stream(chunks, text)
    assert [(w.char_start, w.char_end) for w in timings] == spans


# --- without network ---------------------------------------------------------------------


def test_unreachable_service_fails_fast_and_leaves_no_file(
    no_network: list[tuple], tmp_path: Path
) -> None:
    engine = EdgeEngine(timeout=5.0)
    started = time.monotonic()
    with pytest.raises(TTSUnavailable, match="online voice unreachable"):
        engine.synthesize("Hello world.", engine.default_voice("en"), "+0%", tmp_path / "a.wav")
    assert time.monotonic() - started < engine.timeout
    assert no_network  # it did try
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def stalled_proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[socket.socket]]:
    """A local proxy that accepts connections and never answers; used for wss://."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                accepted.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=serve, daemon=True).start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    for var in ("WSS_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(var, url)
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("no_proxy", "")
    yield accepted
    server.close()
    for conn in accepted:
        conn.close()


def test_stalled_proxy_times_out(stalled_proxy: list[socket.socket], tmp_path: Path) -> None:
    engine = EdgeEngine(timeout=1.0)
    started = time.monotonic()
    with pytest.raises(TTSUnavailable, match="online voice unreachable"):
        engine.synthesize("Hello world.", "en-US-AriaNeural", "+0%", tmp_path / "a.wav")
    assert time.monotonic() - started < 3.0
    assert stalled_proxy  # the request really reached the stalled proxy
    assert list(tmp_path.iterdir()) == []


def test_hung_dns_lookup_does_not_block(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)

    def slow_getaddrinfo(*args: object, **kwargs: object) -> None:
        time.sleep(3.0)
        raise socket.gaierror("too slow")

    monkeypatch.setattr(socket, "getaddrinfo", slow_getaddrinfo)
    engine = EdgeEngine(timeout=0.5)
    started = time.monotonic()
    with pytest.raises(TTSUnavailable):
        engine.synthesize("Hello world.", "en-US-AriaNeural", "+0%", tmp_path / "a.wav")
    assert time.monotonic() - started < 2.0
    assert list(tmp_path.iterdir()) == []


def test_invalid_voice_is_a_plain_tts_error(tmp_path: Path) -> None:
    with pytest.raises(TTSError, match="online voice failed") as info:
        EdgeEngine().synthesize("Hello.", "not a voice!", "+0%", tmp_path / "a.wav")
    assert not isinstance(info.value, TTSUnavailable)
    assert list(tmp_path.iterdir()) == []


def test_default_voices() -> None:
    engine = EdgeEngine()
    assert engine.default_voice("zh") == "zh-CN-XiaoxiaoNeural"
    assert engine.default_voice("en-US") == "en-US-AriaNeural"


# --- with network (deselected by default; run with -m network) ----------------------------


@pytest.mark.network
@pytest.mark.parametrize(
    ("lang", "text"), [("en", "Query, key and value."), ("zh", "注意力让每个词看向其他词。")]
)
def test_edge_really_speaks(lang: str, text: str, tmp_path: Path) -> None:
    engine = EdgeEngine(timeout=15.0)
    out = tmp_path / f"{lang}.wav"
    words = engine.synthesize(text, engine.default_voice(lang), "+0%", out)
    rate, channels, _, samples = read_wav(out)
    assert (rate, channels) == (48_000, 1)
    assert len(samples) / rate > 0.5 and rms(samples) > 0.01
    assert words and all(text[w.char_start : w.char_end].strip() for w in words)
