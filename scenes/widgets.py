"""The scene widget kit: the domain pieces every scene draws from, in one place.

Chips and cards, Q/K/V badges, bracketed vectors and matrices with cell frames, product
lines, share bars, table columns, step labels, and the land/regroup/swap animations. A fix
to a widget fixes it in every scene. Sizes and gaps are the kit's; colours, fonts and the
layout bands come from :mod:`scenes.theme`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Circle,
    FadeIn,
    FadeOut,
    Indicate,
    Mobject,
    Rectangle,
    ReplacementTransform,
    Scene,
    Transform,
    VGroup,
    rate_functions,
)

from scenes import theme

QKV_COLORS = {"Q": theme.Q_COLOR, "K": theme.K_COLOR, "V": theme.V_COLOR,
              "q": theme.Q_COLOR, "k": theme.K_COLOR, "v": theme.V_COLOR}


# -- boxes, chips and cards ---------------------------------------------------------------------
def boxed(label: Mobject, box: Mobject) -> VGroup:
    """``label`` centred on ``box``: VGroup(box, label)."""
    return VGroup(box, label.move_to(box))


def chip(s: str, color: str = theme.FG, *, stroke: str | None = None,
         size: float = theme.SMALL_SIZE, height: float | None = 0.5, pad: float = 0.3,
         min_width: float = 0.0, fill: str = theme.PANEL, solid: bool = False,
         weight: str = "NORMAL", max_width: float | None = None, qkv: bool = False
         ) -> VGroup:
    """A word in a rounded box: VGroup(box, label).

    ``stroke`` defaults to the text colour; ``height=None`` fits the text with a margin;
    ``solid`` fills the box with ``color`` and writes the word in the background colour;
    ``max_width``: a label too wide for it breaks into lines (at its size) and the box
    grows to hold them. ``qkv``: a Q, K or V in the label is drawn in its role's colour
    (not on a solid chip).
    """
    ink = theme.BG if solid else color
    qkv = qkv and not solid
    label = theme.text(s, size, ink, weight=weight, qkv=qkv)
    if max_width is not None and label.width + pad > max_width:
        label = theme.label(s, max_width - pad, size, ink, qkv)
        if height is not None:
            height = max(height, label.height + 0.3)
    h = label.height + 0.45 if height is None else height
    box = theme.panel(max(min_width, label.width + pad), h, color=stroke or color,
                      fill=color if solid else fill)
    return boxed(label, box)


def word_chip(s: str, color: str = theme.FG, min_width: float = 1.2) -> VGroup:
    """A word of the example sentence as a card (body size, roomy)."""
    return chip(s, color, size=theme.BODY_SIZE, height=0.75, pad=0.5, min_width=min_width)


def chip_row(words: Sequence[str], color: str = theme.FG, buff: float = 0.2, **kw) -> VGroup:
    """Chips side by side."""
    return VGroup(*[chip(w, color, **kw) for w in words]).arrange(RIGHT, buff=buff)


# -- Q/K/V badges -------------------------------------------------------------------------------
def letter_badge(letter: str, color: str | None = None, *, size: float = theme.SMALL_SIZE,
                 radius: float = 0.2, square: bool = False, outline: bool = False) -> VGroup:
    """A role letter in a filled disc (or square): the Q, K and V badges.

    ``outline`` draws a ring with a faint fill and the letter in the role's colour.
    """
    color = color or QKV_COLORS[letter]
    if square:
        shape: Mobject = theme.panel(2 * radius, 2 * radius, color=color, fill=color)
    else:
        shape = Circle(radius=radius).set_stroke(color, 2 if outline else 0)
        shape.set_fill(color, 0.25 if outline else 1)
    ink = color if outline else theme.BG
    return boxed(theme.text(letter, size, ink, weight="NORMAL" if outline else "BOLD"), shape)


def role_tag(letter: str, s: str, color: str | None = None, radius: float = 0.2) -> VGroup:
    """A badge and what the role is in this analogy: (badge, label)."""
    color = color or QKV_COLORS[letter]
    label = theme.text(s, theme.SMALL_SIZE, color)
    return VGroup(letter_badge(letter, color, radius=radius), label).arrange(RIGHT, buff=0.15)


def qkv_legend(labels: Sequence[str], direction=DOWN, size: float = theme.SMALL_SIZE + 2,
               arrow: bool = True) -> VGroup:
    """Q, K and V each with a square badge (an arrow) and what it stands for, in its colour."""
    rows = VGroup()
    for letter, label in zip("QKV", labels, strict=True):
        color = QKV_COLORS[letter]
        parts = [letter_badge(letter, color, size=size, radius=0.23 if arrow else 0.22,
                              square=True)]
        if arrow:
            parts.append(theme.text("↔", size, theme.MUTED))
        parts.append(theme.text(label, size, color))
        rows.add(VGroup(*parts).arrange(RIGHT, buff=0.25 if arrow else 0.15))
    if direction is DOWN:
        return rows.arrange(DOWN, aligned_edge=LEFT, buff=0.12)
    return rows.arrange(direction, buff=0.55)


# -- vectors and matrices -----------------------------------------------------------------------
def bracket(height: float, color: str, thickness: float = 0.05) -> VGroup:
    """A left square bracket of ``height`` (flip it with ``.flip(UP)`` for the right one)."""
    g = VGroup(
        Rectangle(width=thickness, height=height).set_stroke(width=0).set_fill(color, 1),
        Rectangle(width=0.16, height=thickness).set_stroke(width=0).set_fill(color, 1),
        Rectangle(width=0.16, height=thickness).set_stroke(width=0).set_fill(color, 1),
    )
    g[1].align_to(g[0], UP).align_to(g[0], LEFT)
    g[2].align_to(g[0], DOWN).align_to(g[0], LEFT)
    return g


def brackets_around(body: Mobject, color: str, pad: float = 0.1, thickness: float = 0.05,
                    min_height: float = 0.0) -> VGroup:
    """A pair of square brackets around ``body`` (which is not included): (left, right)."""
    h = max(body.height + 0.3, min_height)
    left = bracket(h, color, thickness).next_to(body, LEFT, buff=pad)
    right = bracket(h, color, thickness).flip(UP).next_to(body, RIGHT, buff=pad)
    return VGroup(left, right)


def in_brackets(body: Mobject, color: str, pad: float = 0.1, thickness: float = 0.05,
                min_height: float = 0.0) -> VGroup:
    """``body`` between square brackets: VGroup(left, body, right)."""
    left, right = brackets_around(body, color, pad, thickness, min_height)
    return VGroup(left, body, right)


def matrix(rows: Sequence[Sequence[str]], color: str, size: float = theme.NUM_SIZE) -> VGroup:
    """A matrix (or a row vector: one row) of numbers in square brackets.

    Returns VGroup(left bracket, cells, right bracket); cells are row-major.
    """
    cells = VGroup(*[theme.text(e, size, color) for row in rows for e in row])
    cells.arrange_in_grid(rows=len(rows), cols=len(rows[0]), buff=(0.4, 0.16))
    # brackets 0.18 out: a frame round an end column (cell_frame) fits between them
    return in_brackets(cells, color, pad=0.18, thickness=0.06, min_height=0.62)


def vector_column(entries: Sequence[str], color: str, size: float = theme.NUM_SIZE,
                  label: str | None = None, gap: float = 0.16, pad: float = 0.08,
                  label_size: float = theme.SMALL_SIZE) -> VGroup:
    """A vector as a column of numbers in brackets: (left, nums, right[, label above])."""
    nums = VGroup(*[theme.text(e, size, color) for e in entries]).arrange(DOWN, buff=gap)
    col = in_brackets(nums, color, pad=pad)
    if label is not None:
        col.add(theme.text(label, label_size, color).next_to(col, UP, buff=0.12))
    return col


def highlight(m: Mobject, color: str, buff: float = 0.12, square: bool = True) -> Rectangle:
    """A frame round ``m`` clear of its glyphs (``scenes.overlap.TIGHT_BOX``); ``square``:
    at least as wide as it is tall (a thin frame round one digit read as "[1]" or "I" on a
    phone), not where brackets close in at the sides."""
    height = m.height + 2 * buff
    width = max(m.width + 2 * buff, height if square else 0.0)
    box = Rectangle(width=width, height=height, color=color, stroke_width=3)
    return box.move_to(m)


BAR_CLEAR = 0.05
"""The least room between a formula part's tint and the fraction bar."""


