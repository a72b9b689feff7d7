"""Scene jobs on a Dask distributed cluster: the same ``map`` as the local
:class:`~pipeline.scene_render.RenderPool`, each job a Dask task; and the deck's clip
encodes (:class:`RemoteBurner`).

A task carries the job's plan, the numbers file's text and the digests of the client's
code; the worker refuses it in one line if its own code differs, renders the scene in a
folder of its own, in a process forked from the worker's ``scenes.zygote`` (what ``python
-m scenes.run`` does, without its start), and returns the report and the picture's bytes.
The client writes the picture under the job's own path (a temporary name, then a rename)
and the build stores it in the content-addressed scene store as it does a local render.
The worker returns the files instead of writing into a shared ``--cache``: the store then
needs no shared file system, and a half-written picture never reaches it (a task either
returns whole files or fails). A worker lost mid-job is retried by Dask (``RETRIES``
times), and only the run that finishes is kept.

Dask is optional: ``pip install 'qkv-explainer[cluster]'`` (``distributed``).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from common.digests import file_digest
from narration.scripts import script_path
from narration.types import Cue
from pipeline.config import DEFAULT_CACHE, text_cache_in
from pipeline.deck_clips import burn_deck_picture
from pipeline.scene_render import RenderedScene, SceneRenderError, Zygote, ZygoteError
from scenes.contract import ContractError, ScenePlan, SceneReport

PROJECT = Path(__file__).resolve().parent.parent
CLUSTER_CONFIG = PROJECT / "cluster"
"""The Dask settings this project's cluster runs with (``cluster/dask.yaml``: the README
has the scheduler and workers read it through ``DASK_CONFIG``); the client reads them too."""
RETRIES = 2  # a task whose worker died is run again this many times
CONNECT_TIMEOUT = "15s"
# What a scene run reads: a worker whose copy of these differs would draw another picture.
CODE_DIRS = ("common", "scenes", "narration", "qkv_math", "pipeline")


class CodeMismatch(RuntimeError):
    """A worker's project code differs from the client's."""


def code_digests(root: Path = PROJECT) -> dict[str, str]:
    """Digests of the project's code and data a scene job depends on (relative paths)."""
    out = {}
    for d in CODE_DIRS:
        for p in sorted((root / d).rglob("*")):
            if p.suffix in (".py", ".toml") and p.is_file() and "__pycache__" not in p.parts:
                out[p.relative_to(root).as_posix()] = file_digest(p)
    return out


def _check_code(client_code: dict[str, str]) -> None:
    """On a worker: CodeMismatch (one line, naming the files) unless its code is the
    client's."""
    mine = code_digests()
    differ = sorted(k for k in client_code.keys() | mine.keys()
                    if client_code.get(k) != mine.get(k))
    if differ:
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3
                                         else "")
        raise CodeMismatch(f"worker on {os.uname().nodename} ({PROJECT}) has other code than "
                           f"the client: {shown} differ; install the same version everywhere")


def connect(address: str):
    """A Dask client of the scheduler at ``address``; SceneRenderError (one line) if Dask is
    not installed or the scheduler does not answer."""
    try:
        import dask.config
        from distributed import Client
    except ImportError:
        raise SceneRenderError("--scheduler needs Dask: pip install "
                               "'qkv-explainer[cluster]' (the distributed package)") from None
    # this project's settings first: the user's own files and DASK_* variables win
    dask.config.refresh(paths=[str(CLUSTER_CONFIG), *dask.config.paths])
    _refuse_closed_port(address)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise SceneRenderError(f"--scheduler {address}: cannot reach the Dask scheduler "
                               f"({err})") from None


def _refuse_closed_port(address: str) -> None:
    """SceneRenderError at once when nothing listens at a ``tcp://`` address: Dask's client
    retries a refused connection until its whole timeout has passed (15 s of waiting on a
    mistyped port). Anything else (no answer, another protocol) is left to the client."""
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port

    try:
        scheme, location = parse_address(address)  # Dask's reading: tcp when none is given
        host, port = parse_host_port(location)
    except ValueError:  # no port, say: the client's own error names it
        return
    if scheme != "tcp":
        return
    try:
        socket.create_connection((host, port), timeout=2.0).close()
    except ConnectionRefusedError:
        raise SceneRenderError(f"--scheduler {address}: cannot reach the Dask scheduler "
                               f"(nothing listens on {host}:{port}: connection refused)"
                               ) from None
    except OSError:
        return  # unresolvable, unreachable or slow: the client says so in its own words


