"""Overview ③: the scores become softmax shares (e to each score, divided by the total),
then a word on √d: amplified scores put nearly everything on one word, and the real
formula's ÷ √d gives the example's shares.

The softmax scene's beats ``intro``, ``exp`` and ``divide``, re-timed (the add-a-constant
detour is left for the full explainer), and a beat of its own for √d, drawn from the same
amplified rows as the scaling scene and the page's lab.
"""

from __future__ import annotations

from collections.abc import Sequence

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    FadeIn,
    FadeOut,
    ReplacementTransform,
    VGroup,
)

from scenes import theme, widgets
from scenes.s07_softmax import X_SCORE, SoftmaxScene

AMP_ROW = 3  # the script's {sc.amp.3}: the strongest amplification of the scaling scene
X_BARS = X_SCORE + 1.6  # where the bars move once the e-column has gone


class OverviewSoftmaxScene(SoftmaxScene):
    scene_id = "ov_softmax"
    quick_title = True

    def narrate(self) -> None:
        self._setup()
        self._intro()
        self.naive = VGroup(self.slots, self.brace, self.whole)  # what ``_exp`` clears
        self._exp()
        self._divide()
        self._sqrt()

    def _sqrt(self) -> None:
        row = self.derived.amplified_rows[AMP_ROW]
        with self.beat("sqrt") as b:
            b.until("long")
            self.hold_working(VGroup(self.exp_col, self.total, self.divs))
            bars = self.sm_bars
            self.cap = widgets.fade_through(
                self, self.cap, self._caption(self.s("long"), theme.ACCENT),
                with_new=[FadeOut(VGroup(self.exp_col, self.total, self.divs))],
                run_time=b.rt(0.06, 0.6))
            self.play(bars.animate.shift(RIGHT * (X_BARS - bars[1][0][0].get_left()[0])),
                      run_time=b.rt(0.05, 0.5))
            # "... so large d means wide scores": the scores are lit as the sentence reaches
            # them (the picture stood still for over 5 s here, the overview's limit)
            gap = b.time_to("amp")
            if gap > 2.0:
                self.wait(gap * 0.55)
                self.play(*widgets.light(self.score_col[1], theme.ACCENT, 1.08),
                          run_time=min(0.8, gap * 0.3))
            b.until("amp")
            # the amplification is said in the caption (as a column heading it was wider
            # than the column and ran into the shares' heading); the scores give way to
            # the amplified ones in place: out, then in
            big = VGroup(*[theme.text(self.num(row.factor * s), theme.NUM_SIZE, theme.ACCENT)
                           .move_to(c) for s, c in zip(self.scores, self.score_col[1],
                                                       strict=True)])
            # the bars stretch as the amplified scores come in (in three plays after them,
            # the bars moved a second after the voice said so)
            old_cap, self.cap = self.cap, self._caption(self.s("amp"), theme.ACCENT)
            # still no ÷ √d: the compared set's colour, as the softmax step's bars
            self._morph(row.weights_raw, theme.COMPARE_COLOR, b.rt(0.1, 1.2),
                        out=[FadeOut(old_cap, shift=0.15 * UP), FadeOut(self.score_col[1])],
                        come=[FadeIn(self.cap, shift=0.15 * UP), FadeIn(big, shift=0.1 * UP)])
            self.play(*widgets.light_bar(self.sm_bars[1][self.top], theme.COMPARE_COLOR),
                      run_time=b.rt(0.06, 0.6))
            b.until("div")
            # the real formula on the example: its scores ÷ √d, and softmax of those
            note = theme.text(self.s("d_note"), theme.SMALL_SIZE, theme.MUTED)
            theme.fit(note, theme.CONTENT_W)
            note.move_to(UP * self.y_low).align_to(self.names, LEFT)
            widgets.keep_inside_x(note)
            scaled = VGroup(*[theme.text(self.num(s, 2), theme.NUM_SIZE, theme.SHARE_COLOR)
                              .move_to(c) for s, c in zip(self.derived.fill_scores_scaled,
                                                          self.score_col[1], strict=True)])
            old_cap, self.cap = self.cap, self._caption(self.s("div"), theme.SHARE_COLOR)
            self._morph(self.derived.fill_weights_scaled, theme.SHARE_COLOR, b.rt(0.1, 1.2),
                        out=[FadeOut(old_cap, shift=0.15 * UP), FadeOut(big, shift=0.1 * UP)],
                        come=[FadeIn(self.cap, shift=0.15 * UP),
                              FadeIn(scaled, shift=0.1 * UP)])
            self.play(FadeIn(note, shift=0.1 * UP), run_time=b.rt(0.05, 0.5))

    def _morph(self, shares, color: str, run_time: float, out: Sequence[Animation] = (),
               come: Sequence[Animation] = ()) -> None:
        """The share bars stretch to ``shares``; their labels swap (no glyph morph). ``out``
        leave with the old labels, ``come`` arrive as the bars stretch."""
        head, body = self.sm_bars
        x0 = body[0][0].get_left()[0]
        new = VGroup()
        anims = []
        for s, old in zip(shares, body, strict=True):
            bar = widgets.share_bar(float(s), self.pct(s), self.bar_len, color)
            bar.align_to(RIGHT * x0, LEFT).set_y(old.get_y())
            anims.append(ReplacementTransform(old[0], bar[0]))
            new.add(bar)
        # the old labels go, the bars stretch, the new labels come: a bar's end moves, and
        # with it its label, onto where the old labels were
        self.play(*[FadeOut(old[1], shift=0.1 * DOWN) for old in body], *out,
                  run_time=run_time / 4)
        self.play(*anims, head.animate.set_color(color), *come, run_time=run_time / 2)
        self.play(*[FadeIn(bar[1], shift=0.1 * DOWN) for bar in new], run_time=run_time / 4)
        self.sm_bars = VGroup(head, new)
        self.add(self.sm_bars)