def formula_tint(formula: Mobject, *names: str) -> Rectangle:
    """A soft patch behind the parts ``names`` of the attention formula
    (``theme.attention_formula``: "qk", "sd", "sm", "dot", "v", ...) lighting them as the
    voice names them: no frame to cut through the fraction bar or touch the ᵀ beside it,
    and a part above or below the bar lit only to ``BAR_CLEAR`` short of it (a patch round
    QKᵀ lay on the bar)."""
    part = VGroup(*[formula.select(n) for n in names])
    bar = (formula.select("qk").get_bottom()[1] + formula.select("sd").get_top()[1]) / 2
    lo, hi = part.get_bottom()[1] - 0.08, part.get_top()[1] + 0.08
    if part.get_bottom()[1] > bar:  # the numerator
        lo = max(lo, bar + BAR_CLEAR)
    elif part.get_top()[1] < bar:  # the denominator
        hi = min(hi, bar - BAR_CLEAR)
    patch = Rectangle(width=part.width + 0.16, height=hi - lo)
    patch.set_stroke(theme.ACCENT, 0).set_fill(theme.ACCENT, 0.3)
    return patch.move_to([part.get_x(), (lo + hi) / 2, 0]).set_z_index(-1)


def cell_frame(cells: Mobject, color: str, pad_x: float = 0.14, pad_y: float = 0.16
               ) -> Rectangle:
    """A frame around entries of a vector or matrix that stays inside its brackets."""
    box = Rectangle(width=cells.width + pad_x, height=cells.height + pad_y, color=color,
                    stroke_width=3)
    return box.move_to(cells)