_ZYGOTE: Zygote | None = None
_ZYGOTE_LOCK = threading.Lock()


def _worker_zygote(env: dict[str, str]) -> Zygote:
    """This worker's scene processes' server (``scenes.zygote``), started at its first
    scene and kept while the worker lives: each scene is forked from it as a local build's
    are, instead of a ``python -m scenes.run`` that pays Python's start, Manim's imports
    and jieba's dictionary again (a Dask build's scene stage was a quarter longer than the
    local pool's without it)."""
    global _ZYGOTE
    with _ZYGOTE_LOCK:
        if _ZYGOTE is None or _ZYGOTE.proc.poll() is not None:
            _ZYGOTE = Zygote(Path(tempfile.mkdtemp(prefix="qkv-zygote-")), env=env,
                             chinese=True)
        return _ZYGOTE


def render_on_worker(plan: dict, numbers: str, client_code: dict[str, str],
                     script: str | None = None) -> dict:
    """Run on a Dask worker: render one scene job; returns its report and picture bytes.
    ``script``: the scene's narration script (its text), when the run reads its own
    (``--scripts``); else the worker's shipped one, which the code check covers.

    Raises CodeMismatch (one line) when this worker's code differs from the client's."""
    _check_code(client_code)
    with tempfile.TemporaryDirectory(prefix="qkv-job-") as tmp:
        d = Path(tmp)
        (d / "numbers.toml").write_text(numbers, "utf-8")
        scripts = None
        if script is not None:
            scripts = d / "scripts"
            path = script_path(plan["scene_id"], plan["lang"], scripts)
            path.parent.mkdir(parents=True)
            path.write_text(script, "utf-8")
        job = ScenePlan.from_json({**plan, "numbers": str(d / "numbers.toml"),
                                   "video": str(d / "picture.mp4"),
                                   "report": str(d / "report.json"),
                                   "scratch": str(d / "media"),
                                   "texts": str(text_cache_in(DEFAULT_CACHE)),  # this machine's
                                   "scripts": str(scripts) if scripts else None})
        job.write(d / "plan.json")
        # Dask's nanny sets MALLOC_TRIM_THRESHOLD_ for its workers, which turns off glibc's
        # adaptive mmap threshold: every frame-sized array is then mapped and faulted in
        # afresh (two scenes at low quality: 18.8 s against 16.8 s without it). The scene
        # process gets the allocator a local render has.
        env = {k: v for k, v in os.environ.items() if k != "MALLOC_TRIM_THRESHOLD_"}
        log = d / "scene.log"
        try:
            code = _worker_zygote(env).run(job.run_id, d / "plan.json", log)
        except ZygoteError as err:
            code, err_line = 1, str(err)
        else:
            err_line = f"exit {code}"
        if code != 0:
            text = log.read_text("utf-8", errors="replace") if log.is_file() else ""
            lines = [x.strip() for x in text.splitlines() if x.strip()]
            raise SceneRenderError(f"scene {job.scene_id} ({job.lang}) failed to render on "
                                   f"{os.uname().nodename}: {(lines or [err_line])[-1][:200]}")
        return {"report": (d / "report.json").read_text("utf-8"),
                "picture": (d / "picture.mp4").read_bytes() if job.video.exists() else None}


