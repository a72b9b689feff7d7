"""Helpers to build scenes without writing video (Manim dry run)."""

from __future__ import annotations

import importlib.util
import os

import pytest

from scenes.registry import SceneInfo


def load_scene_class(info: SceneInfo):
    spec = importlib.util.spec_from_file_location(f"_scene_{info.scene_id}", info.path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, info.class_name)


@pytest.fixture
def dry_run_scene(tmp_path, monkeypatch):
    """Build every mobject of every beat of a scene in a language, writing nothing."""
    from manim import tempconfig

    def run(info: SceneInfo, lang: str):
        monkeypatch.setenv("QKV_LANG", lang)
        cls = load_scene_class(info)
        with tempconfig({"dry_run": True, "quality": "low_quality", "media_dir": str(tmp_path),
                         "disable_caching": True, "progress_bar": "none", "verbosity": "ERROR"}):
            scene = cls()
            scene.render()
        return scene

    os.environ.setdefault("PYTHONHASHSEED", "0")
    return run
