"""`python -m pipeline.check`: real voice timings and a Manim dry run, figures per scene."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_check_reports_length_stills_and_reading_speed(tmp_path: Path) -> None:
    # one of the shortest scenes (the overview's scores, about 22 s): what is reported does
    # not depend on which scene, and the worked example took three times as long
    p = subprocess.run(
        [sys.executable, "-m", "pipeline.check", "--lang", "en", "--scenes", "ov_scores",
         "--cache", str(tmp_path / "cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    out = p.stdout
    length = re.search(r"\[en\] ov_scores: ([\d.]+) s, (\d+) beats", out)
    assert length, out
    assert 10 < float(length.group(1)) < 60 and int(length.group(2)) > 0
    assert re.search(r"cues: \d+, cps min/median/max [\d.]+/[\d.]+/[\d.]+", out), out
    # Every still stretch it lists names its beat and is over 3 s.
    for secs, beat in re.findall(r"still\s+([\d.]+) s while speaking at .*\(beat (\w+)\)", out):
        assert float(secs) > 3.0 and beat != "?"
    assert "[en] voice: " in p.stderr  # progress goes to stderr
