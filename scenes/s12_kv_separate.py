"""Why K and V are two vectors: the label that gets matched versus the content that gets taken."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circle,
    Circumscribe,
    Create,
    FadeIn,
    GrowArrow,
    Indicate,
    Line,
    Polygon,
    Rectangle,
    VGroup,
)

from scenes import theme, widgets
from scenes.base import NarratedScene

PAGE = "#d9d4c7"  # colour of paper (book pages)


def _runs(indices: list[int]) -> list[list[int]]:
    """Consecutive indices grouped into runs (each run is one frame around adjacent rows)."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _chip(s: str, color: str) -> VGroup:
    return widgets.chip(s, color, size=theme.LABEL_SIZE, height=0.6, pad=0.4, solid=True,
                        weight="BOLD")


PADS = (0.3, 0.26)  # a frame round entries: clear of them, of their brackets and neighbours


def _column(entries: list[str], color: str, label: str) -> VGroup:
    """A vector as a roomy column in brackets, its label above: (left, nums, right, label)."""
    return widgets.vector_column(entries, color, theme.EMPH_SIZE, label, gap=0.3, pad=0.28,
                                 label_size=theme.LABEL_SIZE)


class KvSeparateScene(NarratedScene):
    scene_id = "kv_separate"

    def narrate(self) -> None:
        fb = self.numbers.fill_blank
        word = fb.tokens[self.lang][0]
        taken = fb.value_features[self.lang][0]

        with self.beat("intro") as b:
            header = self.title_card(b)
            badge = widgets.chip(word, size=theme.BODY_SIZE, height=1.0, pad=0.5, min_width=1.7,
                                 weight="BOLD")
            theme.fit(badge, 2.4).move_to(LEFT * 5.2)
            kcard = self._card("K", self.s("k_says"), self.s("k_job"), theme.K_COLOR)
            vcard = self._card("V", self.s("v_says"), self.s("v_job"), theme.V_COLOR)
            kcard.move_to(LEFT * 0.7 + UP * 1.1)
            vcard.move_to(LEFT * 0.7 + DOWN * 1.1)
            to_k = Arrow(badge.get_right(), kcard.get_left(), buff=0.1, color=theme.K_COLOR)
            to_v = Arrow(badge.get_right(), vcard.get_left(), buff=0.1, color=theme.V_COLOR)
            self.play(FadeIn(badge, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.6))
            b.until("k")
            self.play(GrowArrow(to_k), FadeIn(kcard, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.8))
            b.until("v")
            self.play(GrowArrow(to_v), FadeIn(vcard, shift=0.1 * RIGHT), run_time=b.rt(0.1, 0.8))

        with self.beat("roles") as b:
            blank = theme.text(self.s("blank"), theme.BODY_SIZE)
            blank.move_to(RIGHT * 4.8)
            theme.fit(blank, 2.8)
            q_arrow = Arrow(blank.get_top() + UP * 0.1, kcard.get_right(), buff=0.1,
                            color=theme.Q_COLOR)
            q_tag = theme.text("Q", theme.BODY_SIZE, theme.Q_COLOR, weight="BOLD")
            q_tag.next_to(q_arrow.get_center(), UP + RIGHT, buff=0.1)
            self.play(FadeIn(blank), run_time=b.rt(0.08, 0.5))
            b.until("q")
            self.play(GrowArrow(q_arrow), FadeIn(q_tag), run_time=b.rt(0.08, 0.7))
            self.play(Circumscribe(kcard, color=theme.K_COLOR, buff=0.08),
                      run_time=b.rt(0.1, 1.0))
            # The content leaves along the arrow: it lands beside the card, never drawn over
            # the card's own words (the check in scenes.overlap saw the chip cover them).
            chip = _chip(taken, theme.V_COLOR).next_to(blank, DOWN, buff=0.3)
            chip.set_y(vcard.get_y())
            v_arrow = Arrow(vcard.get_right(), chip.get_left(), buff=0.1, color=theme.V_COLOR)
            b.until("take")
            self.play(Indicate(vcard[1][1], color=theme.V_COLOR, scale_factor=1.05),
                      GrowArrow(v_arrow), run_time=b.rt(0.08, 0.7))
            self.play(FadeIn(chip, shift=0.8 * RIGHT), run_time=b.rt(0.15, 1.2))

        with self.beat("one_vector") as b:
            self.clear_content(b, keep=(header,))
            box = theme.panel(2.6, 1.4, theme.MUTED)
            label = theme.text(self.s("one_vec"), theme.EMPH_SIZE, theme.FG, weight="BOLD",
                               qkv=True)
            # mid-frame, the pulls under it reach below the middle
            lump = VGroup(box, label.move_to(box)).move_to(UP * 0.85)
            left_arrow = Arrow(box.get_left(), box.get_left() + LEFT * 2.6, buff=0.1,
                               color=theme.K_COLOR, stroke_width=8)
            right_arrow = Arrow(box.get_right(), box.get_right() + RIGHT * 2.6, buff=0.1,
                                color=theme.V_COLOR, stroke_width=8)
            room = theme.FRAME_W / 2 - theme.MARGIN - box.get_right()[0] - 0.3
            pull_k = theme.wrap(self.s("pull_k"), room, theme.LABEL_SIZE, theme.K_COLOR)
            pull_v = theme.wrap(self.s("pull_v"), room, theme.LABEL_SIZE, theme.V_COLOR)
            pull_k.next_to(left_arrow, DOWN, buff=0.3)
            pull_v.next_to(right_arrow, DOWN, buff=0.3)
            pull_k.shift(LEFT * max(0.0, pull_k.get_right()[0] - (box.get_left()[0] - 0.3)))
            pull_v.shift(RIGHT * max(0.0, box.get_right()[0] + 0.3 - pull_v.get_left()[0]))
            widgets.keep_inside_x(pull_k)
            widgets.keep_inside_x(pull_v)
            neither = theme.text(self.s("neither"), theme.BODY_SIZE, theme.MUTED)
            # below the pulls, not between them on their line (it read as their sentence's end)
            neither.next_to(VGroup(lump, pull_k, pull_v), DOWN, buff=0.35).set_x(box.get_x())
            self.play(FadeIn(lump), run_time=b.rt(0.08, 0.6))
            b.until("pull_k")
            self.play(GrowArrow(left_arrow), FadeIn(pull_k), run_time=b.rt(0.08, 0.8))
            b.until("pull_v")
            self.play(GrowArrow(right_arrow), FadeIn(pull_v), run_time=b.rt(0.08, 0.8))
            b.until("neither")
            self.play(FadeIn(neither, shift=0.1 * UP), box.animate.set_stroke(theme.WARN),
                      VGroup(pull_k, pull_v).animate.set_opacity(0.45), run_time=b.rt(0.08, 0.8))
            b.until("callback")
            # the two pairs under the sentence they illustrate (at DOWN * 1.75 they came in
            # over "does neither job well"); what stands above rises as far as they need
            pairs = self._callback_pairs()
            pairs.next_to(neither, DOWN, buff=0.3)
            rise = max(0.0, theme.CONTENT_BOTTOM + 0.05 - pairs.get_bottom()[1])
            pairs.shift(UP * rise)
            above = VGroup(lump, left_arrow, right_arrow, pull_k, pull_v, neither)
            self.play(above.animate.shift(UP * rise), FadeIn(pairs[0], shift=0.1 * UP),
                      run_time=b.rt(0.08, 0.7))
            self.play(FadeIn(pairs[1], shift=0.1 * UP), run_time=b.rt(0.08, 0.7))

        with self.beat("dims") as b:
            self.clear_content(b, keep=(header,))
            view = self._dims_view()
            # Q and K stand mid-frame on their own; they make room when V comes in
            first = [view[key] for key in ("q", "k", "match", "match_lab")] + [view["names"][0]]
            room = -VGroup(*first[:2], first[-1]).get_x()
            for m in first:
                m.shift(RIGHT * room)
            b.until("k")
            self.play(FadeIn(view["q"]), FadeIn(view["k"]), FadeIn(view["names"][0]),
                      run_time=b.rt(0.08, 0.8))
            b.until("match")
            self.play(Create(view["match"]), FadeIn(view["match_lab"]),
                      *[n.animate.set_color(theme.K_COLOR) for n in view["matched"]],
                      run_time=b.rt(0.08, 0.9))
            b.until("v")
            self.play(*[m.animate.shift(LEFT * room) for m in first], run_time=b.rt(0.06, 0.5))
            self.play(FadeIn(view["v"]), FadeIn(view["names"][1]), run_time=b.rt(0.08, 0.6))
            b.until("give")
            self.play(Create(view["give"]), FadeIn(view["give_lab"]),
                      *[n.animate.set_color(theme.V_COLOR) for n in view["given"]],
                      run_time=b.rt(0.08, 0.8))
            self.play(GrowArrow(view["arrow"]), FadeIn(view["chip"], shift=0.1 * RIGHT),
                      run_time=b.rt(0.08, 0.8))

        with self.beat("summary") as b:
            lines = view["lines"]
            # the matching frames and the Q and K entries in them, each in its own colour
            self.play(*[widgets.pulse(m, 1.05) for m in (*view["match"], *view["matched"])],
                      run_time=b.rt(0.12, 1.0))
            self.play(Indicate(VGroup(view["give"], *view["given"]), color=theme.V_COLOR,
                               scale_factor=1.05), run_time=b.rt(0.12, 1.0))
            b.until("sum_k")
            self.play(FadeIn(lines[0], shift=0.1 * UP), run_time=b.rt(0.1, 0.8))
            b.until("sum_v")
            self.play(FadeIn(lines[1], shift=0.1 * UP), run_time=b.rt(0.1, 0.8))

    # -- pieces ---------------------------------------------------------------------------------
    def _card(self, letter: str, says: str, job: str, color: str) -> VGroup:
        big = theme.text(letter, theme.TITLE_SIZE, color, weight="BOLD")
        lines = VGroup(*theme.wrap(says, 4.3, theme.LABEL_SIZE), theme.label(job, 4.3,
                                                                              color=color))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        box = theme.panel(5.6, max(1.4, lines.height + 0.35), color)
        big.move_to(box.get_left() + RIGHT * 0.6)
        lines.next_to(big, RIGHT, buff=0.4)
        return VGroup(box, VGroup(big, lines))

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

    def _dims_view(self) -> dict:
        """Q and the top word's K over the features, its V over the value features."""
        fb = self.numbers.fill_blank
        q, k, v = fb.query, fb.K[0], fb.V[0]
        qcol = _column([self.num(x) for x in q], theme.Q_COLOR, self.s("q_head"))
        kcol = _column([self.num(x) for x in k], theme.K_COLOR, self.s("k_head"))
        vcol = _column([self.num(x) for x in v], theme.V_COLOR, self.s("v_head"))
        kcol.next_to(qcol, RIGHT, buff=0.5).align_to(qcol, DOWN)
        names = self._row_names(fb.features[self.lang], qcol)
        vnames = self._row_names(fb.value_features[self.lang], vcol)
        left = VGroup(names, qcol, kcol)
        right = VGroup(vnames, vcol)
        right.next_to(left, RIGHT, buff=1.0).align_to(left, DOWN)
        matched = list(self.derived.fill_shared[0])
        given = list(self.derived.fill_value_has[0])
        match_box = VGroup(*[widgets.cell_frame(VGroup(*[col[1][i] for i in run]), color, *PADS)
                             for run in _runs(matched)
                             for col, color in ((qcol, theme.Q_COLOR), (kcol, theme.K_COLOR))])
        give_box = VGroup(*[widgets.cell_frame(VGroup(*[vcol[1][i] for i in run]), theme.V_COLOR,
                                              *PADS)
                            for run in _runs(given)])
        what = fb.value_features[self.lang][given[0]] if given else "—"
        chip = _chip(what, theme.V_COLOR)
        row_y = vcol[1][given[0]].get_y() if given else vcol[1].get_y()
        chip.next_to(vcol, RIGHT, buff=0.8).set_y(row_y)
        arrow = Arrow(RIGHT * (vcol[2].get_right()[0] + 0.05) + UP * row_y, chip.get_left(),
                      buff=0.1, color=theme.V_COLOR)
        whole = VGroup(left, right, match_box, give_box, chip, arrow).scale(1.25)
        theme.fit(whole, theme.CONTENT_W - 0.4)
        match_lab = theme.text(self.s("match_on"), theme.SMALL_SIZE, theme.K_COLOR)
        match_lab.next_to(left, DOWN, buff=0.35).set_x(VGroup(qcol, kcol).get_x())
        give_lab = theme.text(self.s("hand_over"), theme.SMALL_SIZE, theme.V_COLOR)
        give_lab.set_x(VGroup(vcol, chip).get_x()).set_y(match_lab.get_y())
        lines = VGroup(theme.text(self.s("sum_k"), theme.BODY_SIZE, theme.K_COLOR),
                       theme.text(self.s("sum_v"), theme.BODY_SIZE, theme.V_COLOR))
        lines.arrange(RIGHT, buff=1.2)
        theme.fit(lines, theme.CONTENT_W)
        lines.next_to(VGroup(match_lab, give_lab), DOWN, buff=0.5)
        VGroup(whole, match_lab, give_lab, lines).move_to(theme.CONTENT_CENTER)
        return {"lines": lines, "names": VGroup(names, vnames), "q": qcol, "k": kcol, "v": vcol,
                "match": match_box, "give": give_box, "match_lab": match_lab,
                "give_lab": give_lab, "chip": chip, "arrow": arrow,
                "matched": [names[i] for i in matched], "given": [vnames[i] for i in given]}

    def _callback_pairs(self) -> VGroup:
        """Catalogue card vs book, page title vs page body: small, with captions."""
        card = self._catalogue_card().scale_to_fit_height(0.8)
        book = self._book().scale_to_fit_height(0.95)
        title = VGroup(Rectangle(width=1.6, height=0.36).set_stroke(theme.K_COLOR, 3),
                       Line(LEFT * 0.55, RIGHT * 0.55, stroke_width=4, color=theme.FG))
        body = VGroup(Rectangle(width=1.6, height=0.9).set_stroke(theme.V_COLOR, 3),
                      VGroup(*[Line(LEFT * w / 2, RIGHT * w / 2, stroke_width=3, color=theme.MUTED)
                               for w in (1.2, 1.0, 1.15)]).arrange(DOWN, buff=0.18))
        pairs = VGroup()
        for a, a_lab, bb, b_lab in ((card, "card", book, "book"),
                                    (title, "title_note", body, "body_note")):
            items = VGroup()
            for icon, key, color in ((a, a_lab, theme.K_COLOR), (bb, b_lab, theme.V_COLOR)):
                cap = theme.text(self.s(key), theme.SMALL_SIZE, color)
                items.add(VGroup(icon, cap.next_to(icon, DOWN, buff=0.15)))
            neq = theme.text("≠", theme.BODY_SIZE, theme.MUTED)
            pair = VGroup(items[0], neq, items[1]).arrange(RIGHT, buff=0.35)
            neq.set_y(items[0][0].get_y())
            pairs.add(pair)
        pairs.arrange(RIGHT, buff=1.4, aligned_edge=DOWN)
        theme.fit(pairs, theme.CONTENT_W)
        return pairs

    @staticmethod
    def _row_names(names, col: VGroup) -> VGroup:
        """Feature names right-aligned to the left of a vector column, one per entry."""
        mobs = VGroup(*[theme.text(n, theme.LABEL_SIZE, theme.FG) for n in names])
        for i, m in enumerate(mobs):
            m.next_to(col[0], LEFT, buff=0.3).set_y(col[1][i].get_y())
        right_x = min(m.get_right()[0] for m in mobs)
        for m in mobs:
            m.shift(RIGHT * (right_x - m.get_right()[0]))
        return mobs
