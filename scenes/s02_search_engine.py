"""The search-engine analogy: a query (Q) matched against page tags (K), page bodies (V) read;
then the sentence as a search, its scores left to the dot-product scene."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AddTextLetterByLetter,
    Circle,
    Circumscribe,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    VGroup,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

BOX_Y = theme.CONTENT_TOP - 0.5
CARD_W = 9.6
CARD_H = 1.25
ROWS_Y = (0.8, -0.55, -1.9)  # the heads above the first card clear of it and the box
RANKS = "①②③④"
PAGE_H = 3.3  # room for tags that take two lines
PAGES_Y = BOX_Y - 0.8 - PAGE_H / 2


def _chip(s: str, color: str, max_width: float | None = None) -> VGroup:
    return widgets.chip(s, color, height=0.48, fill=theme.BG, max_width=max_width)


class SearchEngineScene(NarratedScene):
    scene_id = "search_engine"

    def narrate(self) -> None:
        fb = self.numbers.fill_blank

        with self.beat("intro") as b:
            header = self.title_card(b)
            words = self.items("query_words")
            query_text = theme.text(" ".join(words), theme.BODY_SIZE, theme.Q_COLOR)
            box, query = self._search_box(VGroup(query_text), width=6.4)
            # alone, the box sits in the middle of the screen; it rises to BOX_Y as the
            # result pages come in below it
            VGroup(box, query).move_to(theme.CONTENT_CENTER + RIGHT * 0.6)
            q_tag = widgets.role_tag("Q", self.s("q_tag"), theme.Q_COLOR)
            q_tag.next_to(box, LEFT, buff=0.35)
            searched = VGroup(box, query, q_tag)
            self.target("qtag", q_tag)  # "that's the query, Q"
            self.play(Create(box), run_time=min(b.rt(0.1, 0.7), b.time_to("type")))
            b.until("type")
            self.play(AddTextLetterByLetter(query_text), run_time=b.rt(0.15, 1.2))
            b.until("q")  # "those words": lit; "say what you want": the tag saying so
            self.play(Indicate(query_text, color=theme.Q_COLOR),
                      run_time=min(b.rt(0.1, 0.8), max(0.2, b.time_to("want"))))
            b.until("want")
            self.play(FadeIn(q_tag, shift=0.1 * RIGHT), run_time=b.rt(0.06, 0.5))

        with self.beat("results") as b:
            titles = self.items("titles")
            cards = [self._result_card(titles[i], self.items(f"tags_{i}")) for i in
                     range(len(titles))]
            for card, y in zip(cards, ROWS_Y, strict=True):
                card.move_to(UP * y)
            k_head = widgets.role_tag("K", self.s("k_tag"), theme.K_COLOR)
            k_head.align_to(cards[0].tags, LEFT).next_to(cards[0], UP, buff=0.14, coor_mask=UP)
            v_head = widgets.role_tag("V", self.s("v_tag"), theme.V_COLOR)
            v_head.align_to(cards[0].body, LEFT).set_y(k_head.get_y())
            self.target("vhead", v_head)  # "the value, V"
            b.until("pages")
            self.play(searched.animate.shift(UP * (BOX_Y - box.get_y())),
                      *[FadeIn(c, shift=0.2 * UP) for c in cards], run_time=b.rt(0.12, 1.0))
            b.until("k")
            # a tag's word flashes in place: grown, it would spill out of its chip
            self.play(FadeIn(k_head), *[Indicate(c.tag_labels, color=theme.K_COLOR,
                                                 scale_factor=1.0) for c in cards],
                      run_time=b.rt(0.12, 1.0))
            b.until("v")
            self.play(FadeIn(v_head), *[c.body.animate.set_opacity(0.9) for c in cards],
                      run_time=b.rt(0.12, 0.8))

        with self.beat("match") as b:
            hits = [[chip for chip, t in zip(card.tags, card.tag_words, strict=True)
                     if t in words] for card in cards]
            ranking = sorted(range(len(cards)), key=lambda i: -len(hits[i]))
            ranks = VGroup(*[
                theme.text(RANKS[r], theme.BODY_SIZE, theme.FG)
                .next_to(cards[i], LEFT, buff=0.2).set_y(ROWS_Y[r])
                for r, i in enumerate(ranking)
            ])
            self.play(Indicate(query_text, color=theme.Q_COLOR), run_time=b.rt(0.08, 0.8))
            self.play(LaggedStart(*[Indicate(c.tag_labels, color=theme.K_COLOR, scale_factor=1.0)
                                    for c in cards], lag_ratio=0.3),
                      run_time=min(1.2, b.time_to("both")))
            for r, (i, mark) in enumerate(zip(ranking, ("both", "one", "none"), strict=True)):
                b.until(mark)
                anims = [] if r == 0 else [FadeIn(ranks[r], shift=0.1 * RIGHT)]
                if hits[i]:
                    anims += [chip[0].animate.set_fill(theme.K_COLOR, 0.35) for chip in hits[i]]
                    anims += [Indicate(chip[1], color=theme.FG, scale_factor=1.0)
                              for chip in hits[i]]
                else:
                    anims.append(cards[i].tags.animate.set_opacity(0.4))
                self.play(*anims, run_time=b.rt(0.08, 0.7))
                if r == 0:
                    b.until("top")
                    self._resort(b, cards, ranking, ranks[0])

        with self.beat("read") as b:
            top, second, last = (cards[i] for i in ranking)
            b.until("body")
            self.play(*[Indicate(c.body, color=theme.V_COLOR, scale_factor=1.05) for c in cards],
                      v_head.animate.scale(1.15), run_time=b.rt(0.1, 0.8))
            self.play(v_head.animate.scale(1 / 1.15), run_time=b.rt(0.04, 0.3))
            b.until("first")
            self.play(top.body.animate.set_fill(theme.V_COLOR, 1),
                      top.frame.animate.set_stroke(theme.V_COLOR, width=3),
                      run_time=b.rt(0.12, 0.8))
            b.until("second")
            self.play(second.body.animate.set_fill(theme.V_COLOR, 0.45), run_time=b.rt(0.1, 0.6))
            b.until("last")
            self.play(last.animate.set_opacity(0.35), ranks[-1].animate.set_opacity(0.35),
                      run_time=b.rt(0.08, 0.5))

        with self.beat("sentence") as b:
            self.clear_content(b, keep=(header,))
            tokens = fb.tokens[self.lang]
            features = fb.features[self.lang]
            vfeatures = fb.value_features[self.lang]
            want = [j for j in range(len(features)) if fb.query[j] > 0]
            chips = VGroup(*[_chip(features[j], theme.Q_COLOR) for j in want])
            chips.arrange(RIGHT, buff=0.2)
            blank = theme.text(self.s("blank"), theme.BODY_SIZE, theme.Q_COLOR)
            inner = VGroup(blank, chips).arrange(RIGHT, buff=0.35)
            box2, inner = self._search_box(inner, width=inner.width + 1.3)
            # the sentence, then the search it makes, in the middle of the screen until the
            # pages come in below the box, which rises to BOX_Y
            VGroup(box2, inner).move_to(theme.CONTENT_CENTER)
            q_badge = widgets.letter_badge("Q").next_to(box2, LEFT, buff=0.25)
            search = VGroup(box2, inner, q_badge)
            pages = VGroup()
            for i, tok in enumerate(tokens):
                # a key's tags: the features it has; a negative entry says it is not that
                tags = [(features[j] if fb.K[i][j] > 0 else self.s("not_tag") + features[j],
                         fb.K[i][j] > 0) for j in range(len(features)) if fb.K[i][j] != 0]
                v_idx = [j for j in range(len(vfeatures)) if fb.V[i][j] > 0]
                pages.add(self._page(tok, tags, [vfeatures[j] for j in v_idx]))
            pages.arrange(RIGHT, buff=0.3)
            theme.fit(pages, theme.CONTENT_W)
            pages.move_to(UP * PAGES_Y)
            nxt = theme.text(self.s("next"), theme.BODY_SIZE, theme.ACCENT)
            nxt.next_to(pages, DOWN, buff=0.25)
            # "now, our sentence": it is shown, then becomes the search its blank makes
            sentence = theme.text(self.s("sentence"), theme.BODY_SIZE, theme.FG)
            theme.fit(sentence, theme.CONTENT_W).move_to(theme.CONTENT_CENTER)
            self.play(theme.reveal(sentence), run_time=min(b.rt(0.1, 0.6), b.time_to("blank")))
            b.until("blank")
            self.play(FadeOut(sentence, shift=0.2 * UP), run_time=b.rt(0.05, 0.3))
            self.play(Create(box2), FadeIn(inner), FadeIn(q_badge), run_time=b.rt(0.1, 0.8))
            b.until("pages")
            self.play(search.animate.shift(UP * (BOX_Y - box2.get_y())),
                      LaggedStart(*[FadeIn(p, shift=0.2 * UP) for p in pages], lag_ratio=0.25),
                      run_time=b.rt(0.15, 1.6))
            # "with tags, K, and content, V": each part of the pages lit as it is named
            b.until("tk")
            self.play(*[Indicate(p.k_marks, color=theme.K_COLOR, scale_factor=1.1)
                        for p in pages],
                      run_time=min(b.rt(0.08, 0.8), max(0.2, b.time_to("tv"))))
            b.until("tv")
            self.play(*[Indicate(p.v_marks, color=theme.V_COLOR, scale_factor=1.1)
                        for p in pages], run_time=b.rt(0.08, 0.8))
            b.until("next")
            self.play(FadeIn(nxt, shift=0.1 * UP),
                      Circumscribe(chips, color=theme.Q_COLOR, buff=0.06),
                      run_time=b.rt(0.1, 0.8))

    # -- pieces ---------------------------------------------------------------------------------
    def _resort(self, b, cards: list[VGroup], ranking: list[int], first: VGroup) -> None:
        """The list re-sorts as the voice says the best match goes on top: the cards that
        change rows leave, then reappear in their new rows (sliding them past each other
        would overlap them), the top one with its rank."""
        moving = [(cards[i], ROWS_Y[r]) for r, i in enumerate(ranking)
                  if abs(cards[i].get_y() - ROWS_Y[r]) > 0.01]
        if moving:
            self.play(*[FadeOut(c, shift=0.3 * LEFT) for c, _ in moving],
                      run_time=b.rt(0.04, 0.35))
            for c, y in moving:
                c.set_y(y)
        self.play(*[FadeIn(c, shift=0.3 * RIGHT) for c, _ in moving],
                  FadeIn(first, shift=0.1 * RIGHT), run_time=b.rt(0.04, 0.4))

    @staticmethod
    def _search_box(content: VGroup, width: float) -> tuple[VGroup, VGroup]:
        """A rounded search field with a magnifier; ``content`` is placed inside it."""
        field = theme.panel(width, 0.8, color=theme.FG)
        lens = Circle(radius=0.14).set_stroke(theme.MUTED, width=3)
        handle = Line(ORIGIN_SE, ORIGIN_SE * 2.2).set_stroke(theme.MUTED, width=3)
        icon = VGroup(lens, handle.shift(lens.get_center()))
        icon.move_to(field.get_left() + RIGHT * 0.4)
        content.next_to(icon, RIGHT, buff=0.3)
        return VGroup(field, icon), content

    def _result_card(self, title: str, tags: tuple[str, ...]) -> VGroup:
        frame = theme.panel(CARD_W, CARD_H, color=theme.MUTED)
        head = theme.text(title, theme.BODY_SIZE, theme.FG)
        chips = widgets.chip_row(tags, theme.K_COLOR, buff=0.15, height=0.48, fill=theme.BG)
        left = VGroup(head, chips).arrange(DOWN, aligned_edge=LEFT, buff=0.12)
        theme.fit(left, CARD_W / 2 - 0.2)
        left.move_to(frame.get_left() + RIGHT * (0.3 + left.width / 2))
        body = VGroup(*[
            Rectangle(width=w, height=0.08).set_stroke(width=0).set_fill(theme.MUTED, 0.9)
            for w in (3.4, 3.1, 2.2)
        ]).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        body.move_to(frame.get_center() + RIGHT * (CARD_W / 4 - 0.1))
        body.set_opacity(0.35)
        card = VGroup(frame, left, body)
        card.frame, card.tags, card.body, card.tag_words = frame, chips, body, tags
        card.tag_labels = VGroup(*[c[1] for c in chips])
        return card

    def _page(self, token: str, tags: list[tuple[str, bool]], values: list[str]) -> VGroup:
        """One earlier word as a web page: its title, its tags (K) and its content (V)."""
        frame = theme.panel(3.05, PAGE_H, color=theme.MUTED)
        head = theme.text(token, theme.BODY_SIZE, theme.FG, weight="BOLD")
        head.move_to(frame.get_top() + DOWN * 0.3)
        rule = Line(LEFT * 1.3, RIGHT * 1.3).set_stroke(theme.MUTED, width=1)
        rule.next_to(head, DOWN, buff=0.1)
        k = theme.text("K", theme.SMALL_SIZE, theme.K_COLOR, weight="BOLD")
        room = frame.width - 0.3 - k.width - 0.15  # beside the K
        chips = VGroup(*[_chip(t, theme.K_COLOR if has else theme.MUTED, room)
                         for t, has in tags])
        if not tags:
            chips.add(VGroup(theme.text(self.s("none"), theme.SMALL_SIZE, theme.MUTED)))
        chips.arrange(DOWN, aligned_edge=LEFT, buff=0.08)
        k_part = VGroup(k, chips).arrange(RIGHT, buff=0.15, aligned_edge=UP)
        theme.fit(k_part, frame.width - 0.3)
        k_part.next_to(rule, DOWN, buff=0.1).set_x(frame.get_x())
        v = theme.text("V", theme.SMALL_SIZE, theme.V_COLOR, weight="BOLD")
        value_text = ", ".join(values) if values else self.s("none")
        value = _chip(value_text, theme.V_COLOR if values else theme.MUTED,
                      frame.width - 0.3 - v.width - 0.15)
        v_part = VGroup(v, value).arrange(RIGHT, buff=0.15)
        theme.fit(v_part, frame.width - 0.3)
        v_part.move_to(frame.get_bottom() + UP * 0.32).set_x(frame.get_x())
        page = VGroup(frame, head, rule, k_part, v_part)
        # what to flash: letters and words only (flashing a chip would fill its box)
        page.k_marks = VGroup(k, *[c[-1] for c in chips])
        page.v_marks = VGroup(v, value[1])
        return page


ORIGIN_SE = (RIGHT + DOWN) * 0.1
