"""The plan/report contract: a report is trusted only for the job that asked for it."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from narration.timeline import BeatTime, SceneTimes
from scenes.contract import BeatPlan, ContractError, ScenePlan, SceneReport, VideoFile


def _plan(tmp: Path, run_id: str | None = None, **kw) -> ScenePlan:
    beats = (BeatPlan("a", 1.45, 1.0, {"m": 0.4}), BeatPlan("b", 2.45, 2.0))
    return ScenePlan(run_id or uuid.uuid4().hex, "formula", "en", tmp / "n.toml", "low",
                     beats, tmp / "p.mp4", tmp / "r.json", tmp / "media", **kw)


def _report(plan: ScenePlan, run_id: str | None = None, beats=("a", "b"),
            frames: int | None = None) -> SceneReport:
    times = SceneTimes(plan.scene_id, tuple(BeatTime(b, i, i + 1.0)
                                            for i, b in enumerate(beats)), 4.5)
    plan.video.write_bytes(b"x" * 10)
    video = VideoFile(plan.video, round(4.5 * plan.fps) if frames is None else frames, 3,
                      plan.fps, 10, "0" * 64)
    return SceneReport(run_id or plan.run_id, plan.scene_id, times, {"script": "d"},
                       {"scenes/base.py": "c"}, video, 1.0)


def test_plan_and_report_round_trip(tmp_path):
    plan = _plan(tmp_path)
    plan.write(tmp_path / "plan.json")
    assert ScenePlan.read(tmp_path / "plan.json") == plan
    assert plan.size == (854, 480) and plan.fps == 15
    rep = _report(plan)
    rep.write(plan.report)
    assert SceneReport.read_for(plan) == rep


def test_a_report_from_an_earlier_run_is_refused(tmp_path):
    old = _plan(tmp_path)
    _report(old).write(old.report)
    again = _plan(tmp_path)  # the same job, planned again: a new run id
    with pytest.raises(ContractError, match="left over from an earlier run"):
        SceneReport.read_for(again)


@pytest.mark.parametrize("damage, match", [
    ("missing", "not written"),
    ("truncated", "unreadable"),
    ("beats", "unlike the plan"),
    ("video", "not the size reported"),
    ("frames", "frames, but the scene lasted"),
    ("format", "format"),
])
def test_a_damaged_or_mismatched_report_is_refused(tmp_path, damage, match):
    plan = _plan(tmp_path)
    rep = _report(plan, beats=("a", "c") if damage == "beats" else ("a", "b"),
                  frames=3 if damage == "frames" else None)
    rep.write(plan.report)
    if damage == "missing":
        plan.report.unlink()
    elif damage == "truncated":
        plan.report.write_text(plan.report.read_text()[:40])
    elif damage == "video":
        plan.video.write_bytes(b"short")
    elif damage == "format":
        data = json.loads(plan.report.read_text())
        data["format"] = 1
        plan.report.write_text(json.dumps(data))
    with pytest.raises(ContractError, match=match):
        SceneReport.read_for(plan)


def test_a_malformed_plan_names_the_file(tmp_path):
    path = tmp_path / "plan.json"
    data = _plan(tmp_path).to_json()
    data["beats"][0]["slot"] = "soon"
    path.write_text(json.dumps(data))
    with pytest.raises(ContractError, match=str(path)):
        ScenePlan.read(path)
    data["beats"][0]["slot"] = float("nan")
    path.write_text(json.dumps(data))
    with pytest.raises(ContractError, match="bad duration"):
        ScenePlan.read(path)
