"""The still measure does not depend on the frame rate or the resolution: one scene
rendered at 15 and at 60 fps gives the same still stretches within one sample, 1/15 s (the
measure compares the frame on screen at each 1/15 s, at any frame rate, with the first of
its stretch: a slow change at 60 fps differs little from frame to frame, not from the
stretch's start; comparing every frame at 60 fps ended the stretches 0.1 s apart); one
rendered at 360p and 720p gives the same stretches (cells of the same share of the frame:
with 4-px blocks at both, a faint thin line counted as a change at 720p only)."""

from __future__ import annotations

from pathlib import Path

import pytest
from manim import (
    DOWN,
    GREY,
    LEFT,
    RIGHT,
    UP,
    Dot,
    FadeIn,
    Line,
    Scene,
    Square,
    Text,
    linear,
    tempconfig,
)

from pipeline.quality import still_frames


class _SlowAndStill(Scene):
    def construct(self) -> None:
        dot = Dot(LEFT * 3, radius=0.3)
        self.add(dot)
        self.play(dot.animate.shift(RIGHT * 2), run_time=6, rate_func=linear)  # slow
        self.wait(4)  # still: 6-10 s
        self.play(FadeIn(Text("slow fade").shift(DOWN)), run_time=3, rate_func=linear)
        self.wait(3)  # still: 13-16 s
        self.play(FadeIn(Square()), run_time=0.5)


class _FaintLine(Scene):
    def construct(self) -> None:
        self.add(Text("still", font_size=30).shift(UP * 2))
        self.wait(2)
        line = Line(LEFT * 2, RIGHT * 2, stroke_width=1, color=GREY)
        self.play(FadeIn(line), run_time=0.5)  # faint: under the threshold at any size
        self.wait(3)
        self.play(line.animate.shift(DOWN * 0.05), run_time=0.5)  # a visible move
        self.wait(3)


def _render(tmp: Path, fps: int, height: int = 180, scene: type[Scene] = _SlowAndStill
            ) -> Path:
    name = f"{scene.__name__}{fps}-{height}"
    with tempconfig({"media_dir": str(tmp / name), "pixel_width": height * 16 // 9,
                     "pixel_height": height, "frame_rate": fps, "disable_caching": True,
                     "progress_bar": "none", "verbosity": "ERROR", "output_file": name}):
        rendered = scene()
        rendered.render()
        return Path(rendered.renderer.file_writer.movie_file_path)


@pytest.mark.slow
def test_the_same_stills_at_15_and_60_fps(tmp_path: Path) -> None:
    spans = {fps: [(a, b) for a, b in still_frames(_render(tmp_path, fps))[0] if b - a >= 1]
             for fps in (15, 60)}
    assert len(spans[15]) == len(spans[60]) == 2, spans
    for (a15, b15), (a60, b60) in zip(spans[15], spans[60], strict=True):
        assert abs(a15 - a60) <= 0.07 and abs(b15 - b60) <= 0.07, spans
    # the slow move is not still at either rate; the fade's first faint frames may be
    (a, b), (c, d) = spans[15]
    assert a == pytest.approx(6, abs=0.1) and 10 <= b <= 10.5
    assert c == pytest.approx(13, abs=0.2) and d == pytest.approx(16, abs=0.25)


@pytest.mark.slow
def test_the_same_stills_at_360p_and_720p(tmp_path: Path) -> None:
    spans = {h: [(a, b) for a, b in still_frames(_render(tmp_path, 15, h, _FaintLine))[0]
                 if b - a >= 1] for h in (360, 720)}
    assert len(spans[360]) == len(spans[720]) == 2, spans
    for (a1, b1), (a2, b2) in zip(spans[360], spans[720], strict=True):
        assert abs(a1 - a2) <= 0.1 and abs(b1 - b2) <= 0.1, spans
    assert spans[360][1][0] == pytest.approx(5.6, abs=0.15)  # the move ends the first
