"""The build's typed inputs: what the command line chose, and the checked source material."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from narration.facts import build_facts
from narration.placeholders import FactValue
from narration.scripts import SCRIPTS_DIR, SceneScript
from qkv_math.derived import Derived, derive
from qkv_math.numbers import DEFAULT_NUMBERS, Numbers, load_numbers
from scenes.contract import TEXT_CACHE_ENV, Quality
from scenes.registry import SceneInfo

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "qkv-explainer"


def text_cache_in(cache: Path) -> Path:
    """Texts the scenes made, kept for every later run (``scenes.text_store``):
    ``<cache>/texts``, or the folder ``QKV_TEXT_CACHE`` names (several build caches sharing
    one: the tests' builds do)."""
    shared = os.environ.get(TEXT_CACHE_ENV)
    return Path(shared) if shared else cache / "texts"


FONT_CACHE_ENV = "QKV_FONT_CACHE"


def font_cache_in(cache: Path) -> Path:
    """The preview page's font subsets, kept for every later run (``pipeline.page``):
    ``<cache>/fonts``, or the folder ``QKV_FONT_CACHE`` names (several build caches sharing
    one: the tests' builds do)."""
    shared = os.environ.get(FONT_CACHE_ENV)
    return Path(shared) if shared else cache / "fonts"


@dataclass(frozen=True)
class BuildConfig:
    """How to build: everything the command line decides, nothing else."""

    out: Path
    cache: Path  # root of the build cache: audio/, scenes/, segments/, fonts/, texts/
    quality: Quality = field(default_factory=lambda: Quality.of("high"))
    jobs: int = 2
    burn_subs: bool = False
    clips: bool = True
    clip_height: int = 720
    silent_clips: bool = False
    verbose: bool = False
    accept_layout: bool = False  # publish even when a scene reports a layout problem
    scheduler: str | None = None  # a Dask scheduler's address: scene jobs run there
    deck_captions: bool = True  # the deck's clips with subtitles drawn in (PowerPoint shows
    # no soft track)

    @property
    def audio_cache(self) -> Path:
        return self.cache / "audio"

    @property
    def scene_cache(self) -> Path:
        return self.cache / "scenes"

    @property
    def text_cache(self) -> Path:
        return text_cache_in(self.cache)

    def output_options(self) -> dict:
        """The options that change a language's outputs (part of its build key)."""
        return {"quality": self.quality.name, "burn_subs": self.burn_subs, "clips": self.clips,
                "clip_height": self.clip_height, "silent_clips": self.silent_clips,
                "deck_captions": self.deck_captions}


@dataclass(frozen=True)
class Source:
    """The numbers file, read and checked once a run and handed on: its path, its numbers,
    what they derive and the facts the scripts name."""

    path: Path
    numbers: Numbers
    derived: Derived
    facts: dict[str, FactValue]


def read_source(path: Path | None) -> Source:
    """Load and check the numbers file (``None``: the shipped one); raises NumbersError."""
    resolved = (path or DEFAULT_NUMBERS).resolve()
    numbers = load_numbers(resolved)
    derived = derive(numbers)
    return Source(resolved, numbers, derived, build_facts(numbers, derived))


@dataclass(frozen=True)
class Inputs:
    """Everything checked up front, before any output is touched."""

    numbers_path: Path
    numbers: Numbers
    derived: Derived
    scenes: list[SceneInfo]
    scripts: dict[str, list[SceneScript]]  # every language -> scripts in scene order
    langs: list[str]  # the languages to render
    cut: str = "full"  # which video: the full explainer or the two-minute overview
    scripts_dir: Path | None = None  # the narration scripts read (--scripts; None: shipped)

    @property
    def script_root(self) -> Path:
        """The folder the narration scripts are read from."""
        return self.scripts_dir or SCRIPTS_DIR

    def out_dir(self, out: Path, lang: str) -> Path:
        """Where a language's outputs of this cut go: ``OUT/<lang>/`` for the full
        explainer, ``OUT/<lang>/<cut>/`` for another cut (``OUT/zh/overview/``)."""
        return cut_dir(out, lang, self.cut)


def cut_dir(out: Path, lang: str, cut: str) -> Path:
    """``OUT/<lang>/`` for the full explainer, ``OUT/<lang>/<cut>/`` for another cut."""
    return out / lang if cut == "full" else out / lang / cut
