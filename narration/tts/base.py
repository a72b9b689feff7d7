"""Engine protocol plus the rate, audio and atomic-file helpers shared by the TTS engines.

Rates (``rate: int | str``) mean the same thing for every engine:

* ``str`` ``"+N%"`` / ``"-N%"``: change from the language's normal speed (edge style);
* ``int``: words per minute, where normal speed is :data:`NOMINAL_WPM` (zh 200, en 175).

So ``"+0%"`` (:data:`DEFAULT_RATE`), ``200`` for Chinese and ``175`` for English all mean
"normal speed", whichever engine ends up speaking.
"""

from __future__ import annotations

import re
import warnings
import wave
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from common.atomic import atomic_path, atomic_write_bytes, atomic_write_text
from narration.types import WordTiming

__all__ = ["atomic_path", "atomic_write_bytes", "atomic_write_text"]  # re-exported

if TYPE_CHECKING:
    from pydub import AudioSegment

SAMPLE_RATE = 48_000
"""Every engine writes 48 kHz mono 16-bit PCM WAV files."""

DEFAULT_RATE = "+0%"
NOMINAL_WPM = {"zh": 200, "en": 175}
"""Normal speaking speed per language, in words (zh: characters) per minute."""

NARRATION_RATE: dict[str, int | str] = {"zh": "+12%", "en": "-6%"}
"""The rate the video is narrated at: English slowed a little for learners, to about 165
words per minute (espeak-ng's normal English measured about 184, Piper is calibrated to
match); −12% (about 154) made the English explainer run 18 minutes, over the 17 aimed for.
Chinese a little faster than Kokoro's zf_xiaobei speaks by itself (4.4 syllables a second of
sound, the slowest of its voices; the explainer ran 17.7 minutes at +0%). Kokoro rounds each
phoneme's frames after dividing by the speed, so short phonemes keep their length: +12%
shortened ten beats of the script (93.1 s) by 6.7% to 86.9 s (+7%: only 3.9%), about
4.7 syllables a second."""

_PERCENT = re.compile(r"^\s*([+-]?\d+)\s*%\s*$")


@runtime_checkable
class Engine(Protocol):
    """A text-to-speech engine.

    ``synthesize`` writes ``out_wav`` (48 kHz mono 16-bit) atomically -- if it raises, no
    file (and no temp file) is left -- and returns the word timings: seconds from the start
    of the clip and 0-based ``str`` spans into ``text``. Errors are ``TTSError``, or
    ``TTSUnavailable`` when the engine cannot be reached.
    """

    name: str

    def default_voice(self, lang: str) -> str:
        """The engine's voice for language ``lang`` ("zh" or "en")."""
        ...

    def synthesize(
        self, text: str, voice: str, rate: int | str, out_wav: Path
    ) -> tuple[WordTiming, ...]:
        """Speak ``text`` into ``out_wav``; return the word timings."""
        ...


def narration_rate(lang: str) -> int | str:
    """The speaking rate the video uses for ``lang``."""
    return NARRATION_RATE.get(lang_key(lang), DEFAULT_RATE)


def lang_key(lang: str) -> str:
    """Normalize a language tag: "zh-CN", "cmn", "ZH" -> "zh"; "en-US" -> "en"."""
    key = lang.strip().lower().replace("_", "-").split("-")[0]
    return "zh" if key in ("cmn", "zho", "chi") else key


def lang_of_voice(voice: str) -> str:
    """Language of a voice name of any engine ("zh-CN-XiaoxiaoNeural", "cmn", "en-us",
    Kokoro's "zf_xiaoyi@...": Kokoro names Mandarin voices zf_ and zm_)."""
    if voice[:3] in ("zf_", "zm_"):
        return "zh"
    return lang_key(voice)


def nominal_wpm(lang: str) -> int:
    """Normal speed for ``lang`` in words per minute (175 for unknown languages)."""
    return NOMINAL_WPM.get(lang_key(lang), 175)


def _check_rate(rate: int | str) -> None:
    if isinstance(rate, bool) or not isinstance(rate, int | str):
        raise ValueError(f"rate must be an int (words/min) or a str like '+10%', not {rate!r}")


def rate_percent(rate: int | str, lang: str) -> int:
    """``rate`` as a whole-percent change from normal speed (e.g. ``"+10%"`` -> 10)."""
    _check_rate(rate)
    if isinstance(rate, int):
        if rate <= 0:
            raise ValueError(f"rate in words/min must be positive, not {rate}")
        return round((rate / nominal_wpm(lang) - 1) * 100)
    match = _PERCENT.match(rate)
    if not match:
        raise ValueError(f"rate string must look like '+10%' or '-5%', not {rate!r}")
    percent = int(match.group(1))
    if percent <= -100:
        raise ValueError(f"rate {rate!r} would stop speech")
    return percent


def rate_wpm(rate: int | str, lang: str) -> int:
    """``rate`` in words per minute for ``lang``."""
    _check_rate(rate)
    if isinstance(rate, int):
        if rate <= 0:
            raise ValueError(f"rate in words/min must be positive, not {rate}")
        return rate
    return max(1, round(nominal_wpm(lang) * (1 + rate_percent(rate, lang) / 100)))


# --- files: see common.atomic ---------------------------------------------------------------


# --- audio ---------------------------------------------------------------------------------


def audio_segment() -> type[AudioSegment]:
    """pydub's ``AudioSegment``, imported quietly and pointed at imageio-ffmpeg's ffmpeg."""
    with warnings.catch_warnings():
        # pydub imports the deprecated ``audioop`` and warns that ffmpeg is not on PATH.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        from pydub import AudioSegment
    import imageio_ffmpeg

    if AudioSegment.converter in ("ffmpeg", "avconv"):
        AudioSegment.converter = imageio_ffmpeg.get_ffmpeg_exe()
    return AudioSegment


def to_pcm48(segment: AudioSegment) -> bytes:
    """Mono 16-bit 48 kHz PCM bytes of a pydub segment."""
    return segment.set_channels(1).set_sample_width(2).set_frame_rate(SAMPLE_RATE).raw_data


def pcm16_to_pcm48(pcm: bytes, sample_rate: int) -> bytes:
    """Resample mono 16-bit PCM from ``sample_rate`` to 48 kHz (with pydub)."""
    segment = audio_segment()(data=pcm, sample_width=2, frame_rate=sample_rate, channels=1)
    return to_pcm48(segment)


def write_wav(out_wav: Path, pcm: bytes, sample_rate: int = SAMPLE_RATE) -> float:
    """Atomically write mono 16-bit PCM as a WAV file; return its duration in seconds."""
    with atomic_path(out_wav) as tmp, wave.open(str(tmp), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm)
    return len(pcm) // 2 / sample_rate


def wav_duration(path: Path) -> float:
    """Duration of a PCM WAV file, counted from its decoded sample frames."""
    with wave.open(str(path), "rb") as w:
        frames = w.readframes(w.getnframes())
        return len(frames) // (w.getsampwidth() * w.getnchannels()) / w.getframerate()


def clamp_words(words: tuple[WordTiming, ...], duration: float) -> tuple[WordTiming, ...]:
    """Keep word times within ``[0, duration]`` and ``start <= end``."""
    out = []
    for w in words:
        start = min(max(w.start, 0.0), duration)
        end = min(max(w.end, start), duration)
        out.append(WordTiming(start, end, w.char_start, w.char_end))
    return tuple(out)
