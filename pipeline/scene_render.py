"""Render scene jobs, each in its own ``python -m scenes.run PLAN`` process, in one pool."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from scenes.contract import QUALITIES, ContractError, ScenePlan, SceneReport

__all__ = ["QUALITIES", "RenderPool", "SceneRenderError"]

PROJECT = Path(__file__).resolve().parent.parent


class SceneRenderError(RuntimeError):
    pass


def _die_with_parent() -> None:
    """In the child: be killed when the build process dies, even by SIGKILL (Linux).

    Scene processes get a session of their own, so a Ctrl-C reaches only the build, which
    then stops them itself (RenderPool.stop)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass(frozen=True)
class RenderedScene:
    plan: ScenePlan
    report: SceneReport
    seconds: float  # wall time of the process


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill a scene process and what it started (LaTeX, dvisvgm): a child still holding
    its output pipe would keep the reader waiting until it ended by itself."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the scene runs in a session of its own
    except (ProcessLookupError, PermissionError):
        proc.kill()


class RenderPool:
    """Runs scene processes, at most ``jobs`` at once; :meth:`stop` ends them all."""

    def __init__(self, jobs: int, log_dir: Path,
                 echo: Callable[[str], None] | None = None) -> None:
        """``echo``: where to show each scene's own log (Manim's) once it ends; by default
        it stays in ``log_dir``."""
        self.jobs, self.log_dir, self.echo = jobs, log_dir, echo
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stopping = False

    def render(self, plan_path: Path, plan: ScenePlan,
               on_progress: Callable[[int, int], None] | None = None) -> RenderedScene:
        """Render one job; SceneRenderError (one line, naming the log) if it fails."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_dir / f"{plan.lang}-{plan.scene_id}.log"
        t0 = time.monotonic()
        with open(log, "w", encoding="utf-8") as err:
            proc = subprocess.Popen([sys.executable, "-m", "scenes.run", str(plan_path)],
                                    cwd=PROJECT, stdout=subprocess.PIPE, stderr=err,
                                    text=True, start_new_session=True,
                                    preexec_fn=_die_with_parent)
            with self._lock:
                if self._stopping:
                    _kill_group(proc)
                self._procs.add(proc)
            try:
                assert proc.stdout is not None
                for line in proc.stdout:
                    parts = line.split()
                    if len(parts) == 3 and parts[0] == "progress" and on_progress:
                        on_progress(int(parts[1]), int(parts[2]))
                code = proc.wait()
            finally:
                with self._lock:
                    self._procs.discard(proc)
        if self.echo is not None:
            for line in log.read_text("utf-8", errors="replace").splitlines():
                self.echo(f"  {plan.lang}/{plan.scene_id}: {line}")
        if code != 0:
            lines = log.read_text("utf-8", errors="replace").strip().splitlines()
            last = next((x.strip() for x in reversed(lines) if x.strip()), f"exit {code}")
            raise SceneRenderError(f"scene {plan.scene_id} ({plan.lang}) failed to render: "
                                   f"{last[:200]} (log: {log})")
        try:
            report = SceneReport.read_for(plan)
        except ContractError as err:
            raise SceneRenderError(f"scene {plan.scene_id} ({plan.lang}): {err} "
                                   f"(log: {log})") from None
        return RenderedScene(plan, report, time.monotonic() - t0)

    def map(self, work: list[tuple[Path, ScenePlan]], on_start: Callable[[ScenePlan], None],
            on_progress: Callable[[ScenePlan, int, int], None],
            on_done: Callable[[RenderedScene], None]) -> list[RenderedScene]:
        """Render every job (in the given order of priority); results in that order."""
        def one(item: tuple[Path, ScenePlan]) -> RenderedScene:
            path, plan = item
            on_start(plan)
            r = self.render(path, plan, lambda d, t: on_progress(plan, d, t))
            on_done(r)
            return r

        pool = ThreadPoolExecutor(max_workers=self.jobs)
        futures = []
        try:
            futures = [pool.submit(one, item) for item in work]
            return [f.result() for f in futures]
        except BaseException:
            self.stop()
            for f in futures:
                f.cancel()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def stop(self) -> None:
        """Kill every running scene process (Ctrl-C, or another job failed)."""
        with self._lock:
            self._stopping = True
            for p in self._procs:
                _kill_group(p)