def product_line(pairs: Sequence[tuple[str, str]], total: str, colors: tuple[str, str],
                 size: float = theme.NUM_SIZE, total_color: str | None = None) -> VGroup:
    """a₁×b₁ + a₂×b₂ + … = total: VGroup(term, +, term, …, =, total); each term (a, ×, b).

    A negative second factor is written in parentheses, as a teacher writes it.
    """
    parts: list[Mobject] = []
    for i, (a, b) in enumerate(pairs):
        if i:
            parts.append(theme.text("+", size, theme.MUTED))
        b = f"({b})" if b.startswith("−") else b
        parts.append(VGroup(theme.text(a, size, colors[0]), theme.text("×", size, theme.MUTED),
                            theme.text(b, size, colors[1])).arrange(RIGHT, buff=0.08))
    parts.append(theme.text("=", size, theme.MUTED))
    parts.append(theme.text(total, size, total_color or colors[1], weight="BOLD"))
    return VGroup(*parts).arrange(RIGHT, buff=0.18)


# -- share bars and tables ----------------------------------------------------------------------
LABEL_GAP = 0.12  # between a share bar and its label
MIN_BAR = 0.02  # a share of zero still shows as a sliver


def share_bar(share: float, label: str, max_len: float, color: str = theme.SHARE_COLOR,
              height: float = 0.34, size: float = theme.SMALL_SIZE) -> VGroup:
    """A horizontal bar of length share × max_len with its label to the right: (bar, label)."""
    rect = Rectangle(width=max(share * max_len, MIN_BAR), height=height)
    rect.set_stroke(width=0).set_fill(color, 0.9)
    text = theme.text(label, size, theme.FG).next_to(rect, RIGHT, buff=LABEL_GAP)
    text.share_label = label  # what reshape_share_bar compares
    return VGroup(rect, text)


