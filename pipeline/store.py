"""The scene-picture store: each rendered scene kept under a key of everything it used.

An entry is ``<root>/<scene>/<lang>-<quality>/<key>/`` holding ``picture.mp4`` and
``entry.json``. The slot (scene, language, quality) and the *plan digest* (the beats' texts
as filled in, their planned durations and cue marks, the versions of Manim, PyAV and
ffmpeg) are known before rendering. What the scene read from the numbers and the project
code it ran are only known after: they were recorded while it rendered, and an entry is
reused only when each recorded value and file is still the same. So a scene that never
reads a number is not rebuilt when that number changes.

Entries are built in a temporary folder and renamed into place with ``entry.json`` already
inside, so an interrupted write never leaves an entry; one whose picture is missing or of
the wrong size or digest is ignored (and removed).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from common.digests import digest, sha256_file
from common.retention import LEFTOVER_SECONDS
from narration.timeline import SceneTimes
from scenes.contract import SceneReport, VideoFile
from scenes.recording import code_digests

KEEP = 2  # entries kept per slot: the current one and the one before


@dataclass(frozen=True)
class Probe:
    """What the build knows about a scene job before rendering it."""

    scene_id: str
    lang: str
    quality: str
    plan_parts: dict[str, str]  # part name (beat ids, "versions", ...) -> digest
    current: dict[str, str]  # the current digest of every input any entry recorded

    @property
    def plan_digest(self) -> str:
        return digest(self.plan_parts)


@dataclass(frozen=True)
class Entry:
    key: str
    path: Path  # the entry folder
    plan_digest: str
    plan_parts: dict[str, str]
    inputs: dict[str, str]
    code: dict[str, str]
    video: VideoFile
    times: SceneTimes
    stills: tuple[tuple[float, float], ...] | None = None  # as its writer saw them

    @property
    def picture(self) -> Path:
        return self.path / "picture.mp4"

    def verify(self) -> bool:
        """Whether the picture is intact (size and sha256 as recorded)."""
        p = self.picture
        return p.is_file() and p.stat().st_size == self.video.size \
            and sha256_file(p) == self.video.sha256


@dataclass(frozen=True)
class Lookup:
    entry: Entry | None  # the entry to reuse, or None: render
    reason: str  # why it is reused or rebuilt


class SceneStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def slot(self, scene_id: str, lang: str, quality: str) -> Path:
        return self.root / scene_id / f"{lang}-{quality}"

    def entries(self, scene_id: str, lang: str, quality: str) -> list[Entry]:
        """The slot's readable entries, newest first."""
        slot = self.slot(scene_id, lang, quality)
        found = []
        for d in slot.iterdir() if slot.is_dir() else ():
            if d.name.startswith("."):
                continue
            e = _read_entry(d)
            if e is not None:
                found.append((d.joinpath("entry.json").stat().st_mtime, e))
        return [e for _t, e in sorted(found, key=lambda x: -x[0])]

    def recorded_names(self, scene_id: str, lang: str, quality: str) -> tuple[set[str],
                                                                               set[str]]:
        """Every input name and code file the slot's entries recorded."""
        names: set[str] = set()
        files: set[str] = set()
        for e in self.entries(scene_id, lang, quality):
            names |= set(e.inputs)
            files |= set(e.code)
        return names, files

    def lookup(self, probe: Probe) -> Lookup:
        entries = self.entries(probe.scene_id, probe.lang, probe.quality)
        if not entries:
            return Lookup(None, "never rendered")
        code_now = code_digests(sorted({f for e in entries for f in e.code}))
        for e in entries:
            if (e.plan_digest == probe.plan_digest
                    and all(probe.current.get(k) == v for k, v in e.inputs.items())
                    and all(code_now.get(k) == v for k, v in e.code.items())
                    and e.picture.is_file() and e.picture.stat().st_size == e.video.size):
                return Lookup(e, "unchanged")
        return Lookup(None, _why(entries[0], probe, code_now))

    def put(self, probe: Probe, report: SceneReport) -> Entry:
        """Move the rendered picture into a new entry; prune the slot's old entries."""
        assert report.video is not None
        key = digest([probe.plan_digest, report.inputs, report.code])
        slot = self.slot(probe.scene_id, probe.lang, probe.quality)
        slot.mkdir(parents=True, exist_ok=True)
        tmp = slot / f".tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            shutil.move(str(report.video.path), tmp / "picture.mp4")
            video = replace(report.video, path=slot / key / "picture.mp4")
            data = {"key": key, "plan_digest": probe.plan_digest,
                    "plan_parts": probe.plan_parts, "inputs": report.inputs,
                    "code": report.code, "times": report.times.to_json(),
                    "video": video.to_json(),
                    "stills": None if report.stills is None
                    else [list(x) for x in report.stills],
                    "seconds": report.seconds, "peak_rss_mb": report.peak_rss_mb,
                    "created": time.time()}
            (tmp / "entry.json").write_text(json.dumps(data, ensure_ascii=False), "utf-8")
            with open(tmp / "entry.json", "rb") as f:
                os.fsync(f.fileno())
            final = slot / key
            if final.exists() and not _intact(final):
                shutil.rmtree(final, ignore_errors=True)  # damaged: replace it
            try:
                os.replace(tmp, final)
            except OSError:
                if not _intact(final):
                    raise
                # Another run stored the same key meanwhile: same inputs, same picture.
                shutil.rmtree(tmp, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.prune(probe.scene_id, probe.lang, probe.quality)
        entry = _read_entry(final)
        assert entry is not None
        return entry

    def touch(self, entry: Entry) -> None:
        """Mark ``entry`` as just used (pruning keeps the most recently used)."""
        os.utime(entry.path / "entry.json")

    def prune(self, scene_id: str, lang: str, quality: str) -> None:
        slot = self.slot(scene_id, lang, quality)
        for e in self.entries(scene_id, lang, quality)[KEEP:]:
            shutil.rmtree(e.path, ignore_errors=True)
        for d in slot.glob(".tmp-*") if slot.is_dir() else ():
            if time.time() - d.stat().st_mtime > LEFTOVER_SECONDS:  # an interrupted run's
                shutil.rmtree(d, ignore_errors=True)


def _intact(d: Path) -> bool:
    e = _read_entry(d)
    return e is not None and e.verify()


def _read_entry(d: Path) -> Entry | None:
    try:
        data = json.loads((d / "entry.json").read_text("utf-8"))
        v = data["video"]
        if data["key"] != d.name:
            return None
        return Entry(d.name, d, str(data["plan_digest"]), dict(data["plan_parts"]),
                     dict(data["inputs"]), dict(data["code"]),
                     VideoFile.from_json(d / "picture.mp4", v),
                     SceneTimes.from_json(data["times"]),
                     None if data.get("stills") is None
                     else tuple((float(a), float(b)) for a, b in data["stills"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _why(last: Entry, probe: Probe, code_now: dict[str, str]) -> str:
    """What differs from the slot's newest entry, in a few words."""
    parts = [k for k in sorted(set(last.plan_parts) | set(probe.plan_parts))
             if last.plan_parts.get(k) != probe.plan_parts.get(k)]
    inputs = [k for k, v in last.inputs.items() if probe.current.get(k) != v]
    code = [k for k, v in last.code.items() if code_now.get(k) != v]
    said = []
    if parts:
        said.append("changed: " + ", ".join(_part_name(p) for p in parts[:4])
                    + (" ..." if len(parts) > 4 else ""))
    if inputs:
        said.append("input changed: " + ", ".join(inputs[:4])
                    + (" ..." if len(inputs) > 4 else ""))
    if code:
        said.append("code changed: " + ", ".join(code[:3]) + (" ..." if len(code) > 3 else ""))
    return "; ".join(said) or "entry unusable"


def _part_name(part: str) -> str:
    return {"versions": "Manim/PyAV/ffmpeg version", "beats": "the list of beats",
            "render": "quality (size and frame rate)"}.get(
        part, part)
