"""The build's reuse rules, on real renders (480p15, offline voice).

``library`` reads no number (only its script), ``formula`` reads the worked example; the
worked example's V is the number changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qkv_math.numbers import DEFAULT_NUMBERS
from scenes.contract import TEXT_CACHE_ENV
from tests.shared_renders import (
    SHORT_CUT,
    SHORT_SCENES,
    TERSE,
    Build,
    render_cmd,
    scene_processes,
    scripts_with,
)

ROOT = Path(__file__).resolve().parents[1]
SCENES = "library,formula"
# Where only the count of scenes matters (an interrupted run keeps the finished one; serial
# and parallel builds agree): the two shortest scenes, the overview's (about 20 s each).
SHORT, SHORT_IDS = ("--cut", SHORT_CUT), ",".join(SHORT_SCENES)
OLD_V = "V = [[1, 2], [3, 0], [0, 1]]"
OLD_K = "K = [[0, 1], [1, 0], [1, 2]]"


def _cmd(out: Path, cache: Path, *extra: str, scenes: str = SCENES) -> list[str]:
    """A zh build at 480p15, no clips, with espeak-ng (what is tested here does not depend
    on the voice, and it speaks in a fraction of Kokoro's time: the voice is tested in
    tests/tts) from a copy of the scripts whose beats say little more than their cue marks,
    kept beside the output folder (what is rebuilt depends on the numbers, not the wording;
    the scenes are a third quicker to make)."""
    scripts = out.parent / "scripts"
    if not scripts.is_dir():
        scripts_with(scripts, TERSE)
    return [sys.executable, str(ROOT / "render.py"), "--lang", "zh", "--quality", "low",
            "--scenes", scenes, "--tts", "espeak", "--no-clips", "--scripts", str(scripts),
            "--out", str(out), "--cache", str(cache), *extra]


def _run(out: Path, cache: Path, *extra: str, scenes: str = SCENES
         ) -> subprocess.CompletedProcess:
    p = subprocess.run(_cmd(out, cache, *extra, scenes=scenes), capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p


def _summary(stderr: str) -> dict[str, int]:
    line = next(x for x in stderr.splitlines() if x.startswith("summary: "))
    m = re.search(r"(\d+) synthesized; scenes (\d+) rendered, (\d+) reused", line)
    assert m, line
    return dict(zip(["synthesized", "rendered", "reused"], map(int, m.groups()), strict=True))


def _plan(stderr: str) -> dict[str, str]:
    """scene -> the --plan line's verdict and reason."""
    out = {}
    for line in stderr.splitlines():
        m = re.match(r"\[zh\] (\w+)\s+(reuse|rebuild)\s*(.*)", line)
        if m:
            out[m.group(1)] = f"{m.group(2)} {m.group(3)}".strip()
    return out


def _entries(cache: Path, scene: str) -> list[Path]:
    return sorted((cache / "scenes" / scene / "zh-low").glob("[0-9a-f]*/entry.json"))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("inc")
    out, cache = tmp / "out", tmp / "cache"
    first = _run(out, cache)
    return tmp, out, cache, first


def test_a_rerun_with_nothing_changed_rebuilds_nothing(built):
    _tmp, out, cache, first = built
    made = _summary(first.stderr)
    assert made["synthesized"] > 0 and (made["rendered"], made["reused"]) == (2, 0)
    before = {p: p.stat().st_mtime_ns for p in (out / "zh").rglob("*") if p.is_file()}
    plan = subprocess.run(_cmd(out, cache, "--plan"), capture_output=True, text=True,
                          timeout=120)
    assert plan.returncode == 0
    assert _plan(plan.stderr) == {"library": "reuse unchanged", "formula": "reuse unchanged",
                                  "outputs": "reuse unchanged"}
    # a text no run has read for over a month, in the texts folder the builds share
    texts = Path(os.environ[TEXT_CACHE_ENV])
    stale = texts / f"stale-{os.getpid()}.pkl"
    stale.write_bytes(b"old")
    month = time.time() - 31 * 86400
    os.utime(stale, (month, month))
    server_log = out / ".work" / "logs" / "zygote.log"
    assert server_log.is_file()  # the first run rendered through the scene server
    server_log.unlink()
    again = _run(out, cache)
    assert _summary(again.stderr) == {"synthesized": 0, "rendered": 0, "reused": 2}
    # nothing to render: the scene processes' server (Manim's load) was not started
    assert not server_log.exists()
    assert "outputs none rebuilt, zh unchanged" in again.stderr
    assert not stale.exists() and any(texts.glob("*.pkl"))  # pruned; the used ones kept
    after = {p: p.stat().st_mtime_ns for p in (out / "zh").rglob("*") if p.is_file()}
    assert after == before  # not one output file rewritten


