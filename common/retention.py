"""How long the caches keep what no run uses, in one place: the voice clips
(``narration.tts.cache``), the stored parts (``pipeline.segments``), the scene pictures'
leftovers (``pipeline.store``) and the made texts (``scenes.text_store``)."""

from __future__ import annotations

KEEP_DAYS = 30.0
"""A cached file no run has used for this long is removed at the end of a build."""
LEFTOVER_SECONDS = 3600.0
"""A half-made file (a temp file, or one whose record was never written) older than this
was left by an interrupted run, not by one still writing it: it is removed."""
DAY = 86400.0
