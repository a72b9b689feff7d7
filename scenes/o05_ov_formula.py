"""Overview ⑤: the whole formula in one line with its four steps lit in turn (the recap's
beat, re-timed), then a closing card pointing to the full explainer."""

from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, FadeIn, VGroup

from scenes import theme, widgets
from scenes.s15_recap_quiz import RecapQuizScene

ITEM_MARKS = ("ia", "ib", "ic", "id")  # the closing card's lines appear as they are named


class OverviewFormulaScene(RecapQuizScene):
    scene_id = "ov_formula"
    quick_title = True

    def narrate(self) -> None:
        self._recap()
        self._closing()

    def _closing(self) -> None:
        formula, name, rows, lit = self.recap
        with self.beat("closing") as b:
            more = theme.text(self.s("more"), theme.BODY_SIZE + 6, theme.ACCENT, weight="BOLD")
            items = VGroup(*[theme.text(f"·  {line}", theme.BODY_SIZE, theme.FG, qkv=True)
                             for line in self.items("more_items")])
            items.arrange(DOWN, aligned_edge=LEFT, buff=0.32)
            card = VGroup(more, items).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
            room = formula.get_bottom()[1] - 0.5 - theme.CONTENT_BOTTOM
            theme.fit(card, theme.CONTENT_W - 0.6, room)
            card.move_to(UP * (theme.CONTENT_BOTTOM + room / 2)).set_x(0)
            b.until("full")
            # the recap goes before the card's heading comes in where its name was
            widgets.fade_through(self, VGroup(name, rows, lit), more, run_time=b.rt(0.08, 0.7),
                                 shift=0.1 * UP)
            for line, mark in zip(items, ITEM_MARKS, strict=False):
                b.until(mark)
                self.play(FadeIn(line, shift=0.15 * RIGHT), run_time=b.rt(0.06, 0.5))
            if len(items) > len(ITEM_MARKS):
                self.play(FadeIn(VGroup(*items[len(ITEM_MARKS):])), run_time=b.rt(0.05, 0.5))