def test_a_changed_number_rebuilds_exactly_the_scenes_that_read_it(built):
    tmp, out, cache, _first = built
    numbers = tmp / "numbers.toml"
    text = DEFAULT_NUMBERS.read_text("utf-8")
    assert OLD_V in text and OLD_K in text
    # V: the formula scene shows the example's scores and weights, which do not depend on
    # it, so neither scene is rendered again.
    numbers.write_text(text.replace(OLD_V, "V = [[1, 2], [3, 0], [0, 3]]"), "utf-8")
    plan = subprocess.run(_cmd(out, cache, "--numbers", str(numbers), "--plan"),
                          capture_output=True, text=True, timeout=120)
    assert plan.returncode == 0
    assert _plan(plan.stderr) == {"library": "reuse unchanged", "formula": "reuse unchanged",
                                  "outputs": _plan(plan.stderr)["outputs"]}
    # K changes the scores: the formula scene, which shows them, is rendered again.
    numbers.write_text(text.replace(OLD_K, "K = [[0, 1], [1, 0], [2, 1]]"), "utf-8")
    plan = subprocess.run(_cmd(out, cache, "--numbers", str(numbers), "--plan"),
                          capture_output=True, text=True, timeout=120)
    verdicts = _plan(plan.stderr)
    assert verdicts["library"] == "reuse unchanged"
    assert verdicts["formula"].startswith("rebuild")
    assert "derived.worked_all.scores" in verdicts["formula"]
    run = _run(out, cache, "--numbers", str(numbers))
    assert _summary(run.stderr)["rendered"] == 1
    assert "[zh] formula: render" in run.stderr and "[zh] library: render" not in run.stderr
    manifest = json.loads((out / "zh" / "manifest.json").read_text("utf-8"))
    assert manifest["numbers"] == str(numbers.resolve())
    # Back to the shipped numbers: the earlier picture is still in the store.
    back = _run(out, cache)
    assert _summary(back.stderr)["rendered"] == 0


def test_a_damaged_or_half_written_entry_is_never_reused(built):
    _tmp, out, cache, _first = built
    (entry,) = [p for p in _entries(cache, "library")]
    picture = entry.parent / "picture.mp4"
    picture.write_bytes(picture.read_bytes()[: picture.stat().st_size // 2])
    # An entry an interrupted run left half-moved: a temporary folder, never a key.
    half = entry.parent.parent / ".tmp-1-deadbeef"
    half.mkdir()
    (half / "entry.json").write_text(entry.read_text("utf-8"), "utf-8")
    plan = subprocess.run(_cmd(out, cache, "--plan"), capture_output=True, text=True,
                          timeout=120)
    assert _plan(plan.stderr)["library"].startswith("rebuild")
    run = _run(out, cache)
    assert "[zh] library: render" in run.stderr
    assert _summary(run.stderr)["rendered"] == 1
    (fresh,) = [p for p in _entries(cache, "library")]
    fresh_picture = fresh.parent / "picture.mp4"
    data = json.loads(fresh.read_text("utf-8"))
    assert fresh_picture.stat().st_size == data["video"]["size"]
    assert _sha(fresh_picture) == data["video"]["sha256"]


def test_a_run_killed_mid_render_loses_nothing_finished(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    scenes = list(SHORT_SCENES)
    proc = subprocess.Popen(_cmd(out, cache, "--jobs", "1", *SHORT, scenes=SHORT_IDS),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not any(_entries(cache, s) for s in scenes):
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = [s for s in scenes if _entries(cache, s)]
    assert len(finished) == 1
    time.sleep(1.0)  # the orphaned scene process dies with its parent
    assert not scene_processes(out)  # nor its scene processes' server
    assert not (out / "zh").exists()  # nothing published half-done
    again = _run(out, cache, *SHORT, scenes=SHORT_IDS)
    summary = _summary(again.stderr)
    assert (summary["rendered"], summary["reused"]) == (1, 1)
    assert f"[zh] {finished[0]}: render" not in again.stderr
    assert (out / "zh" / "overview" / "video.mp4").is_file()


def test_parallel_and_serial_builds_are_identical(espeak_short_build: Build, tmp_path):
    """Same voice clips (Piper's own output varies from one synthesis to the next), fresh
    scene caches: one process at a time, or both languages' scenes side by side (the
    session's shared build, tests/conftest.py, made with --jobs 2)."""
    import shutil

    parallel = espeak_short_build
    out, cache = tmp_path / "out1", tmp_path / "cache1"
    shutil.copytree(parallel.cache / "audio", cache / "audio")
    p = subprocess.run(render_cmd(out, cache, "--lang", "all", "--quality", "low",
                                  "--cut", parallel.cut, "--scenes", ",".join(SHORT_SCENES),
                                  "--tts", "espeak", "--jobs", "1",
                                  "--scripts", str(parallel.scripts)),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "scenes 4 rendered, 0 reused" in p.stderr and "0 synthesized" in p.stderr
    serial = Build(out, cache, p.stderr, parallel.cut)
    both = [{f"{lang}/{name}": _sha(build.folder(lang) / name) for lang in ("zh", "en")
             for name in ("video.mp4", "video.srt", "video.vtt", "manifest.json",
                          "description.txt")} for build in (serial, parallel)]
    assert both[0] == both[1]
