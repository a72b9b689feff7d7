"""Renders several test modules read: each built once per test session, at the smallest
quality, from the shortest scenes that prove what the tests check.

A test reads a shared build and copies from it (its voice cache, say); it never writes into
it. A test that changes or damages a build (reruns, interrupted runs, edited entries) keeps
its own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The two shortest scenes of either cut (the overview's scores and formula, about 20 s of
# video each): where a test needs scenes but not particular ones, these.
SHORT_CUT = "overview"
SHORT_SCENES = ("ov_scores", "ov_formula")


def scene_processes(out: Path) -> list[str]:
    """The command lines of a run's scene processes still alive: its ``scenes.run``
    processes, and its scene processes' server (``scenes.zygote``), whose command line the
    scene processes forked from it keep; both name the run's output folder ``out``."""
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if str(out) in line and "ps -eo" not in line
            and ("scenes.run" in line or "scenes.zygote" in line)]


@dataclass(frozen=True)
class Build:
    """One render.py run's output folder, build cache and log."""

    out: Path
    cache: Path
    stderr: str
    cut: str

    def folder(self, lang: str) -> Path:
        """OUT/<lang>/, or OUT/<lang>/overview/ for the overview."""
        return self.out / lang / self.cut if self.cut != "full" else self.out / lang


def scripts_with(root: Path, scene: str, beats: Mapping[str, Sequence[tuple[str, str]]]
                 ) -> Path:
    """A copy of the shipped scripts at ``root`` (for ``--scripts``) where ``scene``'s beats
    are ``beats[lang]``, (id, text) each; its title and screen strings are kept. A test whose
    check does not depend on the wording speaks less this way: every second of voice and
    picture costs."""
    from narration.scripts import SCRIPTS_DIR, script_path

    shutil.copytree(SCRIPTS_DIR, root)
    for lang, items in beats.items():
        path = script_path(scene, lang, root)
        head = path.read_text("utf-8").split("[[beat]]", 1)[0]
        body = "\n".join(f'[[beat]]\nid = "{i}"\ntext = "{t}"\n' for i, t in items)
        path.write_text(f"{head}{body}", "utf-8")
    return root


def render_cmd(out: Path, cache: Path, *args: str) -> list[str]:
    return [sys.executable, str(ROOT / "render.py"), "--out", str(out), "--cache", str(cache),
            *args]


@pytest.fixture(scope="session")
def espeak_short_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """Both languages of the two shortest scenes at 480p15 with espeak-ng (the voice does not
    matter to the tests that read it, and it speaks in seconds), clips and deck included,
    two scene processes at a time, into a fresh cache. Read by tests/test_dask.py (the
    local run a cluster's must match) and tests/test_incremental.py (the parallel build a
    serial one must match)."""
    tmp = tmp_path_factory.mktemp("espeak_short")
    out, cache = tmp / "out", tmp / "cache"
    p = subprocess.run(render_cmd(out, cache, "--lang", "all", "--quality", "low", "--cut",
                                  SHORT_CUT, "--scenes", ",".join(SHORT_SCENES), "--tts",
                                  "espeak", "--jobs", "2"),
                       capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    return Build(out, cache, p.stderr, SHORT_CUT)
