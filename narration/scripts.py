"""Per-language scene scripts: a title, on-screen strings and narration beats.

One TOML file per scene and language, ``narration/scripts/<lang>/<scene_id>.toml``::

    title = "..."
    [screen]                 # on-screen strings (str or list of str), placeholders allowed
    step1 = "..."
    [[beat]]                 # narration, in order; ids must match across languages
    id = "scores"
    text = "... {we.score.0} ... {@total}the total ..."

``{@total}`` is a cue mark: the scene can wait for the voice to reach it (``b.until``). Every
beat has the same marks, in the same order, in every language. A mark named ``see_<name>``
needs no scene code: as the voice reaches it, the scene kit points at ``<name>`` (a target
the scene registered, or the on-screen string of that ``[screen]`` key; ``scenes.pointing``).
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from narration.numfmt import LANGS
from narration.placeholders import (
    FactValue,
    PlaceholderError,
    Resolved,
    mark_names,
    placeholder_names,
    resolve,
)

SCRIPTS_DIR = Path(__file__).resolve().parent / "scripts"


class ScriptError(ValueError):
    """A narration file problem, reported as one line: file, key, problem."""

    def __init__(self, file: Path | str, key: str, problem: str) -> None:
        self.file, self.key, self.problem = str(file), key, problem
        super().__init__(f"{file}: {key}: {problem}")


@dataclass(frozen=True)
class Beat:
    id: str
    text: Resolved


@dataclass(frozen=True)
class SceneScript:
    scene_id: str
    lang: str
    source: Path
    title: str
    screen: Mapping[str, str | tuple[str, ...]]
    beats: tuple[Beat, ...]
    reads: frozenset[str] = frozenset()  # the facts its placeholders name (we.score.0, ...)

    def s(self, key: str) -> str:
        """An on-screen string (KeyError names the scene and key)."""
        value = self.screen.get(key)
        if not isinstance(value, str):
            raise KeyError(f"{self.source}: screen.{key} missing or not a string")
        return value

    def items(self, key: str) -> tuple[str, ...]:
        """An on-screen list of strings."""
        value = self.screen.get(key)
        if not isinstance(value, tuple):
            raise KeyError(f"{self.source}: screen.{key} missing or not a list")
        return value


def script_path(scene_id: str, lang: str, root: Path = SCRIPTS_DIR) -> Path:
    return root / lang / f"{scene_id}.toml"


def _read(path: Path) -> dict:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ScriptError(path, "-", "file not found") from None
    except tomllib.TOMLDecodeError as err:
        raise ScriptError(path, "-", f"invalid TOML: {err}") from None


def _raw_beats(path: Path, data: dict) -> list[tuple[str, str]]:
    beats = data.get("beat")
    if not isinstance(beats, list) or not beats:
        raise ScriptError(path, "beat", "no [[beat]] entries")
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, b in enumerate(beats, 1):
        bid, text = b.get("id"), b.get("text")
        if not isinstance(bid, str) or not bid:
            raise ScriptError(path, f"beat[{i}].id", "missing or not a string")
        if not _BEAT_ID.fullmatch(bid):
            raise ScriptError(path, f"beat[{i}].id", f"{bid!r}: use letters, digits and _ only")
        if not isinstance(text, str) or not text.strip():
            raise ScriptError(path, f"beat.{bid}.text", "missing or empty")
        if bid in seen:
            raise ScriptError(path, f"beat.{bid}", "duplicate beat id")
        seen.add(bid)
        out.append((bid, _clean_text(path, f"beat.{bid}.text", text)))
    return out


_BEAT_ID = re.compile(r"[A-Za-z0-9_]+")
MAX_BEAT_CHARS = 1000
"""A beat is a sentence or two (the longest shipped: 300 characters); past this, split it."""


def _clean_text(path: Path, key: str, text: str) -> str:
    """The text with line breaks joined (a space between Latin words, none between
    Chinese characters); control characters and overlong beats refused."""
    bad = next((c for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t\r"),
               None)
    if bad is not None:
        raise ScriptError(path, key, f"control character U+{ord(bad):04X} in the text")
    text = re.sub(r"(?<=[\u3000-\u9fff\uff00-\uffef])\s*\n\s*(?=[\u3000-\u9fff\uff00-\uffef])",
                  "", text.strip())
    text = re.sub(r"\s+", " ", text)
    if len(text) > MAX_BEAT_CHARS:
        raise ScriptError(path, key, f"{len(text)} characters; a beat is a sentence or two "
                                     f"(at most {MAX_BEAT_CHARS}): split it into beats")
    return text


def _resolve(path: Path, key: str, template: str, facts: Mapping[str, FactValue], lang: str,
             marks: bool = False):
    try:
        resolved = resolve(template, facts, lang, marks=marks)
    except PlaceholderError as err:
        raise ScriptError(path, key, str(err)) from None
    if marks and not any(c.isalnum() for c in resolved.spoken):
        raise ScriptError(path, key, "has no words to speak")
    return resolved


def load_script(
    scene_id: str, lang: str, facts: Mapping[str, FactValue], root: Path = SCRIPTS_DIR
) -> SceneScript:
    """Load and fill one scene's script for ``lang``."""
    if lang not in LANGS:
        raise ScriptError(root, "lang", f"unknown language {lang!r}")
    path = script_path(scene_id, lang, root)
    data = _read(path)
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ScriptError(path, "title", "missing or empty")
    screen_raw = data.get("screen", {})
    if not isinstance(screen_raw, dict):
        raise ScriptError(path, "screen", "must be a table")
    screen: dict[str, str | tuple[str, ...]] = {}
    for key, value in screen_raw.items():
        if isinstance(value, str):
            screen[key] = _resolve(path, f"screen.{key}", value, facts, lang).display
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            screen[key] = tuple(
                _resolve(path, f"screen.{key}[{i}]", v, facts, lang).display
                for i, v in enumerate(value, 1)
            )
        else:
            raise ScriptError(path, f"screen.{key}", "must be a string or a list of strings")
    raw_beats = _raw_beats(path, data)
    beats = tuple(
        Beat(bid, _resolve(path, f"beat.{bid}.text", text, facts, lang, marks=True))
        for bid, text in raw_beats
    )
    title_text = _resolve(path, "title", title.strip(), facts, lang).display
    templates = [title, *(text for _, text in raw_beats)]
    for value in screen_raw.values():
        templates += [value] if isinstance(value, str) else value
    reads = frozenset(name for t in templates for name in placeholder_names(t))
    return SceneScript(scene_id, lang, path, title_text, screen, beats, reads)


