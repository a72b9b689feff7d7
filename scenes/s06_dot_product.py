"""Step ①: the blank's query against every word's key, entry by entry (the dot product)."""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class Table:
    """The scene's table: its pieces (heads, q and k cells, names, scores), made first, and
    where the columns (xs, widths, gap, total) and rows (y_head, y_q, y_rows, y_prod,
    y_note) sit, set by :meth:`DotProductScene._table` once the pieces are measured."""

    head_word: Text
    feat_heads: list[Text]
    head_score: Text
    q_name: Text
    q_cells: list[Text]
    names: list[Mobject]
    k_cells: list[list[Text]]
    score_cells: list[Text]
    xs: list[float] = field(default_factory=list)
    widths: list[float] = field(default_factory=list)
    gap: float = 0.0
    total: float = 0.0
    y_head: float = 0.0
    y_q: float = 0.0
    y_rows: list[float] = field(default_factory=list)
    y_prod: float = 0.0
    y_note: float = 0.0
    sep: Line | None = None


class DotProductScene(NarratedScene):
    scene_id = "dot_product"

    def narrate(self) -> None:
        fb = self.numbers.fill_blank
        self.n, self.dims = fb.K.shape
        self._intro()
        t = self.t = self._table()
        self._features(t)
        self._keys(t)
        self._one_dot(t)
        self._all_scores(t)
        self._matching(t)
        self._negative(t)

    # -- the beats ------------------------------------------------------------------------------
    def _intro(self) -> None:
        with self.beat("intro") as b:
            self.title_card(b)
            sentence = self.s("sentence")
            # one glyph per character, to find the words
            sent = theme.glyph_text(sentence, theme.BODY_SIZE)
            blank = glyphs(sent, sentence, "____")
            blank.shift(RIGHT * 0.2)  # a clear gap between the last word and the blank's box
            theme.fit(sent, theme.CONTENT_W - 1.6).move_to(UP * 0.4)
            tags, words = VGroup(), VGroup()
            for tok in self.numbers.fill_blank.tokens[self.lang]:
                g = glyphs(sent, sentence, tok)
                words.add(g)
                tags.add(theme.text("k", theme.SMALL_SIZE, theme.K_COLOR).next_to(g, DOWN, 0.2))
            blank.set_color(theme.Q_COLOR)
            q_tag = theme.text("q", theme.SMALL_SIZE, theme.Q_COLOR).next_to(blank, DOWN, 0.2)
            for tg in tags:
                tg.set_y(q_tag.get_y())
            # the sentence and the blank's q are in by {@keys} (English reaches it 2 s in,
            # after the title card: at full length the k tags came 0.5 s late)
            room = max(0.5, b.time_to("keys"))
            self.play(theme.reveal(sent), run_time=min(b.rt(0.12, 0.9), 0.65 * room))
            box = SurroundingRectangle(blank, color=theme.Q_COLOR, buff=0.1)
            self.play(Create(box), FadeIn(q_tag, shift=0.1 * UP),
                      run_time=min(b.rt(0.05, 0.4), 0.3 * room))
            b.until("keys")
            self.play(*[FadeIn(tg, shift=0.1 * UP) for tg in tags],
                      words.animate.set_color(theme.K_COLOR), run_time=b.rt(0.08, 0.8))
            self.play(*[Indicate(tg, color=theme.K_COLOR) for tg in tags], run_time=b.rt(0.08, 1.0))
            self.intro = VGroup(sent, box, q_tag, tags)

    def _features(self, t: Table) -> None:
        q_has = self.derived.fill_query_has
        with self.beat("features") as b:
            self.play(FadeOut(self.intro), run_time=b.rt(0.05, 0.4))
            self.play(FadeIn(VGroup(t.head_word, t.q_name, *t.names), shift=0.1 * DOWN),
                      run_time=b.rt(0.05, 0.5))
            for j, mark in enumerate(FEATURE_MARKS[:self.dims]):
                b.until(mark)
                self.play(FadeIn(t.feat_heads[j], shift=0.1 * DOWN), run_time=b.rt(0.05, 0.5))
            if self.dims > len(FEATURE_MARKS):
                self.play(FadeIn(VGroup(*t.feat_heads[len(FEATURE_MARKS):])),
                          run_time=b.rt(0.05, 0.5))
            b.until("q")
            self.play(FadeIn(VGroup(*t.q_cells), shift=0.1 * DOWN), Create(t.sep),
                      run_time=b.rt(0.06, 0.6))
            b.until("wants")
            wanted = VGroup(*[SurroundingRectangle(VGroup(t.feat_heads[j], t.q_cells[j]),
                                                   color=theme.Q_COLOR, buff=0.1) for j in q_has])
            self.play(Create(wanted), *[t.feat_heads[j].animate.set_color(theme.Q_COLOR)
                                        for j in q_has], run_time=b.rt(0.08, 0.8))
            self.wanted = wanted

    def _keys(self, t: Table) -> None:
        q_has = self.derived.fill_query_has
        with self.beat("keys") as b:
            self.play(FadeOut(self.wanted),
                      *[t.feat_heads[j].animate.set_color(theme.FG) for j in q_has],
                      FadeIn(VGroup(*t.k_cells[0]), shift=0.1 * DOWN), run_time=b.rt(0.08, 0.6))
            self.play(*widgets.light(VGroup(*t.k_cells[0]), theme.K_COLOR),
                      run_time=b.rt(0.1, 0.9))
            b.until("rest")
            for row in t.k_cells[1:]:
                self.play(FadeIn(VGroup(*row), shift=0.1 * DOWN), run_time=b.rt(0.06, 0.5))

    def _one_dot(self, t: Table) -> None:
        with self.beat("one_dot") as b:
            self.q_box = SurroundingRectangle(VGroup(*t.q_cells), color=theme.Q_COLOR, buff=0.15)
            self.k_box = self._row_box(t, 0)
            self.play(Create(self.q_box), Create(self.k_box), run_time=b.rt(0.06, 0.6))
            prod = self.prod = self._products(t, 0)
            self.rule = theme.text(self.s("dot_rule"), theme.SMALL_SIZE, theme.MUTED)
            self.rule.move_to(UP * t.y_note)
            self.play(FadeIn(self.rule), run_time=b.rt(0.04, 0.4))
            for j in range(self.dims):
                if j < len(PRODUCT_MARKS):
                    b.until(PRODUCT_MARKS[j])
                anims = [FadeIn(prod[0][j], shift=0.15 * DOWN),
                         Indicate(t.q_cells[j], color=theme.Q_COLOR),
                         Indicate(t.k_cells[0][j], color=theme.K_COLOR)]
                if j:
                    anims.append(FadeIn(prod[1][j - 1]))
                self.play(*anims, run_time=b.rt(0.06, 0.6))
            b.until("sum")
            self.play(FadeIn(prod[2]), FadeIn(prod[3]), run_time=b.rt(0.05, 0.4))
            widgets.land(self, prod[3], t.score_cells[0], b.rt(0.06, 0.6))
            self.add(t.head_score)
            b.until("name")
            self.show_working(b, prod, "name")  # the voice has said the sum by this mark
            self.name = theme.text(self.s("dot_name"), theme.BODY_SIZE, theme.ACCENT,
                                   weight="BOLD")
            self.name.next_to(self.rule, LEFT, buff=0.4)
            self.play(FadeIn(self.name, shift=0.1 * RIGHT),
                      self.rule.animate.set_color(theme.ACCENT), run_time=b.rt(0.08, 0.7))

    def _all_scores(self, t: Table) -> None:
        """The other words' scores, each from its row as the voice names it (only their
        results: the voice says them a second or so apart, too fast for a line of working
        each). The first dot product's working goes, once read, before another row is
        boxed: left under the table it would read as that row's."""
        with self.beat("all_scores") as b:
            self.hold_working(self.prod)
            for i in range(1, self.n):
                if i - 1 < len(ROW_MARKS):
                    b.until(ROW_MARKS[i - 1], lead=0.6)
                gone = [FadeOut(self.prod)] if i == 1 else []
                self.play(*gone, self.k_box.animate.become(self._row_box(t, i)),
                          run_time=b.rt(0.03, 0.25))
                self.play(FadeIn(t.score_cells[i], shift=0.3 * RIGHT),
                          Indicate(VGroup(*t.k_cells[i]), color=theme.K_COLOR),
                          run_time=b.rt(0.04, 0.4))
            b.until("one")
            self.play(*widgets.light(VGroup(*t.score_cells), theme.FG, 1.1),
                      run_time=b.rt(0.08, 0.8))

    def _matching(self, t: Table) -> None:
        with self.beat("matching") as b:
            self.note = theme.text(self.s("match"), theme.BODY_SIZE, theme.GOOD)
            self.note.move_to(UP * t.y_prod)
            widgets.fade_through(self, VGroup(self.rule, self.name, self.q_box, self.k_box),
                                 self.note, run_time=b.rt(0.06, 0.6), shift=0.1 * DOWN)
            shared = self.derived.fill_shared
            self.hit_q = VGroup(*[widgets.highlight(t.q_cells[j], theme.GOOD)
                                  for j in sorted({j for row in shared for j in row})])
            self.play(Create(self.hit_q), run_time=b.rt(0.06, 0.6))
            self.hits = VGroup()
            for i, mark in enumerate(MATCH_MARKS[:self.n]):
                b.until(mark)
                row_hits = VGroup(*[widgets.highlight(t.k_cells[i][j], theme.GOOD)
                                    for j in shared[i]])
                self.hits.add(row_hits)
                anims = [Indicate(t.score_cells[i], color=theme.GOOD, scale_factor=1.3)]
                if len(row_hits):
                    anims.append(Create(row_hits))
                else:
                    anims.append(Indicate(VGroup(t.names[i], *t.k_cells[i]), color=theme.MUTED))
                self.play(*anims, run_time=b.rt(0.08, 0.8))

    def _negative(self, t: Table) -> None:
        fb, low = self.numbers.fill_blank, self.derived.fill_low
        against_j = [j for j in range(self.dims) if fb.query[j] * fb.K[low][j] < 0]
        with self.beat("negative") as b:
            against = VGroup(*[widgets.highlight(t.k_cells[low][j], theme.ACCENT)
                               for j in against_j])
            note2 = theme.text(self.s("negative"), theme.BODY_SIZE, theme.ACCENT)
            note2.move_to(self.note)
            widgets.fade_through(self, self.note, note2, FadeOut(self.hits), FadeOut(self.hit_q),
                                 run_time=b.rt(0.06, 0.6))
            b.until("kneg")  # the key's entries against the query, as the voice names them
            if len(against):
                self.play(Create(against), run_time=b.rt(0.06, 0.7))
            b.until("low")
            self.play(Indicate(t.score_cells[low], color=theme.ACCENT, scale_factor=1.4),
                      Indicate(t.names[low], color=theme.ACCENT), run_time=b.rt(0.1, 1.0))
            b.until("why")
            self.play(*[Indicate(t.q_cells[j], color=theme.Q_COLOR) for j in against_j],
                      *[Indicate(t.k_cells[low][j], color=theme.K_COLOR) for j in against_j],
                      run_time=b.rt(0.1, 1.0))
            b.until("next")
            nxt = theme.text(self.s("next"), theme.BODY_SIZE, theme.ACCENT).move_to(self.note)
            score_box = SurroundingRectangle(VGroup(t.head_score, *t.score_cells),
                                             color=theme.ACCENT, buff=0.18)
            # the rule under the q row stops short of the score column's frame (it ran
            # into it)
            end = [score_box.get_left()[0] - 0.12, t.sep.get_end()[1], 0]
            widgets.fade_through(self, note2, nxt, FadeOut(against), Create(score_box),
                                 t.sep.animate.put_start_and_end_on(t.sep.get_start(), end),
                                 run_time=b.rt(0.08, 0.8))

    # -- the table ------------------------------------------------------------------------------
    def _table(self) -> Table:
        """word | features... | score; the query row on top, the keys below, laid out once."""
        fb, n, dims = self.numbers.fill_blank, self.n, self.dims
        t = Table(
            head_word=theme.text(self.s("word"), HEAD, theme.MUTED),
            feat_heads=[theme.text(f, HEAD, theme.FG) for f in self.items("features")],
            head_score=theme.text(self.s("score"), HEAD, theme.MUTED),
            q_name=theme.text(self.s("blank_q"), HEAD, theme.Q_COLOR),
            q_cells=[theme.text(self.num(v), NUM, theme.Q_COLOR) for v in fb.query],
            names=[theme.row_text(tok, NAME) for tok in fb.tokens[self.lang]],
            k_cells=[[theme.text(self.num(v), NUM, theme.K_COLOR) for v in row] for row in fb.K],
            score_cells=[theme.text(self.num(s), NUM, theme.FG, weight="BOLD")
                         for s in self.derived.fill_scores])
        columns = [[t.head_word, t.q_name, *t.names]]
        columns += [[t.feat_heads[j], t.q_cells[j], *[t.k_cells[i][j] for i in range(n)]]
                    for j in range(dims)]
        columns.append([t.head_score, *t.score_cells])
        t.widths = [max(m.width for m in col) for col in columns]
        t.gap = min(COL_GAP, (theme.CONTENT_W - 0.4 - sum(t.widths)) / (len(t.widths) - 1))
        t.total = sum(t.widths) + t.gap * (len(t.widths) - 1)
        x = -t.total / 2
        for w in t.widths:
            t.xs.append(x + w / 2)
            x += w + t.gap
        t.y_head = theme.CONTENT_TOP - 0.35
        t.y_q = t.y_head - 0.7
        t.y_rows = [t.y_q - 0.85 - ROW_H * i for i in range(n)]
        t.y_prod = t.y_rows[-1] - 0.8
        t.y_note = t.y_prod - 0.5
        for c, col in enumerate(columns):
            for m, y in zip(col, [t.y_head, *([] if c == len(columns) - 1 else [t.y_q]),
                                  *t.y_rows], strict=True):
                m.move_to(RIGHT * t.xs[c] + UP * y)
        for m in (t.head_word, t.q_name, *t.names):
            m.align_to(RIGHT * (t.xs[0] + t.widths[0] / 2), RIGHT)
        t.sep = Line(LEFT * (t.total / 2) + UP * (t.y_q - 0.4),
                     RIGHT * (t.total / 2) + UP * (t.y_q - 0.4), color=theme.MUTED,
                     stroke_width=2)
        return t

    def _products(self, t: Table, i: int) -> VGroup:
        """Under each feature column: q_j×k_ij, with + between and = score at the end."""
        fb, dims = self.numbers.fill_blank, self.dims
        line = widgets.product_line([(self.num(a), self.num(k)) for a, k in
                                     zip(fb.query, fb.K[i], strict=True)],
                                    self.num(self.derived.fill_scores[i]),
                                    (theme.Q_COLOR, theme.K_COLOR), NUM, theme.FG)
        terms = VGroup(*[line[2 * j] for j in range(dims)])
        pluses = VGroup(*[line[2 * j + 1] for j in range(dims - 1)])
        eq, total = line[-2], line[-1]
        for j, term in enumerate(terms):
            term.move_to(RIGHT * t.xs[1 + j] + UP * t.y_prod)
        for j, plus in enumerate(pluses):
            plus.move_to(RIGHT * (t.xs[1 + j] + t.xs[2 + j]) / 2 + UP * t.y_prod)
        eq.move_to(RIGHT * (t.xs[dims] + t.widths[dims] / 2 + t.gap / 2) + UP * t.y_prod)
        total.move_to(RIGHT * t.xs[-1] + UP * t.y_prod)
        return VGroup(terms, pluses, eq, total)

    @staticmethod
    def _row_box(t: Table, i: int) -> Mobject:
        return SurroundingRectangle(VGroup(*t.k_cells[i]), color=theme.K_COLOR, buff=0.15)
