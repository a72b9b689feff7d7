"""The held-frame render, encoded once as the master is, looks like plain Manim's render of
the same plan: same frames, same beat times, PSNR of at least 45 dB every second."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

import av

from narration.timeline import beat_slot
from pipeline.media import FFMPEG, x264_args
from qkv_math.numbers import DEFAULT_NUMBERS
from scenes.context import PLAIN_PLAN, load_context
from scenes.contract import BeatPlan, ScenePlan, SceneReport
from scenes.registry import discover

ROOT = Path(__file__).resolve().parents[1]
SCENE = "formula"


def _frames(path: Path) -> int:
    with av.open(str(path)) as c:
        return sum(1 for _ in c.decode(c.streams.video[0]))


def test_held_frame_master_matches_plain_manim(tmp_path):
    ctx = load_context(SCENE, None)
    beats = tuple(BeatPlan(b.id, beat_slot(ctx.speech[b.id]), ctx.speech[b.id],
                           ctx.marks[b.id]) for b in ctx.script.beats)
    plan = ScenePlan(uuid.uuid4().hex, SCENE, "zh", DEFAULT_NUMBERS, "low", beats,
                     tmp_path / "held" / "picture.mp4", tmp_path / "held" / "report.json",
                     tmp_path / "held" / "media")
    plan.write(tmp_path / "held" / "plan.json")
    subprocess.run([sys.executable, "-m", "scenes.run", str(tmp_path / "held" / "plan.json")],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    held = SceneReport.read_for(plan)
    assert held.video is not None and held.video.stored < held.video.frames * 0.7

    plain_dir = tmp_path / "plain"
    plain_plan = ScenePlan(uuid.uuid4().hex, SCENE, "zh", DEFAULT_NUMBERS, "low", beats,
                           plain_dir / "unused.mp4", plain_dir / "report.json", plain_dir)
    plain_plan.write(plain_dir / PLAIN_PLAN)
    info = next(i for i in discover() if i.scene_id == SCENE)
    subprocess.run([sys.executable, "-m", "manim", "render", "-ql", "--disable_caching",
                    "--media_dir", str(plain_dir), "--progress_bar", "none", "-v", "WARNING",
                    "-o", "plain", str(info.path), info.class_name],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    (plain_video,) = plain_dir.glob("videos/**/plain.mp4")
    plain = SceneReport.from_json(json.loads(plain_plan.report.read_text()))

    master = tmp_path / "master.mp4"
    subprocess.run([FFMPEG, "-v", "error", "-y", "-i", str(plan.video), *x264_args(plan.fps),
                    str(master)], check=True)
    assert _frames(master) == _frames(plain_video) == held.video.frames
    assert held.times.beats == plain.times.beats
    assert held.times.duration == plain.times.duration

    fps = plan.fps
    probe = subprocess.run(
        [FFMPEG, "-hide_banner", "-i", str(master), "-i", str(plain_video), "-lavfi",
         f"[0:v]select='not(mod(n\\,{fps}))'[a];[1:v]select='not(mod(n\\,{fps}))'[b];"
         "[a][b]psnr=stats_file=-", "-f", "null", "-"], capture_output=True, text=True)
    per_frame = [float(x) for x in re.findall(r"psnr_avg:([\d.]+|inf)", probe.stdout)]
    assert len(per_frame) >= int(held.times.duration) - 1  # one sample per second
    assert min(per_frame) >= 45.0, sorted(per_frame)[:5]


def test_stills_from_held_frames_agree_with_decoded_frames(tmp_path):
    """The report's still stretches are the ones the scene's writer saw as it stored the
    frames (no decoding); measured on the decoded picture, they are the same."""
    from pipeline.quality import still_frames

    ctx = load_context(SCENE, None)
    beats = tuple(BeatPlan(b.id, beat_slot(ctx.speech[b.id]), ctx.speech[b.id],
                           ctx.marks[b.id]) for b in ctx.script.beats)
    plan = ScenePlan(uuid.uuid4().hex, SCENE, "en", DEFAULT_NUMBERS, "low", beats,
                     tmp_path / "picture.mp4", tmp_path / "report.json", tmp_path / "media")
    plan.write(tmp_path / "plan.json")
    subprocess.run([sys.executable, "-m", "scenes.run", str(tmp_path / "plan.json")],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    report = SceneReport.read_for(plan)
    decoded, _fps = still_frames(plan.video, fps=plan.fps)
    assert report.stills is not None and len(report.stills) >= 5
    assert [(round(a * plan.fps), round(b * plan.fps)) for a, b in report.stills] == [
        (round(a * plan.fps), round(b * plan.fps)) for a, b in decoded]
