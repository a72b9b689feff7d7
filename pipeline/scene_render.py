"""Render scene jobs in one pool, each in its own process forked from ``scenes.zygote`` (what
``python -m scenes.run PLAN`` does, without loading Manim each time)."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import queue
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

    The scene processes' server gets a session of its own, so a Ctrl-C reaches only the
    build, which then stops it and the scenes itself (RenderPool.stop)."""
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


def _kill_group(pid: int) -> None:
    """Kill a scene process and what it started (LaTeX, dvisvgm): each scene runs in a
    session of its own."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class ZygoteError(RuntimeError):
    """The scene processes' server ended or could not start."""


class Zygote:
    """A ``python -m scenes.zygote`` process (Manim loaded once) and the scene processes
    forked from it: :meth:`run` renders one plan and returns its exit status."""

    def __init__(self, log_dir: Path, env: dict[str, str] | None = None,
                 chinese: bool = False) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log = log_dir / "zygote.log"
        self._lock = threading.Lock()
        self._jobs: dict[str, queue.Queue[tuple[str, int, int]]] = {}
        self._pids: dict[str, int] = {}
        self._closed = False
        with open(self.log, "w", encoding="utf-8") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "scenes.zygote", str(log_dir),
                 *(["--zh"] if chinese else [])], cwd=PROJECT,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
                bufsize=1, start_new_session=True, preexec_fn=_die_with_parent, env=env)
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, name="zygote-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            parts = line.split()
            if parts == ["ready"]:
                self._ready.set()
                continue
            if len(parts) < 3:
                continue
            with self._lock:
                q = self._jobs.get(parts[1])
                if parts[0] == "pid":
                    self._pids[parts[1]] = int(parts[2])
            if q is None:
                continue
            if parts[0] == "progress" and len(parts) == 4:
                q.put(("progress", int(parts[2]), int(parts[3])))
            elif parts[0] == "exit":
                q.put(("exit", int(parts[2]), 0))
        code = self.proc.wait()
        with self._lock:
            self._closed = True
            for q in self._jobs.values():
                q.put(("gone", code, 0))

    def _failed(self, code: int) -> ZygoteError:
        lines = self.log.read_text("utf-8", errors="replace").strip().splitlines()
        last = lines[-1][:200] if lines else f"exit {code}"
        return ZygoteError(f"the scene processes' server ended: {last} (log: {self.log})")

    def run(self, run_id: str, plan_path: Path, log: Path,
            on_progress: Callable[[int, int], None] | None = None) -> int:
        """Render ``plan_path`` in a process forked for it (its stderr into ``log``);
        its exit status."""
        q: queue.Queue[tuple[str, int, int]] = queue.Queue()
        with self._lock:
            if self._closed:
                raise self._failed(self.proc.returncode or 0)
            self._jobs[run_id] = q
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"run": run_id, "plan": str(plan_path),
                                              "log": str(log)}) + "\n")
            self.proc.stdin.flush()
        try:
            while True:
                kind, a, b = q.get()
                if kind == "progress":
                    if on_progress:
                        on_progress(a, b)
                elif kind == "exit":
                    return a
                else:
                    raise self._failed(a)
        finally:
            with self._lock:
                self._jobs.pop(run_id, None)
                self._pids.pop(run_id, None)

    def kill(self) -> None:
        """Kill every scene process it forked, and itself."""
        with self._lock:
            pids = list(self._pids.values())
        for pid in pids:
            _kill_group(pid)
        if self.proc.poll() is None:
            _kill_group(self.proc.pid)
            self.proc.wait()

    def close(self) -> None:
        """End it once its scenes have (stdin closed)."""
        with self._lock:
            self._closed = True
            if self.proc.stdin is not None and not self.proc.stdin.closed:
                with contextlib.suppress(OSError):
                    self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            self.proc.wait()


class RenderPool:
    """Runs scene processes, at most ``jobs`` at once, forked from one :class:`Zygote`;
    :meth:`stop` ends them all."""

    def __init__(self, jobs: int, log_dir: Path,
                 echo: Callable[[str], None] | None = None,
                 zygote: Zygote | None = None) -> None:
        """``echo``: where to show each scene's own log (Manim's) once it ends; by default
        it stays in ``log_dir``. ``zygote``: one started earlier (it loads while the build
        plans), else one is started with the first job; closed when :meth:`map` ends."""
        self.jobs, self.log_dir, self.echo = jobs, log_dir, echo
        self._lock = threading.Lock()
        self._zygote = zygote
        self._stopping = False

    def _server(self) -> Zygote:
        with self._lock:
            if self._stopping:
                raise SceneRenderError("stopped")
            if self._zygote is None:
                self._zygote = Zygote(self.log_dir)
            return self._zygote

    def render(self, plan_path: Path, plan: ScenePlan,
               on_progress: Callable[[int, int], None] | None = None) -> RenderedScene:
        """Render one job; SceneRenderError (one line, naming the log) if it fails."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_dir / f"{plan.lang}-{plan.scene_id}.log"
        t0 = time.monotonic()
        try:
            code = self._server().run(plan.run_id, plan_path, log, on_progress)
        except ZygoteError as err:
            raise SceneRenderError(f"scene {plan.scene_id} ({plan.lang}): {err}") from None
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
            self.close()

    def stop(self) -> None:
        """Kill every running scene process (Ctrl-C, or another job failed)."""
        with self._lock:
            self._stopping = True
            zygote = self._zygote
        if zygote is not None:
            zygote.kill()

    def close(self) -> None:
        with self._lock:
            zygote, self._zygote = self._zygote, None
        if zygote is not None:
            zygote.close()
