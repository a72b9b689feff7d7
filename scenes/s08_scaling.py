"""Why divide by √d: the random-vector experiment and the example's scores amplified."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    UR,
    AddTextLetterByLetter,
    Arc,
    Arrow,
    Axes,
    Brace,
    Circle,
    Create,
    Dot,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    Line,
    Rectangle,
    Rotate,
    SurroundingRectangle,
    Transform,
    VGroup,
)

from qkv_math.experiments import AmplifiedRow, ScalingRow
from scenes import theme, widgets
from scenes.base import NarratedScene

RAW = theme.COMPARE_COLOR  # no division: the series compared with the shares
SCALED = theme.SHARE_COLOR  # divided by √d: the shares attention really uses
ROW_H = 0.9
BAR_H = 0.3
BAR_MAX = 3.0
TOP_MAX = 2.6
LEFT_X = -theme.FRAME_W / 2 + theme.MARGIN + 0.15


def _chip(label: str, color: str) -> VGroup:
    return widgets.chip(label, color, size=theme.BODY_SIZE, height=None, pad=0.6, qkv=True)


@dataclass(frozen=True)
class Context:
    """What every beat reads: the d experiment's rows, the amplified scores' rows and the
    example's words in this language."""

    amp: tuple[AmplifiedRow, ...]
    rows: tuple[ScalingRow, ...]
    tokens: tuple[str, ...]


