"""The look shared by the scenes and the outputs: the bundled font and the subtitle band.

Scenes keep their content above the band; burned-in subtitles, thumbnails and pages draw
with the same font inside it. No Manim here, so the pipeline can use it without a scene.
"""

from __future__ import annotations

from pathlib import Path

import manimgx_fonts_cjk

FONT_DIR = Path(manimgx_fonts_cjk.__file__).resolve().parent
FONT_FILE = next(FONT_DIR.glob("*.tt[cf]"))
FONT = "Noto Sans CJK SC"
FONT_INDEX_SC = 2  # the SC face in the collection (JP, KR, SC, TC, HK)
FRAME_H_UNITS = 8.0  # Manim's frame height
SUBTITLE_BAND_UNITS = 1.45
SUBTITLE_BAND_SHARE = SUBTITLE_BAND_UNITS / FRAME_H_UNITS
"""The bottom share of the picture kept free of scene content, for subtitles."""
MIN_BODY_PX = 40.0
MIN_LABEL_PX = 32.0
"""The smallest text sizes a phone viewer can read, in px at 1080p (a digit's height):
body text, and any text at all (labels)."""
BG = "#10131a"
FG = "#e8e8ee"
MUTED = "#8a90a0"
PANEL = "#1c2230"
Q_COLOR = "#f4c542"  # the roles' colours, kept throughout: Q yellow, K teal, V red
K_COLOR = "#2ec4b6"
V_COLOR = "#ef6f6c"
ROLE_COLORS = (Q_COLOR, K_COLOR, V_COLOR)
