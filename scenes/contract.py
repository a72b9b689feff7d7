"""The typed contract between the pipeline and one scene process: a plan in, a report out.

The pipeline writes a :class:`ScenePlan` as JSON and starts ``python -m scenes.run PLAN``.
The scene renders the picture to ``plan.video`` and writes a :class:`SceneReport` to
``plan.report``. The report echoes the plan's ``run_id``, a fresh random token per job, so
a report left over from an earlier run can never pass for this one's. Both sides use these
classes; nothing else crosses the process boundary (no environment variables, no stderr
scraping, no guessing at Manim's folder layout).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from common.atomic import atomic_write_text
from narration.timeline import SceneTimes

FORMAT = 2  # bump when the meaning of a field changes
TEXT_CACHE_ENV = "QKV_TEXT_CACHE"  # a folder of made texts for processes given no plan's

# --quality name -> (width, height, frames per second), as Manim's own -ql/-qm/-qh/-qk
QUALITIES: dict[str, tuple[int, int, int]] = {
    "low": (854, 480, 15),
    "medium": (1280, 720, 30),
    "high": (1920, 1080, 60),
    "4k": (3840, 2160, 60),
}


class ContractError(ValueError):
    """A plan or report that is missing, unreadable or not for this job."""


@dataclass(frozen=True)
class Quality:
    """A picture quality: its name (``--quality``), size and frame rate. Resolved once from
    the option (:meth:`of`) and carried by the build's config."""

    name: str
    width: int
    height: int
    fps: int

    @classmethod
    def of(cls, name: str) -> Quality:
        if name not in QUALITIES:
            raise ContractError(f"unknown quality {name!r} (one of {', '.join(QUALITIES)})")
        return cls(name, *QUALITIES[name])


@dataclass(frozen=True)
class BeatPlan:
    id: str
    slot: float  # seconds the beat lasts on screen (speech plus a pause)
    speech: float  # seconds of narration
    marks: dict[str, float] = field(default_factory=dict)  # cue mark -> s from beat start


@dataclass(frozen=True)
class ScenePlan:
    """One scene job: what to render, from what, and where to put the picture and report."""

    run_id: str
    scene_id: str
    lang: str
    numbers: Path
    quality: str
    beats: tuple[BeatPlan, ...]
    video: Path  # the picture: frames that repeat are stored once, with their duration
    report: Path
    scratch: Path  # Manim's own media folder for this job (Typst/SVG caches)
    dry_run: bool = False  # build the scene and report its times, write no video
    verbose: bool = False  # Manim logs at INFO (shown by render.py --verbose)
    scripts: Path | None = None  # the narration scripts' folder (None: the shipped one)
    texts: Path | None = None  # made texts kept between runs (scenes.text_store); None: none

    def to_json(self) -> dict:
        return {
            "format": FORMAT, "run_id": self.run_id, "scene_id": self.scene_id,
            "lang": self.lang, "numbers": str(self.numbers), "quality": self.quality,
            "beats": [{"id": b.id, "slot": b.slot, "speech": b.speech, "marks": b.marks}
                      for b in self.beats],
            "video": str(self.video), "report": str(self.report),
            "scratch": str(self.scratch), "dry_run": self.dry_run, "verbose": self.verbose,
            "scripts": str(self.scripts) if self.scripts else None,
            "texts": str(self.texts) if self.texts else None,
        }

    @classmethod
    def from_json(cls, data: dict, source: str = "plan") -> ScenePlan:
        with _reading(source, "scene plan", data):
            if data["quality"] not in QUALITIES:
                raise ContractError(f"quality {data['quality']!r} unknown")
            beats = tuple(BeatPlan(str(b["id"]), _seconds(b["slot"]), _seconds(b["speech"]),
                                   {str(k): _seconds(v) for k, v in b["marks"].items()})
                          for b in data["beats"])
            return cls(str(data["run_id"]), str(data["scene_id"]), str(data["lang"]),
                       Path(data["numbers"]), str(data["quality"]), beats,
                       Path(data["video"]), Path(data["report"]), Path(data["scratch"]),
                       bool(data.get("dry_run", False)), bool(data.get("verbose", False)),
                       Path(data["scripts"]) if data.get("scripts") else None,
                       Path(data["texts"]) if data.get("texts") else None)

    def write(self, path: Path) -> None:
        atomic_write_text(path, json.dumps(self.to_json(), ensure_ascii=False))

    @classmethod
    def read(cls, path: Path) -> ScenePlan:
        return cls.from_json(_load(path), str(path))

    @property
    def size(self) -> tuple[int, int]:
        """Frame width and height in pixels."""
        q = Quality.of(self.quality)
        return q.width, q.height

    @property
    def fps(self) -> int:
        return Quality.of(self.quality).fps