def reshape_share_bar(bar: VGroup, share: float, label: str, max_len: float,
                      scale: float = 1.0, size: float = theme.SMALL_SIZE) -> None:
    """Set a :func:`share_bar` (scaled by ``scale`` since it was made) to ``share`` and
    ``label`` in place, its left edge kept: the bar a new one would be there, for a chart
    that follows a value every frame. Its label is set again only when its text changes
    (making the whole chart again each frame was 43% of the soft-attention scene's render)."""
    rect, text = bar
    left = rect.get_left()
    rect.stretch_to_fit_width(max(share * max_len, MIN_BAR) * scale)
    rect.move_to(left, aligned_edge=LEFT)
    if getattr(text, "share_label", None) != label:
        # the same mobject takes the new text's shape (as ``always_redraw`` does): what
        # checks the frames (``scenes.overlap``) sees one label change, not one fade out
        text.become(theme.text(label, size, theme.FG).scale(scale))
        text.share_label = label
    text.next_to(rect, RIGHT, buff=LABEL_GAP * scale)


def share_bars(names: Sequence[str], shares: Sequence[float], labels: Sequence[str],
               color: str = theme.SHARE_COLOR, max_len: float = 5.0) -> VGroup:
    """A bar chart: names right-aligned in a column, one bar and label each; rows (name, bar)."""
    name_mobs = VGroup(*[theme.text(n, theme.SMALL_SIZE) for n in names])
    name_mobs.arrange(DOWN, aligned_edge=RIGHT, buff=0.3)
    rows = VGroup()
    for name, share, lab in zip(name_mobs, shares, labels, strict=True):
        b = share_bar(share, lab, max_len, color).next_to(name, RIGHT, buff=0.25)
        b.align_to(name_mobs.get_right() + RIGHT * 0.25, LEFT)
        rows.add(VGroup(name, b))
    return rows


def swatch(color: str, label: str, height: float = 0.3) -> VGroup:
    """A legend entry: a colour sample and its label."""
    sq = Rectangle(width=0.3, height=height).set_stroke(width=0).set_fill(color, 0.9)
    return VGroup(sq, theme.text(label, theme.SMALL_SIZE, color)).arrange(RIGHT, buff=0.12)


def table_column(head: str, cells: Sequence[Mobject], color: str, top: float, row_h: float,
                 head_size: float = theme.SMALL_SIZE, align_left: bool = False,
                 first: float | None = None) -> VGroup:
    """A table column centred on x = 0: its heading at ``top`` and one cell per row below,
    the first ``first`` under the heading (default 1.1 rows), then one every ``row_h``:
    (heading, cells)."""
    header = theme.text(head, head_size, color).move_to(UP * top)
    gap = 1.1 * row_h if first is None else first
    body = VGroup(*cells)
    for i, cell in enumerate(cells):
        cell.move_to(UP * (top - gap - row_h * i))
        if align_left:
            cell.align_to(header, LEFT)
    return VGroup(header, body)


def bar_column(head: str, shares: Sequence[float], labels: Sequence[str], color: str,
               top: float, row_h: float, max_len: float, first: float | None = None,
               left: float = 0.0) -> VGroup:
    """A table column of share bars starting at x = ``left``, placed like
    :func:`table_column`'s cells: (heading, bars), each bar (rectangle, label)."""
    bars = [share_bar(float(s), lab, max_len, color) for s, lab in zip(shares, labels,
                                                                         strict=True)]
    col = table_column(head, bars, color, top, row_h, first=first)
    col[0].align_to(RIGHT * left, LEFT)
    for bar in bars:
        bar.align_to(RIGHT * left, LEFT)
    return col


# -- step labels --------------------------------------------------------------------------------
class StepLabel:
    """The current step's name at a fixed spot; :meth:`swap` replaces it by the next one:
    out, then in (text never morphs into other text, nor fades in over it)."""

    def __init__(self, left: float, y: float, size: float = theme.BODY_SIZE,
                 weight: str = "NORMAL", y_is_top: bool = True) -> None:
        """Labels start at x = ``left``; ``y`` is their top (or their middle)."""
        self.left, self.y, self.size, self.weight = left, y, size, weight
        self.y_is_top = y_is_top
        self.mob: Mobject | None = None

    def make(self, s: str) -> Mobject:
        """The label for ``s``, now the current one (not yet shown)."""
        label = theme.text(s, self.size, theme.ACCENT, weight=self.weight, qkv=True)
        y = self.y - label.height / 2 if self.y_is_top else self.y
        label.move_to([self.left + label.width / 2, y, 0])
        self.mob = label
        return label

    def swap(self, scene: Scene, s: str, *others: Animation, run_time: float) -> Mobject:
        """Play the old label out (with ``others``), then the new one in; returns it."""
        old = self.mob
        return fade_through(scene, old, self.make(s), *others, run_time=run_time)


