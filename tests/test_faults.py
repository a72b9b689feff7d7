"""Faults during a run: each ends in one clear line, loses nothing finished, corrupts
nothing (real renders at 480p15 with the offline voice)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.shared_renders import SHORT_CUT, SHORT_SCENES, TERSE, scene_processes, scripts_with

ROOT = Path(__file__).resolve().parents[1]
SCENES = "library,formula"
# Where only the count of scenes matters (Ctrl-C keeps the finished one): the two shortest
# scenes, the overview's (about 20 s each).
SHORT = ("--cut", SHORT_CUT, "--scenes", ",".join(SHORT_SCENES))


def _cmd(out: Path, cache: Path, *extra: str, scenes: tuple[str, ...] = ("--scenes", SCENES)
         ) -> list[str]:
    return [sys.executable, str(ROOT / "render.py"), "--lang", "zh", "--quality", "low",
            # espeak-ng: what is tested here does not depend on the voice, and it
            # speaks in a fraction of Kokoro's time (the voice is tested in tests/tts)
            *scenes, "--tts", "espeak", "--no-clips", "--out", str(out),
            "--cache", str(cache), *extra]


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def _entries(cache: Path) -> list[Path]:
    return sorted((cache / "scenes").glob("*/zh-low/[0-9a-f]*/entry.json"))


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    (out / "zh").mkdir(parents=True)
    (out / "zh" / "video.mp4").write_bytes(b"previous render")
    return out


@pytest.mark.parametrize("exe", ["/bin/false", "/nonexistent/ffmpeg"])
def test_a_missing_or_broken_ffmpeg_is_one_line(tmp_path, previous, exe):
    env = os.environ | {"IMAGEIO_FFMPEG_EXE": exe}
    p = subprocess.run(_cmd(previous, tmp_path / "cache"), env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1
    assert len(_errors(p.stderr)) == 1 and "ffmpeg" in _errors(p.stderr)[0]
    assert exe in _errors(p.stderr)[0] and "Traceback" not in p.stderr
    assert (previous / "zh" / "video.mp4").read_bytes() == b"previous render"


def test_a_full_disk_is_one_line_and_leaves_the_previous_output(tmp_path, previous):
    """A file-size limit stands in for a full disk: every write past 1 MB fails."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    p = subprocess.run(_cmd(previous, tmp_path / "cache"), capture_output=True, text=True,
                       timeout=300, preexec_fn=limit)
    assert p.returncode == 1, p.stderr[-2000:]
    errors = _errors(p.stderr)
    assert len(errors) == 1 and "Traceback" not in p.stderr
    assert "too large" in errors[0].lower() or "space" in errors[0].lower(), errors[0]
    assert (previous / "zh" / "video.mp4").read_bytes() == b"previous render"
    assert not list(previous.glob(".zh.staging*"))


def test_ctrl_c_stops_promptly_and_keeps_finished_scenes(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    # Ctrl-C at a terminal: SIGINT as its default (a shell starting the tests in the
    # background, `cmd &`, leaves it ignored, and the children would inherit that).
    terse = ("--scripts", str(scripts_with(tmp_path / "scripts", TERSE)))  # the count matters
    proc = subprocess.Popen(_cmd(out, cache, "--jobs", "1", *terse, scenes=SHORT),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not _entries(cache):
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    kept = _entries(cache)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 10
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "Traceback" not in err
    time.sleep(0.5)
    assert not scene_processes(out)
    assert _entries(cache) == kept and kept  # finished work kept
    assert not (out / "zh").exists()
    again = subprocess.run(_cmd(out, cache, *terse, scenes=SHORT), capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "scenes 1 rendered, 1 reused" in again.stderr
