"""The library analogy: what you want (Q), catalogue-card labels (K), the books' content (V).

Query, match, take, told qualitatively: how well each card fits is a picture of the story
(an exact subject, a related one, two unrelated), not the sentence's shares.
"""

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
    Rectangle,
    TransformFromCopy,
    VGroup,
    there_and_back,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

LEFT_X = -5.0
CARD_X = -0.8
CARD_W, CARD_H = 4.4, 0.96
ROWS_Y = (1.75, 0.6, -0.55, -1.7)
SHELF_L, SHELF_R = 2.0, 4.8
BOOK_W, BOOK_H = 1.6, 0.64
PULL_MAX = 1.0
NOTES_X, NOTES_W = 5.78, 1.6
FIT = (1.0, 0.55, 0.2, 0.06)
"""How well each card fits "deep learning", for the picture only: exact, related, unrelated."""
STEP_COLORS = (theme.Q_COLOR, theme.K_COLOR, theme.V_COLOR)
"""① Query, ② Match, ③ Take lit in the colour of what each works with: the query, the
keys it is matched against, the values taken (Q yellow, K teal, V red throughout)."""


class LibraryScene(NarratedScene):
    scene_id = "library"

    def narrate(self) -> None:
        n = len(FIT)

        with self.beat("intro") as b:
            header = self.title_card(b)
            steps = VGroup(*[theme.text(s, theme.LABEL_SIZE, theme.MUTED)
                             for s in self.items("steps")])
            steps.arrange(DOWN, aligned_edge=LEFT, buff=0.2)
            steps.move_to(UP * (theme.CONTENT_TOP - 0.1 - steps.height / 2))
            steps.align_to(RIGHT * (LEFT_X - 1.3), LEFT)
            want = self._want_card()
            want.move_to(RIGHT * LEFT_X + UP * 0.45)
            # the library itself (its shelf) is there from the start; it is named V later
            shelf, books = self._shelf(n)
            self.play(Create(shelf), *[FadeIn(bk) for bk in books],
                      run_time=min(b.rt(0.08, 0.8), b.time_to("wish")))
            b.until("wish")
            self.play(FadeIn(want, shift=0.15 * RIGHT), run_time=b.rt(0.1, 0.8))
            for step, mark in zip(steps, ("s_query", "s_match", "s_take"), strict=True):
                b.until(mark)
                self.play(FadeIn(step, shift=0.1 * RIGHT), run_time=b.rt(0.06, 0.5))
            b.until("want")
            self._activate(steps, 0, b)
            self.play(want.animate(rate_func=there_and_back).scale(1.1),
                      run_time=b.rt(0.1, 0.8))

        with self.beat("catalogue") as b:
            titles = self.items("titles")
            cards = VGroup(*[self._card(titles[i], self.items(f"tags_{i}")) for i in range(n)])
            for card, y in zip(cards, ROWS_Y, strict=True):
                card.move_to(RIGHT * CARD_X + UP * y)
            k_head = widgets.role_tag("K", self.s("catalogue"), radius=0.18)
            k_head.move_to(RIGHT * CARD_X + UP * (ROWS_Y[0] + CARD_H / 2 + 0.3))
            v_head = widgets.role_tag("V", self.s("shelf"), radius=0.18)
            v_head.move_to(RIGHT * (SHELF_L + SHELF_R) / 2 + UP * k_head.get_y())
            self.target("khead", k_head)  # "that's the K"
            self.target("vhead", v_head)  # "what's inside is the V"
            b.until("cards")
            self.play(FadeIn(k_head), *[FadeIn(c, shift=0.1 * DOWN) for c in cards],
                      run_time=b.rt(0.1, 1.0))
            b.until("labels")  # "and a few labels"
            self.play(*[Indicate(c.tags, color=theme.K_COLOR, scale_factor=1.08) for c in cards],
                      run_time=b.rt(0.1, 0.8))
            b.until("books")
            self.play(FadeIn(v_head), *[widgets.pulse(bk, 1.08)
                                        for bk in books], run_time=b.rt(0.1, 1.0))
            b.until("apart")
            not_same = theme.text(self.s("not_same"), theme.TITLE_SIZE, theme.FG)
            room = SHELF_L - cards[0].get_right()[0] - 2 * 0.12  # clear of card and case
            if not_same.width > room:
                not_same.scale_to_fit_width(room)
            not_same.move_to(RIGHT * (cards[0].get_right()[0] + SHELF_L) / 2
                             + UP * ROWS_Y[0])
            self.play(FadeIn(not_same, scale=0.6),
                      cards[0].frame.animate.set_stroke(width=4),
                      books[0][0].animate.set_stroke(theme.FG, width=3), run_time=b.rt(0.1, 0.7))

        with self.beat("match") as b:
            self._activate(steps, 1, b)
            self.play(FadeOut(not_same), cards[0].frame.animate.set_stroke(width=2),
                      books[0][0].animate.set_stroke(theme.V_COLOR, width=2),
                      run_time=b.rt(0.06, 0.4))
            lines = VGroup(*[
                Line(want.get_right(), card.get_left()).set_stroke(theme.Q_COLOR, width=2)
                for card in cards
            ])
            b.until("match")
            # pulse the whole card (not its text), so the wish never spills out of its box
            self.play(want.animate(rate_func=there_and_back).scale(1.1),
                      *[Create(ln) for ln in lines],
                      run_time=b.rt(0.15, 1.0))
            b.until("best")
            self.play(*[ln.animate.set_stroke(width=1 + 8 * f, opacity=0.3 + 0.7 * f)
                        for ln, f in zip(lines, FIT, strict=True)],
                      *[c.animate.set_opacity(0.45 + 0.55 * f) for c, f in zip(cards, FIT,
                                                                           strict=True)],
                      # the best card's frame thickens, in K's teal (green broke the code)
                      cards[0].frame.animate.set_stroke(theme.K_COLOR, width=6),
                      run_time=b.rt(0.2, 1.2))

        with self.beat("take") as b:
            self._activate(steps, 2, b)
            # each book pulled out as far as it is read, as the voice says how much: the
            # best match, the next, the rest
            for mark, after, which in (("pull", "some", (0,)), ("some", "rest", (1,)),
                                       ("rest", None, tuple(range(2, n)))):
                b.until(mark)
                run = b.rt(0.08, 0.8)
                if after is not None:
                    run = min(run, max(0.2, b.time_to(after)))
                self.play(*[books[i].animate.shift(LEFT * PULL_MAX * FIT[i])
                            .set_opacity(0.35 + 0.65 * FIT[i]) for i in which], run_time=run)
            notes_label = theme.label(self.s("notes"), NOTES_W + 0.1, color=theme.V_COLOR)
            slot = Rectangle(width=NOTES_W, height=0.44).set_stroke(theme.MUTED, width=2)
            notes = VGroup(notes_label, slot).arrange(DOWN, buff=0.15)
            notes.move_to(RIGHT * NOTES_X + UP * (ROWS_Y[1] + ROWS_Y[2]) / 2)
            total = sum(FIT)
            x = slot.get_left()[0]
            chunks = VGroup()
            for r, f in enumerate(FIT):
                shade = 1.0 - 0.7 * r / max(1, n - 1)
                width = max(0.02, f / total * NOTES_W)
                chunk = Rectangle(width=width, height=slot.height).set_stroke(theme.BG, width=2)
                chunk.set_fill(theme.V_COLOR, shade).move_to(slot).align_to(RIGHT * x, LEFT)
                x += width
                chunks.add(chunk)
            b.until("mix")
            self.play(FadeIn(notes), run_time=b.rt(0.06, 0.4))
            self.play(*[TransformFromCopy(bk[0], chunk) for bk, chunk in zip(books, chunks,
                                                                             strict=True)],
                      run_time=b.rt(0.2, 1.2))

        with self.beat("recap") as b:
            keep = (header, steps, *steps, want, cards[0], books[0])
            self.play(*[FadeOut(m) for m in self.mobjects if m not in keep],
                      run_time=b.rt(0.1, 0.5))
            arrow_1 = self._arrow()
            arrow_2 = self._arrow()
            row = VGroup(want.copy(), arrow_1, cards[0].copy(), arrow_2, books[0].copy())
            row.arrange(RIGHT, buff=0.3)
            legend = widgets.qkv_legend(self.items("legend"))
            VGroup(row, legend).arrange(DOWN, buff=0.6).move_to(theme.CONTENT_CENTER)
            # centred in the room right of the step list, so it never covers the steps
            free_l = steps.get_right()[0] + 0.3
            row.set_x((free_l + theme.FRAME_W / 2 - theme.MARGIN) / 2)
            legend.set_x(row.get_x())
            self.play(want.animate.move_to(row[0]), cards[0].animate.move_to(row[2]),
                      books[0].animate.move_to(row[4]), FadeIn(arrow_1), FadeIn(arrow_2),
                      run_time=min(b.rt(0.15, 1.0), b.time_to("q")))
            for line, mark, part in zip(legend, ("q", "k", "v"), (want, cards[0], books[0]),
                                        strict=True):
                b.until(mark)
                self.play(FadeIn(line, shift=0.1 * RIGHT),
                          part.animate(rate_func=there_and_back).scale(1.1),
                          run_time=b.rt(0.08, 0.6))
            b.until("steps")
            self.play(*[s.animate.set_color(c) for s, c in zip(steps, STEP_COLORS, strict=True)],
                      run_time=b.rt(0.05, 0.4))
            for step, color in zip(steps, STEP_COLORS, strict=True):
                self.play(Indicate(step, color=color), run_time=b.rt(0.08, 0.6))

    # -- pieces ---------------------------------------------------------------------------------
    def _activate(self, steps: VGroup, k: int, b) -> None:
        self.play(*[s.animate.set_color(STEP_COLORS[i] if i == k else theme.MUTED)
                    for i, s in enumerate(steps)], run_time=b.rt(0.06, 0.4))

    def _want_card(self) -> VGroup:
        box = theme.panel(2.6, 1.15, color=theme.Q_COLOR)
        label = theme.text(self.s("want_label"), theme.SMALL_SIZE, theme.MUTED)
        want = theme.text(self.s("want"), theme.BODY_SIZE, theme.Q_COLOR, weight="BOLD")
        theme.fit(want, box.width - 0.3)
        return widgets.boxed(VGroup(label, want).arrange(DOWN, buff=0.1), box)

    @staticmethod
    def _card(title: str, tags: tuple[str, ...]) -> VGroup:
        """A catalogue card: the title and its labels (the key)."""
        frame = theme.panel(CARD_W, CARD_H, color=theme.K_COLOR)
        head = theme.text(title, theme.SMALL_SIZE, theme.FG)
        tag_line = theme.text(" · ".join(tags), theme.SMALL_SIZE, theme.K_COLOR)
        body = VGroup(head, tag_line).arrange(DOWN, buff=0.08)
        theme.fit(body, CARD_W - 0.3, CARD_H - 0.2)
        body.move_to(frame)
        card = VGroup(frame, body)
        card.frame, card.tags = frame, tag_line
        return card

    @staticmethod
    def _shelf(n: int) -> tuple[VGroup, list[VGroup]]:
        """A bookcase with one book lying on each board (the values)."""
        top = ROWS_Y[0] + CARD_H / 2 + 0.06
        bottom = ROWS_Y[-1] - BOOK_H / 2 - 0.02
        case = Rectangle(width=SHELF_R - SHELF_L, height=top - bottom)
        case.set_stroke(theme.MUTED, width=2).move_to(
            RIGHT * (SHELF_L + SHELF_R) / 2 + UP * (top + bottom) / 2)
        boards = VGroup(*[
            Line(RIGHT * SHELF_L, RIGHT * SHELF_R).set_stroke(theme.MUTED, width=2).set_y(
                y - BOOK_H / 2 - 0.02)
            for y in ROWS_Y[:n - 1]
        ])
        books = []
        for y in ROWS_Y[:n]:
            cover = Rectangle(width=BOOK_W, height=BOOK_H).set_stroke(theme.V_COLOR, width=2)
            cover.set_fill(theme.V_COLOR, 0.8)
            bands = VGroup(*[
                Line(UP * BOOK_H * 0.4, DOWN * BOOK_H * 0.4).set_stroke(theme.BG, width=3)
                .shift(RIGHT * dx) for dx in (-BOOK_W * 0.35, BOOK_W * 0.35)
            ])
            book = VGroup(cover, bands.move_to(cover))
            book.move_to(UP * y).align_to(RIGHT * (SHELF_R - 0.2), RIGHT)
            books.append(book)
        return VGroup(case, boards), books

    @staticmethod
    def _arrow() -> VGroup:
        return theme.text("→", theme.BODY_SIZE, theme.MUTED)