# -- room for the numbers a file produces -------------------------------------------------------
# A numbers file decides how wide its numbers are (a score of −13, an e-power of 403.43 or
# 485165195.41, a share of 99%): scenes measure the widest value a column or a bar must show
# and place what follows from that, instead of assuming the shipped numbers' widths.
SAFE_RIGHT = theme.FRAME_W / 2 - theme.MARGIN
"""The right edge of the safe area: what a scene lays out ends left of it."""


def widest(mobs: Iterable[Mobject]) -> float:
    """The width of the widest of ``mobs`` (0 for none)."""
    return max((m.width for m in mobs), default=0.0)


def column_width(head: str, cells: Sequence[str], head_size: float = theme.SMALL_SIZE,
                 size: float = theme.NUM_SIZE) -> float:
    """How wide a table column of ``cells`` under ``head`` is: its widest text, measured."""
    return widest([theme.text(head, head_size), *[theme.text(c, size) for c in cells]])


class BarColumn:
    """A column of share bars, measured before it is drawn: how far right of its start it
    reaches (the longest bar with its label, or its heading) for a given 100% length."""

    def __init__(self, shares: Sequence[float], labels: Sequence[str], head: str = "",
                 size: float = theme.SMALL_SIZE) -> None:
        self.shares = [float(s) for s in shares]
        self.label_widths = [theme.text(lab, size).width for lab in labels]
        self.head_width = theme.text(head, size).width if head else 0.0

    def reach(self, length: float) -> float:
        """The column's width when a 100% bar is ``length`` long."""
        return max(self.head_width, *[max(s * length, MIN_BAR) + LABEL_GAP + w
                                      for s, w in zip(self.shares, self.label_widths,
                                                      strict=True)])


def longest_fitting(right_end: Callable[[float], float], most: float, least: float = 0.5,
                    limit: float = SAFE_RIGHT) -> float:
    """The longest length in [``least``, ``most``] for which ``right_end(length)`` (where the
    things drawn at that length end, growing with it) stays left of ``limit``: ``most`` when
    it fits, else found by bisection (``least`` when nothing fits)."""
    if right_end(most) <= limit:
        return most
    lo, hi = least, most
    for _ in range(40):
        mid = (lo + hi) / 2
        if right_end(mid) <= limit:
            lo = mid
        else:
            hi = mid
    return lo


# -- placement ----------------------------------------------------------------------------------
def keep_inside_x(m: Mobject) -> Mobject:
    """Shift ``m`` sideways so it stays inside the side margins."""
    lim = theme.FRAME_W / 2 - theme.MARGIN
    if m.get_right()[0] > lim:
        m.shift(LEFT * (m.get_right()[0] - lim))
    if m.get_left()[0] < -lim:
        m.shift(RIGHT * (-lim - m.get_left()[0]))
    return m


# -- animations ---------------------------------------------------------------------------------
def land(scene: Scene, src: Mobject, target: Mobject, run_time: float,
         path_arc: float = 0.0) -> None:
    """A copy of ``src`` (the same text) moves onto ``target``, which then shows in its place.

    ``target`` may be off stage, or on stage but hidden (opacity 0): either way it ends
    shown. A move, never a morph of one text into another; along an arc of ``path_arc``
    radians (positive: counterclockwise, so a move up bulges right) to pass round what
    lies on the straight way.
    """
    moving = src.copy()
    scene.play(Transform(moving, target.copy().set_opacity(1), path_arc=path_arc),
               run_time=run_time)
    scene.remove(moving)
    if target in scene.mobjects or any(target in m.get_family() for m in scene.mobjects):
        target.set_opacity(1)
    else:
        scene.add(target.set_opacity(1))