class DaskPool:
    """Sends scene jobs to the Dask scheduler at ``address``; the local pool's ``map``."""

    def __init__(self, address: str, log_dir: Path,
                 echo: Callable[[str], None] | None = None) -> None:
        self.client = connect(address)
        self.address, self.log_dir, self.echo = address, log_dir, echo
        self.code = code_digests()
        self._futures: list = []
        self._lock = threading.Lock()

    def map(self, work: list[tuple[Path, ScenePlan]], on_start: Callable[[ScenePlan], None],
            on_progress: Callable[[ScenePlan, int, int], None],
            on_done: Callable[[RenderedScene], None]) -> list[RenderedScene]:
        """Submit every job (in the given order of priority); results in that order."""
        from distributed import as_completed

        started = {}
        by_key = {}
        try:
            for k, (_path, plan) in enumerate(work):
                numbers = Path(plan.numbers).read_text("utf-8")
                script = (script_path(plan.scene_id, plan.lang, plan.scripts).read_text("utf-8")
                          if plan.scripts else None)
                fut = self.client.submit(render_on_worker, plan.to_json(), numbers, self.code,
                                         script,
                                         key=f"qkv-scene-{plan.lang}-{plan.scene_id}-"
                                             f"{plan.run_id[:12]}",
                                         retries=RETRIES, pure=False, priority=len(work) - k)
                by_key[fut.key] = plan
                started[fut.key] = time.monotonic()
                on_start(plan)
                self._futures.append(fut)
            results: dict[str, RenderedScene] = {}
            for fut in as_completed(self._futures, loop=self.client.loop):
                plan = by_key[fut.key]
                try:
                    data = fut.result()
                except (CodeMismatch, SceneRenderError) as err:
                    raise SceneRenderError(str(err).splitlines()[0]) from None
                except Exception as err:  # a task that kept failing, or the scheduler gone
                    raise SceneRenderError(f"scene {plan.scene_id} ({plan.lang}) on the Dask "
                                           f"cluster: {type(err).__name__}: "
                                           f"{str(err).splitlines()[0][:200]}") from None
                r = self._receive(plan, data, time.monotonic() - started[fut.key])
                on_done(r)
                results[plan.run_id] = r
            return [results[p.run_id] for _path, p in work]
        except BaseException:
            self.stop()
            raise
        finally:
            self._futures = []
            self.client.close()

    @staticmethod
    def _receive(plan: ScenePlan, data: dict, seconds: float) -> RenderedScene:
        """Write the returned picture and report where a local run would have."""
        raw = json.loads(data["report"])
        if data["picture"] is not None:
            plan.video.parent.mkdir(parents=True, exist_ok=True)
            part = plan.video.with_name(f".{plan.video.name}.partial")
            part.write_bytes(data["picture"])
            part.replace(plan.video)  # whole, or not there at all
            raw["video"]["path"] = str(plan.video)
        plan.report.write_text(json.dumps(raw, ensure_ascii=False), "utf-8")
        try:
            report = SceneReport.read_for(plan)
        except ContractError as err:
            raise SceneRenderError(f"scene {plan.scene_id} ({plan.lang}) from the Dask "
                                   f"cluster: {err}") from None
        return RenderedScene(plan, report, seconds)

    def stop(self) -> None:
        """Cancel every job still queued or running on the cluster."""
        with self._lock:
            futures, self._futures = self._futures, []
        if futures:
            with contextlib.suppress(Exception):  # the scheduler may be gone already
                self.client.cancel(futures)


def burn_on_worker(picture: bytes, name: str, starts: list[int], cues: list, lang: str,
                   fps: int, height: int, client_code: dict[str, str]) -> bytes:
    """Run on a Dask worker: one deck clip's picture (``pipeline.deck_clips.burn_deck_picture``)
    from the scene's picture; returns the encoded file's bytes."""
    _check_code(client_code)
    with tempfile.TemporaryDirectory(prefix="qkv-deck-") as tmp:
        d = Path(tmp)
        src = d / name
        src.write_bytes(picture)
        out = d / "deck.mp4"
        burn_deck_picture(src, starts, [Cue(a, b, tuple(lines)) for a, b, lines in cues],
                          lang, d / "work", fps, out, height)
        return out.read_bytes()


class RemoteBurner:
    """Deck clip pictures encoded on the Dask cluster at ``address`` (see
    ``pipeline.deck_clips.deck_pictures``)."""

    def __init__(self, address: str) -> None:
        self.client = connect(address)
        self.code = code_digests()

    def burn(self, picture: Path, starts, cues, lang: str, fps: int, out: Path,
             height: int) -> None:
        fut = self.client.submit(burn_on_worker, picture.read_bytes(), picture.name,
                                 list(starts),
                                 [(c.start, c.end, list(c.lines)) for c in cues], lang, fps,
                                 height, self.code, retries=RETRIES, pure=False)
        try:
            data = fut.result()
        except CodeMismatch as err:
            raise SceneRenderError(str(err).splitlines()[0]) from None
        out.write_bytes(data)

    def close(self) -> None:
        self.client.close()
