"""Helpers to build scenes without writing video (Manim dry run)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from scenes.registry import SceneInfo


def load_scene_class(info: SceneInfo):
    """The scene file's class, loaded as ``scenes.run`` and Manim's CLI load it: registered in
    ``sys.modules`` (dataclasses in a scene file look their module up there)."""
    name = f"_scene_{info.scene_id}"
    spec = importlib.util.spec_from_file_location(name, info.path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, info.class_name)


def _dry_run(info: SceneInfo, lang: str, media: Path, monkeypatch: pytest.MonkeyPatch,
             skip_animations: bool = False):
    """``skip_animations``: each animation jumps to its end (what the layout check reads at
    every beat's end is the same; what happens mid-animation, overlaps included, is not
    looked at), in a third of the time."""
    from manim import tempconfig

    monkeypatch.setenv("QKV_LANG", lang)
    cls = load_scene_class(info)
    with tempconfig({"dry_run": True, "quality": "low_quality", "media_dir": str(media),
                     "disable_caching": True, "progress_bar": "none", "verbosity": "ERROR"}):
        scene = cls(skip_animations=True) if skip_animations else cls()
        scene.render()
    return scene


@pytest.fixture
def dry_run_scene(tmp_path, monkeypatch):
    """Build every mobject of every beat of a scene in a language, writing nothing
    (``skip_animations=True``: final states only, see ``_dry_run``)."""
    os.environ.setdefault("PYTHONHASHSEED", "0")
    return lambda info, lang, **kw: _dry_run(info, lang, tmp_path, monkeypatch, **kw)


@pytest.fixture(scope="session")
def shipped_scene(tmp_path_factory):
    """``dry_run_scene`` with the shipped numbers, built once per scene and language for the
    session: tests that only read such a build (its beats, layout issues, working lines)
    share it. A test that changes the numbers or the scene builds its own."""
    built: dict[tuple[str, str], object] = {}
    media = tmp_path_factory.mktemp("dry_run")
    os.environ.setdefault("PYTHONHASHSEED", "0")

    def get(info: SceneInfo, lang: str):
        if (info.scene_id, lang) not in built:
            with pytest.MonkeyPatch.context() as mp:
                built[info.scene_id, lang] = _dry_run(info, lang, media, mp)
        return built[info.scene_id, lang]

    return get
