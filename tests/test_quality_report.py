"""The quality report's measurements: still frames from a real video, cue figures."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from narration.subtitles import Cue
from pipeline.media import FFMPEG
from pipeline.quality import cue_report, frozen_report, join_spans, still_frames, summary


@pytest.fixture(scope="module")
def moving_then_still(tmp_path_factory) -> Path:
    """2 s of a moving test pattern, then its last frame held for 5 s (15 fps)."""
    out = tmp_path_factory.mktemp("q") / "v.mp4"
    subprocess.run([FFMPEG, "-v", "error", "-f", "lavfi", "-i",
                    "testsrc2=s=320x180:r=15:d=2", "-vf",
                    "tpad=stop_mode=clone:stop_duration=5", "-pix_fmt", "yuv420p",
                    "-c:v", "libx264", str(out)], check=True)
    return out


def test_still_frames_are_found(moving_then_still: Path) -> None:
    spans, fps = still_frames(moving_then_still)
    assert fps == 15
    assert len(spans) == 1
    start, end = spans[0]
    assert start == pytest.approx(2.0, abs=0.15)
    assert end == pytest.approx(7.0, abs=0.1)


def test_frozen_only_counts_while_speaking(moving_then_still: Path) -> None:
    talking = frozen_report(moving_then_still, [(0.0, 7.0)])
    assert talking["longest_s"] == pytest.approx(5.0, abs=0.2)
    assert talking["over_limit"] == 0
    quiet = frozen_report(moving_then_still, [(0.0, 2.5)])
    assert quiet["stretches"] == []  # only 0.5 s of the still part has speech


def test_cue_report_reading_speed_and_breaks() -> None:
    text = "The blank's query is [1, 1, 0], about a language and a childhood home."
    cues = [Cue(0.0, 2.0, ("The blank's query is [1,",)),
            Cue(2.1, 4.0, ("1, 0], about a language and a childhood", "home."))]
    rep = cue_report(cues, [(text, (), 0.0, 4.0)], "en")
    assert rep["count"] == 2
    assert rep["cps"]["max"] == pytest.approx(len("1, 0], about a language and a childhood "
                                                  "home.") / 1.9, abs=0.1)
    assert any("brackets" in b for b in rep["bad_breaks"])
    report = {"duration": 4.0, "frozen_while_speaking": {"over_limit": 0, "limit_s": 8.0,
              "longest_s": 0.0, "total_over_3s": 0.0}, "cues": rep, "scenes": []}
    assert "2 cues" in summary(report)[1]


def test_chinese_reading_speed_counts_half_width_half() -> None:
    rep = cue_report([Cue(0.0, 2.0, ("分数是abcd",))], [("分数是abcd", (), 0.0, 2.0)], "zh")
    assert rep["cps"]["max"] == pytest.approx((3 + 2) / 2.0)


def test_the_bilingual_track_is_checked_against_its_rules():
    from narration.types import Cue
    from pipeline.quality import bilingual_report

    good = Cue(0.0, 2.0, ("第一步，打分", "Step one, scoring:"))
    three = Cue(2.1, 4.0, ("把查询和每个键逐项相乘", "multiply q and each key", "entry by",
                            "entry"))
    bare = Cue(4.1, 4.5, ("再把乘积加起来", "Then add them up", "."))
    rep = bilingual_report([good, three, bare], own_zh=True)
    assert rep["count"] == 3
    assert [x.split(" s:")[0] for x in rep["over_two_lines_per_language"]] == ["2.10"]
    assert [x.split(" s:")[0] for x in rep["punctuation_only_lines"]] == ["4.10"]
    assert rep["shortest_s"] == 0.4
    assert [x.split(" s:")[0] for x in rep["under_min_duration"]] == ["4.10"]


def test_the_report_shows_each_scenes_smallest_text() -> None:
    from narration.timeline import SmallestText
    from pipeline.quality import build_report

    scenes = [("hook", 0.0, 10.0, (), ()), ("formula", 10.0, 20.0, (), ())]
    small = {"hook": SmallestText(34.26, "share", "scores"),
             "formula": SmallestText(31.0, "new", "weighted")}
    report = build_report("en", None, [], [], [], scenes, spans=[], smallest_text=small)
    assert report["scenes"][0]["smallest_text"] == {"px": 34.3, "text": "share",
                                                    "beat": "scores"}
    line = next(x for x in summary(report) if "smallest text" in x)
    assert "31.0 px" in line and "formula" in line and "'new'" in line


def test_the_report_counts_lopsided_stretches() -> None:
    from pipeline.quality import build_report

    scenes = [("hook", 0.0, 10.0, (), ()), ("formula", 10.0, 20.0, (), ())]
    lop = {"hook": ("hook.intro: content in the top half for 4.0 s from 1.0 s",)}
    from narration.timeline import SmallestText
    report = build_report("en", None, [], [], [], scenes, spans=[],
                          smallest_text={"hook": SmallestText(40.0, "a", "intro")},
                          lopsided=lop)
    assert report["scenes"][0]["lopsided"] == list(lop["hook"])
    assert report["scenes"][1]["lopsided"] == []
    assert any("1 stretch(es) over 3 s" in x for x in summary(report))


def test_stretches_join_across_a_scene_boundary_only() -> None:
    """A stretch that ends where the next starts inside a scene is two (the picture changed
    at that frame: text written letter by letter is a run of short stretches); a scene's
    last stretch running into the next scene's first is one."""
    writing = [(0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 2.0)]
    assert join_spans([(10.0, writing)]) == [(10.0, 10.2), (10.2, 10.4), (10.4, 10.6),
                                             (10.6, 12.0)]
    assert join_spans([(0.0, [(0.0, 1.0), (4.0, 5.0)]), (5.0, [(0.0, 2.0), (2.0, 3.0)])]) == [
        (0.0, 1.0), (4.0, 7.0), (7.0, 8.0)]