def check_parity(scene_ids: Iterable[str], root: Path = SCRIPTS_DIR) -> None:
    """Every scene has a script in every language, with the same beats and screen keys."""
    for scene_id in scene_ids:
        shapes = {}
        for lang in LANGS:
            path = script_path(scene_id, lang, root)
            data = _read(path)
            raw = _raw_beats(path, data)
            shapes[lang] = (path, [b for b, _ in raw], set(data.get("screen", {})),
                            {b: list(mark_names(t)) for b, t in raw})
        (p0, beats0, keys0, marks0), (p1, beats1, keys1, marks1) = (shapes[LANGS[0]],
                                                                    shapes[LANGS[1]])
        for bid in beats0:
            if bid not in beats1:
                raise ScriptError(p1, f"beat.{bid}", f"missing here but present in {p0}")
        for bid in beats1:
            if bid not in beats0:
                raise ScriptError(p0, f"beat.{bid}", f"missing here but present in {p1}")
        if beats0 != beats1:
            raise ScriptError(p1, "beat", f"beats are in a different order than in {p0}")
        for key in sorted(keys0 ^ keys1):
            missing_in = p1 if key in keys0 else p0
            raise ScriptError(missing_in, f"screen.{key}", "missing in one language")
        for bid in beats0:
            m0, m1 = marks0[bid], marks1[bid]
            for name in m0:
                if name not in m1:
                    raise ScriptError(p1, f"beat.{bid}.text",
                                      f"cue mark {{@{name}}} missing here but present in {p0}")
            for name in m1:
                if name not in m0:
                    raise ScriptError(p0, f"beat.{bid}.text",
                                      f"cue mark {{@{name}}} missing here but present in {p1}")
            if m0 != m1:
                raise ScriptError(p1, f"beat.{bid}.text",
                                  f"cue marks in the order {', '.join(m1)} but {p0} has "
                                  f"{', '.join(m0)}: scenes wait for them in one order")


def video_file(lang: str, cut: str = "full", root: Path = SCRIPTS_DIR) -> Path:
    """The file with a cut's title and summary: ``scripts/<lang>/_video.toml`` for the full
    explainer, ``scripts/<lang>/_<cut>.toml`` for another cut (``_overview.toml``)."""
    return root / lang / ("_video.toml" if cut == "full" else f"_{cut}.toml")


def _video_field(lang: str, key: str, root: Path, cut: str) -> str:
    path = video_file(lang, cut, root)
    value = _read(path).get(key)
    if not isinstance(value, str) or not value.strip():
        raise ScriptError(path, key, "missing or empty")
    return value.strip()


def video_title(lang: str, root: Path = SCRIPTS_DIR, cut: str = "full") -> str:
    """The video's title in ``lang`` (see :func:`video_file`)."""
    return _video_field(lang, "title", root, cut)


def video_summary(lang: str, root: Path = SCRIPTS_DIR, cut: str = "full") -> str:
    """The video's short summary in ``lang`` (see :func:`video_file`)."""
    return _video_field(lang, "summary", root, cut)


@dataclass(frozen=True)
class CoverText:
    """What a cut's cover says: its title (balanced into lines by the cover) and, under the
    Q, K and V cards, each role's word in the language (none in English: the card's own
    word, Query/Key/Value, is it)."""

    title: str
    roles: tuple[str, str, str] | None


def video_cover(lang: str, root: Path = SCRIPTS_DIR, cut: str = "full") -> CoverText:
    """The cover's text for a cut (``cover`` and ``cover_roles`` in :func:`video_file`)."""
    path = video_file(lang, cut, root)
    data = _read(path)
    title = _video_field(lang, "cover", root, cut)
    roles = data.get("cover_roles")
    if roles is None:
        return CoverText(title, None)
    if (not isinstance(roles, list) or len(roles) != 3
            or not all(isinstance(r, str) and r.strip() for r in roles)):
        raise ScriptError(path, "cover_roles", "must be three words: Q's, K's and V's")
    return CoverText(title, (roles[0].strip(), roles[1].strip(), roles[2].strip()))
