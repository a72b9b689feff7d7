"""The quiz leaves real time to think: on the rendered soundtrack, at least 8 s without voice
follow each quiz prompt, before the answer is read (issue 31).

The recap quiz scene is rendered with the offline voices (English with Piper, Chinese with
espeak-ng, which keeps the run short) and the silence is measured on the video's own audio:
the manifest only says where each question's stretch of the video lies.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import av
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

WINDOW = 0.05  # seconds of audio per loudness measurement
QUIET = 10 ** (-50 / 20)  # RMS under −50 dBFS: no voice (the voice sits near −14 LUFS)
THINK = 8.0  # seconds of silence each prompt must leave
QUESTIONS = 4


@pytest.fixture(scope="module", params=[("en", "offline"), ("zh", "espeak")],
                ids=["en-piper", "zh-espeak"])
def quiz(request, tmp_path_factory):
    """The quiz scene rendered in one language: its manifest, audio (mono) and sample rate."""
    lang, tts = request.param
    tmp = tmp_path_factory.mktemp(f"quiz-{lang}")
    out = tmp / "out"
    cmd = [sys.executable, str(ROOT / "render.py"), "--lang", lang, "--quality", "low",
           "--scenes", "recap_quiz", "--tts", tts, "--no-clips", "--out", str(out),
           "--cache", str(tmp / "cache")]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stderr[-3000:]
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    with av.open(str(out / lang / "video.mp4")) as c:
        stream = c.streams.audio[0]
        rate = stream.rate
        pcm = np.concatenate([f.to_ndarray().mean(axis=0) for f in c.decode(stream)])
    return manifest, pcm, rate


def voiced(pcm: np.ndarray, rate: int) -> np.ndarray:
    """One flag per window: is anything louder than silence there."""
    n = int(WINDOW * rate)
    k = len(pcm) // n
    rms = np.sqrt(np.mean(pcm[: k * n].reshape(k, n).astype(np.float64) ** 2, axis=1))
    return rms > QUIET


def longest_silence(flags: np.ndarray) -> tuple[int, int]:
    """(first window, length in windows) of the longest run of silent windows."""
    best, start = (0, 0), None
    for i, v in enumerate([*flags, True]):
        if not v and start is None:
            start = i
        elif v and start is not None:
            if i - start > best[1]:
                best = (start, i - start)
            start = None
    return best


def test_longest_silence_finds_the_run():
    flags = np.array([True, False, False, True, False, False, False, True])
    assert longest_silence(flags) == (4, 3)


def test_at_least_eight_seconds_of_silence_follow_each_quiz_prompt(quiz):
    manifest, pcm, rate = quiz
    beats = {b["id"]: b for sc in manifest["scenes"] for b in sc["beats"]}
    flags = voiced(pcm, rate)
    for n in range(1, QUESTIONS + 1):
        # from the prompt (the question, then "pause and think") to the end of the answer
        q, answer = beats[f"q{n}"], beats[f"a{n}"]
        lo, hi = int(q["start"] / WINDOW), int(answer["end"] / WINDOW)
        stretch = flags[lo:hi]
        start, length = longest_silence(stretch)
        silence = length * WINDOW  # whole silent windows only: never more than there is
        assert silence >= THINK, f"question {n}: {silence:.2f} s of silence to think"
        # it follows the spoken prompt ("pause and think" is heard before it, in its beat),
        # and the answer's voice ends it
        think = int(beats[f"think{n}"]["start"] / WINDOW)
        assert flags[think:lo + start].any(), f"question {n}: no prompt heard before the silence"
        assert stretch[start + length:].any(), f"question {n}: no answer heard after it"
        assert (lo + start + length) * WINDOW <= answer["start"] + 1.0, n
