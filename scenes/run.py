"""Render one scene from its plan: ``python -m scenes.run PLAN.json``.

The plan (:class:`scenes.contract.ScenePlan`) says which scene, language, numbers and
quality, how long each beat lasts, and where the picture and the report go. The picture is
written by :class:`scenes.held_frames.HeldFrameWriter`; the report
(:class:`scenes.contract.SceneReport`) records the beat times, warnings, the inputs the
scene read and the project code it ran. While rendering, a line ``progress RUN_ID DONE TOTAL``
(frames) is printed on stdout about twice a second. (Run this way by hand or by a Dask
worker; a build forks it from ``scenes.zygote``.) Exit status 0 on success, 1 when the
scene fails (its traceback on stderr), 2 for an unusable plan.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))


def _progress(run_id: str, total: int):
    last = [0.0]

    def report(done: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.5:
            last[0] = now
            print(f"progress {run_id} {done} {total}", flush=True)

    return report


def main(argv: list[str] | None = None) -> int:
    from scenes.contract import ContractError, ScenePlan, SceneReport, VideoFile

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m scenes.run PLAN.json", file=sys.stderr)
        return 2
    try:
        plan = ScenePlan.read(Path(args[0]))
    except ContractError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    from manim import config
    from manim.renderer.cairo_renderer import CairoRenderer

    from common.digests import sha256_file
    from narration.timeline import SCENE_TAIL
    from scenes import text_store
    from scenes.held_frames import HeldFrameWriter
    from scenes.recording import project_code
    from scenes.registry import find

    info = find(plan.scene_id)
    if info is None:
        print(f"error: {args[0]}: scene_id: no scene {plan.scene_id!r}", file=sys.stderr)
        return 2
    width, height = plan.size
    config.pixel_width, config.pixel_height = width, height
    config.frame_rate = plan.fps
    config.media_dir = str(plan.scratch)
    config.disable_caching = True
    config.progress_bar = "none"
    config.verbosity = "INFO" if plan.verbose else "WARNING"
    config.dry_run = plan.dry_run
    text_store.use(plan.texts)

    spec = importlib.util.spec_from_file_location(f"scenes.{info.path.stem}", info.path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    cls = getattr(module, info.class_name)

    tmp = plan.video.with_name(f".{plan.video.name}.partial.mp4")
    tmp.unlink(missing_ok=True)
    total = round((sum(b.slot for b in plan.beats) + SCENE_TAIL) * plan.fps)
    writer = HeldFrameWriter.for_target(tmp, _progress(plan.run_id, total))
    t0 = time.monotonic()
    try:
        scene = cls(renderer=CairoRenderer(file_writer_class=writer), plan=plan)
        scene.render()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    video = None
    if not plan.dry_run:
        fw = scene.renderer.file_writer
        enc = fw.encoder
        if enc is None:
            print(f"error: scene {plan.scene_id} wrote no frames", file=sys.stderr)
            return 1
        tmp.replace(plan.video)
        video = VideoFile(plan.video, enc.frames, enc.stored, plan.fps,
                          plan.video.stat().st_size, sha256_file(plan.video),
                          tuple(enc.starts))
    assert scene.times is not None
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    stills = None
    if video is not None:
        stills = tuple((a / plan.fps, b / plan.fps) for a, b in enc.stills)
    SceneReport(plan.run_id, plan.scene_id, scene.times, dict(scene.ctx.inputs),
                project_code(), video, round(time.monotonic() - t0, 3),
                round(peak, 1), stills).write(plan.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
