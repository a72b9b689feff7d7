"""Progress of a build on stderr: a live display on a terminal, plain lines otherwise.

On a terminal (rich, which Manim already brings): one line per running scene with its
frames, an overall bar over every frame still to render, and the time left. In a log or a
pipe: one line per finished step, so nothing is lost to carriage returns.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import defaultdict

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class BuildProgress:
    def __init__(self, live: bool | None = None) -> None:
        self.console = Console(stderr=True, highlight=False)
        self.live = self.console.is_terminal if live is None else live
        self._lock = threading.Lock()
        self._progress: Progress | None = None
        self._overall: TaskID | None = None
        self._tasks: dict[str, TaskID] = {}
        self._done: dict[str, int] = defaultdict(int)
        self.stages: dict[str, float] = defaultdict(float)  # stage -> seconds
        self._count = 0
        self._total_jobs = 0

    # -- plain messages -------------------------------------------------------------------
    def say(self, msg: str) -> None:
        with self._lock:
            if self._progress is not None:
                self._progress.console.print(msg, markup=False, highlight=False)
            else:
                print(msg, file=sys.stderr, flush=True)

    def stage(self, name: str, seconds: float) -> None:
        """Add ``seconds`` to a stage (summed over the languages, which may run side by
        side: the stages can then add up to more than the wall time)."""
        with self._lock:
            self.stages[name] += seconds

    # -- scene renders --------------------------------------------------------------------
    def start_renders(self, jobs: int, frames: int) -> None:
        self._total_jobs, self._count = jobs, 0
        if self.live and jobs:
            self._progress = Progress(
                TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("frames"), TimeElapsedColumn(), TimeRemainingColumn(),
                console=self.console, transient=True)
            self._progress.start()
            self._overall = self._progress.add_task(f"scenes 0/{jobs}", total=frames)

    def scene_started(self, label: str, frames: int) -> None:
        if self._progress is not None:
            with self._lock:
                self._tasks[label] = self._progress.add_task(label, total=frames)

    def scene_frames(self, label: str, done: int) -> None:
        if self._progress is None:
            return
        with self._lock:
            self._progress.update(self._tasks[label], completed=done)
            self.scene_frames_locked(label, done)

    def scene_done(self, label: str, frames: int, seconds: float) -> None:
        with self._lock:
            self._count += 1
            msg = (f"{label}: rendered in {seconds:.1f} s "
                   f"[{self._count}/{self._total_jobs}]")
            if self._progress is not None:
                self.scene_frames_locked(label, frames)
                self._progress.remove_task(self._tasks.pop(label))
                assert self._overall is not None
                self._progress.update(self._overall,
                                      description=f"scenes {self._count}/{self._total_jobs}")
                self._progress.console.print(msg, markup=False, highlight=False)
            else:
                print(msg, file=sys.stderr, flush=True)

    def scene_frames_locked(self, label: str, done: int) -> None:
        assert self._progress is not None and self._overall is not None
        step = done - self._done[label]
        self._done[label] = done
        self._progress.advance(self._overall, step)

    def end_renders(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


class Timer:
    """``with Timer(progress, "master"):`` adds the block's seconds to a stage."""

    def __init__(self, progress: BuildProgress, stage: str) -> None:
        self.progress, self.name = progress, stage

    def __enter__(self) -> Timer:
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.monotonic() - self.t0
        self.progress.stage(self.name, self.seconds)
