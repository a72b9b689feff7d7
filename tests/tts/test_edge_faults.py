"""The online voice against misbehaving servers on 127.0.0.1, never a patched engine.

A small WebSocket server speaks edge-tts's protocol (``turn.start``, audio frames, word
metadata, ``turn.end``) and misbehaves on request: no audio, audio cut short, the
connection closed mid-stream, no answer at all. ``EdgeEngine(endpoint=...)`` points the
real edge-tts client at it. Proxy faults go through ``HTTPS_PROXY`` to the real service
URL: a proxy that closes the tunnel. In every case the wait is bounded, the error is one
line, transient faults are retried, and nothing half-made is cached.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import WSMsgType, web

from narration.tts.cache import AudioCache
from narration.tts.edge import EdgeEngine
from narration.tts.espeak import EspeakEngine
from narration.tts.select import AutoEngine
from narration.types import TTSUnavailable
from pipeline.media import FFMPEG

TEXT = "Hello brave new world."
WORDS = [("Hello", 0.05), ("brave", 0.45), ("new", 0.85), ("world", 1.15)]
TICKS = 10_000_000
PROXY_VARS = ("WSS_PROXY", "wss_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
              "all_proxy", "HTTP_PROXY", "http_proxy")


@pytest.fixture(scope="module")
def mp3() -> bytes:
    """1.6 s of tone as the service sends it: 24 kHz mono MP3 at 48 kb/s."""
    p = subprocess.run([FFMPEG, "-v", "error", "-f", "lavfi", "-i",
                        "sine=frequency=220:duration=1.6:sample_rate=24000", "-ac", "1",
                        "-c:a", "libmp3lame", "-b:a", "48k", "-f", "mp3", "-"],
                       capture_output=True, check=True)
    return p.stdout


def _audio_frame(chunk: bytes) -> bytes:
    header = b"X-RequestId:fake\r\nContent-Type:audio/mpeg\r\nPath:audio\r\n"
    return len(header).to_bytes(2, "big") + header + chunk


def _text(path: str, body: str = "") -> str:
    return (f"X-RequestId:fake\r\nContent-Type:application/json; charset=utf-8\r\n"
            f"Path:{path}\r\n\r\n{body}")


def _word(word: str, at: float) -> str:
    return _text("audio.metadata", json.dumps({"Metadata": [{"Type": "WordBoundary", "Data": {
        "Offset": round(at * TICKS), "Duration": round(0.3 * TICKS),
        "text": {"Text": word, "Length": len(word), "BoundaryType": "WordBoundary"}}}]}))


class FakeEdge:
    """The service, on a thread of its own; ``mode`` chooses how it (mis)behaves."""

    def __init__(self, mp3: bytes) -> None:
        self.mp3, self.mode, self.requests = mp3, "ok", 0
        self.failures_left = 0  # with mode "flaky": fail this many requests, then answer
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()
        assert self.ready.wait(10)

    @property
    def endpoint(self) -> str:
        return f"ws://127.0.0.1:{self.port}/edge/v1?TrustedClientToken=test"

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_get("/edge/v1", self._ws)
        runner = web.AppRunner(app)
        self.loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.ready.set()
        self.loop.run_forever()

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.requests += 1
        for _ in range(2):  # speech.config, then the SSML
            msg = await ws.receive()
            if msg.type != WSMsgType.TEXT:
                return ws
        mode = self.mode
        if mode == "flaky":
            mode = "close" if self.failures_left > 0 else "ok"
            self.failures_left -= 1
        if mode == "stall":
            await asyncio.sleep(30)
            return ws
        await ws.send_str(_text("turn.start", "{}"))
        if mode == "close":
            await ws.close()
            return ws
        if mode == "no_audio":
            await ws.send_str(_text("turn.end", "{}"))
            return ws
        n = 8
        step = len(self.mp3) // n
        chunks = [self.mp3[i * step:(i + 1) * step if i < n - 1 else None] for i in range(n)]
        if mode == "cut_short":
            chunks = chunks[:3]
        words = WORDS if mode != "cut_short" else WORDS[:1]
        for k, chunk in enumerate(chunks):
            await ws.send_bytes(_audio_frame(chunk))
            if k < len(words):
                await ws.send_str(_word(*words[k]))
        if mode == "cut_short":
            await ws.close()  # no turn.end: the client sees a normal end of stream
            return ws
        await ws.send_str(_text("turn.end", "{}"))
        return ws


@pytest.fixture(scope="module")
def fake(mp3: bytes) -> FakeEdge:
    return FakeEdge(mp3)


@pytest.fixture
def server(fake: FakeEdge, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEdge]:
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    fake.mode, fake.requests, fake.failures_left = "ok", 0, 0
    yield fake


def _engine(fake: FakeEdge, **kw) -> EdgeEngine:
    return EdgeEngine(timeout=kw.pop("timeout", 1.0), endpoint=fake.endpoint,
                      backoff=kw.pop("backoff", 0.05), **kw)


def test_a_well_behaved_server_gives_a_clip_with_word_times(server, tmp_path):
    cache = AudioCache(tmp_path)
    engine = _engine(server)
    clip = cache.get_or_synthesize(engine, TEXT, "en-US-AriaNeural", "+0%", "en")
    assert clip.engine == "edge" and 1.5 < clip.duration < 1.8
    assert [TEXT[w.char_start:w.char_end] for w in clip.words] == [w for w, _ in WORDS]
    assert server.requests == 1


@pytest.mark.parametrize("mode, message", [
    ("no_audio", "no audio"),
    ("cut_short", "cut short"),
    ("close", "online voice"),
])
def test_a_broken_answer_is_retried_then_refused_and_nothing_is_cached(
        server, tmp_path, mode, message):
    server.mode = mode
    cache = AudioCache(tmp_path)
    engine = _engine(server, retries=2)
    started = time.monotonic()
    with pytest.raises(TTSUnavailable, match=message):
        cache.get_or_synthesize(engine, TEXT, "en-US-AriaNeural", "+0%", "en")
    assert time.monotonic() - started < 5
    assert server.requests == 3 == engine.attempts  # the first try and two retries
    assert list(tmp_path.iterdir()) == []  # no partial audio, no metadata


def test_a_transient_fault_is_survived_by_a_retry(server, tmp_path):
    server.mode, server.failures_left = "flaky", 1
    clip = AudioCache(tmp_path).get_or_synthesize(_engine(server, retries=2), TEXT,
                                                  "en-US-AriaNeural", "+0%", "en")
    assert server.requests == 2 and clip.duration > 1.5


def test_a_server_that_never_answers_is_abandoned_within_the_timeout(server, tmp_path):
    server.mode = "stall"
    engine = _engine(server, timeout=1.0, retries=2)
    started = time.monotonic()
    with pytest.raises(TTSUnavailable, match="unreachable"):
        engine.synthesize(TEXT, "en-US-AriaNeural", "+0%", tmp_path / "a.wav")
    assert time.monotonic() - started < 3.5  # one timeout, not one per retry
    assert engine.attempts == 1
    assert list(tmp_path.iterdir()) == []


def test_auto_falls_back_per_beat_with_one_warning(server, tmp_path):
    warnings: list[str] = []
    auto = AutoEngine(_engine(server, retries=1), EspeakEngine(), warnings.append)
    cache = AudioCache(tmp_path)
    first = cache.get_or_synthesize(auto, TEXT, None, "+0%", "en")
    server.mode = "cut_short"
    second = cache.get_or_synthesize(auto, "Hello brave new world!", None, "+0%", "en")
    third = cache.get_or_synthesize(auto, "Hello brave new world?", None, "+0%", "en")
    assert (first.engine, second.engine, third.engine) == ("edge", "espeak", "espeak")
    assert len(warnings) == 1 and "cut short" in warnings[0]
    # The online clip made before the fault stays valid; only whole clips are cached.
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json"] * 3 + [".wav"] * 3


def test_no_network_at_all_fails_at_once_without_retries(monkeypatch, tmp_path):
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    # A proxy whose name cannot be resolved (.invalid never resolves): the lookup fails.
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("WSS_PROXY", "http://proxy.invalid:3128")
    engine = EdgeEngine(timeout=2.0, retries=3, backoff=1.0)
    started = time.monotonic()
    with pytest.raises(TTSUnavailable, match="unreachable"):
        engine.synthesize(TEXT, "en-US-AriaNeural", "+0%", tmp_path / "a.wav")
    assert time.monotonic() - started < 2.5
    assert engine.attempts == 1
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def closing_proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """A proxy that accepts the CONNECT, says yes, then closes the tunnel mid-handshake."""
    srv = socket.create_server(("127.0.0.1", 0))
    seen: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                seen.append(conn.recv(4096))
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                conn.recv(64)  # the start of the TLS handshake, then hang up
    threading.Thread(target=serve, daemon=True).start()
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    url = f"http://127.0.0.1:{srv.getsockname()[1]}"
    monkeypatch.setenv("HTTPS_PROXY", url)
    monkeypatch.setenv("WSS_PROXY", url)
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("no_proxy", "")
    yield seen
    srv.close()


def test_a_proxy_closing_the_tunnel_is_retried_then_refused(closing_proxy, tmp_path):
    engine = EdgeEngine(timeout=2.0, retries=1, backoff=0.05)
    started = time.monotonic()
    with pytest.raises(TTSUnavailable, match="unreachable"):
        engine.synthesize(TEXT, "en-US-AriaNeural", "+0%", tmp_path / "a.wav")
    assert time.monotonic() - started < 6
    assert len(closing_proxy) == 2 and closing_proxy[0].startswith(b"CONNECT ")
    assert list(tmp_path.iterdir()) == []


def test_edge_mode_in_the_cli_stops_with_one_line(tmp_path):
    """``--tts edge`` with a dead proxy: exit 1, one error line naming the voice."""
    import os
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    env |= {"HTTPS_PROXY": "http://proxy.invalid:3128", "WSS_PROXY": "http://proxy.invalid:3128"}
    p = subprocess.run([sys.executable, str(root / "render.py"), "--tts", "edge", "--scenes",
                        "hook", "--quality", "low", "--out", str(tmp_path / "out"),
                        "--cache", str(tmp_path / "cache")], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1
    errors = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "voice" in errors[0] and "Traceback" not in p.stderr
    assert not (tmp_path / "out" / "zh").exists()
