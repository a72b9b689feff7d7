"""Choosing the voice engine: "auto" (online, falling back to offline), "edge", "offline",
"espeak".

"offline" is Piper for English and Kokoro for Chinese (``OfflineEngine``), each falling
back to espeak-ng with one warning when its model cannot be loaded; "espeak" is espeak-ng for
both, so nothing depends on Piper or Kokoro being importable.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from narration.tts.base import Engine, lang_key, lang_of_voice
from narration.tts.espeak import EspeakEngine
from narration.types import TTSUnavailable, WordTiming

MODES = ("auto", "edge", "offline", "espeak")
AUTO_TIMEOUT = 3.0
"""Seconds auto mode waits on the online voice before giving up on it for the run."""

T = TypeVar("T")


def route(engine: Engine, attempt: Callable[[Engine, str], T], voice: str) -> T:
    """Call ``attempt`` with the concrete engine that speaks ``voice`` for ``engine``.

    Composite engines (``AutoEngine``, ``OfflineEngine``) choose one of theirs through their
    ``run``; plain engines are themselves. The audio cache keys clips by that engine.
    """
    run = getattr(engine, "run", None)
    return run(attempt, voice) if run is not None else attempt(engine, voice)


class OfflineEngine:
    """The offline voice: Piper for English, Kokoro for Chinese.

    If Piper or Kokoro (its packages, its model, the voice file) cannot be loaded, that
    language falls back to espeak-ng with one warning. ``zh_voice`` picks one of Kokoro's
    vendored Mandarin voices; ``zh_model`` another model source (tests).
    """

    name = "offline"
    label = "Piper for English, Kokoro for Chinese"

    def __init__(self, warn: Callable[[str], None], zh_voice: str | None = None,
                 zh_model=None) -> None:
        self.warn = warn
        self.espeak = EspeakEngine()
        self._english: Engine | None = None
        self._chinese: Engine | None = None
        self._zh_voice = zh_voice
        self._zh_model = zh_model
        self._lock = threading.Lock()
        self.last_engine: Engine | None = None

    def chinese(self) -> Engine:
        with self._lock:
            if self._chinese is None:
                from narration.tts import kokoro

                voice = self._zh_voice or kokoro.DEFAULT_VOICE
                why = kokoro.available(voice)
                if why is None:
                    self._chinese = kokoro.KokoroEngine(voice, self._zh_model)
                else:
                    self.warn(f"Kokoro voice unavailable: {why}; Chinese uses espeak-ng")
                    self._chinese = self.espeak
            return self._chinese

    def english(self) -> Engine:
        with self._lock:
            if self._english is None:
                from narration.tts import piper

                why = piper.available()
                if why is None:
                    self._english = piper.PiperEngine()
                else:
                    self.warn(f"Piper voice unavailable: {why}; English uses espeak-ng")
                    self._english = self.espeak
            return self._english

    def engine_for(self, lang: str) -> Engine:
        return self.english() if lang_key(lang) == "en" else self.chinese()

    def default_voice(self, lang: str) -> str:
        return self.engine_for(lang).default_voice(lang)

    def run(self, attempt: Callable[[Engine, str], T], voice: str) -> T:
        lang = lang_of_voice(voice)
        engine = self.engine_for(lang)
        if engine is not self.espeak and lang == "zh":
            from narration.tts.kokoro import KokoroUnavailable

            try:
                result = attempt(engine, voice)
            except KokoroUnavailable as err:  # installed but the model or voice won't load
                with self._lock:
                    first = self._chinese is not self.espeak
                    self._chinese = self.espeak
                if first:
                    self.warn(f"Kokoro voice unavailable: {err}; Chinese uses espeak-ng")
                result = attempt(self.espeak, self.espeak.default_voice("zh"))
                engine = self.espeak
        elif engine is not self.espeak and lang == "en":
            from narration.tts.piper import PiperUnavailable

            try:
                result = attempt(engine, voice)
            except PiperUnavailable as err:  # installed but failed to load
                self.warn(f"Piper voice unavailable: {err}; English uses espeak-ng")
                with self._lock:
                    self._english = self.espeak
                result = attempt(self.espeak, self.espeak.default_voice("en"))
                engine = self.espeak
        else:
            result = attempt(engine, voice)
        self.last_engine = engine
        return result

    def synthesize(self, text: str, voice: str, rate: int | str,
                   out_wav: Path) -> tuple[WordTiming, ...]:
        return self.run(lambda engine, v: engine.synthesize(text, v, rate, out_wav), voice)


class AutoEngine:
    """Online voice first; once it is unreachable, the offline voice for the rest of the run.

    The first ``TTSUnavailable`` from ``online`` calls ``warn`` (exactly once) and switches
    to ``offline`` for that request and every later one, so a run without network waits
    for the online voice at most once. Other ``TTSError``s propagate.

    ``voice`` arguments are ``online`` voice names (see :meth:`default_voice`); the offline
    engine speaks with its default voice for the same language.

    Which engine spoke: ``last_engine`` is the concrete engine that produced (or, through
    ``AudioCache``, had cached) the last clip; ``active`` is the one the next request goes
    to first; ``fell_back`` says whether the switch happened. ``AudioCache`` stores each
    clip under, and reports in ``SpeechClip.engine``, the concrete engine -- never "auto".
    """

    name = "auto"

    def __init__(self, online: Engine, offline: Engine, warn: Callable[[str], None]) -> None:
        self.online = online
        self.offline = offline
        self.warn = warn
        self.fell_back = False
        self.last_engine: Engine | None = None
        self._lock = threading.Lock()

    @property
    def active(self) -> Engine:
        """The engine the next request will try first."""
        return self.offline if self.fell_back else self.online

    def default_voice(self, lang: str) -> str:
        """The online engine's voice for ``lang``."""
        return self.online.default_voice(lang)

    def cached_first(self, voice: str) -> list[tuple[Engine, str]]:
        """Where a clip for ``voice`` may be cached already, best first: the online voice,
        then the offline one. A beat cached by either is used without touching the
        network, so a rerun with nothing changed never waits for the online voice."""
        lang = lang_of_voice(voice)
        offline = getattr(self.offline, "engine_for", None)
        concrete = offline(lang) if offline else self.offline
        return [(self.online, voice), (concrete, concrete.default_voice(lang))]

    def offline_voice(self, voice: str) -> str:
        """The offline engine's voice for the language of ``voice``."""
        return self.offline.default_voice(lang_of_voice(voice))

    def run(self, attempt: Callable[[Engine, str], T], voice: str) -> T:
        """Call ``attempt(engine, engine_voice)``: online unless fallen back, else offline."""
        if not self.fell_back:
            try:
                result = attempt(self.online, voice)
            except TTSUnavailable as exc:
                self._fall_back(exc)
            else:
                self.last_engine = self.online
                return result
        result = route(self.offline, attempt, self.offline_voice(voice))
        self.last_engine = getattr(self.offline, "last_engine", None) or self.offline
        return result

    def synthesize(
        self, text: str, voice: str, rate: int | str, out_wav: Path
    ) -> tuple[WordTiming, ...]:
        """Synthesize with the active engine (see the class docstring)."""
        return self.run(lambda engine, v: engine.synthesize(text, v, rate, out_wav), voice)

    def _fall_back(self, exc: TTSUnavailable) -> None:
        with self._lock:
            if self.fell_back:
                return
            self.fell_back = True
        label = getattr(self.offline, "label", self.offline.name)
        self.warn(f"{exc}; falling back to the offline voice ({label}) for the rest of this run")


def choose_engine(mode: str, warn: Callable[[str], None], zh_voice: str | None = None
                  ) -> Engine:
    """The engine for ``mode``: "auto", "edge" (online only), "offline" (Piper for English,
    Kokoro with ``zh_voice`` for Chinese) or "espeak" (espeak-ng for both).

    "offline" and "espeak" never import the online engine nor touch the network. "edge"
    raises ``TTSUnavailable("online voice unreachable: ...")`` from ``synthesize`` offline.
    """
    if mode == "espeak":
        return EspeakEngine()
    if mode == "offline":
        return OfflineEngine(warn, zh_voice)
    if mode == "edge":
        from narration.tts.edge import EdgeEngine

        return EdgeEngine()
    if mode == "auto":
        from narration.tts.edge import EdgeEngine

        return AutoEngine(EdgeEngine(timeout=AUTO_TIMEOUT, retries=1),
                          OfflineEngine(warn, zh_voice), warn)
    raise ValueError(f"unknown voice mode {mode!r}; expected one of {', '.join(MODES)}")
