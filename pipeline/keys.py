"""The parts of the build's cache keys that name the tools and the pipeline's own code."""

from __future__ import annotations

import functools
from importlib import metadata
from pathlib import Path

from common.digests import file_digest
from narration import style
from narration.scripts import SCRIPTS_DIR
from narration.spoken import LEXICON_DIR
from pipeline import media
from scenes.recording import PROJECT


@functools.cache
def versions() -> dict[str, str]:
    """The tools whose versions change a picture or a master."""
    out = {}
    for pkg in ("manim", "av", "manimpango", "manimgx-fonts-cjk", "imageio-ffmpeg"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "-"
    out["ffmpeg"] = Path(media.FFMPEG).name
    return out


@functools.cache
def pipeline_code() -> dict[str, str]:
    """Digests of the code and data that turn pictures and audio into the outputs."""
    files = sorted([*PROJECT.glob("pipeline/*.py"), *PROJECT.glob("narration/*.py"),
                    *PROJECT.glob("common/*.py"),
                    *SCRIPTS_DIR.glob("*/_*.toml"), *LEXICON_DIR.glob("*.toml")])
    out = {f.relative_to(PROJECT).as_posix(): file_digest(f) for f in files}
    out["font"] = f"{style.FONT_FILE.name}:{style.FONT_FILE.stat().st_size}" \
        if style.FONT_FILE.is_file() else "-"
    return out