@dataclass(frozen=True)
class VideoFile:
    """The picture a scene wrote (its master segment): ``frames`` frames at ``fps``, in
    ``stored`` runs of identical frames, which start at the frames in ``starts``."""

    path: Path
    frames: int
    stored: int
    fps: int
    size: int  # bytes
    sha256: str
    starts: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"frames": self.frames, "stored": self.stored, "fps": self.fps,
                "size": self.size, "sha256": self.sha256, "starts": list(self.starts)}

    @classmethod
    def from_json(cls, path: Path, v: dict) -> VideoFile:
        return cls(path, int(v["frames"]), int(v["stored"]), int(v["fps"]), int(v["size"]),
                   str(v["sha256"]), tuple(int(x) for x in v.get("starts", ())))


@dataclass(frozen=True)
class SceneReport:
    """What a scene process reports back, for the plan whose ``run_id`` it echoes.

    ``inputs`` are the numbers and derived values the scene actually read (name -> digest);
    ``code`` the project's source files it ran (path relative to the project -> digest).
    """

    run_id: str
    scene_id: str
    times: SceneTimes
    inputs: dict[str, str]
    code: dict[str, str]
    video: VideoFile | None  # None for a dry run
    seconds: float  # wall time spent rendering
    peak_rss_mb: float = 0.0  # the scene process's peak memory
    stills: tuple[tuple[float, float], ...] | None = None
    """Stretches (start, end s) in which the picture stands still, seen by its writer as it
    stored the frames (``common.stills``); None for a dry run or an older report."""

    def to_json(self) -> dict:
        v = self.video
        return {
            "format": FORMAT, "run_id": self.run_id, "scene_id": self.scene_id,
            "times": self.times.to_json(), "inputs": self.inputs, "code": self.code,
            "video": None if v is None else {"path": str(v.path), **v.to_json()},
            "seconds": self.seconds, "peak_rss_mb": self.peak_rss_mb,
            "stills": None if self.stills is None else [list(x) for x in self.stills],
        }

    @classmethod
    def from_json(cls, data: dict, source: str = "report") -> SceneReport:
        with _reading(source, "scene report", data):
            v = data["video"]
            video = None if v is None else VideoFile.from_json(Path(v["path"]), v)
            return cls(str(data["run_id"]), str(data["scene_id"]),
                       SceneTimes.from_json(data["times"]),
                       {str(k): str(x) for k, x in data["inputs"].items()},
                       {str(k): str(x) for k, x in data["code"].items()}, video,
                       float(data["seconds"]), float(data.get("peak_rss_mb", 0.0)),
                       None if data.get("stills") is None else tuple(
                           (float(a), float(b)) for a, b in data["stills"]))

    def write(self, path: Path) -> None:
        atomic_write_text(path, json.dumps(self.to_json(), ensure_ascii=False))

    @classmethod
    def read_for(cls, plan: ScenePlan) -> SceneReport:
        """The report of ``plan``'s job, checked against the plan; ContractError if there is
        none, it belongs to another run, or it disagrees with the plan."""
        rep = cls.from_json(_load(plan.report), str(plan.report))
        where = str(plan.report)
        if rep.run_id != plan.run_id:
            raise ContractError(f"{where}: report of run {rep.run_id}, not {plan.run_id} "
                                f"(left over from an earlier run)")
        if rep.scene_id != plan.scene_id:
            raise ContractError(f"{where}: report for scene {rep.scene_id!r}, "
                                f"not {plan.scene_id!r}")
        got = [b.id for b in rep.times.beats]
        want = [b.id for b in plan.beats]
        if got != want:
            raise ContractError(f"{where}: beats {got} unlike the plan's {want}")
        if plan.dry_run:
            return rep
        v = rep.video
        if v is None:
            raise ContractError(f"{where}: no video reported")
        if v.path != plan.video or v.fps != plan.fps:
            raise ContractError(f"{where}: video {v.path} at {v.fps} fps, planned "
                                f"{plan.video} at {plan.fps} fps")
        if not plan.video.is_file() or plan.video.stat().st_size != v.size:
            raise ContractError(f"{where}: {plan.video} is missing or not the size reported")
        if abs(v.frames / v.fps - rep.times.duration) > 1.5 / v.fps:
            raise ContractError(f"{where}: {v.frames} frames, but the scene lasted "
                                f"{rep.times.duration:.3f} s")
        return rep


@contextmanager
def _reading(source: str, what: str, data: dict) -> Iterator[None]:
    """Check the format, and turn any problem while reading ``data`` into one ContractError
    naming ``source``."""
    try:
        if data.get("format") != FORMAT:
            raise ContractError(f"format {data.get('format')!r}, expected {FORMAT}")
        yield
    except ContractError as err:
        raise ContractError(f"{source}: {err}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise ContractError(f"{source}: malformed {what} ({err!r})") from None


def _seconds(x: object) -> float:
    v = float(x)  # type: ignore[arg-type]
    if not math.isfinite(v) or v < 0:
        raise ContractError(f"bad duration {x!r}")
    return v


def _load(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except FileNotFoundError:
        raise ContractError(f"{path}: not written") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ContractError(f"{path}: unreadable ({err})") from None
    if not isinstance(data, dict):
        raise ContractError(f"{path}: not a JSON object")
    return data

