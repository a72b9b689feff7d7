"""Online voice: Microsoft Edge "read aloud" neural voices through ``edge-tts``.

Network access happens only in :meth:`EdgeEngine._fetch`. It runs in a daemon thread with
its own event loop, so a stalled DNS lookup or proxy cannot block the caller longer than
the timeouts (``edge-tts``'s own timeouts do not cover a stalled proxy, and ``asyncio.run``
would wait for a hung ``getaddrinfo`` thread on shutdown).
"""

from __future__ import annotations

import asyncio
import io
import math
import threading
import time
import unicodedata
from collections.abc import Coroutine, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from narration.tts.base import (
    audio_segment,
    clamp_words,
    lang_key,
    rate_percent,
    to_pcm48,
    write_wav,
)
from narration.types import TTSError, TTSUnavailable, WordTiming

VOICES = {"zh": "zh-CN-XiaoxiaoNeural", "en": "en-US-AriaNeural"}
TICKS_PER_SECOND = 10_000_000  # edge offsets and durations are in 100 ns ticks

T = TypeVar("T")


def _is_punctuation(word: str) -> bool:
    """Only punctuation that is not read aloud (unlike "&", "%", "#", "@")."""
    return all(unicodedata.category(ch).startswith(("P", "Z")) and ch not in "&%#@" for ch in word)


def parse_edge_stream(
    chunks: Iterable[Mapping[str, Any]], text: str
) -> tuple[bytes, tuple[WordTiming, ...]]:
    """Split an edge-tts chunk stream into MP3 bytes and word timings over ``text``.

    ``chunks`` are edge-tts 7.3 stream items: ``{"type": "audio", "data": bytes}`` or
    ``{"type": "WordBoundary", "offset": ticks, "duration": ticks, "text": str}``. Each
    boundary's text is searched in ``text`` forward from the previous match (exactly, then
    ignoring case); words that cannot be found, and punctuation-only ones, are skipped.
    """
    audio = bytearray()
    words: list[WordTiming] = []
    lowered = text.lower() if len(text.lower()) == len(text) else None
    cursor = 0
    for chunk in chunks:
        kind = chunk.get("type")
        if kind == "audio":
            audio += chunk["data"]
            continue
        if kind != "WordBoundary":
            continue  # SentenceBoundary or anything newer
        word = str(chunk.get("text", "")).strip()
        if not word or _is_punctuation(word):
            continue
        pos = text.find(word, cursor)
        if pos < 0 and lowered is not None and len(word.lower()) == len(word):
            pos = lowered.find(word.lower(), cursor)
        if pos < 0:
            continue
        start = chunk["offset"] / TICKS_PER_SECOND
        end = start + max(chunk.get("duration", 0), 0) / TICKS_PER_SECOND
        words.append(WordTiming(start, end, pos, pos + len(word)))
        cursor = pos + len(word)
    if not audio:
        raise TTSError("the online voice returned no audio")
    return bytes(audio), tuple(words)


def mp3_to_wav(mp3: bytes, out_wav: Path) -> float:
    """Decode MP3 bytes (with imageio-ffmpeg) into a 48 kHz mono WAV; return its duration."""
    try:
        segment = audio_segment().from_file(io.BytesIO(mp3), format="mp3", codec="mp3")
    except Exception as exc:  # pydub raises CouldntDecodeError and friends
        raise TTSError(f"could not decode the online voice's MP3: {exc}") from exc
    return write_wav(out_wav, to_pcm48(segment))


def check_complete(text: str, words: tuple[WordTiming, ...], duration: float) -> None:
    """Raise TTSUnavailable when the stream stopped before the text's end.

    edge-tts ends a stream quietly when the connection closes before the service's
    ``turn.end``: the audio is then cut short. Two signs: the last word the service timed
    is not the text's last word, or the audio ends before that word does.
    """
    if not words:
        return  # no word timings to judge by (the parser already required audio)
    last = max((i for i, c in enumerate(text) if c.isalnum()), default=-1)
    if words[-1].char_end <= last:
        raise TTSUnavailable(f"online voice stream cut short: it stopped at "
                             f"{text[words[-1].char_start:words[-1].char_end]!r}, before "
                             f"the end of the text")
    if duration + 0.05 < max(w.end for w in words):
        raise TTSUnavailable(f"online voice stream cut short: {duration:.2f} s of audio for "
                             f"{max(w.end for w in words):.2f} s of words")


