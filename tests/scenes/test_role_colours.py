"""Q yellow, K teal, V red throughout: lighting a role's item in another colour is found."""

from __future__ import annotations

from manim import Indicate, LaggedStart, VGroup

from scenes import role_colours, theme, widgets


def test_a_v_term_lit_green_is_found_and_a_pulse_or_a_white_flash_is_not() -> None:
    """The worked example's weighted sum lit its terms (a share in purple, × and V in red)
    green: mid-way, V's red passed through yellow (seen at 1080p)."""
    term = VGroup(theme.text("0.28", 30, theme.SHARE_COLOR), theme.text("×", 30),
                  theme.text("[1, 2]", 30, theme.V_COLOR))
    found = role_colours.flashes([LaggedStart(Indicate(term, color=theme.GOOD))])
    assert len(found) == 1 and "(V)" in found[0]
    assert role_colours.flashes([widgets.pulse(term)]) == []
    assert role_colours.flashes([Indicate(term, color=theme.FG)]) == []
    assert role_colours.flashes([Indicate(term, color=theme.V_COLOR)]) == []


def test_q_and_k_lit_in_the_accent_are_found_each_by_name() -> None:
    qk = VGroup(theme.text("Q", 30, theme.Q_COLOR), theme.text("K", 30, theme.K_COLOR))
    found = role_colours.flashes([Indicate(qk, color=theme.ACCENT)])
    assert len(found) == 1 and "(K, Q)" in found[0]
    assert role_colours.flashes([Indicate(theme.text("plain", 30), color=theme.ACCENT)]) == []
