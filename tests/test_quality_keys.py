"""Every cached artefact is keyed by what it is made from, quality included: one cache serves
renders at several qualities, and each master has the size and frame rate asked for.

The renders use the shortest scene there is (the overview's one-line formula), read from a
copy of the scripts where its two beats say little more than their cue marks (``--scripts``):
about 6 s instead of 20. What is checked (the master's size and rate, the cache's keys)
does not depend on the wording, and at 2160p60 every second of picture costs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import media
from scenes.contract import QUALITIES
from tests.shared_renders import TERSE, scripts_with

ROOT = Path(__file__).resolve().parents[1]
SCENE = "ov_formula"  # the shortest scene of either cut
CUT = "overview"


def terse_scripts(root: Path) -> Path:
    """A copy of the shipped scripts with the scene's beats in few words."""
    return scripts_with(root, {SCENE: TERSE[SCENE]})


def _render(out: Path, cache: Path, quality: str, scripts: Path) -> str:
    p = subprocess.run(
        [sys.executable, str(ROOT / "render.py"), "--lang", "zh", "--cut", CUT, "--scenes", SCENE,
         "--quality", quality, "--tts", "espeak", "--no-clips", "--scripts", str(scripts),
         "--out", str(out), "--cache", str(cache)],
        capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stderr


@pytest.mark.slow
def test_one_cache_gives_each_quality_its_own_master(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    scripts = terse_scripts(tmp_path / "scripts")
    seen = []
    # the smallest quality, the largest, one between, then the first again (its master
    # from the store): 1080p60 in place of 480p15 cost 18 CPU s more and proves no more
    for quality in ("low", "4k", "medium", "low"):
        log = _render(out, cache, quality, scripts)
        fmt = media.picture_format(out / "zh" / CUT / "video.mp4")
        seen.append((fmt.width, fmt.height, round(fmt.fps)))
        width, height, fps = QUALITIES[quality]
        assert (fmt.width, fmt.height, round(fmt.fps)) == (width, height, fps), (quality, log)
    assert seen == [(854, 480, 15), (3840, 2160, 60), (1280, 720, 30), (854, 480, 15)]
    # The last run found the first one's picture (the master's segment): nothing was made
    # again.
    assert "scenes 0 rendered, 1 reused" in log
    # what was said and subtitled is the copy's wording (--scripts), not the shipped one
    srt = (out / "zh" / CUT / "video.srt").read_text("utf-8")
    assert "打分，缩放，份额，求和" in srt and "缩放点积注意力" not in srt


def _testsrc(out: Path, size: str, rate: int, seconds: float) -> Path:
    media.run_ffmpeg(["-f", "lavfi", "-i", f"testsrc=size={size}:rate={rate}",
                      "-t", str(seconds), "-c:v", "libx264", "-pix_fmt", "yuv420p", str(out)])
    return out


def test_the_last_check_passes_a_video_of_the_asked_format(tmp_path):
    video = _testsrc(tmp_path / "v.mp4", "320x240", 15, 2)
    media.check_format(video, 320, 240, 15, 2.0, "the master")
    media.check_format(video, None, 240, 15, 2.0, "the clip")


@pytest.mark.parametrize("width, height, fps, seconds, said", [
    (640, 480, 15, 2.0, "320x240 instead of 640x480"),
    (None, 720, 15, 2.0, "320x240 instead of 720 px high"),
    (320, 240, 30, 2.0, "15 fps instead of 30"),
    (320, 240, 15, 3.0, "2.000 s instead of 3.000 s"),
])
def test_the_last_check_refuses_another_size_rate_or_length(tmp_path, width, height, fps,
                                                            seconds, said):
    video = _testsrc(tmp_path / "v.mp4", "320x240", 15, 2)
    with pytest.raises(media.MediaError) as err:
        media.check_format(video, width, height, fps, seconds, "the master")
    assert said in str(err.value)
    assert "\n" not in str(err.value)
