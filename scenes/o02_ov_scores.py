"""Overview ②: step ① on the blank's query and the four keys: one dot product worked
through, then every word's score.

The dot-product scene's table and its beats ``one_dot`` and ``all_scores``, re-timed; the
table arrives in one beat (the full scene builds it over four).
"""

from __future__ import annotations

from manim import DOWN, Create, FadeIn, SurroundingRectangle, VGroup

from scenes import theme, widgets
from scenes.s06_dot_product import DotProductScene


class OverviewScoresScene(DotProductScene):
    scene_id = "ov_scores"
    quick_title = True

    def narrate(self) -> None:
        self.n, self.dims = self.numbers.fill_blank.K.shape
        t = self.t = self._table()
        self._table_beat(t)
        self._one_dot(t)
        self._all_scores(t)

    def _table_beat(self, t) -> None:
        q_has = self.derived.fill_query_has
        with self.beat("table") as b:
            self.title_card(b)
            self.play(FadeIn(VGroup(t.head_word, *t.feat_heads, t.q_name, *t.names),
                             shift=0.1 * DOWN), run_time=b.rt(0.06, 0.6))
            b.until("q")
            wanted = VGroup(*[SurroundingRectangle(VGroup(t.feat_heads[j], t.q_cells[j]),
                                                   color=theme.Q_COLOR, buff=0.1) for j in q_has])
            self.play(FadeIn(VGroup(*t.q_cells), shift=0.1 * DOWN), Create(t.sep),
                      run_time=b.rt(0.06, 0.6))
            self.play(Create(wanted), run_time=b.rt(0.06, 0.6))
            b.until("keys")
            self.play(FadeIn(VGroup(*[c for row in t.k_cells for c in row]), shift=0.1 * DOWN),
                      wanted.animate.set_stroke(opacity=0), run_time=b.rt(0.08, 0.8))
            self.remove(wanted)
            self.play(*widgets.light(VGroup(*[c for row in t.k_cells for c in row]),
                                     theme.K_COLOR, 1.05), run_time=b.rt(0.08, 0.8))
