"""Where QKV attention sits in a Transformer: encoder, masked decoder and cross-attention.

The diagram fills the left of the frame; the right panel explains the place being named:
where its Q, K and V come from and who may look at whom (rows ask, columns are seen). It ends
with each place's own matrices and a look ahead to multi-head attention.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circle,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    ReplacementTransform,
    VGroup,
)

from qkv_math.numbers import WorkedExample
from scenes import overlap, theme, widgets
from scenes.base import BeatClock, NarratedScene

BLOCK_W, BLOCK_TOP, BLOCK_BOTTOM = 2.9, 2.4, -1.0
ENC_X, DEC_X = -5.2, -1.35
LOW_Y, HIGH_Y = -0.1, 1.4  # the two rows of attention boxes inside the blocks
TOKEN_Y = -1.6
PANEL_LEFT = 0.6  # the explanation panel spans from here to the right margin
PANEL_X = (PANEL_LEFT + theme.FRAME_W / 2 - theme.MARGIN) / 2
PANEL_W = theme.FRAME_W / 2 - theme.MARGIN - PANEL_LEFT
PANEL_TOP = theme.CONTENT_TOP - 0.1
N_HEADS = 3  # heads drawn in the multi-head sketch (an illustration, not an example value)
HEAD_COLORS = ("#7aa2f7", "#b48ead", "#a9b1d6")  # none a role's (a salmon third read as V)
CELL_W, CELL_H = 1.3, 0.75  # the who-looks-at-whom grid


@dataclass(frozen=True)
class Context:
    """What every beat reads: the marks and sets of the script, the sentence in the other
    language (the source) and in this one (the target), and the worked example."""

    marks: tuple[str, ...]
    other: str
    sets: tuple[str, ...]
    source: list[str]
    target: list[str]
    we: WorkedExample


class InTransformerScene(NarratedScene):
    scene_id = "in_transformer"

    def narrate(self) -> None:
        we = self.numbers.worked_example
        other = next(lang for lang in we.tokens if lang != self.lang)
        source, target = list(we.tokens[other]), list(we.tokens[self.lang])
        marks, sets = self.items("marks"), self.items("sets")

        ctx = Context(
            marks=marks, other=other, sets=sets, source=source, target=target, we=we)
        self._intro(ctx)
        self._encoder(ctx)
        self._masked(ctx)
        self._cross_beat(ctx)
        self._weights(ctx)
        self._multihead(ctx)

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self, ctx: Context) -> None:
        marks, sets, source, target = ctx.marks, ctx.sets, ctx.source, ctx.target
        with self.beat("intro") as b:
            self.title_card(b)
            enc = self._block(self.s("encoder"), ENC_X)
            dec = self._block(self.s("decoder"), DEC_X)
            self.enc_attn = self._attn_box(self.s("self_attn"), ENC_X, LOW_Y)
            self.masked = self._attn_box(self.s("masked_attn"), DEC_X, LOW_Y)
            self.cross = self._attn_box(self.s("cross_attn"), DEC_X, HIGH_Y)
            self.boxes = (self.enc_attn, self.masked, self.cross)
            # each place's number sits just above its box's right end (inside the block,
            # clear of the box's edge and its name)
            self.tags = [self._mark(m).next_to(box[0], UP, buff=0.1).align_to(box[0], RIGHT)
                         .shift(LEFT * 0.1).set_z_index(2)
                         for m, box in zip(marks, self.boxes, strict=True)]
            for box in self.boxes:  # above the multi-head copies drawn behind them at the end
                box.set_z_index(1)
            self.src = self._tokens(source, self.s("source"), ENC_X)
            self.tgt = self._tokens(target, self.s("target"), DEC_X)
            self.overview = VGroup(*[self._place_head(m, name) for m, name in zip(marks, sets,
                                                                             strict=True)])
            self.overview.arrange(DOWN, aligned_edge=LEFT, buff=0.5)
            self.overview.move_to(RIGHT * PANEL_X + theme.CONTENT_CENTER)
            self.overview.align_to(RIGHT * (PANEL_LEFT + 0.4), LEFT)
            # the bare Transformer comes in as soon as the voice names it; its places light
            # up as they are counted
            self.play(FadeIn(enc), FadeIn(dec), run_time=min(b.rt(0.08, 0.7), b.time_to("enc")))
            b.until("enc")
            self.play(FadeIn(self.src), FadeIn(self.enc_attn), FadeIn(self.tags[0]),
                      Indicate(enc[1], color=theme.ACCENT),
                      FadeIn(self.overview[0], shift=0.1 * LEFT), run_time=b.rt(0.1, 0.8))
            b.until("dec")
            self.play(FadeIn(self.tgt), Indicate(dec[1], color=theme.ACCENT),
                      run_time=b.rt(0.06, 0.5))
            self.play(LaggedStart(
                *[FadeIn(VGroup(box, tag)) for box, tag in zip(self.boxes[1:], self.tags[1:],
                                                             strict=True)],
                *[FadeIn(o, shift=0.1 * LEFT) for o in self.overview[1:]], lag_ratio=0.3),
                run_time=b.rt(0.15, 1.2))

    def _encoder(self, ctx: Context) -> None:
        marks, sets, source = ctx.marks, ctx.sets, ctx.source
        with self.beat("encoder") as b:
            b.until("one")
            head = self._place_head(marks[0], sets[0]).move_to(PANEL_X * RIGHT)
            head.align_to(UP * PANEL_TOP, UP)
            self.play(FadeOut(self.overview), self._focus(self.enc_attn), run_time=b.rt(0.04, 0.35))
            self.play(FadeIn(head), run_time=b.rt(0.04, 0.35))
            b.until("src")
            qkv = self._qkv_arrows(self.src[0], self.enc_attn)
            line = self._from_line("QKV", self.s("from_src")).next_to(head, DOWN, buff=0.3)
            self.play(LaggedStart(*[GrowArrow(a[0]) for a in qkv], lag_ratio=0.3),
                      *[FadeIn(a[1]) for a in qkv], FadeIn(line, shift=0.1 * LEFT),
                      run_time=b.rt(0.1, 1.0))
            b.until("grid")
            grid = self._grid(source, source, lambda i, j: True, line)
            self._build_grid(grid, b, "out")
            self.out = self._enc_output(len(source))
            up = Arrow(self.enc_attn.get_top(), self.out.get_bottom(), buff=0.1, color=theme.GOOD,
                       stroke_width=4, max_tip_length_to_length_ratio=0.3)
            self.play(GrowArrow(up), FadeIn(self.out), run_time=b.rt(0.1, 1.0))
            self.panel = VGroup(head, line, grid)

    def _masked(self, ctx: Context) -> None:
        marks, sets, target = ctx.marks, ctx.sets, ctx.target
        with self.beat("masked") as b:
            b.until("two")
            head = self._place_head(marks[1], sets[1]).move_to(self.panel[0])
            self.play(FadeOut(self.panel), self._unfocus(self.enc_attn), self._focus(self.masked),
                      run_time=b.rt(0.04, 0.35))
            self.play(FadeIn(head), run_time=b.rt(0.04, 0.35))
            b.until("tgt")
            dec_qkv = self._qkv_arrows(self.tgt[0], self.masked)
            line = self._from_line("QKV", self.s("from_tgt")).next_to(head, DOWN, buff=0.3)
            self.play(LaggedStart(*[GrowArrow(a[0]) for a in dec_qkv], lag_ratio=0.3),
                      *[FadeIn(a[1]) for a in dec_qkv], FadeIn(line, shift=0.1 * LEFT),
                      run_time=b.rt(0.1, 1.0))
            b.until("mask")
            grid = self._grid(target, target, lambda i, j: j <= i, line, legend=True)
            self.rows, col_labels, row_labels, legend = grid
            seen = VGroup(*[c for row in self.rows for c in row if c.seen])
            unseen = VGroup(*[c for row in self.rows for c in row if not c.seen])
            self.play(FadeIn(col_labels), FadeIn(row_labels), FadeIn(legend[0]),
                      run_time=b.rt(0.05, 0.5))
            self.play(LaggedStart(*[FadeIn(c) for c in seen], lag_ratio=0.4),
                      run_time=b.rt(0.25, 2.0))
            b.until("hide")
            self.play(LaggedStart(*[FadeIn(c, scale=1.2) for c in unseen], lag_ratio=0.4),
                      FadeIn(legend[1]), run_time=b.rt(0.15, 1.2))
            self.panel = VGroup(head, line, grid)

    def _cross_beat(self, ctx: Context) -> None:
        marks, sets, source, target = ctx.marks, ctx.sets, ctx.source, ctx.target
        with self.beat("cross") as b:
            b.until("three")
            head = self._place_head(marks[2], sets[2]).move_to(self.panel[0])
            self.play(FadeOut(self.panel), self._unfocus(self.masked), self._focus(self.cross),
                      run_time=b.rt(0.04, 0.35))
            self.play(FadeIn(head), run_time=b.rt(0.04, 0.35))
            b.until("q")
            q_up = self._labelled_arrow(self.masked.get_top(), self.cross.get_bottom(), "Q",
                                        theme.Q_COLOR, side=RIGHT)
            q_line = self._from_line("Q", self.s("from_dec")).next_to(head, DOWN, buff=0.3)
            self.play(GrowArrow(q_up[0]), FadeIn(q_up[1]), FadeIn(q_line, shift=0.1 * LEFT),
                      run_time=b.rt(0.1, 0.8))
            b.until("kv")
            start_x = self.out.get_right()[0] + 0.1
            end_x = self.cross.get_left()[0] - 0.1
            k_arrow = self._labelled_arrow(RIGHT * start_x + UP * (HIGH_Y + 0.2),
                                           RIGHT * end_x + UP * (HIGH_Y + 0.2), "K",
                                           theme.K_COLOR, side=UP)
            v_arrow = self._labelled_arrow(RIGHT * start_x + UP * (HIGH_Y - 0.2),
                                           RIGHT * end_x + UP * (HIGH_Y - 0.2), "V",
                                           theme.V_COLOR, side=DOWN)
            kv_line = self._from_line("KV", self.s("from_enc")).next_to(q_line, DOWN, buff=0.2)
            self.play(GrowArrow(k_arrow[0]), GrowArrow(v_arrow[0]), FadeIn(k_arrow[1]),
                      FadeIn(v_arrow[1]), FadeIn(kv_line, shift=0.1 * LEFT),
                      # grown a little: at Indicate's 1.2 the label spilled over the
                      # encoder's frame
                      widgets.pulse(self.out, 1.06), run_time=b.rt(0.1, 1.0))
            b.until("glance")
            grid = self._grid(target, source, lambda i, j: True, kv_line)
            self._build_grid(grid, b)
            self.panel = VGroup(head, q_line, kv_line, grid)

    def _weights(self, ctx: Context) -> None:
        marks, sets = ctx.marks, ctx.sets
        with self.beat("weights") as b:
            self.rows = VGroup(*[self._weight_row(m, name) for m, name in zip(marks, sets,
                                                                       strict=True)])
            self.rows.arrange(DOWN, aligned_edge=LEFT, buff=0.45)
            self.note = theme.text(self.s("own_set"), theme.LABEL_SIZE, theme.GOOD)
            self.note.next_to(self.rows, DOWN, buff=0.45, aligned_edge=LEFT)
            block = theme.fit(VGroup(self.rows, self.note), PANEL_W)
            block.move_to(RIGHT * PANEL_X).align_to(UP * PANEL_TOP, UP)
            self.play(FadeOut(self.panel), self._unfocus(self.cross), run_time=b.rt(0.08, 0.6))
            b.until("own")
            # one play per place: parts of shown objects must not go into an AnimationGroup
            # (Manim would add the group on top and hide the boxes' labels under their fill)
            for row, box, tag in zip(self.rows, self.boxes, self.tags, strict=True):
                self.play(FadeIn(row, shift=0.1 * LEFT), self._focus(box),
                          Indicate(tag[1], color=theme.ACCENT, scale_factor=1.4),
                          run_time=b.rt(0.12, 0.7))
            self.play(FadeIn(self.note), run_time=b.rt(0.1, 0.5))

    def _multihead(self, ctx: Context) -> None:
        with self.beat("multihead") as b:
            heads_title = theme.text(self.s("heads"), theme.EMPH_SIZE, theme.FG, weight="BOLD")
            heads = VGroup(*[self._head_column(c) for c in HEAD_COLORS[:N_HEADS]])
            heads.arrange(RIGHT, buff=0.6)
            asks = VGroup(*[theme.text(q, theme.LABEL_SIZE, c)
                            for q, c in zip(self.items("questions"), HEAD_COLORS, strict=True)])
            for ask, col in zip(asks, heads, strict=True):
                theme.fit(ask, col.width + 0.4)
                ask.next_to(col, UP, buff=0.15)
            sketch = VGroup(heads_title, VGroup(asks, heads)).arrange(DOWN, buff=0.3)
            theme.fit(sketch, PANEL_W)
            sketch.move_to(RIGHT * PANEL_X).align_to(UP * PANEL_TOP, UP)
            shadows = VGroup(*[self._shadows(box) for box in self.boxes])
            b.until("heads")
            # the places' numbers go: the heads' copies stack where they stood
            self.play(FadeOut(VGroup(self.rows, self.note, *self.tags)),
                      *[self._unfocus(box) for box in self.boxes],
                      run_time=b.rt(0.05, 0.4))
            self.play(FadeIn(shadows), FadeIn(heads_title),
                      LaggedStart(*[FadeIn(h, shift=0.1 * DOWN) for h in heads],
                                  lag_ratio=0.3), run_time=b.rt(0.15, 1.2))
            b.until("ask")
            outs = VGroup(*[Rectangle(width=1.1, height=0.36).set_stroke(width=0)
                            .set_fill(c, 0.85).next_to(col, DOWN, buff=0.3)
                            for c, col in zip(HEAD_COLORS, heads, strict=True)])
            downs = VGroup(*[Arrow(col.get_bottom(), o.get_top(), buff=0.05, color=theme.MUTED,
                                   stroke_width=3, max_tip_length_to_length_ratio=0.35)
                             for col, o in zip(heads, outs, strict=True)])
            self.play(LaggedStart(*[
                LaggedStart(FadeIn(ask), GrowArrow(d), FadeIn(o), lag_ratio=0.3)
                for ask, d, o in zip(asks, downs, outs, strict=True)], lag_ratio=0.4),
                run_time=b.rt(0.3, 2.0))
            b.until("join")
            joined = VGroup(*[o.copy() for o in outs]).arrange(RIGHT, buff=0)
            joined.next_to(outs, DOWN, buff=0.4)
            label = theme.text(self.s("joined"), theme.LABEL_SIZE, theme.GOOD)
            label.next_to(joined, RIGHT, buff=0.25)
            frame = Rectangle(width=joined.width + 0.1, height=joined.height + 0.1)
            frame.set_stroke(theme.GOOD, 2).move_to(joined)
            self.play(*[ReplacementTransform(o, j) for o, j in zip(outs, joined, strict=True)],
                      FadeOut(downs), run_time=b.rt(0.15, 1.0))
            self.play(FadeIn(frame), FadeIn(label), run_time=b.rt(0.08, 0.5))

    # -- the diagram ----------------------------------------------------------------------------
    def _block(self, name: str, x: float) -> VGroup:
        h = BLOCK_TOP - BLOCK_BOTTOM
        box = theme.panel(BLOCK_W, h, theme.MUTED, fill=theme.BG)
        box.move_to(RIGHT * x + UP * (BLOCK_TOP + BLOCK_BOTTOM) / 2)
        label = theme.text(name, theme.LABEL_SIZE, theme.FG, weight="BOLD")
        label.next_to(box, UP, buff=0.2)
        return VGroup(box, label)

    def _attn_box(self, name: str, x: float, y: float) -> VGroup:
        box = theme.panel(BLOCK_W - 0.4, 0.8, theme.FG)
        label = theme.label(name, BLOCK_W - 0.6)
        return widgets.boxed(label, box).move_to(RIGHT * x + UP * y)

    @staticmethod
    def _focus(box: VGroup):
        return box[0].animate.set_stroke(theme.ACCENT, 5)

    @staticmethod
    def _unfocus(box: VGroup):
        return box[0].animate.set_stroke(theme.FG, 2)

    @staticmethod
    def _shadows(box: VGroup) -> VGroup:
        """Two offset copies behind an attention box: several heads side by side."""
        out = VGroup()
        for k in (2, 1):
            s = theme.panel(box[0].width, box[0].height, theme.MUTED)
            s.set_fill(opacity=0.45)  # only their edges show behind the box (its name is on it)
            # (0.07 a copy: at 0.1 the last one lay on the block's own edge)
            out.add(overlap.behind(s.move_to(box[0]).shift((LEFT + UP) * 0.07 * k)))
        return out

    def _tokens(self, words: list[str], caption: str, x: float) -> VGroup:
        chips = widgets.chip_row(words, buff=0.1, stroke=theme.MUTED, min_width=0.7, pad=0.2)
        theme.fit(chips, BLOCK_W)
        chips.move_to(RIGHT * x + UP * TOKEN_Y)
        cap = theme.text(caption, theme.SMALL_SIZE, theme.MUTED).next_to(chips, DOWN, buff=0.1)
        return VGroup(chips, cap)

    def _labelled_arrow(self, start, end, letter: str, color: str, side) -> VGroup:
        arrow = Arrow(start, end, buff=0.1, color=color, stroke_width=5,
                      max_tip_length_to_length_ratio=0.3)
        tag = theme.text(letter, theme.SMALL_SIZE, color, weight="BOLD")
        tag.next_to(arrow, side, buff=0.1)
        return VGroup(arrow, tag)

    def _qkv_arrows(self, tokens: VGroup, box: VGroup) -> list[VGroup]:
        out = []
        for dx, letter, color in ((-0.8, "Q", theme.Q_COLOR), (0.0, "K", theme.K_COLOR),
                                  (0.8, "V", theme.V_COLOR)):
            x = box.get_x() + dx
            arrow = self._labelled_arrow(RIGHT * x + UP * tokens.get_top()[1],
                                         RIGHT * x + UP * box.get_bottom()[1], letter, color,
                                         side=RIGHT)
            # the letter inside the block, between its bottom edge and the box (not on the edge)
            arrow[1].set_y((BLOCK_BOTTOM + box.get_bottom()[1]) / 2)
            out.append(arrow)
        return out

    def _enc_output(self, n: int) -> VGroup:
        squares = VGroup(*[Rectangle(width=0.4, height=0.4).set_stroke(theme.GOOD, 2)
                           .set_fill(theme.GOOD, 0.4) for _ in range(n)])
        squares.arrange(RIGHT, buff=0.1)
        label = theme.text(self.s("enc_out"), theme.SMALL_SIZE, theme.GOOD)
        group = VGroup(squares, label).arrange(DOWN, buff=0.1)
        return group.move_to(RIGHT * ENC_X + UP * HIGH_Y)

    def _mark(self, mark: str) -> VGroup:
        label = theme.text(mark, theme.BODY_SIZE, theme.ACCENT, weight="BOLD")
        disc = Circle(radius=0.2, stroke_width=0, fill_color=theme.BG, fill_opacity=1)
        return widgets.boxed(label, disc)

    # -- the explanation panel ------------------------------------------------------------------
    @staticmethod
    def _place_head(mark: str, name: str) -> VGroup:
        head = VGroup(theme.text(mark, theme.EMPH_SIZE, theme.ACCENT, weight="BOLD"),
                      theme.text(name, theme.EMPH_SIZE, theme.FG, weight="BOLD")
                      ).arrange(RIGHT, buff=0.2)
        return theme.fit(head, PANEL_W - 0.5)  # clear of the right margin when left-aligned

    @staticmethod
    def _from_line(letters: str, source: str) -> VGroup:
        """'Q K V ← where they come from', each letter in its role's colour."""
        colors = {"Q": theme.Q_COLOR, "K": theme.K_COLOR, "V": theme.V_COLOR}
        parts = [theme.text(c, theme.EMPH_SIZE, colors[c], weight="BOLD") for c in letters]
        parts.append(theme.text(source, theme.LABEL_SIZE, theme.FG))
        return VGroup(*parts).arrange(RIGHT, buff=0.18)

    def _grid(self, rows_words: list[str], cols_words: list[str],
              visible: Callable[[int, int], bool], above: Mobject,
              legend: bool = False) -> VGroup:
        """Who looks at whom: a row per asking word (Q), a column per word looked at (K)."""
        cw, ch = CELL_W, CELL_H
        rows = VGroup()
        for i in range(len(rows_words)):
            row = VGroup()
            for j in range(len(cols_words)):
                seen = visible(i, j)
                rect = Rectangle(width=cw, height=ch).set_stroke(theme.MUTED, 1.5)
                rect.set_fill(theme.GOOD if seen else theme.PANEL, 0.8 if seen else 1)
                cell = VGroup(rect) if seen else VGroup(rect, self._cross(0.18))
                cell.move_to(RIGHT * j * cw + DOWN * i * ch)
                cell.seen = seen
                row.add(cell)
            rows.add(row)
        col_labels = VGroup(*[theme.text(w, theme.LABEL_SIZE, theme.K_COLOR) for w in cols_words])
        for j, lab in enumerate(col_labels):
            theme.fit(lab, cw - 0.1)
            lab.move_to(RIGHT * j * cw + UP * (ch * 0.5 + 0.3))
        row_labels = VGroup(*[theme.text(w, theme.LABEL_SIZE, theme.Q_COLOR) for w in rows_words])
        for i, lab in enumerate(row_labels):
            lab.move_to(DOWN * i * ch).align_to(rows, LEFT).shift(LEFT * (lab.width + 0.2))
        if legend:
            chips = VGroup()
            for fill, opacity, key in ((theme.GOOD, 0.8, "sees"), (theme.PANEL, 1, "hidden")):
                sw = Rectangle(width=0.45, height=0.35).set_stroke(theme.MUTED, 1.5)
                sw.set_fill(fill, opacity)
                chips.add(VGroup(sw, theme.text(self.s(key), theme.LABEL_SIZE)).arrange(
                    RIGHT, buff=0.1))
            extra = theme.fit(chips.arrange(RIGHT, buff=0.4), PANEL_W)
        else:
            extra = theme.label(self.s("who"), PANEL_W, color=theme.MUTED)
        # the grid shrinks to the room left; the line under it keeps its size
        cells = VGroup(rows, col_labels, row_labels)
        room = above.get_bottom()[1] - 0.35 - theme.CONTENT_BOTTOM - 0.1
        w0 = rows.width
        theme.fit(cells, PANEL_W, room - extra.height - 0.3)
        k = rows.width / w0
        if k < 1:  # the cells shrank: their labels keep the label size
            for lab in col_labels:
                lab.scale(1 / k)
            for lab in row_labels:
                lab.scale(1 / k).align_to(rows, LEFT).shift(LEFT * (lab.width + 0.2))
        extra.next_to(rows, DOWN, buff=0.3)
        grid = VGroup(rows, col_labels, row_labels, extra)
        grid.next_to(above, DOWN, buff=0.35)
        grid.set_x(PANEL_X)
        return grid

    def _build_grid(self, grid: VGroup, b: BeatClock, until: str | None = None) -> None:
        """Labels first, then the grid row by row (each row is one word asking)."""
        rows, col_labels, row_labels, extra = grid
        self.play(FadeIn(col_labels), FadeIn(row_labels), FadeIn(extra),
                  run_time=b.rt(0.05, 0.5))
        run = b.time_to(until) if until else b.rt(0.3, 2.4)
        self.play(LaggedStart(*[FadeIn(row, shift=0.05 * RIGHT) for row in rows],
                              lag_ratio=0.6), run_time=min(max(run, 0.5), 2.4))

    @staticmethod
    def _cross(r: float) -> VGroup:
        return VGroup(Line(UP * r + LEFT * r, DOWN * r + RIGHT * r),
                      Line(UP * r + RIGHT * r, DOWN * r + LEFT * r)).set_stroke(theme.MUTED, 3)

    def _weight_row(self, mark: str, name: str) -> VGroup:
        head = VGroup(theme.text(mark, theme.EMPH_SIZE, theme.ACCENT),
                      theme.text(name, theme.LABEL_SIZE, theme.FG)).arrange(RIGHT, buff=0.2)
        mats = self._matrices(RIGHT)
        mats.next_to(head, DOWN, buff=0.2, aligned_edge=LEFT).shift(RIGHT * 0.5)
        return VGroup(head, mats)

    @staticmethod
    def _matrices(direction) -> VGroup:
        return VGroup(*[theme.formula(f"W_{letter}", theme.FORMULA_SIZE, color)
                        for letter, color in (("Q", theme.Q_COLOR), ("K", theme.K_COLOR),
                                              ("V", theme.V_COLOR))]).arrange(direction,
                                                                              buff=0.3)

    def _head_column(self, color: str) -> VGroup:
        mats = self._matrices(DOWN)
        box = theme.panel(mats.width + 0.5, mats.height + 0.4, color)
        return widgets.boxed(mats, box)
