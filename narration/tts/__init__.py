"""Text-to-speech: engines (edge online; Piper and espeak-ng offline), choice and clip cache.

Importing this package never imports the online engine (``narration.tts.edge``).
"""

from narration.tts.base import DEFAULT_RATE, SAMPLE_RATE, Engine
from narration.tts.cache import AudioCache
from narration.tts.espeak import EspeakEngine
from narration.tts.select import MODES, AutoEngine, OfflineEngine, choose_engine

__all__ = [
    "DEFAULT_RATE",
    "MODES",
    "SAMPLE_RATE",
    "AudioCache",
    "AutoEngine",
    "Engine",
    "EspeakEngine",
    "OfflineEngine",
    "choose_engine",
]