def hand_over(scene: Scene, sources: Sequence[Mobject], targets: Sequence[Mobject],
              left: float) -> list[Animation]:
    """Animations (for one ``play``) moving a copy of each source onto its target, the
    sources left behind at opacity ``left`` from the start (0: the thing moves; 0.35: dimmed
    as its copy leaves). A copy leaving a fading or full-strength original drew the two
    offset, as doubled digits."""
    moving = [m.copy() for m in sources]
    for m in sources:
        m.set_opacity(left)
    scene.add(*moving)
    return [ReplacementTransform(m, t) for m, t in zip(moving, targets, strict=True)]


def regroup(scene: Scene, group: Mobject) -> None:
    """Replace the top-level pieces of ``group`` on stage by ``group`` itself, so it can be
    moved or faded as one."""
    family = {id(m) for m in group.get_family()}
    for m in list(scene.mobjects):
        if id(m) in family:
            scene.remove(m)
    scene.add(group)


def _first_half(t: float) -> float:
    return rate_functions.smooth(min(1.0, 2 * t))


def _second_half(t: float) -> float:
    return rate_functions.smooth(max(0.0, 2 * t - 1))


def light(group: Mobject, color: str, scale: float = 1.2) -> list[Animation]:
    """Each member of a row, column or list lit and grown about its own centre. One Indicate
    on the whole group grows it about the group's centre: the cells at its ends leave their
    rows (a column of five numbers at 1.2x moves its first and last 0.3 units)."""
    return [Indicate(m, color=color, scale_factor=scale) for m in group.submobjects]


def pulse(m: Mobject, scale: float = 1.1) -> Animation:
    """``m`` grown a little and back, keeping its colours: for things in role colours (an
    Indicate toward green passes through yellow on V's red, seen on the weighted sum's
    terms)."""
    return m.animate(rate_func=rate_functions.there_and_back).scale(scale)


def light_bar(bar: VGroup, color: str, across: int = 1) -> list[Animation]:
    """A bar (rect, label) lit in place: the rect thickens across its length (axis ``across``:
    1 for a horizontal bar, 0 for an upright one) and takes ``color`` and back, its label
    lit and grown. Grown about its centre, as Indicate does, a long bar's ends left its axis
    (a 100 % bar at 1.1x crossed the chart's left edge)."""
    rect, label = bar[0], bar[1]
    return [rect.animate(rate_func=rate_functions.there_and_back).stretch(1.4, across)
            .set_fill(color), Indicate(label, color=color, scale_factor=1.2)]


def fade_through(scene: Scene, old: Mobject | None, new: Mobject, *others: Animation,
                 run_time: float, shift=0.15 * UP, with_new: Sequence[Animation] = ()
                 ) -> Mobject:
    """Replace ``old`` by ``new`` at one place in two plays of half ``run_time`` each:
    ``old`` (if any) fades out with ``others``, then ``new`` fades in with ``with_new``. Two
    texts at one place are never drawn over each other (a cross-fade shows both, half
    legible)."""
    first = ([FadeOut(old, shift=shift)] if old is not None else []) + list(others)
    if first:
        scene.play(*first, run_time=run_time / 2)
    scene.play(FadeIn(new, shift=shift), *with_new,
               run_time=run_time / 2 if first else run_time)
    return new


def out_then_in(old: Mobject | None, new: Mobject | None, shift=0.15 * UP
                ) -> list[Animation]:
    """Animations for one ``play`` with other changes: ``old`` fades out in its first half,
    ``new`` fades in in its second, so two texts at one place are never drawn over each
    other. Where nothing else must run across the swap, :func:`fade_through` (two plays)
    says the same plainly."""
    anims: list[Animation] = []
    if old is not None:
        anims.append(FadeOut(old, shift=shift, rate_func=_first_half))
    if new is not None:
        anims.append(FadeIn(new, shift=shift, rate_func=_second_half))
    return anims
