"""Step ②: scores become shares; the naive add-a-constant attempt, then softmax."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    ArcBetweenPoints,
    Brace,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    Underline,
    VGroup,
)

from scenes import theme, widgets
from scenes.base import BeatClock, NarratedScene

ROW_H = 0.68
FIRST_ROW = 0.6  # from the column headings to the first word row
BAR_LEN = 6.0  # length of a 100% bar at most; one scale for every bar so the shares compare
Y_CAP = theme.CONTENT_TOP - 0.2  # the caption saying what this step does
Y_HEAD = theme.CONTENT_TOP - 0.85  # column headings; the word rows below
X_NAME, X_SCORE = -5.0, -3.55
X_EXP = X_SCORE + 1.6
# The columns sit at these places when their numbers are narrow (the shipped file's); wider
# numbers (−13, 403.43) push what follows to the right, keeping these gaps, and the bars
# shorten so the widest row still ends inside the frame (see ``_layout``).
COL_GAP = 0.4  # the least room between two columns, headings included
BAR_GAP = 0.3  # between a column and the bars it feeds


def _grow(bar: VGroup) -> list[Animation]:
    """A share bar grows from its left end; its label slides in."""
    return [GrowFromEdge(bar[0], LEFT), FadeIn(bar[1], shift=0.2 * RIGHT)]


class SoftmaxScene(NarratedScene):
    scene_id = "softmax"

    def narrate(self) -> None:
        self._setup()
        self._intro()
        self._naive()
        self._which_constant()
        self._exp()
        self._divide()
        self._formula()

    def _setup(self) -> None:
        """The words, their scores and the rows they sit on."""
        fb, d = self.numbers.fill_blank, self.derived
        self.tokens, self.scores = fb.tokens[self.lang], d.fill_scores
        self.n, self.top = len(self.tokens), d.fill_order[0]
        self.y_rows = [Y_HEAD - FIRST_ROW - ROW_H * i for i in range(self.n)]
        self.y_low = self.y_rows[-1] - 0.85  # a line under the table (the overview's)
        self._layout()

    def _layout(self) -> None:
        """Where the columns go and how long a full bar is, from the widest text each column
        shows (heading or number): the scores, the e-powers, the ÷ total and the softmax bars,
        and the naive attempt's columns and bars, all inside the frame."""
        d = self.derived
        w_score = widgets.column_width(self.s("score"), [self.num(s) for s in self.scores])
        self.x_score = max(X_SCORE, X_NAME + 0.6 + COL_GAP + w_score / 2)
        self.score_right = self.x_score + w_score / 2
        # e to each score (the total goes under them), ÷ the total, the softmax bars
        exps = [self.num(v) for v in d.fill_exp]
        w_exp = widgets.column_width(self.s("exp_head"), exps)
        w_total = theme.text(self.num(d.fill_exp_total, 2), theme.NUM_SIZE).width
        self.x_exp = max(X_EXP, self.score_right + COL_GAP + max(w_exp, w_total) / 2)
        self.exp_width = max(widgets.column_width("", exps), w_total)
        self.x_div = self.x_exp + w_exp / 2 + 0.35
        self.x_bars = self.x_div + theme.text(self.s("divide_by"), theme.SMALL_SIZE).width + 0.4
        soft = widgets.BarColumn(d.fill_weights, [self.pct(s) for s in d.fill_weights],
                                 self.s("weight"))
        self.bar_len = widgets.longest_fitting(lambda length: self.x_bars + soft.reach(length),
                                               BAR_LEN)
        if "plus" in self.script.screen:  # the naive attempt (the overview skips it)
            self._naive_layout()

    def _naive_layout(self) -> None:
        """score + shift and its bars, then score + shift_alt and its bars beside them: their
        places, and a full bar short enough for both (``bar_len`` only ever shrinks)."""
        fb, d, scores = self.numbers.fill_blank, self.derived, self.scores
        w_plus = widgets.column_width(self.s("plus"), [self.num(s + fb.shift) for s in scores])
        self.x_plus = max(self.x_score + 1.1, self.score_right + COL_GAP + w_plus / 2)
        self.x_naive_bars = max(self.x_plus + 0.7, self.x_plus + w_plus / 2 + BAR_GAP)
        w_alt = widgets.column_width(self.s("plus_alt"),
                                     [self.num(s + d.shift_alt) for s in scores])
        naive = widgets.BarColumn(d.fill_shifted, [self.pct(s) for s in d.fill_shifted],
                                  self.s("share"))
        alt = widgets.BarColumn(d.fill_shifted_alt, [self.pct(s) for s in d.fill_shifted_alt],
                                self.s("share"))

        def alt_x(length: float) -> float:  # the alt column's centre, right of the naive bars
            return self.x_naive_bars + naive.reach(length) + max(0.75, COL_GAP + w_alt / 2)

        def alt_bars_x(length: float) -> float:
            return max(alt_x(length) + 0.7, alt_x(length) + w_alt / 2 + BAR_GAP)

        self.bar_len = min(self.bar_len, widgets.longest_fitting(
            lambda length: alt_bars_x(length) + alt.reach(length), BAR_LEN))
        self.x_alt, self.x_alt_bars = alt_x(self.bar_len), alt_bars_x(self.bar_len)

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self) -> None:
        n, y_rows = self.n, self.y_rows
        with self.beat("intro") as b:
            self.title_card(b)
            self.names = VGroup(*[theme.row_text(t, theme.BODY_SIZE).move_to(UP * y)
                                  for t, y in zip(self.tokens, y_rows, strict=True)])
            for m in self.names:  # a long word shrinks rather than leave the frame
                theme.fit(m, X_NAME + 0.6 + theme.FRAME_W / 2 - theme.MARGIN)
                m.align_to(RIGHT * (X_NAME + 0.6), RIGHT)
            self.word_head = word_head = theme.text(self.s("word"), theme.SMALL_SIZE,
                                                    theme.MUTED)
            word_head.move_to(UP * Y_HEAD).align_to(self.names, RIGHT)
            self.score_col = self._column(self.s("score"), [self.num(s) for s in self.scores],
                                          self.x_score, theme.FG)
            score_col = self.score_col
            # the words, their scores and the empty share slots stand mid-frame, not in the
            # left third; ``_naive`` moves them back to make room for its columns
            x_slots = max(X_SCORE + 1.3, score_col.get_right()[0] + COL_GAP)
            right = (x_slots + self.bar_len / n + 0.35
                     + theme.text(self.pct(1.0), theme.SMALL_SIZE).width)
            # how far the table stands from its columns' places
            self.offset = -(self.names.get_left()[0] + right) / 2
            self.intro_table = VGroup(self.names, word_head, score_col)
            self.intro_table.shift(RIGHT * self.offset)
            self._reveal(b, "s", [
                lambda i: [FadeIn(self.names[i]), FadeIn(score_col[1][i], shift=0.15 * RIGHT)]
                + ([FadeIn(word_head), FadeIn(score_col[0])] if i == 0 else [])
                for _ in range(n)])
            b.until("goal")
            self.cap = self._caption(self.s("goal"), theme.ACCENT)
            self.slots = VGroup(*[
                Rectangle(width=self.bar_len / n, height=0.34).set_stroke(theme.MUTED, 2)
                .move_to(RIGHT * (x_slots + self.offset + self.bar_len / (2 * n)) + UP * y)
                for y in y_rows])
            self.play(theme.reveal(self.cap), run_time=b.rt(0.12, 1.0))
            self.play(Create(self.slots), run_time=b.rt(0.08, 0.8))
            b.until("sum")
            self.brace = Brace(self.slots, RIGHT, color=theme.ACCENT)
            self.whole = theme.text(self.pct(1.0), theme.SMALL_SIZE, theme.ACCENT)
            self.whole.next_to(self.brace, RIGHT, buff=0.12)
            self.play(FadeIn(self.brace), FadeIn(self.whole), run_time=b.rt(0.08, 0.6))

    def _naive(self) -> None:
        fb, d = self.numbers.fill_blank, self.derived
        with self.beat("naive") as b:
            widgets.regroup(self, self.intro_table)
            self.play(self.intro_table.animate.shift(LEFT * self.offset),
                      FadeOut(VGroup(self.slots, self.brace, self.whole)),
                      run_time=min(0.6, max(0.2, b.time_to("plus"))))
            self.offset = 0.0
            b.until("plus")
            self.plus_col = self._column(self.s("plus"),
                                         [self.num(s + fb.shift) for s in self.scores],
                                         self.x_plus, theme.ACCENT, theme.ACCENT)
            self.cap = widgets.fade_through(
                self, self.cap, self._caption(self.s("naive"), theme.ACCENT),
                run_time=b.rt(0.06, 0.6))
            self._copy_into(self.score_col[1], self.plus_col, b.rt(0.1, 1.0))
            self.naive_bars = self._bar_col(self.s("share"), d.fill_shifted, self.x_naive_bars,
                                            theme.ACCENT)
            self.play(FadeIn(self.naive_bars[0]), run_time=b.rt(0.05, 0.5))
            self._reveal(b, "n", [lambda i: _grow(self.naive_bars[1][i])
                                  for _ in range(self.n)])
            # working: score + constant, then its shares (the last is said as the beat ends)
            self.show_working(b, VGroup(self.plus_col, self.naive_bars))

    def _which_constant(self) -> None:
        d, n = self.derived, self.n
        with self.beat("which_constant") as b:
            # "but why that constant?": the question takes the caption's place as the voice
            # asks it (the naive recipe's caption stood over the other constant's column)
            self.cap = widgets.fade_through(
                self, self.cap, self._caption(self.s("problem1"), theme.WARN),
                run_time=min(b.rt(0.06, 0.6), max(0.2, b.time_to("alt"))))
            b.until("alt")
            alt_col = self._column(self.s("plus_alt"),
                                   [self.num(s + d.shift_alt) for s in self.scores],
                                   self.x_alt, theme.MUTED, theme.MUTED)
            alt_bars = self._bar_col(self.s("share"), d.fill_shifted_alt, self.x_alt_bars,
                                     theme.MUTED)
            self._copy_into(self.score_col[1], alt_col, b.rt(0.1, 0.8))
            b.until("alt_shares")
            self.play(FadeIn(alt_bars[0]), *[a for bar in alt_bars[1] for a in _grow(bar)],
                      run_time=b.rt(0.12, 1.0))
            kept = set(d.shift_alt_unchanged)
            pairs = [VGroup(self.naive_bars[1][i][1], alt_bars[1][i][1]) for i in range(n)]
            moved = [Indicate(pairs[i], color=theme.WARN) for i in range(n) if i not in kept]
            if moved:
                self.play(*moved, run_time=b.rt(0.1, 1.0))
            same = VGroup(*[Underline(lab, color=theme.FG, buff=0.06)
                            for i in sorted(kept) for lab in pairs[i]])
            if kept:
                self.play(Create(same), run_time=b.rt(0.08, 0.6))
            self.alt = VGroup(same, alt_col, alt_bars)
            b.until("prob_a")
            self.play(widgets.pulse(self.cap, 1.08), run_time=b.rt(0.08, 0.6))
            self.show_working(b, self.alt, "prob_a")  # the other constant's shares are said
            self.naive = VGroup(self.plus_col, self.naive_bars, self.alt)

    def _exp(self) -> None:
        d, n, y_rows = self.derived, self.n, self.y_rows
        with self.beat("exp") as b:
            self.hold_working(self.naive)
            self.play(FadeOut(self.naive), run_time=b.rt(0.06, 0.6))
            # words, scores and e-powers alone: the three columns (and the ×e arcs) stand
            # mid-frame, not in the left 40 % with the right empty for 18 s; ``_divide``
            # moves them back to make room for the bars
            right = self.x_exp + self.exp_width / 2 + 1.1
            self.table_dx = -(self.names.get_left()[0] - self.offset + right) / 2
            self.table = VGroup(self.names, self.word_head, self.score_col)
            widgets.regroup(self, self.table)
            self.play(self.table.animate.shift(RIGHT * (self.table_dx - self.offset)),
                      run_time=min(b.rt(0.05, 0.6), max(0.2, b.time_to("exp"))))
            b.until("exp")
            self.exp_col = exp_col = self._column(
                self.s("exp_head"), [self.num(v) for v in d.fill_exp],
                self.x_exp + self.table_dx, theme.FG, theme.SHARE_COLOR)
            self.cap = widgets.fade_through(
                self, self.cap, self._caption(self.s("exp_title"), theme.SHARE_COLOR),
                with_new=[FadeIn(exp_col[0])], run_time=b.rt(0.06, 0.6))
            self._reveal(b, "e", [
                lambda i: [Indicate(self.score_col[1][i], color=theme.SHARE_COLOR),
                           FadeIn(exp_col[1][i], shift=0.4 * RIGHT)]
                for _ in range(n)])
            b.until("pos")
            self.show_working(b, exp_col, "pos")  # every e-power is said before this mark
            self.pos = theme.text(self.s("always_pos"), theme.SMALL_SIZE, theme.GOOD)
            self.pos.next_to(exp_col[1], DOWN, buff=0.3)
            self.play(FadeIn(self.pos), *widgets.light(exp_col[1], theme.GOOD),
                      run_time=b.rt(0.08, 0.8))
            self.steps = VGroup()
            x_arc = exp_col.get_right()[0] + 0.15
            for i in range(n - 1):
                if self.scores[i] - self.scores[i + 1] != 1:
                    continue
                arc = ArcBetweenPoints(RIGHT * x_arc + UP * (y_rows[i + 1] + 0.06),
                                       RIGHT * x_arc + UP * (y_rows[i] - 0.06), angle=2.2,
                                       color=theme.SHARE_COLOR, stroke_width=3)
                arc.add_tip(tip_length=0.14, tip_width=0.14)
                lab = theme.text(self.s("times_e"), theme.SMALL_SIZE, theme.SHARE_COLOR)
                lab.next_to(arc, RIGHT, buff=0.1)
                self.steps.add(VGroup(arc, lab))
            b.until("times_e")
            for st in self.steps:
                self.play(Create(st[0]), FadeIn(st[1]), run_time=b.rt(0.06, 0.7))

    def _divide(self) -> None:
        d, y_rows, exp_col = self.derived, self.y_rows, self.exp_col
        with self.beat("divide") as b:
            # back to the table's place: the bars take the right
            self.table.add(exp_col, self.pos, self.steps)
            widgets.regroup(self, self.table)
            self.play(self.table.animate.shift(LEFT * self.table_dx),
                      run_time=min(b.rt(0.05, 0.6), max(0.2, b.time_to("total"))))
            b.until("total")
            half = max(0.6, self.exp_width / 2 + 0.1)  # under the widest e-power or total
            rule = Line(LEFT * half, RIGHT * half, color=theme.MUTED, stroke_width=2)
            rule.move_to(RIGHT * self.x_exp + UP * (y_rows[-1] - 0.4))
            total = theme.text(self.num(d.fill_exp_total, 2), theme.NUM_SIZE, theme.SHARE_COLOR)
            total.move_to(RIGHT * self.x_exp + UP * (y_rows[-1] - 0.8))
            total_lab = theme.text(self.s("total"), theme.SMALL_SIZE, theme.MUTED)
            total_lab.move_to(RIGHT * self.x_score + UP * total.get_y())
            self.total = VGroup(rule, total, total_lab)
            self.play(FadeOut(self.pos), Create(rule), FadeIn(total_lab),
                      run_time=b.rt(0.05, 0.4))
            # the e-powers pulse top to bottom, and the total comes up under them (copies
            # flying down to it crossed the rows below, digits over digits)
            self.play(LaggedStart(*[widgets.pulse(c, 1.12) for c in exp_col[1]],
                                  lag_ratio=0.25),
                      FadeIn(total, shift=0.15 * DOWN), run_time=b.rt(0.08, 0.8))
            self.show_working(b, self.total, "div")  # the total is said before this mark
            b.until("div")
            self.divs = divs = VGroup(*[
                theme.text(self.s("divide_by"), theme.SMALL_SIZE, theme.MUTED)
                .move_to(UP * y).align_to(RIGHT * self.x_div, LEFT) for y in y_rows])
            # shares before ÷ √d: the compared set's colour in every scene (theme.COMPARE_COLOR)
            self.sm_bars = sm_bars = self._bar_col(self.s("weight"), d.fill_weights,
                                                   self.x_bars, theme.COMPARE_COLOR)
            self.cap = widgets.fade_through(
                self, self.cap, self._caption(self.s("divide"), theme.SHARE_COLOR),
                with_new=[FadeOut(self.steps), FadeIn(sm_bars[0]),
                          Indicate(total, color=theme.SHARE_COLOR)],
                run_time=b.rt(0.06, 0.6))
            self._reveal(b, "w", [
                lambda i: [FadeIn(divs[i], shift=0.15 * RIGHT), *_grow(sm_bars[1][i])]
                for _ in range(self.n)])
            self.add(sm_bars)  # on stage as one chart: its bars can be named ({@see_shares})
            self.target("shares", sm_bars[1])
            # each e-power ÷ the total: the last share is said by {@same} (or the beat's end)
            self.show_working(b, divs, "same" if "same" in b.marks else None)
            # Why no constant is needed ({@same}, the full explainer only): adding one number
            # to every score multiplies each e-power, and the total, by the same factor.
            self.legend = VGroup()
            if "same" in b.marks:
                b.until("same")
                self.legend = theme.text(self.s("same_shares"), theme.SMALL_SIZE, theme.GOOD)
                theme.fit(self.legend, theme.CONTENT_W)
                # a line under the e-powers' total, which is still on screen
                self.legend.move_to(UP * (self.total.get_bottom()[1] - 0.45))
                widgets.keep_inside_x(self.legend)
                self.play(FadeIn(self.legend, shift=0.1 * UP), run_time=b.rt(0.1, 0.8))
            self.play(*widgets.light_bar(sm_bars[1][self.top], theme.COMPARE_COLOR),
                      run_time=b.rt(0.08, 1.0))

    def _formula(self) -> None:
        with self.beat("formula") as b:
            # s for scores: x is the word vector elsewhere in the video
            f = theme.formula(r'"softmax"(s_i) = e^(s_i) / (sum_j e^(s_j))', theme.FORMULA_SIZE,
                              theme.FG)
            frame = theme.panel(f.width + 0.8, f.height + 0.45, theme.SHARE_COLOR)
            formula = widgets.boxed(f, frame)
            formula.move_to(UP * (theme.CONTENT_BOTTOM + formula.height / 2 + 0.05))
            formula.align_to(RIGHT * (X_NAME - 0.6), LEFT)
            b.until("formula")
            self.hold_working(self.total)
            self.play(FadeOut(self.legend), FadeOut(self.total), run_time=b.rt(0.05, 0.4))
            self.play(FadeIn(frame), theme.reveal(f), run_time=b.rt(0.15, 1.5))
            self.play(*widgets.light(self.exp_col[1], theme.SHARE_COLOR, 1.05),
                      *widgets.light(self.sm_bars[1], theme.COMPARE_COLOR, 1.05),
                      run_time=b.rt(0.1, 1.0))
            b.until("sqrt")
            note = theme.text(self.s("next_note"), theme.BODY_SIZE, theme.ACCENT)
            note.next_to(formula, RIGHT, buff=0.6)
            self.play(FadeIn(note, shift=0.2 * LEFT), run_time=b.rt(0.08, 0.8))

    # -- pieces ---------------------------------------------------------------------------------
    def _column(self, head: str, cells: Sequence[str], x: float, color: str,
                head_color: str = theme.MUTED) -> VGroup:
        """A table column at x: its heading and one number per word row."""
        col = widgets.table_column(head, [theme.text(c, theme.NUM_SIZE, color) for c in cells],
                                   head_color, Y_HEAD, ROW_H, first=FIRST_ROW)
        return col.shift(RIGHT * x)

    def _bar_col(self, head: str, shares: Sequence[float], x0: float, color: str) -> VGroup:
        """A column of share bars starting at x0, one per word row."""
        return widgets.bar_column(head, shares, [self.pct(s) for s in shares], color, Y_HEAD,
                                  ROW_H, self.bar_len, first=FIRST_ROW, left=x0)

    @staticmethod
    def _caption(s: str, color: str = theme.FG) -> Mobject:
        return theme.text(s, theme.BODY_SIZE, color).move_to(UP * Y_CAP)

    def _reveal(self, b: BeatClock, prefix: str,
                steps: Sequence[Callable[[int], list[Animation]]], cap: float = 0.5) -> None:
        """Play step ``i`` as the voice reaches mark ``{prefix}`` + the i-th letter (``sa``,
        ``sb``, ...: mark names hold no digits), each before the next."""
        for i, step in enumerate(steps):
            b.until(prefix + "abcdefgh"[i])
            nxt = prefix + "abcdefgh"[i + 1]
            room = b.time_to(nxt) if i + 1 < len(steps) else cap
            self.play(*step(i), run_time=max(0.25, min(cap, room)))

    def _copy_into(self, sources: Sequence[Mobject], col: VGroup, run_time: float) -> None:
        """The cells of ``col`` fade in from the ``sources`` side, which light up."""
        self.play(FadeIn(col[0]), *widgets.light(VGroup(*sources), col[0].get_color()),
                  *[FadeIn(t, shift=0.4 * RIGHT) for t in col[1]], run_time=run_time)
