"""Overview ①: the fill-in-the-blank question, then Query, Key and Value in a sentence each.

The hook's beats, re-timed to the overview's shorter script: the sentence, the answer and
its clue, and the three role cards (the hook's shares and its question are left out).
"""

from __future__ import annotations

from scenes.s01_hook import HookScene


class OverviewQuestionScene(HookScene):
    scene_id = "ov_question"
    quick_title = True

    def narrate(self) -> None:
        self._intro()
        self._answer()
        self._qkv()
