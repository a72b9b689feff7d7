"""Render one scene with Manim in its own process, driven by a plan file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from scenes.context import PLAN_ENV
from scenes.registry import SceneInfo

# --quality name -> (manim -q flag, manim's output folder, frames per second)
QUALITIES = {
    "low": ("l", "480p15", 15),
    "medium": ("m", "720p30", 30),
    "high": ("h", "1080p60", 60),
    "4k": ("k", "2160p60", 60),
}


class SceneRenderError(RuntimeError):
    pass


@dataclass(frozen=True)
class RenderedScene:
    scene_id: str
    video: Path
    seconds: float  # wall time spent rendering


def render_scene(info: SceneInfo, plan: Path, quality: str, media_dir: Path,
                 log_dir: Path) -> RenderedScene:
    flag, qdir, _fps = QUALITIES[quality]
    # One media folder per scene: Manim's Typst/SVG cache is not safe for two processes
    # typesetting the same formula at once (one deletes the file the other is reading).
    media_dir = media_dir / info.scene_id
    out_name = f"{info.scene_id}_{plan.stem}"
    cmd = [
        sys.executable, "-m", "manim", "render", "-q", flag, "--disable_caching",
        "--media_dir", str(media_dir), "--progress_bar", "none", "-v", "WARNING",
        "-o", out_name, str(info.path), info.class_name,
    ]
    env = {**os.environ, PLAN_ENV: str(plan)}
    t0 = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{info.scene_id}.log"
    log.write_text(proc.stdout + proc.stderr, "utf-8")
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        raise SceneRenderError(f"scene {info.scene_id} failed to render: {last[:200]} "
                               f"(log: {log})")
    video = media_dir / "videos" / info.path.stem / qdir / f"{out_name}.mp4"
    if not video.exists():
        raise SceneRenderError(f"scene {info.scene_id}: Manim reported success but wrote no "
                               f"{video} (log: {log})")
    return RenderedScene(info.scene_id, video, time.monotonic() - t0)
