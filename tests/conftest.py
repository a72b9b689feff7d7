"""Session fixtures every test module can ask for (the shared renders, tests/shared_renders.py),
and how the tests are shared between pytest-xdist workers (``bash run.sh test`` runs two).

Each worker builds its own session and module fixtures, so tests that read the same build
must run on the same worker: ``--dist loadgroup`` keeps an ``xdist_group`` together, and
:func:`pytest_collection_modifyitems` gives every test one. A scene's dry run
(``shipped_scene``) is shared by scene and language, the espeak build by the modules that
read it, and anything else by its module (its module-scoped renders).
"""

from __future__ import annotations

import pytest

from tests.shared_renders import espeak_short_build

__all__ = ["espeak_short_build"]


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


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(_group(item)))
