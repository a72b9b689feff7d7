"""Regenerate ``edge_stream_recording.json``: .venv/bin/python tests/data/tts/make_edge_recording.py

The Edge read-aloud service cannot be reached from the machine this was written on, so the
"recording" is HAND-CONSTRUCTED in edge-tts 7.3's stream format: the audio is espeak-ng
speech (with 100 ms of leading silence, as Edge has) encoded like Edge's output
(24 kHz mono 48 kbit/s MP3, no ID3/Xing header) and split into several chunks; the
WordBoundary events use Edge-style word segmentation (multi-character Chinese words) with
offsets/durations in 100 ns ticks taken from espeak-ng's timing of the same audio.
"""

from __future__ import annotations

import base64
import json
import subprocess
import tempfile
from pathlib import Path

import imageio_ffmpeg
import numpy as np

from narration.tts.espeak import speech_end, synthesize_raw, words_from_events

HERE = Path(__file__).parent
LEAD = 0.1  # seconds of silence before speech, like Edge
TICKS = 10_000_000
SENTENCES = [
    (
        "en-US-AriaNeural",
        "en-us",
        175,
        "Query, key and value: three views of every token.",
        ["Query", "key", "and", "value", "three", "views", "of", "every", "token"],
    ),
    (
        "zh-CN-XiaoxiaoNeural",
        "cmn",
        200,
        "注意力让每个词看向其他词。",
        ["注意力", "让", "每个", "词", "看向", "其他", "词"],
    ),
]


def encode_mp3(samples: np.ndarray, rate: int) -> bytes:
    """Edge-like MP3 (24 kHz mono 48 kbit/s, bare frames) of int16 samples."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "in.raw"
        raw.write_bytes(samples.astype("<i2").tobytes())
        cmd = [
            imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y",
            "-f", "s16le", "-ar", str(rate), "-ac", "1", "-i", str(raw),
            "-ar", "24000", "-ac", "1", "-b:a", "48k", "-c:a", "libmp3lame",
            "-write_xing", "0", "-id3v2_version", "0", "-f", "mp3", "-",
        ]  # fmt: skip
        return subprocess.run(cmd, check=True, capture_output=True).stdout


def recording(voice: str, espeak_voice: str, wpm: int, text: str, edge_words: list[str]) -> dict:
    """One hand-constructed edge-tts stream for ``text``."""
    raw = synthesize_raw(text, espeak_voice, wpm)
    lead = np.zeros(round(LEAD * raw.sample_rate), dtype=np.int16)
    samples = np.concatenate([lead, raw.samples])
    chars = words_from_events(
        text, raw.events, raw.sample_rate, speech_end(raw.samples, raw.sample_rate)
    )
    boundaries, cursor = [], 0
    for word in edge_words:
        pos = text.index(word, cursor)
        cursor = pos + len(word)
        inside = [w for w in chars if pos <= w.char_start < cursor]
        start, end = LEAD + inside[0].start, LEAD + inside[-1].end
        boundaries.append(
            {
                "type": "WordBoundary",
                "offset": round(start * TICKS),
                "duration": round((end - start) * TICKS),
                "text": word,
            }
        )
    mp3 = encode_mp3(samples, raw.sample_rate)
    seconds = len(samples) / raw.sample_rate
    n_chunks = 4
    size = -(-len(mp3) // n_chunks)
    chunks: list[dict] = []
    pending = list(boundaries)
    for i in range(n_chunks):
        part = mp3[i * size : (i + 1) * size]
        chunk_end = seconds * (i + 1) / n_chunks
        while pending and pending[0]["offset"] / TICKS < chunk_end:
            chunks.append(pending.pop(0))
        chunks.append({"type": "audio", "data_b64": base64.b64encode(part).decode("ascii")})
    chunks.extend(pending)
    return {"voice": voice, "rate": "+0%", "text": text, "chunks": chunks}


def main() -> None:
    data = {
        "note": (
            "HAND-CONSTRUCTED, not captured from the service: the Edge read-aloud service is "
            "unreachable from the machine this was made on. Chunks follow edge-tts 7.3's "
            "Communicate.stream() format ({'type': 'audio', 'data': bytes} with data stored "
            "here as base64 in 'data_b64'; {'type': 'WordBoundary', 'offset': ticks, "
            "'duration': ticks, 'text': str}, 1 tick = 100 ns). Audio is espeak-ng speech "
            "encoded as 24 kHz mono 48 kbit/s MP3 like Edge's; word times come from espeak-ng. "
            "Regenerate with make_edge_recording.py."
        ),
        "recordings": [recording(*s) for s in SENTENCES],
    }
    out = HERE / "edge_stream_recording.json"
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
