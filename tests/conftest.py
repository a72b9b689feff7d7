"""Session fixtures every test module can ask for (the shared renders, tests/shared_renders.py),
and how the tests are shared between pytest-xdist workers (``bash run.sh test`` runs two).

Each worker builds its own session and module fixtures, so tests that read the same build
must run on the same worker: ``--dist loadgroup`` keeps an ``xdist_group`` together, and
:func:`pytest_collection_modifyitems` gives every test one. A scene's dry run
(``shipped_scene``) is shared by scene and language, the espeak build by the modules that
read it, and anything else by its module (its module-scoped renders).
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from pipeline.config import FONT_CACHE_ENV
from scenes.contract import TEXT_CACHE_ENV
from tests.shared_renders import espeak_short_build

__all__ = ["espeak_short_build"]


def pytest_configure(config: pytest.Config) -> None:
    """One folder of made texts (``scenes.text_store``) and one of page fonts
    (``pipeline.page``) for the whole session: the workers' scenes and every build read
    what any of them made (set before the workers start, which inherit them; a folder given
    from outside is kept).

    Each worker's Manim texts in a media folder of its own: Manim writes a text's SVG to
    ``<media_dir>/texts/<hash>.svg`` with a ``<hash>_.svg`` copy it deletes, so two workers
    making the same text at once in one folder delete each other's copy."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        from manim import config as manim_config

        manim_config.media_dir = os.path.join("media", f"tests-{worker}")
    else:
        # and one of the preview page's font subsets: each build's own cache made the same
        # subset again (5 CPU s a build)
        for env, prefix in ((TEXT_CACHE_ENV, "texts"), (FONT_CACHE_ENV, "fonts")):
            if not os.environ.get(env):
                folder = tempfile.mkdtemp(prefix=f"qkv-test-{prefix}-")
                os.environ[env] = folder
                config.add_cleanup(lambda f=folder: shutil.rmtree(f, ignore_errors=True))


def _group(item: pytest.Item) -> str:
    names = getattr(item, "fixturenames", ())
    params = getattr(getattr(item, "callspec", None), "params", {})
    if "shipped_scene" in names:
        scene = params["info"].scene_id if "info" in params else params.get("scene_id")
        scene = scene or getattr(item.module, "SHIPPED_SCENE", None)
        if scene:
            return f"scene-{scene}-{params.get('lang', '')}"
    if "espeak_short_build" in names:
        return "espeak_short_build"
    return item.nodeid.split("::", 1)[0]


# The longest groups (minutes of renders and synthesis, from --durations), handed out
# first: run last, the end-to-end renders alone took the last 7 minutes on one worker.
LONGEST_FIRST = ("tests/test_render_e2e.py", "tests/subtitles/test_script_cues.py",
                 "tests/test_quality_keys.py",
                 "espeak_short_build")


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(_group(item)))

    def rank(item: pytest.Item) -> int:
        group = item.get_closest_marker("xdist_group").args[0]
        return LONGEST_FIRST.index(group) if group in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: each group keeps its tests' order


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    """A module's headless Chromium, started once (a start is about 1.4 CPU s and 2.5 s):
    each page test asks for it at its window size, ``chromium(width, height)``, and loads
    its page afresh (the page keeps no state between loads: no storage, no cookies)."""
    from tests.browser import start_chromium

    driver = start_chromium(tmp_path_factory.mktemp("chromium"), 1366, 900)

    def sized(width: int, height: int):
        driver.set_window_size(width, height)
        return driver

    yield sized
    driver.quit()
