"""espeak-ng synthesis speed (real-time factor) and cache-hit time.

Run: .venv/bin/python bench/bench_tts.py
Real-time factor = wall time / audio duration (below 1 is faster than real time).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from narration.tts.base import wav_duration
from narration.tts.cache import AudioCache
from narration.tts.espeak import EspeakEngine, synthesize_raw

PARAGRAPHS = {
    "zh": (
        "在注意力机制里，每个词都会生成三个向量：查询、键和值。查询表示这个词想找什么，"
        "键表示每个词能提供什么，值是真正被取走的信息。查询和所有键做点积，得到相似度，"
        "再经过缩放和软最大化变成权重，最后用这些权重把值加权求和，就得到了新的表示。"
    ),
    "en": (
        "In attention, every token produces three vectors: a query, a key and a value. "
        "The query says what the token is looking for, the key says what each token offers, "
        "and the value is the information that actually gets passed along. Dot products of "
        "the query with every key give similarity scores, which are scaled and turned into "
        "weights by a softmax; the weighted sum of the values is the new representation."
    ),
}
REPEATS = 5


def timed(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median wall time of ``fn()`` in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    engine = EspeakEngine()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        engine.synthesize("预热。", "cmn", "+0%", root / "warm.wav")
        print(f"first call (library init + pydub import): {time.perf_counter() - start:.3f} s")
        print(f"{'lang':4} {'chars':>5} {'audio s':>8} {'espeak s':>9} {'total s':>8} "
              f"{'RTF raw':>8} {'RTF total':>9} {'words':>5}")  # fmt: skip
        for lang, text in PARAGRAPHS.items():
            voice = engine.default_voice(lang)
            out = root / f"{lang}.wav"
            raw_s = timed(lambda t=text, v=voice: synthesize_raw(t, v, 200 if v == "cmn" else 175))
            total_s = timed(lambda t=text, v=voice, o=out: engine.synthesize(t, v, "+0%", o))
            words = engine.synthesize(text, voice, "+0%", out)
            audio_s = wav_duration(out)
            print(f"{lang:4} {len(text):5d} {audio_s:8.2f} {raw_s:9.4f} {total_s:8.4f} "
                  f"{raw_s / audio_s:8.4f} {total_s / audio_s:9.4f} {len(words):5d}")  # fmt: skip

        cache = AudioCache(root / "cache")
        for lang, text in PARAGRAPHS.items():
            start = time.perf_counter()
            cache.get_or_synthesize(engine, text, None, None, lang)
            miss_s = time.perf_counter() - start
            hit_s = timed(
                lambda t=text, la=lang: cache.get_or_synthesize(engine, t, None, None, la)
            )
            print(f"cache {lang}: miss {miss_s * 1000:.1f} ms, hit {hit_s * 1000:.2f} ms")


if __name__ == "__main__":
    main()
