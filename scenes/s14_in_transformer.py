"""Where QKV attention sits in a Transformer: encoder, masked decoder and cross-attention."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circle,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    VGroup,
)

from scenes import theme
from scenes.base import NarratedScene

BLOCK_W, BLOCK_TOP, BLOCK_BOTTOM = 3.7, 2.2, -1.0
ENC_X, DEC_X = -4.7, 0.2
LOW_Y, HIGH_Y = -0.2, 1.5  # the two rows of attention boxes inside the blocks
TOKEN_Y = -1.6
PANEL_X = 4.6  # centre of the detail panel on the right


class InTransformerScene(NarratedScene):
    scene_id = "in_transformer"

    def narrate(self) -> None:
        we = self.numbers.worked_example
        other = next(lang for lang in we.tokens if lang != self.lang)
        source, target = list(we.tokens[other]), list(we.tokens[self.lang])

        with self.beat("intro") as b:
            self.title_card(b)
            enc = self._block(self.s("encoder"), ENC_X)
            dec = self._block(self.s("decoder"), DEC_X)
            enc_attn = self._attn_box(self.s("self_attn"), ENC_X, LOW_Y, theme.FG)
            masked = self._attn_box(self.s("masked_attn"), DEC_X, LOW_Y, theme.FG)
            cross = self._attn_box(self.s("cross_attn"), DEC_X, HIGH_Y, theme.FG)
            src = self._tokens(source, self.s("source"), ENC_X)
            tgt = self._tokens(target, self.s("target"), DEC_X)
            self.play(FadeIn(enc), FadeIn(dec), run_time=b.rt(0.1, 0.8))
            self.play(FadeIn(src), FadeIn(tgt), run_time=b.rt(0.1, 0.6))
            self.play(LaggedStart(FadeIn(enc_attn), FadeIn(masked), FadeIn(cross),
                                  lag_ratio=0.5), run_time=b.rt(0.2, 1.5))

        with self.beat("encoder") as b:
            qkv = self._qkv_arrows(src[0], enc_attn)
            self.play(Indicate(enc_attn[0], color=theme.ACCENT, scale_factor=1.1),
                      run_time=b.rt(0.1, 0.8))
            self.play(LaggedStart(*[GrowArrow(a[0]) for a in qkv], lag_ratio=0.3),
                      *[FadeIn(a[1]) for a in qkv], run_time=b.rt(0.2, 1.2))
            out = self._enc_output(len(source))
            up = Arrow(enc_attn.get_top(), out.get_bottom(), buff=0.1, color=theme.GOOD,
                       stroke_width=4, max_tip_length_to_length_ratio=0.3)
            self.play(GrowArrow(up), FadeIn(out), run_time=b.rt(0.1, 1.0))

        with self.beat("masked") as b:
            dec_qkv = self._qkv_arrows(tgt[0], masked)
            self.play(Indicate(masked[0], color=theme.ACCENT, scale_factor=1.1),
                      run_time=b.rt(0.1, 0.7))
            self.play(LaggedStart(*[GrowArrow(a[0]) for a in dec_qkv], lag_ratio=0.3),
                      *[FadeIn(a[1]) for a in dec_qkv], run_time=b.rt(0.1, 1.0))
            grid = self._mask_grid(target)
            link = Line(masked.get_right(), grid[2].get_left() + LEFT * 0.1,
                        color=theme.MUTED, stroke_width=2)
            self.play(Create(link), FadeIn(grid[1]), FadeIn(grid[2]), run_time=b.rt(0.1, 0.8))
            self.play(LaggedStart(*[FadeIn(row) for row in grid[0]], lag_ratio=0.5),
                      run_time=b.rt(0.3, 2.2))
            self.play(FadeIn(grid[3]), run_time=b.rt(0.1, 0.5))

        with self.beat("cross") as b:
            self.play(FadeOut(grid), FadeOut(link), run_time=b.rt(0.1, 0.5))
            self.play(Indicate(cross[0], color=theme.ACCENT, scale_factor=1.1),
                      run_time=b.rt(0.1, 0.7))
            q_up = self._labelled_arrow(masked.get_top(), cross.get_bottom(), "Q", theme.Q_COLOR,
                                        side=RIGHT)
            self.play(GrowArrow(q_up[0]), FadeIn(q_up[1]), run_time=b.rt(0.1, 0.8))
            start_x = out.get_right()[0] + 0.1
            end_x = cross.get_left()[0] - 0.1
            k_arrow = self._labelled_arrow(RIGHT * start_x + UP * (HIGH_Y + 0.2),
                                           RIGHT * end_x + UP * (HIGH_Y + 0.2), "K",
                                           theme.K_COLOR, side=UP)
            v_arrow = self._labelled_arrow(RIGHT * start_x + UP * (HIGH_Y - 0.2),
                                           RIGHT * end_x + UP * (HIGH_Y - 0.2), "V",
                                           theme.V_COLOR, side=DOWN)
            self.play(GrowArrow(k_arrow[0]), GrowArrow(v_arrow[0]), FadeIn(k_arrow[1]),
                      FadeIn(v_arrow[1]), run_time=b.rt(0.1, 1.0))
            self.play(Indicate(out, color=theme.GOOD), run_time=b.rt(0.1, 0.8))

        with self.beat("weights") as b:
            marks = self.items("marks")
            boxes = (enc_attn, masked, cross)
            tags = VGroup(*[self._mark(m).move_to(box[0].get_corner(UP + RIGHT))
                            for m, box in zip(marks, boxes, strict=True)])
            rows = VGroup(*[self._weight_row(m, name)
                            for m, name in zip(marks, self.items("sets"), strict=True)])
            rows.arrange(DOWN, aligned_edge=LEFT, buff=0.4)
            note = theme.text(self.s("own_set"), theme.SMALL_SIZE, theme.GOOD)
            panel = VGroup(rows, note)
            note.next_to(rows, DOWN, buff=0.4, aligned_edge=LEFT)
            theme.fit(panel, theme.FRAME_W / 2 - theme.MARGIN - 2.4)
            panel.move_to(RIGHT * PANEL_X + UP * 0.6)
            self._inside_x(panel)
            for tag, row, box in zip(tags, rows, boxes, strict=True):
                self.play(FadeIn(tag, scale=1.3), FadeIn(row, shift=0.1 * LEFT),
                          Indicate(box[0], color=theme.ACCENT, scale_factor=1.1),
                          run_time=b.rt(0.1, 0.9))
            self.play(FadeIn(note), run_time=b.rt(0.1, 0.5))

    # -- pieces ---------------------------------------------------------------------------------
    def _block(self, name: str, x: float) -> VGroup:
        h = BLOCK_TOP - BLOCK_BOTTOM
        box = theme.panel(BLOCK_W, h, theme.MUTED, fill=theme.BG)
        box.move_to(RIGHT * x + UP * (BLOCK_TOP + BLOCK_BOTTOM) / 2)
        label = theme.text(name, 26, theme.FG, weight="BOLD").next_to(box, UP, buff=0.2)
        return VGroup(box, label)

    def _attn_box(self, name: str, x: float, y: float, color: str) -> VGroup:
        box = theme.panel(BLOCK_W - 0.4, 0.8, color)
        label = theme.text(name, theme.SMALL_SIZE, theme.FG)
        theme.fit(label, BLOCK_W - 0.6)
        group = VGroup(box, label.move_to(box))
        return group.move_to(RIGHT * x + UP * y)

    def _tokens(self, words: list[str], caption: str, x: float) -> VGroup:
        chips = VGroup()
        for w in words:
            t = theme.text(w, theme.SMALL_SIZE, theme.FG)
            box = theme.panel(max(0.7, t.width + 0.3), 0.5, theme.MUTED)
            chips.add(VGroup(box, t.move_to(box)))
        chips.arrange(RIGHT, buff=0.1)
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
        for dx, letter, color in ((-0.9, "Q", theme.Q_COLOR), (0.0, "K", theme.K_COLOR),
                                  (0.9, "V", theme.V_COLOR)):
            x = box.get_x() + dx
            out.append(self._labelled_arrow(RIGHT * x + UP * tokens.get_top()[1],
                                            RIGHT * x + UP * box.get_bottom()[1], letter, color,
                                            side=RIGHT))
        return out

    def _enc_output(self, n: int) -> VGroup:
        squares = VGroup(*[Rectangle(width=0.4, height=0.4).set_stroke(theme.GOOD, 2)
                           .set_fill(theme.GOOD, 0.4) for _ in range(n)])
        squares.arrange(RIGHT, buff=0.1)
        label = theme.text(self.s("enc_out"), theme.SMALL_SIZE, theme.GOOD)
        group = VGroup(squares, label).arrange(DOWN, buff=0.1)
        return group.move_to(RIGHT * ENC_X + UP * HIGH_Y)

    def _mask_grid(self, words: list[str]) -> VGroup:
        """Rows: the word being generated; columns: the words it may look at (j <= i)."""
        n = len(words)
        cw, ch = 1.0, 0.6
        rows = VGroup()
        for i in range(n):
            row = VGroup()
            for j in range(n):
                seen = j <= i
                cell = Rectangle(width=cw, height=ch).set_stroke(theme.MUTED, 1.5)
                cell.set_fill(theme.GOOD if seen else theme.PANEL, 0.8 if seen else 1)
                cell.move_to(RIGHT * j * cw + DOWN * i * ch)
                row.add(cell)
                if not seen:
                    row.add(self._cross(0.2).move_to(cell))
            rows.add(row)
        col_labels = VGroup(*[theme.text(w, theme.SMALL_SIZE, theme.FG) for w in words])
        for j, lab in enumerate(col_labels):
            theme.fit(lab, cw - 0.1)
            lab.move_to(RIGHT * j * cw + UP * (ch * 0.5 + 0.3))
        row_labels = VGroup(*[theme.text(w, theme.SMALL_SIZE, theme.FG) for w in words])
        for i, lab in enumerate(row_labels):
            lab.move_to(DOWN * i * ch).align_to(rows, LEFT).shift(LEFT * (lab.width + 0.2))
        swatch_seen = Rectangle(width=0.4, height=0.3).set_stroke(theme.MUTED, 1.5)
        swatch_seen.set_fill(theme.GOOD, 0.8)
        swatch_hidden = Rectangle(width=0.4, height=0.3).set_stroke(theme.MUTED, 1.5)
        swatch_hidden.set_fill(theme.PANEL, 1)
        legend = VGroup(
            VGroup(swatch_seen, theme.text(self.s("sees"), theme.SMALL_SIZE)).arrange(RIGHT,
                                                                                     buff=0.1),
            VGroup(swatch_hidden, theme.text(self.s("hidden"), theme.SMALL_SIZE)).arrange(
                RIGHT, buff=0.1),
        ).arrange(RIGHT, buff=0.4)
        legend.next_to(rows, DOWN, buff=0.3)
        grid = VGroup(rows, col_labels, row_labels, legend)
        theme.fit(grid, theme.FRAME_W / 2 - theme.MARGIN - 2.4)
        grid.move_to(RIGHT * PANEL_X + UP * 0.6)
        self._inside_x(grid)
        return grid

    @staticmethod
    def _cross(r: float) -> VGroup:
        return VGroup(Line(UP * r + LEFT * r, DOWN * r + RIGHT * r),
                      Line(UP * r + RIGHT * r, DOWN * r + LEFT * r)).set_stroke(theme.MUTED, 3)

    def _mark(self, mark: str) -> VGroup:
        label = theme.text(mark, 30, theme.ACCENT, weight="BOLD")
        disc = Circle(radius=0.2, stroke_width=0, fill_color=theme.BG, fill_opacity=1)
        return VGroup(disc, label.move_to(disc))

    def _weight_row(self, mark: str, name: str) -> VGroup:
        head = VGroup(theme.text(mark, theme.BODY_SIZE, theme.ACCENT),
                      theme.text(name, theme.SMALL_SIZE, theme.FG)).arrange(RIGHT, buff=0.2)
        mats = VGroup(*[theme.formula(f"W_{letter}", 34, color)
                        for letter, color in (("Q", theme.Q_COLOR), ("K", theme.K_COLOR),
                                              ("V", theme.V_COLOR))]).arrange(RIGHT, buff=0.4)
        mats.next_to(head, DOWN, buff=0.2, aligned_edge=LEFT).shift(RIGHT * 0.5)
        return VGroup(head, mats)

    @staticmethod
    def _inside_x(m: Mobject) -> None:
        lim = theme.FRAME_W / 2 - theme.MARGIN
        if m.get_right()[0] > lim:
            m.shift(LEFT * (m.get_right()[0] - lim))
