"""Scene jobs and deck clip encodes on a real Dask cluster on 127.0.0.1: a ``dask
scheduler`` and two ``dask worker`` processes render scenes of both languages, and the
outputs are byte-identical to a local run with the same voice cache; a worker with other
code is refused in one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.shared_renders import SHORT_CUT, SHORT_SCENES, Build

ROOT = Path(__file__).resolve().parents[1]
DASK = Path(sys.executable).with_name("dask")
# the two shortest scenes (the overview's, about 20 s each): byte-identity does not depend
# on which scenes; the local run is the session's shared build of them (tests/conftest.py)
CUT = SHORT_CUT
SCENES = ",".join(SHORT_SCENES)
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not DASK.is_file(), reason="Dask is not installed")]


@contextmanager
def cluster(tmp: Path, project: Path, workers: int) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded workers running ``project``'s code."""
    env = {**os.environ, "PYTHONPATH": str(project), "DASK_DISTRIBUTED__WORKER__DAEMON": "False",
           "DASK_CONFIG": str(ROOT / "cluster")}  # the project's settings, as the README says
    file = tmp / "scheduler.json"
    procs = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(file)],
                              cwd=tmp, env=env, stdout=subprocess.DEVNULL,
                              stderr=open(tmp / "scheduler.log", "w"))]  # noqa: SIM115
    try:
        deadline = time.monotonic() + 60
        while not file.is_file() or not file.read_text().strip():
            assert time.monotonic() < deadline, (tmp / "scheduler.log").read_text()
            time.sleep(0.2)
        address = json.loads(file.read_text())["address"]
        for k in range(workers):
            procs.append(subprocess.Popen(
                [str(DASK), "worker", address, "--nworkers", "1", "--nthreads", "1",
                 "--no-dashboard", "--name", f"w{k}"], cwd=project, env=env,
                stdout=subprocess.DEVNULL, stderr=open(tmp / f"worker{k}.log", "w")))  # noqa: SIM115
        from distributed import Client

        with Client(address, timeout="30s") as c:
            c.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def render(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "render.py"), "--quality", "low",
                           # espeak-ng: what is tested here does not depend on the voice, and it
                           # speaks in a fraction of Kokoro's time (voices: tests/tts)
                           "--tts", "espeak", *args],
                          capture_output=True, text=True, timeout=1200)


def pictures(cache: Path) -> dict[str, str]:
    """scene/lang -> the sha256 of its stored picture."""
    out = {}
    for entry in cache.glob("scenes/*/*/*/entry.json"):  # scene/lang-quality/key/
        data = json.loads(entry.read_text("utf-8"))
        out[entry.parent.parent.relative_to(cache / "scenes").as_posix()] = \
            data["video"]["sha256"]
    return out


def deck_media(out: Path) -> list[bytes]:
    """The deck's captioned clips (encoded on the workers with --scheduler)."""
    import zipfile

    with zipfile.ZipFile(out / "slides.pptx") as z:
        return [z.read(n) for n in sorted(z.namelist()) if n.endswith(".mp4")]


def test_dask_cluster_renders_what_a_local_run_does(espeak_short_build: Build, tmp_path):
    local, remote = espeak_short_build, tmp_path / "remote"  # local: the local pool's run
    shutil.copytree(local.cache / "audio", remote / "cache" / "audio")  # same voice
    (tmp_path / "cluster").mkdir()
    with cluster(tmp_path / "cluster", ROOT, workers=2) as address:
        q = render("--lang", "all", "--cut", CUT, "--scenes", SCENES, "--scheduler", address,
                   "--scripts", str(local.scripts),
                   "--out", str(remote / "out"), "--cache", str(remote / "cache"))
    assert q.returncode == 0, q.stderr[-3000:]
    assert f"4 job(s) to the Dask scheduler at {address}" in q.stderr
    assert "scenes 4 rendered" in q.stderr and "0 synthesized" in q.stderr
    # the workers' pictures came back into this store, as the local run's did
    assert pictures(remote / "cache") == pictures(local.cache) != {}
    for lang in ("zh", "en"):
        for name in ("video.mp4", "video.srt", "manifest.json", "clips/01_ov_scores.mp4",
                     "clips/02_ov_formula.mp4"):
            mine = local.folder(lang) / name
            theirs = remote / "out" / lang / CUT / name
            if name == "manifest.json":  # names the numbers file: the same here
                assert json.loads(mine.read_text("utf-8")) == json.loads(
                    theirs.read_text("utf-8"))
            else:
                assert mine.read_bytes() == theirs.read_bytes(), name
        assert deck_media(local.folder(lang)) == deck_media(remote / "out" / lang / CUT) != []


def test_a_worker_with_other_code_is_refused_in_one_line(tmp_path):
    copy = tmp_path / "project"
    for d in ("common", "scenes", "narration", "qkv_math", "pipeline"):
        shutil.copytree(ROOT / d, copy / d, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "scenes" / "theme.py", "a", encoding="utf-8") as f:
        f.write("\n# an edit the client does not have\n")
    (tmp_path / "cluster").mkdir()
    with cluster(tmp_path / "cluster", copy, workers=1) as address:
        p = render("--lang", "zh", "--cut", CUT, "--scenes", "ov_formula", "--scheduler",
                   address,
                   "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"))
    assert p.returncode == 1
    errors = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "scenes/theme.py" in errors[0], p.stderr[-2000:]
    assert "other code than the client" in errors[0]
    assert not (tmp_path / "out" / "zh").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    p = render("--lang", "zh", "--cut", CUT, "--scenes", "ov_formula", "--scheduler",
               "tcp://127.0.0.1:9",
               "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"))
    assert p.returncode == 1
    errors = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "tcp://127.0.0.1:9" in errors[0], p.stderr[-2000:]
    # found before the voice was made: nothing synthesized
    assert not list((tmp_path / "cache").rglob("*.wav")), p.stderr[-2000:]
