"""Renders several test modules read: each built once per test session, at the smallest
quality, from the shortest scenes that prove what the tests check.

A test reads a shared build and copies from it (its voice cache, say); it never writes into
it. A test that changes or damages a build (reruns, interrupted runs, edited entries) keeps
its own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The two shortest scenes of either cut (the overview's scores and formula, about 20 s of
# video each): where a test needs scenes but not particular ones, these.
SHORT_CUT = "overview"
SHORT_SCENES = ("ov_scores", "ov_formula")
# Their beats in few words (``--scripts``), each cue mark followed by a word or two and the
# numbers the voice reads: for tests whose checks do not depend on the wording (the screen
# keeps its text). At 2160p60 every second of picture costs; a build of both scenes in both
# languages takes a quarter less CPU (some marks come late: the animations keep their pace).
# Their characters are all in the shipped scripts, so every build's preview page uses the
# one font subset the session shares (``pipeline.page.FontPrefetch``).
TERSE = {
    "ov_formula": {
        "zh": (("recap", "{@f}公式，{@name}名字。{@score}打分，{@scale}缩放，{@share}份额，"
                         "{@blend}求和。"),
               ("closing", "{@full}完整版：{@ia}比方，{@ib}根号 d，{@ic}出处，{@id}算例。")),
        "en": (("recap", "{@f}The formula, {@name}its name. {@score}Scores, {@scale}scale, "
                         "{@share}shares, {@blend}blend."),
               ("closing", "{@full}The full one: {@ia}analogies, {@ib}root d, {@ic}sources, "
                           "{@id}a quiz.")),
    },
    "ov_scores": {
        "zh": (("table", "{@q}查询要什么，{@keys}键有什么。"),
               ("one_dot", "{@pa}{fb.query.0}乘{fb.k.0.0}，{@pb}{fb.query.1}乘{fb.k.0.1}，"
                           "{@pc}{fb.query.2}乘{fb.k.0.2}，{@sum}得{fb.score.0}。{@name}点积。"),
               ("all_scores", "{@second}{fb.token.1}{fb.score.1}，{@third}{fb.token.2}"
                              "{fb.score.2}，{@fourth}{fb.token.3}{fb.score.3}。{@one}各一分。")),
        "en": (("table", "{@q}The query asks, {@keys}keys list."),
               ("one_dot", "{@pa}{fb.query.0} by {fb.k.0.0}, {@pb}{fb.query.1} by {fb.k.0.1}, "
                           "{@pc}{fb.query.2} by {fb.k.0.2}, {@sum}{fb.score.0}. "
                           "{@name}Dot product."),
               ("all_scores", "{@second}{fb.token.1} {fb.score.1}, {@third}{fb.token.2} "
                              "{fb.score.2}, {@fourth}{fb.token.3} {fb.score.3}. "
                              "{@one}One each.")),
    },
    # Chinese only: the zh builds of the full cut's library and formula (tests/test_incremental.py,
    # tests/test_faults.py, tests/test_render_cli.py)
    "library": {
        "zh": (("intro", "去图书馆，{@wish}找书。{@s_query}查询、{@s_match}匹配、{@s_take}取用。"
                         "{@want}这是 Q。"),
               ("catalogue", "{@cards}卡片，{@labels}标签，{@see_khead}这是 K；{@books}书，"
                             "{@see_vhead}内容是 V。{@apart}卡片不是书。"),
               ("match", "{@match}对卡片，{@best}越好越重。"),
               ("take", "{@pull}最对口多读，{@some}次一点少读，{@rest}不相干不碰。{@mix}混合。"),
               ("recap", "{@q}Q 想找的，{@k}K 标签，{@v}V 内容。{@steps}三步。")),
    },
    "formula": {
        "zh": (("intro", "四步一行。{@name}缩放点积注意力。"),
               ("scores", "{@qk}Q 乘 K 的转置，{@dot}点积：{@q}查询{@k}和键。{@t}转置。"),
               ("grid", "{@all}全部配对：{@rows}行，{@cols}列，{@cells}分数。"),
               ("scale", "{@sd}除以根号 d，{@scaled}缩放，{@shrink}压回。"),
               ("softmax", "{@sm}softmax，{@rows}按行，{@sum}和为一。"),
               ("weighted", "{@v}乘 V，{@mix}混合，{@new}新向量，{@see_new}新表示。"),
               ("parallel", "{@indep}各行分开，{@all}同时算，{@see_parallel_1}快。")),
    },
}


def scene_processes(out: Path) -> list[str]:
    """The command lines of a run's scene processes still alive: its ``scenes.run``
    processes, and its scene processes' server (``scenes.zygote``), whose command line the
    scene processes forked from it keep; both name the run's output folder ``out``."""
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if str(out) in line and "ps -eo" not in line
            and ("scenes.run" in line or "scenes.zygote" in line)]


@dataclass(frozen=True)
class Build:
    """One render.py run's output folder, build cache and log."""

    out: Path
    cache: Path
    stderr: str
    cut: str
    scripts: Path | None = None  # its --scripts copy, which a build to compare must read

    def folder(self, lang: str) -> Path:
        """OUT/<lang>/, or OUT/<lang>/overview/ for the overview."""
        return self.out / lang / self.cut if self.cut != "full" else self.out / lang


Beats = Mapping[str, Sequence[tuple[str, str]]]  # lang -> (id, text) each


def scripts_with(root: Path, scenes: Mapping[str, Beats]) -> Path:
    """A copy of the shipped scripts at ``root`` (for ``--scripts``) where each scene of
    ``scenes`` has the beats given for each language; titles and screen strings are kept.
    A test whose check does not depend on the wording speaks less this way: every second
    of voice and picture costs."""
    from narration.scripts import SCRIPTS_DIR, script_path

    shutil.copytree(SCRIPTS_DIR, root)
    for name, by_lang in scenes.items():
        for lang, items in by_lang.items():
            path = script_path(name, lang, root)
            head = path.read_text("utf-8").split("[[beat]]", 1)[0]
            body = "\n".join(f'[[beat]]\nid = "{i}"\ntext = "{t}"\n' for i, t in items)
            path.write_text(f"{head}{body}", "utf-8")
    return root


def render_cmd(out: Path, cache: Path, *args: str) -> list[str]:
    return [sys.executable, str(ROOT / "render.py"), "--out", str(out), "--cache", str(cache),
            *args]


@pytest.fixture(scope="session")
def espeak_short_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """Both languages of the two shortest scenes at 480p15, in few words (``TERSE``), with
    espeak-ng (the voice does not matter to the tests that read it, and it speaks in
    seconds), clips and deck included, two scene processes at a time, into a fresh cache.
    Read by tests/test_dask.py (the local run a cluster's must match) and
    tests/test_incremental.py (the parallel build a serial one must match)."""
    tmp = tmp_path_factory.mktemp("espeak_short")
    out, cache = tmp / "out", tmp / "cache"
    scripts = scripts_with(tmp / "scripts", TERSE)
    p = subprocess.run(render_cmd(out, cache, "--lang", "all", "--quality", "low", "--cut",
                                  SHORT_CUT, "--scenes", ",".join(SHORT_SCENES), "--tts",
                                  "espeak", "--jobs", "2", "--scripts", str(scripts)),
                       capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    return Build(out, cache, p.stderr, SHORT_CUT, scripts)
