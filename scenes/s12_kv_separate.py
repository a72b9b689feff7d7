"""Why K and V are two vectors: the label that gets matched versus the content that gets taken."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circle,
    Create,
    DashedLine,
    FadeIn,
    GrowArrow,
    Indicate,
    Line,
    Mobject,
    Polygon,
    Rectangle,
    VGroup,
    Wiggle,
)

from scenes import theme
from scenes.base import NarratedScene

PAGE = "#d9d4c7"  # colour of paper (book pages)


class KvSeparateScene(NarratedScene):
    scene_id = "kv_separate"

    def narrate(self) -> None:
        fb = self.numbers.fill_blank
        lang = self.lang
        word = fb.tokens[lang][0]
        taken = fb.value_features[lang][0]

        with self.beat("intro") as b:
            header = self.title_card(b)
            badge = self._badge(word).move_to(LEFT * 5.2)
            kcard = self._card("K", self.s("k_says"), self.s("k_job"), theme.K_COLOR)
            vcard = self._card("V", self.s("v_says"), self.s("v_job"), theme.V_COLOR)
            kcard.move_to(LEFT * 0.7 + UP * 1.1)
            vcard.move_to(LEFT * 0.7 + DOWN * 1.1)
            to_k = Arrow(badge.get_right(), kcard.get_left(), buff=0.1, color=theme.K_COLOR)
            to_v = Arrow(badge.get_right(), vcard.get_left(), buff=0.1, color=theme.V_COLOR)
            self.play(FadeIn(badge, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.6))
            self.play(GrowArrow(to_k), FadeIn(kcard, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.9))
            self.play(GrowArrow(to_v), FadeIn(vcard, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.9))

        with self.beat("roles") as b:
            blank = theme.text(self.s("blank"), theme.BODY_SIZE)
            blank.move_to(RIGHT * 4.8)
            theme.fit(blank, 2.8)
            q_arrow = Arrow(blank.get_top() + UP * 0.1, kcard.get_right(), buff=0.1,
                            color=theme.Q_COLOR)
            q_tag = theme.text("Q", theme.BODY_SIZE, theme.Q_COLOR, weight="BOLD")
            q_tag.next_to(q_arrow.get_center(), UP + RIGHT, buff=0.1)
            self.play(FadeIn(blank), run_time=b.rt(0.1, 0.5))
            self.play(GrowArrow(q_arrow), FadeIn(q_tag), run_time=b.rt(0.1, 0.8))
            self.play(Indicate(kcard[0], color=theme.K_COLOR, scale_factor=1.1),
                      run_time=b.rt(0.1, 1.0))
            chip = self._chip(taken, theme.V_COLOR).move_to(vcard[1][1].get_center())
            landed = chip.copy().next_to(blank, DOWN, buff=0.3).set_y(vcard.get_y())
            v_arrow = Arrow(vcard.get_right(), landed.get_left(), buff=0.1, color=theme.V_COLOR)
            self.play(GrowArrow(v_arrow), FadeIn(chip), run_time=b.rt(0.1, 0.8))
            self.play(chip.animate.move_to(landed), run_time=b.rt(0.2, 1.2))

        with self.beat("one_vector") as b:
            self.clear_content(b, keep=(header,))
            box = theme.panel(2.6, 1.5, theme.MUTED)
            label = theme.text(self.s("one_vec"), 40, theme.FG, weight="BOLD")
            lump = VGroup(box, label.move_to(box)).move_to(UP * 0.4)
            left_arrow = Arrow(box.get_left(), box.get_left() + LEFT * 2.6, buff=0.1,
                               color=theme.K_COLOR, stroke_width=8)
            right_arrow = Arrow(box.get_right(), box.get_right() + RIGHT * 2.6, buff=0.1,
                                color=theme.V_COLOR, stroke_width=8)
            room = theme.FRAME_W / 2 - theme.MARGIN - box.get_right()[0] - 0.3
            pull_k = theme.wrap(self.s("pull_k"), room, 24, theme.K_COLOR)
            pull_v = theme.wrap(self.s("pull_v"), room, 24, theme.V_COLOR)
            pull_k.next_to(left_arrow, DOWN, buff=0.3).align_to(left_arrow, RIGHT)
            pull_v.next_to(right_arrow, DOWN, buff=0.3).align_to(right_arrow, LEFT)
            self._inside_x(pull_k)
            self._inside_x(pull_v)
            neither = theme.text(self.s("neither"), theme.BODY_SIZE, theme.MUTED)
            neither.move_to(DOWN * 2.1)
            self.play(FadeIn(lump), run_time=b.rt(0.1, 0.6))
            self.play(GrowArrow(left_arrow), FadeIn(pull_k), run_time=b.rt(0.1, 0.9))
            self.play(GrowArrow(right_arrow), FadeIn(pull_v), run_time=b.rt(0.1, 0.9))
            self.play(Wiggle(lump, scale_value=1.1), run_time=b.rt(0.1, 1.0))
            self.play(FadeIn(neither, shift=0.1 * UP), run_time=b.rt(0.1, 0.6))

        with self.beat("card_book") as b:
            self.clear_content(b, keep=(header,))
            card = self._catalogue_card().move_to(LEFT * 5.0 + UP * 0.3)
            book = self._book().move_to(LEFT * 2.1 + UP * 0.3)
            card_k = self._letter("K", theme.K_COLOR).move_to(card.get_center() + UP * 1.9)
            book_v = self._letter("V", theme.V_COLOR).move_to(book.get_center() + UP * 1.9)
            card_lab = self._caption(self.s("card"), self.s("card_note"), theme.K_COLOR)
            book_lab = self._caption(self.s("book"), self.s("book_note"), theme.V_COLOR)
            low = min(card.get_bottom()[1], book.get_bottom()[1]) - 0.3
            for lab, mob in ((card_lab, card), (book_lab, book)):
                theme.fit(lab, 2.8)
                lab.move_to(mob.get_x() * RIGHT + low * UP, aligned_edge=UP)
            self.play(FadeIn(card, shift=0.1 * UP), FadeIn(card_k), run_time=b.rt(0.1, 0.8))
            self.play(FadeIn(card_lab), run_time=b.rt(0.1, 0.6))
            self.play(FadeIn(book, shift=0.1 * UP), FadeIn(book_v), run_time=b.rt(0.1, 0.8))
            self.play(FadeIn(book_lab), run_time=b.rt(0.1, 0.6))

        with self.beat("web_page") as b:
            divider = DashedLine(UP * 2.5, DOWN * 2.3, color=theme.MUTED, stroke_width=2)
            search = self._search_box(self.s("search")).move_to(RIGHT * 3.6 + UP * 2.2)
            page = self._web_page(self.s("page_title"), self.s("page_body"))
            page.move_to(RIGHT * 3.6 + DOWN * 0.1)
            title_row, body_box = page[1], page[2]
            arrow = Arrow(search.get_bottom(), title_row.get_top(), buff=0.1,
                          color=theme.Q_COLOR, stroke_width=4, max_tip_length_to_length_ratio=0.3)
            notes = VGroup(theme.text(self.s("title_note"), theme.SMALL_SIZE, theme.K_COLOR),
                           theme.text(self.s("body_note"), theme.SMALL_SIZE, theme.V_COLOR))
            notes.arrange(RIGHT, buff=0.6).next_to(page, DOWN, buff=0.3)
            theme.fit(notes, 5.2)
            self.play(Create(divider), FadeIn(search), run_time=b.rt(0.1, 0.8))
            self.play(FadeIn(page, shift=0.1 * UP), run_time=b.rt(0.1, 0.8))
            self.play(GrowArrow(arrow), Indicate(title_row, color=theme.K_COLOR,
                                                 scale_factor=1.1), FadeIn(notes[0]),
                      run_time=b.rt(0.2, 1.2))
            self.play(Indicate(body_box, color=theme.V_COLOR, scale_factor=1.1),
                      FadeIn(notes[1]), run_time=b.rt(0.2, 1.2))

        with self.beat("dims") as b:
            self.clear_content(b, keep=(header,))
            view = self._dims_view()
            self.play(FadeIn(view["q"]), FadeIn(view["k"]), FadeIn(view["names"][0]),
                      run_time=b.rt(0.1, 0.8))
            self.play(Create(view["match"]), FadeIn(view["match_lab"]), run_time=b.rt(0.1, 0.9))
            self.play(FadeIn(view["v"]), FadeIn(view["names"][1]), run_time=b.rt(0.1, 0.6))
            self.play(Create(view["give"]), FadeIn(view["give_lab"]), run_time=b.rt(0.1, 0.8))
            self.play(GrowArrow(view["arrow"]), FadeIn(view["chip"], shift=0.1 * RIGHT),
                      run_time=b.rt(0.1, 0.8))

        with self.beat("summary") as b:
            lines = VGroup(theme.text(self.s("sum_k"), theme.BODY_SIZE, theme.K_COLOR),
                           theme.text(self.s("sum_v"), theme.BODY_SIZE, theme.V_COLOR))
            lines.arrange(RIGHT, buff=1.2)
            theme.fit(lines, theme.CONTENT_W)
            lines.move_to(DOWN * 2.2)
            match_box, give_box = view["match"], view["give"]
            self.play(FadeIn(lines[0], shift=0.1 * UP),
                      Indicate(match_box, color=theme.K_COLOR, scale_factor=1.1),
                      run_time=b.rt(0.2, 1.0))
            self.play(FadeIn(lines[1], shift=0.1 * UP),
                      Indicate(give_box, color=theme.V_COLOR, scale_factor=1.1),
                      run_time=b.rt(0.2, 1.0))

    # -- pieces ---------------------------------------------------------------------------------
    def _badge(self, word: str) -> VGroup:
        label = theme.text(word, theme.BODY_SIZE, theme.FG, weight="BOLD")
        box = theme.panel(max(1.7, label.width + 0.5), 1.0, theme.FG)
        return VGroup(box, label.move_to(box))

    def _card(self, letter: str, says: str, job: str, color: str) -> VGroup:
        box = theme.panel(5.6, 1.4, color)
        big = theme.text(letter, 44, color, weight="BOLD")
        lines = VGroup(theme.fit(theme.text(says, 24, theme.FG), 4.3),
                       theme.fit(theme.text(job, theme.SMALL_SIZE, color), 4.3))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        big.move_to(box.get_left() + RIGHT * 0.6)
        lines.next_to(big, RIGHT, buff=0.4)
        return VGroup(box, VGroup(big, lines))

    def _chip(self, s: str, color: str) -> VGroup:
        label = theme.text(s, 24, theme.BG, weight="BOLD")
        box = theme.panel(label.width + 0.4, 0.6, color, fill=color)
        return VGroup(box, label.move_to(box))

    def _letter(self, letter: str, color: str) -> VGroup:
        ring = Circle(radius=0.3, color=color, stroke_width=3)
        return VGroup(ring, theme.text(letter, theme.BODY_SIZE, color, weight="BOLD").move_to(ring))

    def _caption(self, name: str, note: str, color: str) -> VGroup:
        return VGroup(theme.text(name, 24, color), theme.text(note, theme.SMALL_SIZE, theme.MUTED)
                      ).arrange(DOWN, buff=0.1)

    def _catalogue_card(self) -> VGroup:
        card = theme.panel(2.2, 1.5, theme.K_COLOR, fill="#203a3d")
        lines = VGroup(*[Line(LEFT * w / 2, RIGHT * w / 2, stroke_width=3, color=theme.FG)
                         for w in (1.5, 1.1, 1.3)]).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        lines.move_to(card).shift(UP * 0.1 + LEFT * 0.1)
        hole = Circle(radius=0.1, color=theme.K_COLOR, stroke_width=2)
        hole.move_to(card.get_bottom() + UP * 0.2)
        return VGroup(card, lines, hole)

    def _book(self) -> VGroup:
        w, h, dx, dy = 1.6, 2.3, 0.4, 0.3
        cover = Rectangle(width=w, height=h).set_stroke(theme.FG, 2).set_fill(theme.V_COLOR, 0.9)
        tl, tr = cover.get_corner(UP + LEFT), cover.get_corner(UP + RIGHT)
        br = cover.get_corner(DOWN + RIGHT)
        off = RIGHT * dx + UP * dy
        top = Polygon(tl, tr, tr + off, tl + off).set_stroke(theme.FG, 2).set_fill(PAGE, 1)
        side = Polygon(tr, br, br + off, tr + off).set_stroke(theme.FG, 2).set_fill(PAGE, 1)
        pages = VGroup(*[Line(tr + RIGHT * dx * f + UP * dy * f,
                              br + RIGHT * dx * f + UP * dy * f,
                              stroke_width=1, color=theme.MUTED) for f in (0.3, 0.6, 0.8)])
        title = VGroup(*[Line(LEFT * s / 2, RIGHT * s / 2, stroke_width=4, color=theme.FG)
                         for s in (1.0, 0.7)]).arrange(DOWN, buff=0.2)
        title.move_to(cover).shift(UP * 0.5)
        return VGroup(cover, top, side, pages, title)

    def _search_box(self, query: str) -> VGroup:
        box = theme.panel(5.0, 0.6, theme.Q_COLOR)
        lens = Circle(radius=0.1, color=theme.Q_COLOR, stroke_width=3)
        handle = Line(lens.get_corner(DOWN + RIGHT), lens.get_corner(DOWN + RIGHT) +
                      (DOWN + RIGHT) * 0.1, color=theme.Q_COLOR, stroke_width=3)
        glass = VGroup(lens, handle).move_to(box.get_left() + RIGHT * 0.4)
        label = theme.text(query, theme.SMALL_SIZE, theme.FG)
        theme.fit(label, 4.2)
        label.next_to(glass, RIGHT, buff=0.2)
        return VGroup(box, glass, label)

    def _web_page(self, title: str, body: str) -> VGroup:
        window = theme.panel(5.0, 2.8, theme.MUTED)
        dots = VGroup(*[Circle(radius=0.1, color=theme.MUTED, fill_opacity=1, stroke_width=0)
                        for _ in range(3)]).arrange(RIGHT, buff=0.1)
        dots.move_to(window.get_corner(UP + LEFT) + RIGHT * 0.4 + DOWN * 0.2)
        title_box = Rectangle(width=4.6, height=0.6).set_stroke(theme.K_COLOR, 2)
        title_box.move_to(window.get_top() + DOWN * 0.7)
        title_text = theme.text(title, theme.SMALL_SIZE, theme.K_COLOR, weight="BOLD")
        theme.fit(title_text, 4.3)
        title_text.move_to(title_box)
        body_box = Rectangle(width=4.6, height=1.6).set_stroke(theme.V_COLOR, 2)
        body_box.next_to(title_box, DOWN, buff=0.1)
        first = theme.text(body, theme.SMALL_SIZE, theme.V_COLOR)
        first.move_to(body_box.get_corner(UP + LEFT) + DOWN * 0.3, aligned_edge=LEFT)
        first.shift(RIGHT * 0.2)
        filler = VGroup(*[Line(LEFT * s / 2, RIGHT * s / 2, stroke_width=3, color=theme.MUTED)
                          for s in (4.0, 3.6, 3.9)]).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        filler.next_to(first, DOWN, buff=0.2, aligned_edge=LEFT)
        return VGroup(VGroup(window, dots), VGroup(title_box, title_text),
                      VGroup(body_box, first, filler))

    def _dims_view(self) -> dict[str, Mobject]:
        """Q and the top word's K over the features, its V over the value features."""
        fb = self.numbers.fill_blank
        q, k, v = fb.query, fb.K[0], fb.V[0]
        qcol = theme.vector_column([self.num(x) for x in q], theme.Q_COLOR, label=self.s("q_head"))
        kcol = theme.vector_column([self.num(x) for x in k], theme.K_COLOR, label=self.s("k_head"))
        vcol = theme.vector_column([self.num(x) for x in v], theme.V_COLOR, label=self.s("v_head"))
        kcol.next_to(qcol, RIGHT, buff=0.6).align_to(qcol, DOWN)
        names = self._row_names(fb.features[self.lang], qcol)
        vnames = self._row_names(fb.value_features[self.lang], vcol)
        left = VGroup(names, qcol, kcol)
        right = VGroup(vnames, vcol)
        right.next_to(left, RIGHT, buff=1.3).align_to(left, DOWN)
        matched = [i for i in range(len(q)) if q[i] * k[i] > 0]
        given = [i for i in range(len(v)) if v[i] != 0]
        match_box = self._row_box([names[i] for i in matched], kcol, theme.K_COLOR)
        give_box = self._row_box([vnames[i] for i in given], vcol, theme.V_COLOR)
        chip = self._chip(fb.value_features[self.lang][given[0]], theme.V_COLOR)
        chip.next_to(give_box, RIGHT, buff=1.0)
        arrow = Arrow(give_box.get_right(), chip.get_left(), buff=0.1, color=theme.V_COLOR)
        whole = VGroup(left, right, match_box, give_box, chip, arrow).scale(1.2)
        theme.fit(whole, theme.CONTENT_W)
        whole.move_to(UP * 0.5)
        match_lab = theme.text(self.s("match_on"), theme.SMALL_SIZE, theme.K_COLOR)
        match_lab.next_to(match_box, DOWN, buff=0.3).set_x(VGroup(qcol, kcol).get_x())
        match_lab.set_y(min(match_lab.get_y(), left.get_bottom()[1] - 0.4))
        give_lab = theme.text(self.s("hand_over"), theme.SMALL_SIZE, theme.V_COLOR)
        give_lab.set_x(VGroup(give_box, chip).get_x()).set_y(match_lab.get_y())
        return {"names": VGroup(names, vnames), "q": qcol, "k": kcol, "v": vcol,
                "match": match_box, "give": give_box, "match_lab": match_lab,
                "give_lab": give_lab, "chip": chip, "arrow": arrow}

    @staticmethod
    def _row_box(rows: list[Mobject], last_col: VGroup, color: str) -> Rectangle:
        """A frame around table rows, from their names to past the last column's bracket."""
        top = max(r.get_top()[1] for r in rows) + 0.1
        bottom = min(r.get_bottom()[1] for r in rows) - 0.1
        left = min(r.get_left()[0] for r in rows) - 0.1
        right = last_col[2].get_right()[0] + 0.1
        box = Rectangle(width=right - left, height=top - bottom, color=color, stroke_width=3)
        return box.move_to(RIGHT * (left + right) / 2 + UP * (top + bottom) / 2)

    @staticmethod
    def _row_names(names, col: VGroup) -> VGroup:
        """Feature names right-aligned to the left of a vector column, one per entry."""
        mobs = VGroup(*[theme.text(n, theme.SMALL_SIZE, theme.FG) for n in names])
        for i, m in enumerate(mobs):
            m.next_to(col[0], LEFT, buff=0.3).set_y(col[1][i].get_y())
        right_x = min(m.get_right()[0] for m in mobs)
        for m in mobs:
            m.shift(RIGHT * (right_x - m.get_right()[0]))
        return mobs

    def _inside_x(self, m: Mobject) -> None:
        lim = theme.FRAME_W / 2 - theme.MARGIN
        if m.get_left()[0] < -lim:
            m.shift(RIGHT * (-lim - m.get_left()[0]))
        if m.get_right()[0] > lim:
            m.shift(LEFT * (m.get_right()[0] - lim))

