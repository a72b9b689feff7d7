"""Attention is soft: shares over every word, not a pick of one, so it has a slope to learn on."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    Arrow,
    Axes,
    Create,
    CurvedArrow,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    SurroundingRectangle,
    ValueTracker,
    VGroup,
    always_redraw,
    rate_functions,
)

from qkv_math.attention import softmax
from scenes import theme, widgets
from scenes.base import NarratedScene

BAR_LEN = 2.5
ROW_SCALE = 1.4
TANGENT_HALF = 0.8  # at most this long each side of its point (the shipped numbers: 0.6)
HEAD_Y = 2.35  # the soft and hard headings
ROW_GAP = 0.16  # extra space between bar rows, so the two charts fill the frame
SLIDER_Y = -2.25  # under the hard bars' box, its crossing mark clear of the box's edge
NEAR, FAR = 0.94, 1.5  # the knob stops short of the crossing, then passes it (x the gap)


class SoftAttentionScene(NarratedScene):
    scene_id = "soft_attention"

    def narrate(self) -> None:
        self.names = self.numbers.fill_blank.tokens[self.lang]
        # the real formula's scores (÷ √d), as everywhere after the scaling scene
        self.scores = np.asarray(self.derived.fill_scores_scaled, dtype=float)
        self.order = np.argsort(-self.derived.fill_weights_scaled, kind="stable")
        self.top, self.runner = int(self.order[0]), int(self.order[1])
        self.gap = float(self.scores[self.top] - self.scores[self.runner]) or 1.0
        self.nudge = ValueTracker(0.0)  # how far the runner-up's score is raised
        self._intro()
        self._hard()
        self._nudge()
        self._slope()
        self._end_to_end()

    def _nudged(self) -> np.ndarray:
        s = self.scores.copy()
        s[self.runner] += self.nudge.get_value()
        return s

    def _soft_shares(self) -> np.ndarray:
        return softmax(self._nudged())

    def _hard_shares(self) -> np.ndarray:
        return np.eye(len(self.scores))[int(np.argmax(self._nudged()))]

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self) -> None:
        names, order = self.names, self.order
        with self.beat("intro") as b:
            self.header = self.title_card(b)
            self.soft_head = theme.text(self.s("soft_head"), theme.BODY_SIZE, theme.SHARE_COLOR)
            self.soft_head.move_to(LEFT * 3.5 + UP * HEAD_Y)
            self.soft = self._rows(names, self._soft_shares(), theme.SHARE_COLOR)
            self.soft.next_to(self.soft_head, DOWN, buff=0.45).set_x(self.soft_head.get_x() - 0.3)
            widgets.keep_inside_x(self.soft)  # a share near 100% makes the rows wider
            self.soft_anchor = self.soft.get_corner(UL)
            # alone, the soft chart stands in the middle; it makes room when the hard one comes
            self.soft_move = -VGroup(self.soft_head, self.soft).get_x()
            VGroup(self.soft_head, self.soft).shift(RIGHT * self.soft_move)
            self.play(FadeIn(self.soft_head), *[FadeIn(r[0]) for r in self.soft],
                      run_time=b.rt(0.1, 0.8))
            b.until("soft")
            last = int(order[-1])  # its share is read out; it appears as it is read
            self.play(LaggedStart(*[GrowFromEdge(self.soft[i][1], LEFT) for i in order[:-1]],
                                  lag_ratio=0.35), run_time=b.rt(0.2, 1.8))
            b.until("last")
            self.play(GrowFromEdge(self.soft[last][1], LEFT), run_time=b.rt(0.04, 0.4))
            self.play(Indicate(self.soft[last], color=theme.SHARE_COLOR, scale_factor=1.1),
                      run_time=b.rt(0.1, 1.0))

    def _hard(self) -> None:
        names, top = self.names, self.top
        with self.beat("hard") as b:
            self.hard_head = theme.text(self.s("hard_head"), theme.BODY_SIZE, theme.ACCENT)
            self.hard_head.move_to(RIGHT * 3.5 + UP * HEAD_Y)
            self.hard = self._rows(names, self._hard_shares(), theme.ACCENT)
            # from where the soft heading stands once it has made room (it starts mid-frame)
            dx = self.hard_head.get_x() - (self.soft_head.get_x() - self.soft_move)
            self.hard.move_to(self.soft_anchor + RIGHT * dx, aligned_edge=UL)
            overflow = self.hard.get_right()[0] - (theme.FRAME_W / 2 - theme.MARGIN - 0.3)
            if overflow > 0:
                self.hard.shift(LEFT * overflow)
            self.hard_anchor = self.hard.get_corner(UL)
            b.until("hard")
            # each on its own: a group played here would stay on stage as a mobject of its own
            self.play(self.soft_head.animate.shift(LEFT * self.soft_move),
                      self.soft.animate.shift(LEFT * self.soft_move), run_time=b.rt(0.06, 0.6))
            self.play(FadeIn(self.hard_head), *[FadeIn(r[0]) for r in self.hard],
                      run_time=b.rt(0.1, 0.8))
            b.until("all")
            self.play(*[GrowFromEdge(r[1], LEFT) for r in self.hard], run_time=b.rt(0.1, 1.0))
            self.play(Indicate(self.hard[top], color=theme.ACCENT, scale_factor=1.1),
                      run_time=b.rt(0.1, 0.8))
            b.until("flaw")
            self.play(Indicate(self.hard_head, color=theme.WARN, scale_factor=1.05),
                      run_time=b.rt(0.1, 1.0))

    def _nudge(self) -> None:
        names, runner, gap, nudge = self.names, self.runner, self.gap, self.nudge
        with self.beat("nudge") as b:
            track = Line(LEFT * 2.6, RIGHT * 2.6, color=theme.MUTED, stroke_width=4)
            track.move_to(UP * SLIDER_Y + RIGHT * 1.2)
            span = 2 * gap

            def knob_pos():
                return track.point_from_proportion(min(1.0, nudge.get_value() / span))

            knob = always_redraw(lambda: Dot(knob_pos(), radius=0.11, color=theme.FG))
            label = theme.text(self.s("slider"), theme.SMALL_SIZE, theme.FG)
            theme.fit(label, 4.0)
            label.next_to(track, LEFT, buff=0.4)
            cross = DashedLine(track.point_from_proportion(gap / span) + UP * 0.2,
                               track.point_from_proportion(gap / span) + DOWN * 0.2,
                               color=theme.MUTED)
            b.until("raise")
            self.play(FadeIn(label), Create(track), FadeIn(cross), FadeIn(knob),
                      run_time=b.rt(0.06, 0.6))
            soft_live = self._live_rows(names, self._soft_shares, theme.SHARE_COLOR,
                                        self.soft_anchor)
            hard_live = self._live_rows(names, self._hard_shares, theme.ACCENT,
                                        self.hard_anchor)
            static = set(self.soft.get_family()) | set(self.hard.get_family())
            self.remove(*[m for m in self.mobjects if m in static])
            self.add(soft_live, hard_live)
            # The knob creeps up at a steady pace to just short of the crossing while the voice
            # says the hard pick does not move; it crosses, and the hard pick flips, at {@jump}.
            near = NEAR * gap
            t0, t_jump = self.now, b.time_to("jump", lead=0.0)

            def creep(run_time: float, *also) -> None:
                """Move the knob on at its steady pace for ``run_time``, playing ``also``."""
                at = min(near, near * (self.now + run_time - t0) / t_jump)
                self.play(nudge.animate.set_value(at), *also, run_time=run_time,
                          rate_func=rate_functions.linear)

            creep(b.time_to("soft"))
            creep(0.8, Indicate(self.soft_head, color=theme.SHARE_COLOR, scale_factor=1.1))
            # around the hard bars only: a box up to the heading would cut through the soft one
            still_box = SurroundingRectangle(hard_live, color=theme.MUTED,
                                             buff=0.15, corner_radius=0.1)
            creep(b.time_to("still"))
            creep(0.4, Create(still_box))
            creep(b.time_to("jump", lead=0.0))
            self.play(nudge.animate.set_value(FAR * gap), FadeOut(still_box),
                      run_time=b.rt(0.05, 0.5), rate_func=rate_functions.linear)
            for m in (soft_live, hard_live, knob):
                m.clear_updaters()
            self.play(Indicate(hard_live[runner], color=theme.ACCENT, scale_factor=1.1),
                      run_time=b.rt(0.08, 0.8))

    def _slope(self) -> None:
        scores, top, runner, gap = self.scores, self.top, self.runner, self.gap
        with self.beat("slope") as b:
            lo, hi = float(scores[runner] - 2 * gap), float(scores[top] + 2 * gap)

            def soft_top(x: float) -> float:
                s = scores.copy()
                s[runner] = x
                return float(softmax(s)[top])

            def hard_top(x: float) -> float:
                s = scores.copy()
                s[runner] = x
                return 1.0 if int(np.argmax(s)) == top else 0.0

            left = self._curve_panel(lo, hi, gap, soft_top, self.s("soft_curve"), theme.SHARE_COLOR,
                                     smooth=True)
            right = self._curve_panel(lo, hi, gap, hard_top, self.s("hard_curve"), theme.ACCENT,
                                      smooth=False, jump=float(scores[top]))
            left.move_to(LEFT * 3.4 + UP * 0.45)
            right.move_to(RIGHT * 3.4 + UP * 0.45)
            x0 = float(scores[runner])
            here = ValueTracker(x0)
            # The hard panel has its own point: the soft one ends on the jump, where a
            # numerical slope of the step is a full-height line.
            here_r = ValueTracker(x0)
            ax_l, ax_r = left[0][0], right[0][0]

            def dot_on(ax: Axes, f: Callable[[float], float], at: ValueTracker) -> Dot:
                x = at.get_value()
                return Dot(self._p(ax, x, f(x)), radius=0.1, color=theme.FG)

            notes = VGroup(theme.text(self.s("soft_note"), theme.SMALL_SIZE, theme.GOOD),
                           theme.text(self.s("hard_note"), theme.SMALL_SIZE, theme.MUTED))
            for note, panel in zip(notes, (left, right), strict=True):
                theme.fit(note, 5.6)
                note.next_to(panel, DOWN, buff=0.3)
            notes[1].align_to(notes[0], UP)
            b.until("curves")
            self.clear_content(b, keep=(self.header,))
            self.play(FadeIn(left[0]), FadeIn(right[0]), run_time=b.rt(0.06, 0.6))
            b.until("soft")
            self.play(Create(left[1]), run_time=b.rt(0.12, 1.4))
            b.until("grad")
            dot_l = always_redraw(lambda: dot_on(ax_l, soft_top, here))
            tangent = always_redraw(lambda: self._tangent(ax_l, soft_top, here.get_value(), gap))
            self.play(FadeIn(dot_l), Create(tangent), FadeIn(notes[0]), run_time=b.rt(0.06, 0.6))
            self.play(here.animate.set_value(x0 + gap), run_time=b.rt(0.2, 2.5))
            b.until("hard")
            self.play(Create(right[1]), run_time=b.rt(0.1, 1.2))
            b.until("flat")
            dot_r = always_redraw(lambda: dot_on(ax_r, hard_top, here_r))
            # a step is flat wherever it is defined: its slope is zero, drawn as such
            flat = always_redraw(lambda: self._tangent(ax_r, hard_top, here_r.get_value(), gap,
                                                       slope=0.0))
            self.play(FadeIn(dot_r), Create(flat), FadeIn(notes[1]), run_time=b.rt(0.06, 0.6))
            self.play(here_r.animate.set_value(x0 - gap / 2), run_time=b.rt(0.15, 1.5))
            for m in (dot_l, dot_r, tangent, flat):
                m.clear_updaters()

    def _end_to_end(self) -> None:
        with self.beat("end_to_end") as b:
            chain = list(self.items("chain"))
            soft_row = self._chain(chain, self.s("soft_row"), theme.SHARE_COLOR).move_to(UP * 1.75)
            hard_chain = [*chain[:2], self.s("hard_pick"), *chain[3:]]
            hard_row = self._chain(hard_chain, self.s("hard_row"), theme.ACCENT)
            hard_row.move_to(DOWN * 0.75)
            soft_back = self._backflow(soft_row, theme.GOOD)
            hard_back = self._backflow(hard_row, theme.GOOD)
            grad = theme.text(self.s("grad"), theme.SMALL_SIZE, theme.GOOD)
            # under the first arc (beside it, kept inside the frame, the arc ran through it)
            grad.next_to(soft_back[-1], DOWN, buff=0.1).align_to(soft_back[-1], RIGHT)
            widgets.keep_inside_x(grad)
            e2e = theme.text(self.s("e2e"), theme.BODY_SIZE, theme.GOOD, weight="BOLD")
            e2e.next_to(soft_back, DOWN, buff=0.2)
            # alone, the soft chain sits mid-frame; it moves up when the hard one comes in
            soft_part = VGroup(soft_row, soft_back, grad, e2e)
            lift = soft_row.get_y() - 0.3
            soft_part.shift(DOWN * lift)
            b.until("back")
            self.clear_content(b, keep=(self.header,))
            self.play(FadeIn(soft_row), run_time=b.rt(0.05, 0.5))
            # the signal flows back, box by box, until the voice reaches the Q and K
            self.play(LaggedStart(*[Create(a) for a in reversed(soft_back)], lag_ratio=0.8),
                      FadeIn(grad), run_time=b.time_to("qk"))
            scores_box = soft_row[0][1]
            self.play(scores_box[0].animate.set_stroke(theme.GOOD, 4),
                      widgets.pulse(scores_box[1]), run_time=b.rt(0.06, 0.8))
            b.until("e2e")
            self.play(FadeIn(e2e, shift=0.1 * UP), run_time=b.rt(0.05, 0.6))
            b.until("hard")
            self.play(soft_part.animate.shift(UP * lift), run_time=b.rt(0.05, 0.5))
            self.play(FadeIn(hard_row), run_time=b.rt(0.05, 0.5))
            # the hard pick has no slope: the signal reaches the pick and goes no further
            n = len(hard_back)
            reach = [hard_back[i] for i in range(n - 1, 1, -1)]
            self.play(LaggedStart(*[Create(a) for a in reach], lag_ratio=0.6),
                      run_time=b.time_to("stop"))
            stop = hard_back[1]
            cross = VGroup(Line(UP * 0.2 + LEFT * 0.2, DOWN * 0.2 + RIGHT * 0.2),
                           Line(UP * 0.2 + RIGHT * 0.2, DOWN * 0.2 + LEFT * 0.2))
            cross.set_stroke(theme.WARN, 6).move_to(stop.get_center())
            blocked = theme.text(self.s("blocked"), theme.SMALL_SIZE, theme.WARN)
            blocked.next_to(cross, DOWN, buff=0.2)
            self.play(FadeIn(cross, scale=1.4), FadeIn(blocked), run_time=b.rt(0.05, 0.6))
            b.until("never")  # the Q and K that never learn: their box in the hard chain
            self.play(hard_row[0][1][0].animate.set_stroke(theme.WARN, 4),
                      widgets.pulse(hard_row[0][1][1]), run_time=b.rt(0.06, 0.8))  # Q, K kept

    # -- pieces ---------------------------------------------------------------------------------
    def _rows(self, names, shares, color: str) -> VGroup:
        rows = widgets.share_bars(names, shares, [self.pct(s) for s in shares], color, BAR_LEN)
        rows.scale(ROW_SCALE)
        for i, row in enumerate(rows):
            row.shift(DOWN * ROW_GAP * i)
        return rows

    def _live_rows(self, names, shares: Callable[[], np.ndarray], color: str,
                   corner: np.ndarray) -> VGroup:
        """:meth:`_rows` of ``shares()`` with its top-left corner at ``corner``, its bars and
        labels following ``shares()`` every frame (reshaped in place, not made again)."""
        rows = self._rows(names, shares(), color).move_to(corner, aligned_edge=UL)

        def follow(group: VGroup) -> None:
            for row, share in zip(group, shares(), strict=True):
                widgets.reshape_share_bar(row[1], float(share), self.pct(share), BAR_LEN,
                                          ROW_SCALE)

        rows.add_updater(follow)
        return rows

    def _curve_panel(self, lo: float, hi: float, step: float, f: Callable[[float], float],
                     title: str, color: str, smooth: bool, jump: float = 0.0) -> VGroup:
        # x measured from lo, so the y axis sits at the left edge of the plot
        ax = Axes(x_range=[0, hi - lo, step], y_range=[0, 1.2, 0.5], x_length=4.8, y_length=2.6,
                  tips=False, axis_config={"color": theme.MUTED, "include_numbers": False})
        self.plot_lo = lo
        x_lab = theme.text(self.s("x_label"), theme.SMALL_SIZE, theme.MUTED)
        x_lab.next_to(ax.x_axis, DOWN, buff=0.2)
        y_lab = theme.text(self.s("y_label"), theme.SMALL_SIZE, theme.MUTED)
        y_lab.next_to(ax.y_axis, UP, buff=0.2).align_to(ax.y_axis, LEFT)
        head = theme.text(title, 26, color)
        head.next_to(y_lab, UP, buff=0.2).set_x(ax.get_x())
        if smooth:
            curve = ax.plot(lambda u: f(u + lo), x_range=[0, hi - lo], color=color,
                            stroke_width=5)
        else:
            curve = VGroup(
                Line(self._p(ax, lo, f(lo)), self._p(ax, jump, f(lo)), color=color, stroke_width=5),
                DashedLine(self._p(ax, jump, f(lo)), self._p(ax, jump, f(hi)), color=color),
                Line(self._p(ax, jump, f(hi)), self._p(ax, hi, f(hi)), color=color, stroke_width=5),
            )
        frame = VGroup(ax, x_lab, y_lab, head)
        return VGroup(frame, curve)

    def _p(self, ax: Axes, x: float, y: float):
        """A point of a curve panel: x in score units (the axis starts at ``plot_lo``)."""
        return ax.c2p(x - self.plot_lo, y)

    def _tangent(self, ax: Axes, f: Callable[[float], float], x: float, step: float,
                 slope: float | None = None) -> Arrow:
        """A short tangent to ``f`` at ``x`` (numerical slope unless given), as an arrow."""
        if slope is None:
            h = step / 1000
            slope = (f(x + h) - f(x - h)) / (2 * h)
        dx = step * 0.6
        start = self._p(ax, x - dx, f(x) - slope * dx)
        end = self._p(ax, x + dx, f(x) + slope * dx)
        # the panel's x axis spans a few score gaps: scores far apart make the curve steep on
        # screen, so the tangent keeps its direction but never outgrows the panel
        half = (end - start) / 2
        if np.linalg.norm(half) > TANGENT_HALF:
            mid = self._p(ax, x, f(x))
            half *= TANGENT_HALF / np.linalg.norm(half)
            start, end = mid - half, mid + half
        return Arrow(start, end, buff=0, color=theme.GOOD, stroke_width=5,
                     max_tip_length_to_length_ratio=0.2)

    def _chain(self, labels: list[str], row_name: str, color: str) -> VGroup:
        boxes = VGroup()
        for i, lab in enumerate(labels):
            t = theme.wrap(lab, 1.8, theme.SMALL_SIZE, theme.FG, qkv=True)
            for line in t:
                line.set_x(0)
            theme.fit(t, 1.8)
            stroke = color if i in (1, 2) else theme.MUTED
            box = theme.panel(2.0, max(0.8, t.height + 0.3), stroke)
            boxes.add(widgets.boxed(t, box))
        boxes.arrange(RIGHT, buff=0.5)
        arrows = VGroup(*[Arrow(boxes[i].get_right(), boxes[i + 1].get_left(), buff=0.1,
                                color=theme.MUTED, stroke_width=3,
                                max_tip_length_to_length_ratio=0.4)
                          for i in range(len(boxes) - 1)])
        name = theme.text(row_name, 26, color, weight="BOLD").next_to(boxes, LEFT, buff=0.3)
        row = VGroup(boxes, arrows, name)
        theme.fit(row, theme.CONTENT_W)
        return row

    @staticmethod
    def _backflow(row: VGroup, color: str) -> VGroup:
        """Curved arrows under a chain, from each box back to the one before it."""
        boxes = row[0]
        return VGroup(*[CurvedArrow(boxes[i + 1].get_bottom() + DOWN * 0.1,
                                    boxes[i].get_bottom() + DOWN * 0.1,
                                    angle=-1.2, color=color, stroke_width=3)
                        for i in range(len(boxes) - 1)])
