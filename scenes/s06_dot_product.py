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
    VGroup,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

ROW_H = 0.68
COL_GAP = 0.9  # at most; narrower when the columns need the room
HEAD = 26  # font sizes of the table: column heads, numbers, word names
NUM = 34
NAME = 32
# cue marks of the narration, in order (the first features, products and rows it names)
FEATURE_MARKS = ("feat_a", "feat_b", "feat_c")
PRODUCT_MARKS = ("pa", "pb", "pc")
ROW_MARKS = ("second", "third", "fourth")
MATCH_MARKS = ("m_a", "m_b", "m_c")



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
            sent = Text(sentence, font=theme.FONT, font_size=30, color=theme.FG,
                        disable_ligatures=True)  # one glyph per character, to find the words
            blank = glyphs(sent, sentence, "____")
            blank.shift(RIGHT * 0.2)  # a clear gap between the last word and the blank's box
            theme.fit(sent, theme.CONTENT_W - 1.6).move_to(UP * 0.4)
            tags, words = VGroup(), VGroup()
            for t in tokens:
                g = glyphs(sent, sentence, t)
                words.add(g)
                tags.add(theme.text("k", theme.SMALL_SIZE, theme.K_COLOR).next_to(g, DOWN, 0.2))
            blank.set_color(theme.Q_COLOR)
            q_tag = theme.text("q", theme.SMALL_SIZE, theme.Q_COLOR).next_to(blank, DOWN, 0.2)
            for tg in tags:
                tg.set_y(q_tag.get_y())
            self.play(theme.reveal(sent), run_time=b.rt(0.12, 0.9))
            box = SurroundingRectangle(blank, color=theme.Q_COLOR, buff=0.1)
            self.play(Create(box), FadeIn(q_tag, shift=0.1 * UP), run_time=b.rt(0.05, 0.4))
            b.until("keys")
            self.play(*[FadeIn(tg, shift=0.1 * UP) for tg in tags],
                      words.animate.set_color(theme.K_COLOR), run_time=b.rt(0.08, 0.8))
            self.play(*[Indicate(tg, color=theme.K_COLOR) for tg in tags], run_time=b.rt(0.08, 1.0))

        # the table: word | features... | score; the query row on top, keys below
        head_word = theme.text(self.s("word"), HEAD, theme.MUTED)
        feat_heads = [theme.text(f, HEAD, theme.FG) for f in self.items("features")]
        head_score = theme.text(self.s("score"), HEAD, theme.MUTED)
        q_name = theme.text(self.s("blank_q"), HEAD, theme.Q_COLOR)
        q_cells = [theme.text(self.num(v), NUM, theme.Q_COLOR) for v in fb.query]
        names = [theme.row_text(t, NAME) for t in tokens]
        k_cells = [[theme.text(self.num(v), NUM, theme.K_COLOR) for v in row]
                   for row in fb.K]
        score_cells = [theme.text(self.num(s), NUM, theme.FG, weight="BOLD")
                       for s in scores]
        columns = [[head_word, q_name, *names]]
        columns += [[feat_heads[j], q_cells[j], *[k_cells[i][j] for i in range(n)]]
                    for j in range(dims)]
        columns.append([head_score, *score_cells])
        widths = [max(m.width for m in col) for col in columns]
        gap = min(COL_GAP, (theme.CONTENT_W - 0.4 - sum(widths)) / (len(widths) - 1))
        total = sum(widths) + gap * (len(widths) - 1)
        xs, x = [], -total / 2
        for w in widths:
            xs.append(x + w / 2)
            x += w + gap
        y_head = theme.CONTENT_TOP - 0.35
        y_q = y_head - 0.7
        y_rows = [y_q - 0.85 - ROW_H * i for i in range(n)]
        y_prod = y_rows[-1] - 0.8
        y_note = y_prod - 0.5
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
        sep = Line(LEFT * (total / 2) + UP * (y_q - 0.4), RIGHT * (total / 2) + UP * (y_q - 0.4),
                   color=theme.MUTED, stroke_width=2)
        k_rows = [VGroup(names[i], *k_cells[i]) for i in range(n)]

        q_has = self.derived.fill_query_has
        with self.beat("features") as b:
            self.play(FadeOut(VGroup(sent, box, q_tag, tags)), run_time=b.rt(0.05, 0.4))
            self.play(FadeIn(VGroup(head_word, q_name, *names), shift=0.1 * DOWN),
                      run_time=b.rt(0.05, 0.5))
            for j, mark in enumerate(FEATURE_MARKS[:dims]):
                b.until(mark)
                self.play(FadeIn(feat_heads[j], shift=0.1 * DOWN), run_time=b.rt(0.05, 0.5))
            if dims > len(FEATURE_MARKS):
                self.play(FadeIn(VGroup(*feat_heads[len(FEATURE_MARKS):])),
                          run_time=b.rt(0.05, 0.5))
            b.until("q")
            self.play(FadeIn(VGroup(*q_cells), shift=0.1 * DOWN), Create(sep),
                      run_time=b.rt(0.06, 0.6))
            b.until("wants")
            wanted = VGroup(*[SurroundingRectangle(VGroup(feat_heads[j], q_cells[j]),
                                                   color=theme.Q_COLOR, buff=0.1) for j in q_has])
            self.play(Create(wanted), *[feat_heads[j].animate.set_color(theme.Q_COLOR)
                                        for j in q_has], run_time=b.rt(0.08, 0.8))

        with self.beat("keys") as b:
            self.play(FadeOut(wanted), *[feat_heads[j].animate.set_color(theme.FG) for j in q_has],
                      FadeIn(VGroup(*k_cells[0]), shift=0.1 * DOWN), run_time=b.rt(0.08, 0.6))
            self.play(Indicate(VGroup(*k_cells[0]), color=theme.K_COLOR), run_time=b.rt(0.1, 0.9))
            b.until("rest")
            for row in k_cells[1:]:
                self.play(FadeIn(VGroup(*row), shift=0.1 * DOWN), run_time=b.rt(0.06, 0.5))

        def factor(x: float) -> str:
            """A second factor as written after ×: negatives in parentheses."""
            return f"({self.num(x)})" if x < 0 else self.num(x)

        def products(i: int) -> VGroup:
            """Under each feature column: q_j×k_ij, with + between and = score at the end."""
            terms = VGroup()
            for j in range(dims):
                term = VGroup(theme.text(self.num(fb.query[j]), NUM, theme.Q_COLOR),
                              theme.text("×", NUM, theme.MUTED),
                              theme.text(factor(fb.K[i][j]), NUM, theme.K_COLOR)
                              ).arrange(RIGHT, buff=0.08)
                terms.add(term.move_to(RIGHT * xs[1 + j] + UP * y_prod))
            pluses = VGroup(*[
                theme.text("+", NUM, theme.MUTED)
                .move_to(RIGHT * (xs[1 + j] + xs[2 + j]) / 2 + UP * y_prod)
                for j in range(dims - 1)])
            eq = theme.text("=", NUM, theme.MUTED)
            eq.move_to(RIGHT * (xs[dims] + widths[dims] / 2 + gap / 2) + UP * y_prod)
            total_m = theme.text(self.num(scores[i]), NUM, theme.FG, weight="BOLD")
            total_m.move_to(RIGHT * xs[-1] + UP * y_prod)
            return VGroup(terms, pluses, eq, total_m)

        def row_box(i: int) -> Mobject:
            return SurroundingRectangle(VGroup(*k_cells[i]), color=theme.K_COLOR, buff=0.15)

        with self.beat("one_dot") as b:
            q_box = SurroundingRectangle(VGroup(*q_cells), color=theme.Q_COLOR, buff=0.15)
            k_box = row_box(0)
            self.play(Create(q_box), Create(k_box), run_time=b.rt(0.06, 0.6))
            prod = products(0)
            rule = theme.text(self.s("dot_rule"), theme.SMALL_SIZE, theme.MUTED)
            rule.move_to(UP * y_note)
            self.play(FadeIn(rule), run_time=b.rt(0.04, 0.4))
            for j in range(dims):
                if j < len(PRODUCT_MARKS):
                    b.until(PRODUCT_MARKS[j])
                anims = [FadeIn(prod[0][j], shift=0.15 * DOWN),
                         Indicate(q_cells[j], color=theme.Q_COLOR),
                         Indicate(k_cells[0][j], color=theme.K_COLOR)]
                if j:
                    anims.append(FadeIn(prod[1][j - 1]))
                self.play(*anims, run_time=b.rt(0.06, 0.6))
            b.until("sum")
            self.play(FadeIn(prod[2]), FadeIn(prod[3]), run_time=b.rt(0.05, 0.4))
            widgets.land(self, prod[3], score_cells[0], b.rt(0.06, 0.6))
            self.add(head_score)
            b.until("name")
            name = theme.text(self.s("dot_name"), theme.BODY_SIZE, theme.ACCENT, weight="BOLD")
            name.next_to(rule, LEFT, buff=0.4)
            self.play(FadeIn(name, shift=0.1 * RIGHT), rule.animate.set_color(theme.ACCENT),
                      run_time=b.rt(0.08, 0.7))

        with self.beat("all_scores") as b:
            for i in range(1, n):
                new = products(i)
                if i - 1 < len(ROW_MARKS):
                    b.until(ROW_MARKS[i - 1], lead=0.6)
                # the old products leave before the new ones come (no cross-fade of texts)
                self.play(k_box.animate.become(row_box(i)), FadeOut(prod),
                          run_time=b.rt(0.03, 0.25))
                self.play(FadeIn(new), run_time=b.rt(0.03, 0.25))
                prod = new
                widgets.land(self, prod[3], score_cells[i], b.rt(0.04, 0.4))
            b.until("one")
            self.play(Indicate(VGroup(*score_cells), color=theme.FG, scale_factor=1.1),
                      run_time=b.rt(0.08, 0.8))

        with self.beat("matching") as b:
            note = theme.text(self.s("match"), theme.BODY_SIZE, theme.GOOD).move_to(UP * y_prod)
            self.play(FadeOut(VGroup(prod, rule, name, q_box, k_box)), FadeIn(note),
                      run_time=b.rt(0.06, 0.6))
            shared = self.derived.fill_shared
            hit_q = VGroup(*[SurroundingRectangle(q_cells[j], color=theme.GOOD, buff=0.08)
                             for j in sorted({j for row in shared for j in row})])
            self.play(Create(hit_q), run_time=b.rt(0.06, 0.6))
            hits = VGroup()
            for i, mark in enumerate(MATCH_MARKS[:n]):
                b.until(mark)
                row_hits = VGroup(*[SurroundingRectangle(k_cells[i][j], color=theme.GOOD,
                                                         buff=0.08) for j in shared[i]])
                hits.add(row_hits)
                anims = [Indicate(score_cells[i], color=theme.GOOD, scale_factor=1.3)]
                if len(row_hits):
                    anims.append(Create(row_hits))
                else:
                    anims.append(Indicate(k_rows[i], color=theme.MUTED))
                self.play(*anims, run_time=b.rt(0.08, 0.8))

        with self.beat("negative") as b:
            low = self.derived.fill_low
            against = VGroup(*[
                SurroundingRectangle(k_cells[low][j], color=theme.ACCENT, buff=0.08)
                for j in range(dims) if fb.query[j] * fb.K[low][j] < 0])
            note2 = theme.text(self.s("negative"), theme.BODY_SIZE, theme.ACCENT)
            note2.move_to(note)
            self.play(FadeOut(hits), FadeOut(hit_q), FadeOut(note), FadeIn(note2),
                      run_time=b.rt(0.06, 0.6))
            if len(against):
                self.play(Create(against), run_time=b.rt(0.06, 0.7))
            b.until("low")
            self.play(Indicate(score_cells[low], color=theme.ACCENT, scale_factor=1.4),
                      Indicate(names[low], color=theme.ACCENT), run_time=b.rt(0.1, 1.0))
            b.until("why")
            wanted = [j for j in range(dims) if fb.query[j] * fb.K[low][j] < 0]
            self.play(*[Indicate(q_cells[j], color=theme.Q_COLOR) for j in wanted],
                      *[Indicate(k_cells[low][j], color=theme.K_COLOR) for j in wanted],
                      run_time=b.rt(0.1, 1.0))
            b.until("next")
            nxt = theme.text(self.s("next"), theme.BODY_SIZE, theme.ACCENT).move_to(note)
            score_box = SurroundingRectangle(VGroup(head_score, *score_cells), color=theme.ACCENT,
                                             buff=0.18)
            self.play(FadeOut(note2), FadeOut(against), FadeIn(nxt), Create(score_box),
                      run_time=b.rt(0.08, 0.8))
