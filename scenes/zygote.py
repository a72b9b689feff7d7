"""Scene processes forked from one process that has Manim loaded: ``python -m scenes.zygote``.

Each scene used to be its own ``python -m scenes.run`` process, and paid Python's start and
the import of Manim, PyAV, NumPy and Cairo (about 1.1 CPU s) before drawing a frame: 15 to
30 times a build, a sixth of a low-quality scene stage. This process imports those once
(third-party modules only: the project's are imported by each scene as before, so the code
a scene records, ``scenes.recording.project_code``, is what it ran) and forks a child per
scene. The child is what ``python -m scenes.run PLAN`` was: its own session, killed with
this process, stdin from /dev/null, stderr into the job's log; it runs ``scenes.run.main``.

Protocol, a line each (the client is ``pipeline.scene_render.Zygote``):

- in, on stdin: ``{"run": RUN_ID, "plan": PATH, "log": PATH}`` (JSON);
- out, on stdout: ``ready`` once loaded; ``pid RUN_ID PID`` when a child starts;
  ``progress RUN_ID DONE TOTAL`` from the child (``scenes.run``); ``exit RUN_ID CODE`` when
  it ends (a signal's number negated).

It stays single-threaded (a fork from a threaded process may inherit a held lock) and ends
when stdin closes, killing any child still running.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import select
import signal
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Be killed when the parent dies, even by SIGKILL (Linux)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _preload(chinese: bool) -> None:
    """What every scene imports and nothing of the project's; with ``chinese``, what a
    Chinese scene's texts load too: jieba's dictionary and tags (its line breaks and
    subtitles find words with them) and the number readers. Each scene process loaded
    them again: 0.5-0.8 CPU s a scene, a tenth of a low-quality Chinese scene stage."""
    import av  # noqa: F401
    import cairo  # noqa: F401
    import manimpango  # noqa: F401
    import numpy  # noqa: F401
    from manim.renderer.cairo_renderer import CairoRenderer  # noqa: F401
    from manim.scene.scene_file_writer import SceneFileWriter  # noqa: F401

    if chinese:
        import cn2an  # noqa: F401
        import jieba
        import jieba.posseg
        import num2words  # noqa: F401

        jieba.setLogLevel(60)
        jieba.initialize()


def _child(plan: str, log: str) -> None:
    """In the forked child: become a scene process and render; never returns."""
    code = 1
    try:
        os.setsid()
        _die_with_parent()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        err = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(err, 2)
        os.close(err)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from scenes import run

        code = run.main([plan])
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    _die_with_parent()
    os.chdir(PROJECT)
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build stops us (stdin closes)
    _preload("--zh" in args)
    # Objects made so far are left out of the children's collections: a collection walking
    # them would write to (and so copy) most of the pages they share with this process.
    gc.freeze()
    _say("ready")
    children: dict[int, str] = {}
    stdin = sys.stdin.fileno()
    pending = b""
    open_in = True
    while open_in or children:
        ready, _, _ = select.select([stdin] if open_in else [], [], [], 0.05)
        if ready:
            chunk = os.read(stdin, 65536)
            if not chunk:
                open_in = False
                for pid in children:  # the build is gone: so are its scenes
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(pid, signal.SIGKILL)
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                job = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    _child(job["plan"], job["log"])
                children[pid] = job["run"]
                _say(f"pid {job['run']} {pid}")
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            run_id = children.pop(pid, None)
            if run_id is not None:
                _say(f"exit {run_id} {os.waitstatus_to_exitcode(status)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