class ScalingScene(NarratedScene):
    scene_id = "scaling"

    def narrate(self) -> None:
        rows = self.derived.scaling_rows
        amp = self.derived.amplified_rows
        tokens = self.numbers.fill_blank.tokens[self.lang]

        ctx = Context(amp=amp, rows=rows, tokens=tokens)
        self._intro(ctx)
        self._grow(ctx)
        self._spread(ctx)
        self._peaked(ctx)
        self._learning(ctx)
        self._scaled(ctx)
        self._amplify(ctx)
        self._toy(ctx)
        self._knob_beat(ctx)

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self, ctx: Context) -> None:
        with self.beat("intro") as b:
            self.header = self.title_card(b)
            score = _chip(self.s("score"), theme.FG)
            soft = _chip(self.s("softmax"), theme.FG)
            VGroup(score, soft).arrange(RIGHT, buff=2.2).move_to(theme.CONTENT_CENTER)
            arrow = Arrow(score.get_right(), soft.get_left(), buff=0.15, color=theme.MUTED)
            self.play(FadeIn(score), FadeIn(soft), FadeIn(arrow), run_time=b.rt(0.05, 0.4))
            scale = _chip(self.s("scale"), theme.ACCENT)
            row = VGroup(score.copy(), scale, soft.copy()).arrange(RIGHT, buff=1.2)
            row.move_to(theme.CONTENT_CENTER)
            arrows = VGroup(
                Arrow(row[0].get_right(), row[1].get_left(), buff=0.12, color=theme.MUTED),
                Arrow(row[1].get_right(), row[2].get_left(), buff=0.12, color=theme.MUTED),
            )
            b.until("scale")
            self.play(score.animate.move_to(row[0]), soft.animate.move_to(row[2]),
                      FadeOut(arrow), run_time=b.rt(0.08, 0.5))
            self.play(FadeIn(scale, shift=0.3 * DOWN), FadeIn(arrows), run_time=b.rt(0.1, 0.7))
            b.until("d")
            d_is = theme.text(self.s("d_is"), theme.BODY_SIZE, theme.ACCENT)
            d_is.next_to(scale, DOWN, buff=0.6)
            self.play(FadeIn(d_is, shift=0.1 * UP), Indicate(scale, color=theme.ACCENT),
                      run_time=b.rt(0.12, 0.8))

    def _grow(self, ctx: Context) -> None:
        rows = ctx.rows
        with self.beat("grow") as b:
            self.clear_content(b, keep=(self.header,))
            dot = theme.formula(
                "{{ q : q0 }} dot {{ k : k0 }} = {{ q_1 k_1 + q_2 k_2 + dots.c + q_d k_d : sum }}",
                size=theme.FORMULA_SIZE,
            )
            dot.select("q0").set_color(theme.Q_COLOR)
            dot.select("k0").set_color(theme.K_COLOR)
            dot.move_to(UP * (theme.CONTENT_TOP - 0.7))
            brace = Brace(dot.select("sum"), DOWN, color=theme.MUTED)
            terms = theme.text(self.s("terms"), theme.SMALL_SIZE, theme.MUTED)
            terms.next_to(brace, DOWN, buff=0.1)
            curves = self._spread_curves(rows[0], rows[-1])
            curves.next_to(terms, DOWN, buff=0.5)
            # alone, the sum sits in the middle; it rises to make room for the curves
            sum_ = VGroup(dot, brace, terms)
            lift = sum_.get_y() - theme.CONTENT_CENTER[1]
            sum_.shift(DOWN * lift)
            b.until("terms")
            self.play(theme.reveal(dot), run_time=b.rt(0.12, 0.9))
            self.play(FadeIn(brace), FadeIn(terms), run_time=b.rt(0.08, 0.5))
            b.until("wide")
            self.play(sum_.animate.shift(UP * lift), run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(curves[0]), FadeIn(curves[1]), FadeIn(curves[2]),
                      run_time=b.rt(0.08, 0.6))
            self.play(GrowFromEdge(curves[3], DOWN), FadeIn(curves[4]), run_time=b.rt(0.15, 1.2))

    def _spread(self, ctx: Context) -> None:
        rows = ctx.rows
        with self.beat("spread") as b:
            self.clear_content(b, keep=(self.header,))
            self.table = tb = self._table(rows)
            self.target("s_first", tb["spread_raw"][0])
            self.target("s_scaled", tb["spread_scaled"][-1])
            self.target("top_scaled", tb["top_scaled"][-1])
            self.play(FadeIn(tb["setup"]), FadeIn(tb["heads"]), FadeIn(tb["d"]),
                      FadeIn(tb["legend_raw"]), run_time=b.rt(0.08, 0.6))
            b.until("da")
            self.play(GrowFromEdge(tb["spread_raw"][0], LEFT), run_time=b.rt(0.06, 0.5))
            self.play(*[GrowFromEdge(m, LEFT) for m in tb["spread_raw"][1:-1]],
                      run_time=b.rt(0.1, 1.0))
            b.until("dd")
            self.play(GrowFromEdge(tb["spread_raw"][-1], LEFT), run_time=b.rt(0.06, 0.5))
            b.until("root")
            self.play(FadeIn(tb["sqrt_head"]),
                      *[FadeIn(m, shift=0.15 * LEFT) for m in tb["sqrt"]],
                      Indicate(tb["spread_raw"][-1], color=RAW), run_time=b.rt(0.1, 0.8))
            b.until("grows")
            self.play(*[Indicate(m, color=theme.FG, scale_factor=1.15) for m in tb["sqrt"]],
                      run_time=b.rt(0.1, 1.0))

    def _peaked(self, ctx: Context) -> None:
        tb = self.table
        with self.beat("peaked") as b:
            self.play(Indicate(tb["heads"][2], color=RAW), run_time=b.rt(0.1, 0.8))
            b.until("ta")
            self.play(GrowFromEdge(tb["top_raw"][0], LEFT), run_time=b.rt(0.06, 0.5))
            self.play(*[GrowFromEdge(m, LEFT) for m in tb["top_raw"][1:-1]],
                      run_time=b.rt(0.1, 1.0))
            b.until("td")
            self.play(GrowFromEdge(tb["top_raw"][-1], LEFT), run_time=b.rt(0.06, 0.5))
            self.box = SurroundingRectangle(tb["top_raw"][-1], color=theme.WARN, buff=0.14)
            b.until("box")
            self.play(Create(self.box), run_time=b.rt(0.08, 0.5))

    def _learning(self, ctx: Context) -> None:
        with self.beat("learning") as b:
            self.plot = pl = self._flat_plot()
            b.until("flat")
            self.play(FadeIn(pl["axes"]), Create(pl["curve"]), run_time=b.rt(0.12, 0.8))
            b.until("flatzone")
            self.play(FadeIn(pl["flat"]), FadeIn(pl["dot"]), FadeIn(pl["caption"][0]),
                      run_time=b.rt(0.08, 0.5))
            # the gradient: the dot creeps along the flat part while the voice explains it
            b.until("grad")
            self.play(pl["dot"].animate.move_to(pl["dot_to"]),
                      run_time=max(0.5, min(2.5, b.time_to("zero") - 0.3)))
            b.until("zero")
            self.play(FadeIn(pl["caption"][1]), run_time=b.rt(0.08, 0.5))

    def _scaled(self, ctx: Context) -> None:
        tb = self.table
        pl = self.plot
        with self.beat("scaled") as b:
            b.until("ss")
            self.play(FadeOut(pl["all"]), FadeOut(self.box), FadeIn(tb["legend_scaled"]),
                      run_time=b.rt(0.06, 0.4))
            self.play(*[GrowFromEdge(m, LEFT) for m in tb["spread_scaled"]],
                      tb["d"].animate.shift(0.2 * DOWN), run_time=b.rt(0.12, 1.0))
            b.until("ts")
            self.play(*[GrowFromEdge(m, LEFT) for m in tb["top_scaled"]],
                      run_time=b.rt(0.12, 1.0))

    def _amplify(self, ctx: Context) -> None:
        amp, tokens = ctx.amp, ctx.tokens
        with self.beat("amplify") as b:
            self.clear_content(b, keep=(self.header,))
            steps = [
                (self._factor_label(r.factor),
                 self._amp_chart(tokens, r.weights_raw, RAW, self.s("amp_raw")),
                 # divided by the factor again: the undivided shares, not the ÷ √d ones
                 self._amp_chart(tokens, r.weights_scaled, RAW, self.s("amp_scaled")))
                for r in amp
            ]
            self._layout_charts(steps)
            # alone, the undivided chart sits in the middle; it makes room for the other later
            dx = -steps[0][1].get_center()[0]
            for _, chart, _ in steps:
                chart.shift(dx * RIGHT)
            factor, left, right = steps[0]
            self.target("scores", left[1])
            self.target("kept_top", steps[-1][2][1][0])  # the divided chart's top row
            # the example's shares first, bars growing; the factor as the voice amplifies
            # (its heading, "amplified", only once they are: it sat over the example's own)
            self.play(*[FadeIn(row[0]) for row in left[1]],
                      *[GrowFromEdge(row[1], LEFT) for row in left[1]], run_time=b.rt(0.12, 2.0))
            self.remove(*[m for row in left[1] for m in row])
            left[0].set_opacity(0)
            self.add(left)  # on stage as one chart: its bars can be named ({@see_scores})
            b.until("amp")
            self.play(FadeIn(factor, shift=0.1 * DOWN), left[0].animate.set_opacity(1),
                      run_time=b.rt(0.04, 0.6))
            for mark, (new_factor, new_left, _) in zip(("xa", "xb", "xc"), steps[1:],
                                                       strict=False):
                b.until(mark)
                self.play(*widgets.out_then_in(factor, new_factor),
                          *self._update_chart(left, new_left), run_time=b.rt(0.06, 0.8))
                factor = new_factor
            self.play(Indicate(left[1][0][0], color=RAW), *widgets.light_bar(left[1][0][1], RAW),
                      run_time=b.rt(0.05, 0.6))
            b.until("kept")
            right = steps[-1][2]
            self.box = SurroundingRectangle(right, color=theme.GOOD, buff=0.15)
            kept = theme.text(self.s("kept"), theme.SMALL_SIZE, theme.GOOD)
            kept.next_to(self.box, DOWN, buff=0.15)
            if kept.get_right()[0] > theme.FRAME_W / 2 - theme.MARGIN:
                kept.align_to(self.box, RIGHT)
            # the undivided chart makes room first: moving while the other came in, the two
            # overlapped for most of a second
            self.play(left.animate.shift(-dx * RIGHT), run_time=b.rt(0.04, 0.5))
            self.play(FadeIn(right, shift=0.2 * LEFT), run_time=b.rt(0.04, 0.5))
            self.play(Create(self.box), FadeIn(kept), run_time=b.rt(0.08, 0.6))

    def _toy(self, ctx: Context) -> None:
        tokens = ctx.tokens
        with self.beat("toy") as b:
            # The toy example's shares were never divided by √d: show both, say why.
            self.clear_content(b, keep=(self.header,))
            d = len(self.numbers.fill_blank.K[0])
            raw = self._amp_chart(tokens, self.derived.fill_weights, RAW, self.s("toy_raw"))
            scaled = self._amp_chart(tokens, self.derived.fill_weights_scaled, SCALED,
                                     self.s("toy_scaled"))
            holder = theme.text(f"d = {self.num(d)}", theme.BODY_SIZE, theme.FG)
            holder.move_to(UP * (theme.CONTENT_TOP - 0.2))
            self._layout_charts([(holder, raw, scaled)])
            note = theme.text(self.s("toy_note"), theme.BODY_SIZE, theme.FG)
            theme.fit(note, theme.CONTENT_W)
            note.next_to(VGroup(raw, scaled), DOWN, buff=0.7)
            VGroup(holder, raw, scaled, note).move_to(theme.CONTENT_CENTER)
            # "back to our example": its undivided chart at once (the frame stood empty
            # but for the header until the voice reached d), then d lit as it is said
            self.play(FadeIn(raw), run_time=b.rt(0.08, 0.6))
            b.until("toy")
            self.play(FadeIn(holder, shift=0.1 * DOWN), run_time=b.rt(0.08, 0.6))
            b.until("scaled")
            self.play(FadeIn(scaled, shift=0.2 * LEFT), run_time=b.rt(0.08, 0.6))
            self.play(Indicate(scaled[1][0][0], color=SCALED),
                      *widgets.light_bar(scaled[1][0][1], SCALED), run_time=b.rt(0.06, 0.6))
            b.until("why")
            skipped = SurroundingRectangle(raw, color=RAW, buff=0.15)
            self.play(Create(skipped), run_time=b.rt(0.08, 0.6))
            b.until("keep")
            self.play(FadeOut(skipped), FadeIn(note, shift=0.1 * UP), run_time=b.rt(0.08, 0.6))
            b.until("real")  # from here on, the divided shares: they are the ones kept
            self.play(Create(SurroundingRectangle(scaled, color=SCALED, buff=0.15)),
                      run_time=b.rt(0.08, 0.6))

    def _knob_beat(self, ctx: Context) -> None:
        with self.beat("knob") as b:
            self.clear_content(b, keep=(self.header,))
            knob = self._make_knob()
            knob["all"].move_to(LEFT * 3.6 + UP * 0.55)
            loud = theme.text(self.s("loud"), theme.BODY_SIZE, theme.MUTED)
            good = theme.text(self.s("right"), theme.BODY_SIZE, SCALED)
            lines = VGroup(loud, good).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
            theme.fit(lines, theme.FRAME_W / 2 + 1.2)
            lines.next_to(knob["all"], RIGHT, buff=0.6)
            final = theme.text(self.s("final"), theme.EMPH_SIZE, theme.FG, weight="BOLD")
            theme.fit(final, theme.CONTENT_W)
            final.move_to(UP * (theme.CONTENT_BOTTOM + 0.45))
            self.play(FadeIn(knob["all"]), run_time=b.rt(0.06, 0.5))
            center = knob["dial"].get_center()
            b.until("loud")
            self.play(Rotate(knob["pointer"], angle=-knob["loud_turn"], about_point=center),
                      FadeIn(loud), run_time=b.rt(0.1, 0.8))
            b.until("right")
            self.play(Rotate(knob["pointer"], angle=knob["loud_turn"], about_point=center),
                      FadeIn(good), loud.animate.set_opacity(0.5), run_time=b.rt(0.1, 0.8))
            b.until("final")  # written as it is said, letters left to right (√ too)
            final.submobjects.sort(key=lambda m: m.get_left()[0])
            self.play(AddTextLetterByLetter(final, run_time=max(
                1.0, self.ctx.speech[b.id] - b.elapsed - 0.4)))

    # -- pieces ---------------------------------------------------------------------------------
    def _update_chart(self, old: VGroup, new: VGroup) -> list:
        """Animations turning chart ``old`` into ``new``: bars grow or shrink, changed labels
        fade out, then in (and replace the old ones inside ``old``)."""
        anims = []
        for old_row, new_row in zip(old[1], new[1], strict=True):
            old_bar, new_bar = old_row[1], new_row[1]
            anims.append(Transform(old_bar[0], new_bar[0]))
            old_lab, new_lab = old_bar[1], new_bar[1]
            if old_lab.text != new_lab.text or not np.allclose(old_lab.get_center(),
                                                                new_lab.get_center()):
                # one after the other, so two numbers never sit on top of each other
                anims += [FadeOut(old_lab, rate_func=lambda t: min(1.0, 2 * t)),
                          FadeIn(new_lab, rate_func=lambda t: max(0.0, 2 * t - 1))]
                old_bar.remove(old_lab)
                old_bar.add(new_lab)
        return anims

    def _layout_charts(self, steps) -> None:
        """Place every step's two charts at the same spots, wide enough for the widest."""
        gap = 0.9
        left_w = max(s[1].width for s in steps)
        right_w = max(s[2].width for s in steps)
        k = min(1.2, theme.CONTENT_W / (left_w + gap + right_w))
        x0 = -(left_w + gap + right_w) * k / 2
        top = steps[0][0].get_bottom()[1] - 0.4
        for _, left, right in steps:
            left.scale(k, about_point=left.get_corner(UP + LEFT))
            right.scale(k, about_point=right.get_corner(UP + LEFT))
            left.move_to([x0, top, 0], aligned_edge=UP + LEFT)
            right.move_to([x0 + (left_w + gap) * k, top, 0], aligned_edge=UP + LEFT)

    def _spread_curves(self, small, large) -> VGroup:
        """Bell curves with the measured spread of q·k for the smallest and largest d."""
        width = 3 * large.dot_std
        axes = Axes(x_range=[-width, width, width], y_range=[0, 1.1, 1], x_length=8.0,
                    y_length=2.2, tips=False,
                    axis_config={"color": theme.MUTED, "include_ticks": False})
        axes.y_axis.set_opacity(0)

        def bell(std: float):
            return lambda x: math.exp(-x * x / (2 * std * std)) * small.dot_std / std

        c_small = axes.plot(bell(small.dot_std), color=theme.MUTED, x_range=[-width, width, 0.1])
        c_large = axes.plot(bell(large.dot_std), color=RAW, x_range=[-width, width, 0.1])
        lab_small = theme.text(f"d = {self.num(small.d)}", theme.SMALL_SIZE, theme.MUTED)
        lab_small.next_to(axes.c2p(0, 1), RIGHT, buff=0.4)
        lab_large = theme.text(f"d = {self.num(large.d)}", theme.SMALL_SIZE, RAW)
        lab_large.next_to(axes.c2p(large.dot_std * 1.3, bell(large.dot_std)(large.dot_std)),
                          UR, buff=0.1)
        grows = theme.text(self.s("grows"), theme.SMALL_SIZE, theme.FG)
        grows.next_to(axes, DOWN, buff=0.2)
        return VGroup(VGroup(axes, grows), c_small, lab_small, c_large, lab_large)

    def _table(self, rows: Sequence) -> dict[str, VGroup]:
        top = theme.CONTENT_TOP - 0.15
        d_x = LEFT_X + 0.35
        spread_x = LEFT_X + 1.1
        sqrt_x = spread_x + BAR_MAX + 1.4  # clear of the longest bar's label (16.1 | 16)
        top_x = sqrt_x + 0.7
        setup = theme.text(self.s("setup"), theme.SMALL_SIZE, theme.MUTED)
        theme.fit(setup, theme.CONTENT_W)
        setup.move_to([LEFT_X + setup.width / 2, top - setup.height / 2, 0])
        head_y = setup.get_bottom()[1] - 0.45
        heads = VGroup(
            theme.text("d", theme.SMALL_SIZE, theme.FG).move_to([d_x, head_y, 0]),
            theme.text(self.s("spread"), theme.SMALL_SIZE, theme.FG, qkv=True),
            theme.text(self.s("top"), theme.SMALL_SIZE, theme.FG),
        )
        heads[1].move_to([spread_x + heads[1].width / 2, head_y, 0])
        heads[2].move_to([top_x + heads[2].width / 2, head_y, 0])
        legend_raw = widgets.swatch(RAW, self.s("raw"), BAR_H)
        legend_scaled = widgets.swatch(SCALED, self.s("scaled"), BAR_H)
        legend_raw.next_to(heads[2], RIGHT, buff=0.45)
        legend_scaled.next_to(legend_raw, RIGHT, buff=0.35)
        max_std = max(r.dot_std for r in rows)
        out: dict[str, VGroup] = {
            "setup": setup, "heads": heads, "legend_raw": legend_raw,
            "legend_scaled": legend_scaled, "d": VGroup(), "spread_raw": VGroup(),
            "spread_scaled": VGroup(), "top_raw": VGroup(), "top_scaled": VGroup(),
            "sqrt_head": theme.text(self.s("sqrt_d"), theme.SMALL_SIZE, theme.MUTED)
            .move_to([sqrt_x, head_y, 0]),
            "sqrt": VGroup(),
        }
        for i, r in enumerate(rows):
            y = head_y - 0.75 - i * ROW_H
            # d on its row's one bar until the ÷ √d bar joins it below (``_scaled``): set
            # between the two from the start, it read as the label of nothing
            out["d"].add(theme.text(self.num(r.d), theme.NUM_SIZE).move_to([d_x, y + 0.2, 0]))
            out["sqrt"].add(theme.text(self.num(math.sqrt(r.d)), theme.SMALL_SIZE, theme.MUTED)
                            .move_to([sqrt_x, y + 0.2, 0]))
            pieces = (
                ("spread_raw", r.dot_std / max_std * BAR_MAX, RAW, self.num(r.dot_std, 1),
                 spread_x, 0.2),
                ("spread_scaled", r.scaled_std / max_std * BAR_MAX, SCALED,
                 self.num(r.scaled_std, 1), spread_x, -0.2),
                ("top_raw", r.top_weight_raw * TOP_MAX, RAW, self.pct(r.top_weight_raw),
                 top_x, 0.2),
                ("top_scaled", r.top_weight_scaled * TOP_MAX, SCALED,
                 self.pct(r.top_weight_scaled), top_x, -0.2),
            )
            for key, length, color, label, x, dy in pieces:
                bar = widgets.share_bar(length, label, 1.0, color, height=BAR_H)
                bar.shift([x - bar[0].get_left()[0], y + dy - bar[0].get_y(), 0])
                out[key].add(bar)
        return out

    def _flat_plot(self) -> dict:
        axes = Axes(x_range=[-6, 6, 2], y_range=[0, 1.05, 0.5], x_length=3.6, y_length=1.8,
                    tips=False, axis_config={"color": theme.MUTED, "include_ticks": False})
        curve = axes.plot(lambda x: 1 / (1 + math.exp(-x)), color=RAW, x_range=[-6, 6, 0.1])
        y_lab = theme.text(self.s("share"), theme.SMALL_SIZE, theme.MUTED)
        y_lab.next_to(axes.y_axis, UP, buff=0.1).align_to(axes.y_axis, LEFT)
        x_lab = theme.text(self.s("gap"), theme.SMALL_SIZE, theme.MUTED)
        x_lab.next_to(axes.x_axis, DOWN, buff=0.12).align_to(axes.x_axis, RIGHT)
        x0, x1 = 3.5, 5.5
        dot = Dot(axes.c2p(x0, 1 / (1 + math.exp(-x0))), color=theme.WARN, radius=0.08)
        dot_to = axes.c2p(x1, 1 / (1 + math.exp(-x1)))
        flat = Rectangle(width=axes.c2p(6, 0)[0] - axes.c2p(3, 0)[0],
                         height=axes.c2p(0, 1.05)[1] - axes.c2p(0, 0)[1])
        flat.set_stroke(width=0).set_fill(theme.WARN, 0.15)
        flat.move_to(axes.c2p(4.5, 0), aligned_edge=DOWN)
        width = 3.4
        caption = VGroup(
            VGroup(*[theme.label(line, width) for line in self.items("flat")])
            .arrange(DOWN, aligned_edge=LEFT, buff=0.12),
            VGroup(*[theme.label(line, width, color=theme.WARN)
                     for line in self.items("stuck")]).arrange(DOWN, aligned_edge=LEFT, buff=0.12),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        graph = VGroup(axes, y_lab, x_lab, flat, curve, dot)
        top = theme.CONTENT_TOP - 1.2
        # the graph shrinks to the room left; its labels and the caption keep their size
        graph_h = top - theme.CONTENT_BOTTOM - 0.1 - caption.height - 0.3
        labels_h = y_lab.height + x_lab.height + 0.3
        scale = min(1.0, (width - 0.3) / axes.width, (graph_h - labels_h) / axes.height)
        axes_parts = VGroup(axes, flat, curve, dot)
        axes_parts.scale(scale, about_point=axes.get_origin())
        y_lab.next_to(axes.y_axis, UP, buff=0.1).align_to(axes.y_axis, LEFT)
        x_lab.next_to(axes.x_axis, DOWN, buff=0.12).align_to(axes.x_axis, RIGHT)
        group = VGroup(graph, caption).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        right_edge = theme.FRAME_W / 2 - theme.MARGIN - 0.1
        group.shift(RIGHT * (right_edge - group.get_right()[0]))
        group.shift(UP * (top - group.get_top()[1]))
        dot_to = axes.c2p(x1, 1 / (1 + math.exp(-x1)))
        return {"axes": VGroup(axes, y_lab, x_lab), "curve": curve, "dot": dot, "dot_to": dot_to,
                "flat": flat, "caption": caption, "all": group}

    def _factor_label(self, f: float) -> VGroup:
        # "scores amplified ×2 (as if d were larger)": the factor beside what it multiplies
        gap = "" if self.lang == "zh" else " "
        lab = theme.text(f"{self.s('factor')} ×{self.num(f)}{gap}{self.s('factor_note')}",
                         theme.BODY_SIZE, theme.FG)
        return lab.move_to(UP * (theme.CONTENT_TOP - 0.3))

    def _amp_chart(self, tokens: Sequence[str], shares, color: str, title: str) -> VGroup:
        chart = widgets.share_bars(tokens, [float(s) for s in shares],
                           [self.pct(s) for s in shares], color, max_len=3.0)
        head = theme.text(title, theme.BODY_SIZE, color)
        head.next_to(chart, UP, buff=0.35).align_to(chart, LEFT)
        return VGroup(head, chart)

    def _make_knob(self) -> dict:
        radius = 1.3
        center = (0.0, 0.0, 0.0)
        dial = Circle(radius=radius * 0.7, color=theme.FG, stroke_width=3)
        dial.set_fill(theme.PANEL, 1)
        scale = Arc(radius=radius, start_angle=-PI / 4, angle=3 * PI / 2, color=theme.MUTED,
                    stroke_width=6)
        hot = Arc(radius=radius, start_angle=-PI / 4, angle=PI / 3, color=theme.WARN,
                  stroke_width=6)
        sweet = Arc(radius=radius, start_angle=PI / 2 - PI / 8, angle=PI / 4, color=SCALED,
                    stroke_width=6)
        pointer = Line(center, [0, radius * 0.62, 0], color=theme.FG, stroke_width=6)
        label = theme.text(self.s("volume"), theme.SMALL_SIZE, theme.MUTED)
        label.next_to(dial, DOWN, buff=0.55)
        group = VGroup(scale, hot, sweet, dial, pointer, label)
        # the pointer starts at the top (sweet spot); turning clockwise makes it louder
        loud_turn = PI / 2 + PI / 6
        return {"all": group, "pointer": pointer,
                "loud_turn": loud_turn, "dial": dial}