class EdgeEngine:
    """Online engine (edge-tts): voices zh-CN-XiaoxiaoNeural and en-US-AriaNeural.

    ``timeout`` bounds each wait on the service (connecting, then between stream chunks);
    ``total_timeout`` (default ``max(30, 4 * timeout)``) bounds a whole request. Being
    unreachable raises ``TTSUnavailable("online voice unreachable: ...")``. A transient
    failure (a dropped connection, no audio, audio cut short) is retried ``retries`` times,
    after ``backoff`` s and then twice as long each time. A failed name lookup (no network)
    and a service that does not answer within the timeout are not retried: every wait stays
    bounded by one timeout. ``endpoint`` replaces the service's WebSocket URL
    (a mirror speaking the same protocol, or a test server on 127.0.0.1); proxies come from
    the usual environment variables (``HTTPS_PROXY``).
    """

    name = "edge"

    def __init__(self, timeout: float = 8.0, total_timeout: float | None = None,
                 retries: int = 2, backoff: float = 0.5, endpoint: str | None = None) -> None:
        self.timeout = timeout
        self.total_timeout = total_timeout if total_timeout is not None else max(30, 4 * timeout)
        self.retries, self.backoff, self.endpoint = retries, backoff, endpoint
        self.attempts = 0  # requests made, retries included (for tests and reports)

    def default_voice(self, lang: str) -> str:
        """Edge neural voice for ``lang``."""
        try:
            return VOICES[lang_key(lang)]
        except KeyError:
            raise ValueError(f"no edge voice for language {lang!r}") from None

    def synthesize(
        self, text: str, voice: str, rate: int | str, out_wav: Path
    ) -> tuple[WordTiming, ...]:
        """Speak ``text`` into a 48 kHz mono WAV at ``out_wav``; return word timings."""
        if not text.strip():
            raise TTSError("nothing to say: the text is empty")
        edge_rate = f"{rate_percent(rate, voice):+d}%"
        for attempt in range(self.retries + 1):
            try:
                return self._once(text, voice, edge_rate, Path(out_wav))
            except TTSUnavailable as err:
                Path(out_wav).unlink(missing_ok=True)
                if attempt == self.retries or not _transient(err):
                    raise
                time.sleep(self.backoff * 2 ** attempt)
        raise AssertionError("unreachable")

    def _once(self, text: str, voice: str, rate: str, out_wav: Path) -> tuple[WordTiming, ...]:
        self.attempts += 1
        chunks = self._fetch(text, voice, rate)
        try:
            mp3, words = parse_edge_stream(chunks, text)
        except TTSError as err:  # no audio at all: the service may recover
            raise TTSUnavailable(str(err)) from None
        tmp = out_wav.with_name(f".{out_wav.name}.edge.wav")
        try:
            duration = mp3_to_wav(mp3, tmp)
            check_complete(text, words, duration)
            tmp.replace(out_wav)
        finally:
            tmp.unlink(missing_ok=True)
        return clamp_words(words, duration)

    # --- network ---------------------------------------------------------------------------

    def _fetch(self, text: str, voice: str, rate: str) -> list[dict[str, Any]]:
        """All stream chunks for one request (the only place that touches the network)."""
        result: dict[str, Any] = {}

        def worker() -> None:
            try:
                result["chunks"] = _run_without_waiting(self._collect(text, voice, rate))
            except BaseException as exc:
                result["error"] = exc

        thread = threading.Thread(target=worker, name="edge-tts", daemon=True)
        thread.start()
        thread.join(self.total_timeout + 1.0)
        if thread.is_alive() and "chunks" not in result:
            raise TTSUnavailable(
                f"online voice unreachable: no answer within {self.total_timeout:.0f} s"
            )
        if "error" in result:
            error = result["error"]
            if isinstance(error, TTSError):
                raise error
            raise _translate(error) from error
        return result["chunks"]

    async def _collect(self, text: str, voice: str, rate: str) -> list[dict[str, Any]]:
        import edge_tts
        import edge_tts.communicate
        import edge_tts.constants

        # edge-tts reads its service URL from this module global at connect time.
        edge_tts.communicate.WSS_URL = self.endpoint or edge_tts.constants.WSS_URL
        wait = max(1, math.ceil(self.timeout))
        communicate = edge_tts.Communicate(
            text, voice, rate=rate, boundary="WordBoundary",
            connect_timeout=wait, receive_timeout=wait,
        )  # fmt: skip
        stream = communicate.stream()
        chunks: list[dict[str, Any]] = []
        try:
            async with asyncio.timeout(self.total_timeout):
                while True:
                    try:
                        chunk = await asyncio.wait_for(anext(stream), self.timeout)
                    except StopAsyncIteration:
                        break
                    chunks.append(dict(chunk))
        finally:
            await stream.aclose()
        return chunks


def _run_without_waiting(coro: Coroutine[Any, Any, T]) -> T:
    """Like ``asyncio.run`` but without joining executor threads (a hung DNS lookup)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # for this (worker) thread only
    try:
        return loop.run_until_complete(coro)
    finally:
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()  # shuts the default executor down with wait=False


def _transient(err: TTSUnavailable) -> bool:
    """Whether retrying ``err`` may help: not for a failed name lookup (no network) nor for
    a service that did not answer in time (a retry would wait as long again)."""
    import socket

    cause = err.__cause__
    try:
        import aiohttp

        dns: tuple[type[BaseException], ...] = (socket.gaierror,
                                                aiohttp.ClientConnectorDNSError)
    except (ImportError, AttributeError):
        dns = (socket.gaierror,)
    text = str(err)
    return not (isinstance(cause, (*dns, TimeoutError)) or "DNSError" in text
                or "name resolution" in text or "timed out" in text or "no answer" in text)


def _translate(exc: BaseException) -> TTSError:
    """Map an edge-tts / aiohttp failure onto TTSUnavailable (network-ish) or TTSError."""
    import aiohttp
    from edge_tts import exceptions as edge_exc

    if isinstance(exc, TimeoutError):
        return TTSUnavailable("online voice unreachable: timed out waiting for the service")
    if isinstance(exc, edge_exc.NoAudioReceived):  # it answered, but with no audio
        return TTSUnavailable("online voice sent no audio")
    network = (
        aiohttp.ClientError,
        OSError,
        edge_exc.WebSocketError,
        edge_exc.SkewAdjustmentError,
    )
    if isinstance(exc, network):
        return TTSUnavailable(f"online voice unreachable: {type(exc).__name__}: {exc}")
    if isinstance(exc, edge_exc.EdgeTTSException | ValueError | TypeError):
        return TTSError(f"online voice failed: {type(exc).__name__}: {exc}")
    return TTSError(f"online voice failed unexpectedly: {type(exc).__name__}: {exc}")
