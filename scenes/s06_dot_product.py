"""Step ①: the blank's query against every word's key, entry by entry (the dot product)."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    Mobject,
    SurroundingRectangle,
    Text,
    Transform,
    VGroup,
    Write,
)

from scenes import theme
from scenes.base import NarratedScene

ROW_H = 0.6
COL_GAP = 0.55



def glyphs(t: Text, source: str, word: str) -> VGroup:
    """The glyphs of the first ``word`` in a Text built from ``source`` without ligatures
    (then every character, spaces included, is one submobject)."""
    i = source.find(word)
    if i < 0:
        return VGroup()
    return VGroup(*t.submobjects[i:i + len(word)])


class DotProductScene(NarratedScene):
    scene_id = "dot_product"

    def narrate(self) -> None:
        fb = self.numbers.fill_blank
        tokens = fb.tokens[self.lang]
        scores = self.derived.fill_scores
        n, dims = fb.K.shape

        with self.beat("intro") as b:
            self.title_card(b)
            sentence = self.s("sentence")
            sent = Text(sentence, font=theme.FONT, font_size=34, color=theme.FG,
                        disable_ligatures=True)  # one glyph per character, to find the words
            theme.fit(sent).move_to(UP * 0.4)
            tags = VGroup()
            for t in tokens:
                g = glyphs(sent, sentence, t)
                g.set_color(theme.K_COLOR)
                tags.add(theme.text("k", theme.SMALL_SIZE, theme.K_COLOR).next_to(g, DOWN, 0.2))
            blank = glyphs(sent, sentence, "____")
            blank.set_color(theme.Q_COLOR)
            q_tag = theme.text("q", theme.SMALL_SIZE, theme.Q_COLOR).next_to(blank, DOWN, 0.2)
            for tg in tags:
                tg.set_y(q_tag.get_y())
            self.play(Write(sent), run_time=b.rt(0.15, 1.5))
            box = SurroundingRectangle(blank, color=theme.Q_COLOR, buff=0.1)
            self.play(Create(box), FadeIn(q_tag, shift=0.1 * UP), run_time=b.rt(0.06, 0.6))
            self.play(*[FadeIn(tg, shift=0.1 * UP) for tg in tags], run_time=b.rt(0.08, 0.8))
            self.play(*[Indicate(tg, color=theme.K_COLOR) for tg in tags], run_time=b.rt(0.08, 1.0))

        # the table: word | features... | score; the query row on top, keys below
        head_word = theme.text(self.s("word"), theme.SMALL_SIZE, theme.MUTED)
        feat_heads = [theme.text(f, theme.SMALL_SIZE, theme.FG) for f in self.items("features")]
        head_score = theme.text(self.s("score"), theme.SMALL_SIZE, theme.MUTED)
        q_name = theme.text(self.s("blank_q"), theme.SMALL_SIZE, theme.Q_COLOR)
        q_cells = [theme.text(self.num(v), theme.NUM_SIZE, theme.Q_COLOR) for v in fb.query]
        names = [theme.row_text(t, theme.BODY_SIZE) for t in tokens]
        k_cells = [[theme.text(self.num(v), theme.NUM_SIZE, theme.K_COLOR) for v in row]
                   for row in fb.K]
        score_cells = [theme.text(self.num(s), theme.NUM_SIZE, theme.FG, weight="BOLD")
                       for s in scores]
        columns = [[head_word, q_name, *names]]
        columns += [[feat_heads[j], q_cells[j], *[k_cells[i][j] for i in range(n)]]
                    for j in range(dims)]
        columns.append([head_score, *score_cells])
        widths = [max(m.width for m in col) for col in columns]
        total = sum(widths) + COL_GAP * (len(widths) - 1)
        xs, x = [], -total / 2
        for w in widths:
            xs.append(x + w / 2)
            x += w + COL_GAP
        y_head, y_q = theme.CONTENT_TOP - 0.55, theme.CONTENT_TOP - 1.2
        y_rows = [y_q - 0.75 - ROW_H * i for i in range(n)]
        y_prod = y_rows[-1] - 0.85
        y_note = y_prod - 0.6
        for c, col in enumerate(columns[:-1]):
            col[0].move_to(RIGHT * xs[c] + UP * y_head)
            col[1].move_to(RIGHT * xs[c] + UP * y_q)
            for i in range(n):
                col[2 + i].move_to(RIGHT * xs[c] + UP * y_rows[i])
        head_score.move_to(RIGHT * xs[-1] + UP * y_head)
        for i in range(n):
            score_cells[i].move_to(RIGHT * xs[-1] + UP * y_rows[i])
        q_name.align_to(RIGHT * (xs[0] + widths[0] / 2), RIGHT)
        for m in (head_word, *names):
            m.align_to(RIGHT * (xs[0] + widths[0] / 2), RIGHT)
        sep = Line(LEFT * (total / 2) + UP * (y_q - 0.36), RIGHT * (total / 2) + UP * (y_q - 0.36),
                   color=theme.MUTED, stroke_width=2)
        q_row = VGroup(q_name, *q_cells)
        k_rows = [VGroup(names[i], *k_cells[i]) for i in range(n)]

        with self.beat("features") as b:
            self.play(FadeOut(VGroup(sent, box, q_tag, tags)), run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(VGroup(head_word, *feat_heads), shift=0.1 * DOWN),
                      run_time=b.rt(0.08, 0.8))
            self.play(*[Indicate(h, color=theme.ACCENT, scale_factor=1.1) for h in feat_heads],
                      run_time=b.rt(0.1, 1.2))
            self.play(FadeIn(q_row, shift=0.1 * DOWN), Create(sep), run_time=b.rt(0.08, 0.8))
            self.play(Indicate(VGroup(*q_cells), color=theme.Q_COLOR), run_time=b.rt(0.06, 0.8))

        with self.beat("keys") as b:
            for row in k_rows:
                self.play(FadeIn(row, shift=0.1 * DOWN), run_time=b.rt(0.06, 0.5))
            self.play(Indicate(VGroup(*k_cells[0]), color=theme.K_COLOR), run_time=b.rt(0.1, 1.0))

        def products(i: int) -> VGroup:
            """Under each feature column: q_j×k_ij, with + between and = score at the end."""
            terms = VGroup()
            for j in range(dims):
                term = VGroup(theme.text(self.num(fb.query[j]), theme.NUM_SIZE, theme.Q_COLOR),
                              theme.text("×", theme.NUM_SIZE, theme.MUTED),
                              theme.text(self.num(fb.K[i][j]), theme.NUM_SIZE, theme.K_COLOR)
                              ).arrange(RIGHT, buff=0.08)
                terms.add(term.move_to(RIGHT * xs[1 + j] + UP * y_prod))
            pluses = VGroup(*[
                theme.text("+", theme.NUM_SIZE, theme.MUTED)
                .move_to(RIGHT * (xs[1 + j] + xs[2 + j]) / 2 + UP * y_prod)
                for j in range(dims - 1)])
            eq = theme.text("=", theme.NUM_SIZE, theme.MUTED)
            eq.move_to(RIGHT * (xs[dims] + widths[dims] / 2 + COL_GAP / 2) + UP * y_prod)
            total_m = theme.text(self.num(scores[i]), theme.NUM_SIZE, theme.FG, weight="BOLD")
            total_m.move_to(RIGHT * xs[-1] + UP * y_prod)
            return VGroup(terms, pluses, eq, total_m)

        def row_box(i: int) -> Mobject:
            return SurroundingRectangle(VGroup(*k_cells[i]), color=theme.K_COLOR, buff=0.1)

        with self.beat("one_dot") as b:
            q_box = SurroundingRectangle(VGroup(*q_cells), color=theme.Q_COLOR, buff=0.1)
            k_box = row_box(0)
            self.play(Create(q_box), Create(k_box), run_time=b.rt(0.06, 0.6))
            prod = products(0)
            rule = theme.text(self.s("dot_rule"), theme.SMALL_SIZE, theme.MUTED)
            rule.move_to(UP * y_note)
            self.play(FadeIn(rule), run_time=b.rt(0.04, 0.4))
            for j in range(dims):
                anims = [FadeIn(prod[0][j], shift=0.15 * DOWN),
                         Indicate(q_cells[j], color=theme.Q_COLOR),
                         Indicate(k_cells[0][j], color=theme.K_COLOR)]
                if j:
                    anims.append(FadeIn(prod[1][j - 1]))
                self.play(*anims, run_time=b.rt(0.08, 0.7))
            self.play(FadeIn(prod[2]), FadeIn(prod[3]), run_time=b.rt(0.06, 0.5))
            self._land(prod[3], score_cells[0], b.rt(0.08, 0.7))
            self.add(head_score)

        with self.beat("all_scores") as b:
            for i in range(1, n):
                new = products(i)
                self.play(k_box.animate.become(row_box(i)), Transform(prod, new),
                          run_time=b.rt(0.06, 0.6))
                self._land(prod[3], score_cells[i], b.rt(0.06, 0.6))
            self.play(Indicate(VGroup(*score_cells), color=theme.FG, scale_factor=1.1),
                      run_time=b.rt(0.08, 0.8))

        with self.beat("matching") as b:
            self.play(FadeOut(VGroup(prod, rule, q_box, k_box)), run_time=b.rt(0.04, 0.4))
            hits = VGroup(*[
                SurroundingRectangle(k_cells[i][j], color=theme.GOOD, buff=0.08)
                for i in range(n) for j in range(dims) if fb.query[j] * fb.K[i][j] > 0])
            hit_q = VGroup(*[
                SurroundingRectangle(q_cells[j], color=theme.GOOD, buff=0.08)
                for j in range(dims) if fb.query[j] > 0])
            note = theme.text(self.s("match"), theme.BODY_SIZE, theme.GOOD).move_to(UP * y_prod)
            self.play(Create(hit_q), Create(hits), FadeIn(note), run_time=b.rt(0.1, 1.0))
            top = int(scores.argmax())
            self.play(Indicate(score_cells[top], color=theme.GOOD, scale_factor=1.3),
                      run_time=b.rt(0.08, 1.0))
            zero = [i for i in range(n) if scores[i] == 0]
            if zero:
                self.play(Indicate(k_rows[zero[0]], color=theme.MUTED), run_time=b.rt(0.08, 1.0))

        with self.beat("negative") as b:
            low = int(scores.argmin())
            against = VGroup(*[
                SurroundingRectangle(k_cells[low][j], color=theme.V_COLOR, buff=0.08)
                for j in range(dims) if fb.query[j] * fb.K[low][j] < 0])
            note2 = theme.text(self.s("negative"), theme.BODY_SIZE, theme.V_COLOR)
            note2.move_to(note)
            self.play(FadeOut(hits), FadeOut(note), Create(against), FadeIn(note2),
                      run_time=b.rt(0.08, 0.8))
            self.play(Indicate(score_cells[low], color=theme.V_COLOR, scale_factor=1.4),
                      run_time=b.rt(0.1, 1.0))
            nxt = theme.text(self.s("next"), theme.BODY_SIZE, theme.ACCENT).move_to(note)
            score_box = SurroundingRectangle(VGroup(*score_cells), color=theme.ACCENT, buff=0.12)
            self.play(FadeOut(note2), FadeOut(hit_q), FadeOut(against), FadeIn(nxt),
                      Create(score_box), run_time=b.rt(0.08, 0.8))

    def _land(self, src: Mobject, target: Mobject, run_time: float) -> None:
        """Move a copy of ``src`` onto ``target`` (not yet on stage), then show ``target``."""
        moving = src.copy()
        self.play(Transform(moving, target.copy()), run_time=run_time)
        self.remove(moving)
        self.add(target)
