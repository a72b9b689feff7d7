"""End to end: render.py turns the worked example and the quiz into narrated, subtitled MP4s
in both languages with the offline voices (Kokoro, Piper), a changed numbers file changes
voice and subtitles, and the quiz leaves real time to think (issue 31)."""

from __future__ import annotations

import io
import itertools
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import av
import numpy as np
import pytest

from narration.subtitles import line_width, read_srt
from pipeline.media import FFMPEG, probe
from qkv_math.numbers import DEFAULT_NUMBERS
from tests.shared_renders import TERSE, scripts_with

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

NEW_V = [[2, 1], [0, 3], [1, 1]]
WE_Q = [[1, 0], [0, 1], [1, 1]]  # the built-in worked example's queries and keys
WE_K = [[0, 1], [1, 0], [1, 2]]


def _plain_weights(Q, K, query):
    """The worked example's weights by hand: dot products, /sqrt(d), exp-normalise."""
    q = Q[query]
    scores = [sum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(len(q)) for k in K]
    exps = [math.exp(s) for s in scores]
    return [e / sum(exps) for e in exps]


def _plain_output(Q, K, V, query):
    """The worked example's output by hand: dot products, /sqrt(d), exp-normalise, mix."""
    q = Q[query]
    d = len(q)
    scores = [sum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(d) for k in K]
    exps = [math.exp(s) for s in scores]
    weights = [e / sum(exps) for e in exps]
    return [sum(w * v[j] for w, v in zip(weights, V, strict=True)) for j in range(len(V[0]))]


# Two scenes of the full cut (chapters, clips and beat boundaries need a boundary between
# two): the worked example (it reads the changed V) and the quiz (its silences to think are
# measured on the video's own sound, in both voices).
FULL_SCENES = "worked_example,recap_quiz"
# Two scenes of the overview (its master's chapters and the burned copy's cues need two), in
# few words (``tests.shared_renders.TERSE``): the scores read the blank's query, the formula
# reads no number (so a changed numbers file leaves its picture as it was), and together
# they are its two shortest (a third of the Kokoro synthesis the weighted sum's took).
OVERVIEW_SCENES = "ov_scores,ov_formula"

# The quiz's beats in few words (``--scripts``): what is measured on it (the silence after
# each prompt, a prompt heard before it and an answer after) does not depend on how much the
# recap and the answers say, and its shipped wording (94 s of Kokoro's voice, half the
# synthesis here) is read through with espeak-ng's timings in tests/subtitles. Its marks, its
# spoken prompts to pause, the numbers its answers read and its recap (the scene's opening
# animation needs the recap's time) are kept.
TERSE_QUIZ = {
    "zh": (("recap", "收个尾：整套注意力就是{@f}这一行，{@name}叫缩放点积注意力。{@score}Q 乘 K "
                     "的转置，打分；{@scale}除以根号 d，缩放；{@share}softmax，变成份额；{@blend}"
                     "再乘 V，加权求和。"),
           ("q1", "第一题：{@q}空格的 Q 和{fb.rank.0}的 K 点积最大，说明什么？"),
           ("think1", "按下暂停，想一想。"),
           ("a1", "对得上：{@b}{fb.rank.0}最合意，{@c}分得{fb.rank_weight_scaled.0:pct}，"
                  "{@d}看标签。"),
           ("q2", "第二题：{@q}为什么取 e 的次方？"),
           ("think2", "先别急，暂停想想。"),
           ("a2", "加常数要挑数。{@b}softmax 不用挑，{@c}每份都是正的，{@d}分高得多。"),
           ("q3", "第三题：{@q}为什么先除以根号 d？"),
           ("think3", "可以先暂停。"),
           ("a3", "d 越大，波动越大，{@b}softmax 一边倒。{@c}d 是{fb.d_model}，"
                  "除以{fb.sqrt_d_model}。"),
           ("q4", "最后一题：{@q}K 和 V 各管什么？"),
           ("think4", "先想一想。"),
           ("a4", "K 是标签，{@b}V 是内容，{@c}提问的是 Q。"),
           ("outro", "记住{@f}这一行：{@qk}Q 乘 K 的转置，{@sd}除以根号 d，{@v}再乘 V。"
                     "{@next}下一步，{@gloss}多头注意力。")),
    "en": (("recap", "To sum up, all of attention fits on {@f}one line: {@name}scaled "
                     "dot-product attention. {@score}Q times K transposed gives the scores, "
                     "{@scale}root d scales them, {@share}softmax turns them into shares, "
                     "{@blend}and times V blends the values."),
           ("q1", "One: {@q}the blank's query scores highest with {fb.rank.0}. Why?"),
           ("think1", "Pause and think."),
           ("a1", "They match: {@b}{fb.rank.0} fits best, {@c}{fb.rank_weight_scaled.0:pct}, "
                  "{@d}by its label."),
           ("q2", "Two: {@q}why powers of e?"),
           ("think2", "Don't peek: pause."),
           ("a2", "A constant needs choosing. {@b}Softmax does not, {@c}every share is "
                  "positive, {@d}higher scores get more."),
           ("q3", "Three: {@q}why divide by root d first?"),
           ("think3", "Pause if you like."),
           ("a3", "Larger d, wider swings; {@b}softmax goes all-in. {@c}With d at "
                  "{fb.d_model}, divide by {fb.sqrt_d_model}."),
           ("q4", "Last one: {@q}what do K and V do?"),
           ("think4", "Take a moment."),
           ("a4", "K is the label, {@b}V the content, {@c}Q asks."),
           ("outro", "Keep {@f}this line: {@qk}Q times K transposed {@sd}over root d, "
                     "{@v}times V. {@next}Next, {@gloss}multi-head attention.")),
}

# The worked example's beats with every number it reads and every cue mark, and few other
# words: what is checked on it (the changed V said, shown and subtitled; the pronunciation
# of the numbers said; cues inside speech) lives in its numbers, and its shipped wording
# (the larger part of this module's Kokoro synthesis) is read right by Kokoro's own reading
# in tests/narration/test_pronunciation.py and timed with espeak-ng in tests/subtitles.
TERSE_WORKED = {
    "zh": (("intro", "把四步亲手算一遍，只用{we.n}个词：{@ta}{we.token.0}、{@tb}{we.token.1}、"
                     "{@tc}{we.token.2}。"
                     "{@qkv}Q、{@k}K、{@v}V 各{we.d}个数。"),
           ("query", "算{@query}「{we.query_token}」。{@q}q 是{we.q:vec}，{@keys}比对每个 K。"),
           ("scores", "{@step}第一步，{@mul}相乘{@add}再相加。{@sa}{we.token.0}得{we.score.0}；"
                      "{@sb}{we.token.1}得{we.score.1}；{@sc}{we.token.2}得{we.score.2}。"),
           ("scale", "{@sqrt}第二步，除以根号{we.d}，{@about}约{we.sqrt_d:2}：{@scaled}变成"
                     "{@xa}{we.scaled.0:2}、{@xb}{we.scaled.1:2}、{@xc}{we.scaled.2:2}。"),
           ("softmax", "{@exp}第三步，e 的次方：{@ea}{we.exp.0:2}、{@eb}{we.exp.1:2}、"
                       "{@ec}{we.exp.2:2}，{@total}总和{we.exp_total:2}。"),
           ("weights", "{@div}除以总和，{@w}权重{we.weight.0:pct}、{we.weight.1:pct}、"
                       "{we.weight.2:pct}，{@one}和为一。"),
           ("weighted_sum", "{@mix}第四步，加权求和：{@wv}权重乘 V，{@add}再相加，"
                            "{@out}得到{we.output:vec2}。"),
           ("meaning", "{@new}新的「{we.query_token}」：{@blend}不再单个，"
                       "{@mixed}混进了{we.others}。")),
    "en": (("intro", "The four steps by hand, on {we.n} words: {@ta}{we.token.0}, "
                     "{@tb}{we.token.1}, {@tc}{we.token.2}. "
                     "{@qkv}A Q, {@k}a K, {@v}a V of {we.d} numbers."),
           ("query", "The new {@query}“{we.query_token}”. {@q}Query {we.q:vec}, {@keys}"
                     "against each key."),
           ("scores", "{@step}Step one: {@mul}multiply, {@add}add. {@sa}{we.token.0}, "
                      "{we.score.0}. {@sb}{we.token.1}, {we.score.1}. {@sc}{we.token.2}, "
                      "{we.score.2}."),
           ("scale", "{@sqrt}Step two: over root {we.d}, {@about}about {we.sqrt_d:2}. "
                     "{@scaled}Now {@xa}{we.scaled.0:2}, {@xb}{we.scaled.1:2}, "
                     "{@xc}{we.scaled.2:2}."),
           ("softmax", "{@exp}Step three: e to each, {@ea}{we.exp.0:2}, {@eb}{we.exp.1:2}, "
                       "{@ec}{we.exp.2:2}. {@total}Total {we.exp_total:2}."),
           ("weights", "{@div}Divided by it, {@w}weights {we.weight.0:pct}, {we.weight.1:pct}, "
                       "{we.weight.2:pct}, {@one}summing to one."),
           ("weighted_sum", "{@mix}Step four: {@wv}weight each word's V {@add}and add: "
                            "{@out}{we.output:vec2}."),
           ("meaning", "{@new}The new “{we.query_token}”: {@blend}not alone, {@mixed}mixed with "
                       "{we.others}.")),
}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e")
    numbers = tmp / "numbers.toml"
    text = DEFAULT_NUMBERS.read_text("utf-8")
    numbers.write_text(text.replace("V = [[1, 2], [3, 0], [0, 1]]", f"V = {NEW_V}"), "utf-8")
    scripts_with(tmp / "scripts", {"recap_quiz": TERSE_QUIZ, "worked_example": TERSE_WORKED,
                                   **{s: TERSE[s] for s in OVERVIEW_SCENES.split(",")}})
    cmd = [sys.executable, str(ROOT / "render.py"), "--lang", "all", "--quality", "low",
           "--scenes", FULL_SCENES, "--tts", "offline", "--numbers", str(numbers),
           "--scripts", str(tmp / "scripts"),
           "--out", str(tmp / "out"), "--cache", str(tmp / "cache")]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-3000:]
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert second.returncode == 0, second.stderr[-3000:]
    return tmp / "out", first, second


@pytest.fixture(scope="module")
def overview(rendered):
    """Two scenes of the overview cut rendered beside the full cut's (same numbers file,
    output folder and cache); the full cut's build keys before and after."""
    out, _, _ = rendered
    tmp = out.parent
    keys = {lang: json.loads((out / lang / "build.json").read_text("utf-8"))["key"]
            for lang in ("zh", "en")}
    # Run from the output's parent with relative paths: the scene processes (which run in
    # the project) must still find the plans.
    cmd = [sys.executable, str(ROOT / "render.py"), "--cut", "overview", "--lang", "all",
           "--quality", "low", "--scenes", OVERVIEW_SCENES, "--tts", "offline",
           "--numbers", "numbers.toml", "--scripts", "scripts", "--out", out.name,
           "--cache", "cache", "--burn-subs"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=tmp)
    assert run.returncode == 0, run.stderr[-3000:]
    return out, run, keys


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_overview_is_a_cut_of_its_own(overview, lang):
    """OUT/<lang>/overview/: its own master (two subtitle tracks, chapters), manifest,
    report (the overview's 5 s limit on a still picture), thumbnail and description; the
    full cut's outputs are left as they were."""
    out, _run, keys = overview
    folder = out / lang / "overview"
    info = probe(folder / "video.mp4")
    assert [s.codec for s in info.of("subtitle")] == ["mov_text", "mov_text"]
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    assert manifest["cut"] == "overview"
    assert [sc["id"] for sc in manifest["scenes"]] == OVERVIEW_SCENES.split(",")
    assert [c[1] for c in info.chapters] == [sc["title"] for sc in manifest["scenes"]]
    report = json.loads((folder / "report.json").read_text("utf-8"))
    assert report["cut"] == "overview"
    assert report["frozen_while_speaking"]["limit_s"] == 5.0
    assert report["frozen_while_speaking"]["over_limit"] == 0
    assert report["cues"]["bad_breaks"] == [] and report["cues"]["over_cps"] == []
    assert report["pronunciation"]["mismatches"] == []
    assert report["pronunciation"]["unspoken"] == []
    assert all(not s["layout"] for s in report["scenes"])
    assert (folder / "thumbnail.png").stat().st_size > 10_000
    from narration.scripts import video_title
    assert (folder / "description.txt").read_text("utf-8").startswith(
        video_title(lang, cut="overview"))
    # the full cut's outputs are untouched, and its own manifest says so
    assert json.loads((out / lang / "build.json").read_text("utf-8"))["key"] == keys[lang]
    assert json.loads((out / lang / "manifest.json").read_text("utf-8"))["cut"] == "full"


def test_burned_copy_is_the_master_with_its_subtitles_drawn_in(overview):
    """video.burned.mp4 (``--burn-subs``): the master's length, sound, subtitle tracks and
    chapters; its picture the master's above the subtitle band, and the band lit exactly
    while a cue is shown."""
    from narration import style

    out, _run, _keys = overview
    folder = out / "zh" / "overview"
    master, burned = probe(folder / "video.mp4"), probe(folder / "video.burned.mp4")
    assert [(s.kind, s.codec) for s in burned.streams] == \
        [(s.kind, s.codec) for s in master.streams]
    assert burned.chapters == master.chapters
    assert abs(burned.of("video")[0].duration - master.of("video")[0].duration) < 1e-3
    cues = read_srt(folder / "video.srt")

    fps = 15
    shown: set[int] = set()
    near: set[int] = set()  # frames a cue starts or ends by: either way is right
    for c in cues:
        shown.update(range(math.ceil((c.start + 0.02) * fps), math.floor((c.end - 0.02) * fps)))
        for t in (c.start, c.end):
            near.update(range(math.floor(t * fps) - 1, math.ceil(t * fps) + 1))
    count = 0
    with av.open(str(folder / "video.mp4")) as a, av.open(str(folder / "video.burned.mp4")) as b:
        pairs = zip(a.decode(a.streams.video[0]), b.decode(b.streams.video[0]), strict=True)
        for i, (fa, fb) in enumerate(pairs):
            plain = fa.to_ndarray(format="gray").astype(np.int16)
            drawn = fb.to_ndarray(format="gray").astype(np.int16)
            band = round(plain.shape[0] * (1 - style.SUBTITLE_BAND_SHARE))
            assert np.abs(plain[:band] - drawn[:band]).mean() < 2, f"frame {i}: picture changed"
            if i not in near:
                lit = bool(np.abs(plain[band:] - drawn[band:]).max() > 60)
                assert lit == (i in shown), f"frame {i} ({i / fps:.2f} s): cue shown {i in shown}"
            count += 1
    assert count == round(master.of("video")[0].duration * fps)


def test_full_cut_rerun_keeps_the_overview(overview):
    """Rebuilding the full cut's outputs carries the overview's folder over."""
    out, _, _ = overview
    tmp = out.parent
    before = (out / "zh" / "overview" / "video.mp4").stat().st_mtime_ns
    (out / "zh" / "build.json").unlink()  # forces the full cut's outputs to be rebuilt
    cmd = [sys.executable, str(ROOT / "render.py"), "--lang", "zh", "--quality", "low",
           "--scenes", FULL_SCENES, "--tts", "offline", "--numbers",
           str(tmp / "numbers.toml"), "--scripts", str(tmp / "scripts"), "--out", str(out),
           "--cache", str(tmp / "cache")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "outputs zh rebuilt" in p.stderr
    assert (out / "zh" / "overview" / "video.mp4").stat().st_mtime_ns == before
    assert (out / "zh" / "video.mp4").is_file()


def test_one_numbers_file_reaches_both_cuts(overview, tmp_path):
    """A changed numbers file: the plan re-renders the scenes of both cuts that read the
    changed numbers (the worked example's V; the blank's query), keeps the one that reads
    none (the overview's formula), and rebuilds both cuts' outputs."""
    out, _, _ = overview
    tmp = out.parent
    changed = tmp_path / "numbers.toml"
    text = (tmp / "numbers.toml").read_text("utf-8")
    # the blank's query is x_query times W_Q: [1, 1, 1] adds all three rows of W_Q
    assert "x_query = [1, 0, 1]" in text and f"V = {NEW_V}" in text
    # (that query scores "I" at -4: the naive attempt's constant goes up to 4 with it)
    changed.write_text(text.replace("x_query = [1, 0, 1]", "x_query = [1, 1, 1]")
                       .replace("shift = 3 ", "shift = 4 ")
                       .replace(f"V = {NEW_V}", "V = [[1, 1], [2, 0], [0, 3]]"), "utf-8")
    p = subprocess.run(
        [sys.executable, str(ROOT / "render.py"), "--plan", "--cut", "all", "--lang", "all",
         "--quality", "low", "--scenes", f"worked_example,{OVERVIEW_SCENES}", "--tts",
         "offline", "--numbers", str(changed), "--scripts", str(tmp / "scripts"), "--out",
         str(out), "--cache",
         str(tmp / "cache")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    for lang in ("zh", "en"):
        for scene in ("worked_example", "ov_scores"):
            assert re.search(rf"^\[{lang}\] {scene} +rebuild", p.stderr, re.M), p.stderr
        assert re.search(rf"^\[{lang}\] ov_formula +reuse", p.stderr, re.M), p.stderr
        assert re.search(rf"^\[{lang}\] outputs +rebuild", p.stderr, re.M)
        assert re.search(rf"^\[{lang}\] overview outputs +rebuild", p.stderr, re.M)
    # and with the numbers it was rendered from, both cuts are up to date
    same = subprocess.run(
        [sys.executable, str(ROOT / "render.py"), "--plan", "--cut", "overview", "--lang",
         "all", "--quality", "low", "--scenes", OVERVIEW_SCENES, "--tts", "offline",
         "--numbers", str(tmp / "numbers.toml"), "--scripts", str(tmp / "scripts"),
         "--out", str(out), "--cache",
         str(tmp / "cache"), "--burn-subs"], capture_output=True, text=True, timeout=300)
    assert same.returncode == 0, same.stderr[-3000:]
    assert "rebuild" not in same.stderr, same.stderr


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_video_has_picture_voice_and_tagged_subtitles_in_step(rendered, lang):
    out, _, _ = rendered
    video = out / lang / "video.mp4"
    info = probe(video)
    (v,), (a,), subs = info.of("video"), info.of("audio"), info.of("subtitle")
    assert v.codec == "h264" and a.codec == "aac"
    tags = {"zh": "chi", "en": "eng"}
    other = "en" if lang == "zh" else "zh"
    assert [s.codec for s in subs] == ["mov_text", "mov_text"]
    assert [s.language for s in subs] == [tags[lang], tags[other]]
    assert abs(a.duration - v.duration) <= 0.001 + 1 / 48000
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    assert abs(manifest["duration"] - v.duration) <= 0.1
    assert [c[1] for c in info.chapters] == [sc["title"] for sc in manifest["scenes"]]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_cue_lies_inside_the_speech_of_a_beat(rendered, lang):
    out, _, _ = rendered
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    beats = [b for sc in manifest["scenes"] for b in sc["beats"]]
    cues = read_srt(out / lang / "video.srt")
    assert len(cues) >= len(beats)
    for cue in cues:  # a cue too short to read may outlast its speech by up to 0.5 s
        assert any(b["start"] - 0.002 <= cue.start and cue.end <= b["speech_end"] + 0.502
                   for b in beats), cue
    limit = 16 if lang == "zh" else 42
    assert all(line_width(line, lang == "zh") <= limit for cue in cues for line in cue.lines)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_quality_report_matches_the_video(rendered, lang):
    out, first, _ = rendered
    report = json.loads((out / lang / "report.json").read_text("utf-8"))
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    assert [s["id"] for s in report["scenes"]] == [s["id"] for s in manifest["scenes"]]
    assert sum(s["duration"] for s in report["scenes"]) == pytest.approx(
        manifest["duration"], abs=0.1)
    assert report["cues"]["count"] == len(read_srt(out / lang / "video.srt"))
    # the default voices' own word timings (Kokoro, Piper) read within the limits too; the
    # whole script's cues are judged with espeak-ng's (tests/subtitles/test_script_cues.py)
    assert report["cues"]["bad_breaks"] == [] and report["cues"]["over_cps"] == []
    # Every reported frozen stretch really is one: nothing visible appears or moves across
    # it. Frames are compared in 4x4-pixel blocks (block means), so encoder noise and a
    # one-pixel outline shift stay well below a glyph appearing.
    def blocks(img):
        h, w = (img.shape[0] // 4) * 4, (img.shape[1] // 4) * 4
        return img[:h, :w].reshape(h // 4, 4, w // 4, 4).mean(axis=(1, 3))

    stretches = report["frozen_while_speaking"]["stretches"]

    def in_stretch(t: float, st: dict) -> bool:
        return st["start"] + 0.1 < t < st["end"] - 0.1

    # every frame is decoded; only those inside a stretch are compared (and so measured)
    with av.open(str(out / lang / "video.mp4")) as c:
        frames = [(f.time, blocks(f.to_ndarray(format="gray").astype(float)))
                  for f in c.decode(c.streams.video[0])
                  if any(in_stretch(f.time, st) for st in stretches)]
    for st in stretches:
        inside = [img for t, img in frames if in_stretch(t, st)]
        assert len(inside) >= 2
        assert max(float(abs(img - inside[0]).max()) for img in inside) <= 60
        assert any(b["start"] <= st["start"] + 0.1 and st["start"] < b["speech_end"]
                   for sc in manifest["scenes"] for b in sc["beats"])
    assert f"[{lang}] report:" in first.stderr


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_voice_is_heard_during_beats_and_beats_follow_each_other(rendered, lang):
    out, _, _ = rendered
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    with av.open(str(out / lang / "video.mp4")) as c:
        stream = c.streams.audio[0]
        rate = stream.rate
        pcm = np.concatenate([f.to_ndarray().mean(axis=0) for f in c.decode(stream)])
    beats = [b for sc in manifest["scenes"] for b in sc["beats"]]
    for prev, nxt in itertools.pairwise(beats):
        assert prev["end"] <= nxt["start"] + 1e-3
    for b in beats:
        seg = pcm[int(b["start"] * rate): int(b["speech_end"] * rate)]
        assert np.sqrt(np.mean(seg**2)) > 0.01, b["id"]


def test_changed_numbers_reach_voice_text_and_subtitles(rendered):
    out, _, _ = rendered
    expected = _plain_output(WE_Q, WE_K, NEW_V, 1)
    shown = f"[{expected[0]:.2f}, {expected[1]:.2f}]"
    for lang in ("zh", "en"):
        manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
        texts = " ".join(b["text"] for sc in manifest["scenes"] for b in sc["beats"])
        assert shown in texts
        srt = (out / lang / "video.srt").read_text("utf-8")
        assert f"{expected[0]:.2f}" in srt


def _summary(stderr: str) -> dict[str, int]:
    line = next(x for x in stderr.splitlines() if x.startswith("summary: "))
    m = re.search(r"voice (\d+) beats, (\d+) synthesized; scenes (\d+) rendered, (\d+) reused",
                  line)
    assert m, line
    return dict(zip(["beats", "synthesized", "rendered", "reused"], map(int, m.groups()),
                    strict=True))


def test_rerun_synthesizes_and_renders_nothing(rendered):
    _, first, second = rendered
    a, b = _summary(first.stderr), _summary(second.stderr)
    assert a["synthesized"] == a["beats"] == b["beats"] > 0
    assert (a["rendered"], a["reused"]) == (4, 0)  # two scenes, two languages
    assert (b["synthesized"], b["rendered"], b["reused"]) == (0, 0, 4)
    assert "outputs none rebuilt" in second.stderr


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_master_is_what_platforms_take(rendered, lang):
    out, _, _ = rendered
    path = out / lang / "video.mp4"
    with av.open(str(path)) as c:
        v, a = c.streams.video[0], c.streams.audio[0]
        cc = v.codec_context
        assert (cc.profile, cc.pix_fmt) == ("High", "yuv420p")
        assert (cc.color_primaries, cc.color_trc, cc.colorspace) == (1, 1, 1)  # BT.709
        fps = float(v.average_rate)
        keys = [float(pk.pts * v.time_base) for pk in c.demux(v) if pk.is_keyframe]
        gop = fps // 2  # frames
        gaps = [round((b - a_) * fps) for a_, b in itertools.pairwise(keys)]
        assert max(gaps) == gop, gaps  # closed GOPs of half the rate at most
        # ... each scene starts on a keyframe (the master joins per-scene segments)
        manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
        starts = [round(sc["start"], 3) for sc in manifest["scenes"]]
        assert all(any(abs(k - st) < 1.5 / fps for k in keys) for st in starts), (keys, starts)
        # ... and a GOP is cut short only where a held frame starts or ends (half of them
        # at least are whole)
        assert sum(g == gop for g in gaps) >= len(gaps) / 2, gaps
        assert (a.codec_context.profile, a.rate, a.channels) == ("LC", 48000, 2)
        subs = [s for s in c.streams if s.type == "subtitle"]
        assert [bool(s.disposition & av.stream.Disposition.default) for s in subs] == [
            True, False]
    data = path.read_bytes()
    assert data.index(b"moov") < data.index(b"mdat")  # fast start
    from pipeline.loudness import measure

    loud = measure(path)
    assert abs(loud.integrated_lufs + 14) <= 1.0 and loud.true_peak_dbtp <= -1.0
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    assert manifest["loudness"]["integrated_lufs"] == pytest.approx(loud.integrated_lufs, abs=0.2)
    # No warning when ffmpeg reads the chapters.
    read = subprocess.run([FFMPEG, "-hide_banner", "-i", str(path)], capture_output=True,
                          text=True)
    assert "chapter track not found" not in read.stderr
    assert read.stderr.count("Chapter #") == len(manifest["scenes"])
    # Constant frame rate, joins included; no edit lists; chapters in the video's language.
    from common import mp4box

    with av.open(str(path)) as c:
        v = c.streams.video[0]
        pts = sorted(pk.pts for pk in c.demux(v) if pk.pts is not None)
        tick = round(1 / (float(v.average_rate) * v.time_base))
    assert {b - a_ for a_, b in itertools.pairwise(pts)} == {tick}
    assert b"elst" not in mp4box.box_kinds(path)
    assert mp4box.chapter_language(path) == {"zh": "chi", "en": "eng"}[lang]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_subtitles_in_every_form(rendered, lang):
    out, _, _ = rendered
    other = "en" if lang == "zh" else "zh"
    d = out / lang
    own, own_vtt = read_srt(d / "video.srt"), read_srt(d / "video.vtt")
    assert own == own_vtt and own
    theirs = read_srt(d / f"video.{other}.srt")
    manifest = json.loads((d / "manifest.json").read_text("utf-8"))
    beats = [b for sc in manifest["scenes"] for b in sc["beats"]]
    # The other language's cues lie inside this video's speech, beat by beat.
    for cue in theirs:
        assert any(b["start"] - 0.002 <= cue.start and cue.end <= b["speech_end"] + 0.502
                   for b in beats), cue
    both = read_srt(d / "video.bilingual.srt")
    assert both and all(len(c.lines) >= 2 for c in both)
    zh_first = lang == "zh"
    for c in both:
        has_cjk = any("\u4e00" <= ch <= "\u9fff" for ch in c.lines[0])
        assert has_cjk == zh_first or not any(ch.isalpha() for ch in c.lines[0])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_publishing_kit(rendered, lang):
    out, _, _ = rendered
    from PIL import Image

    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    text = (out / lang / "description.txt").read_text("utf-8")
    assert text.splitlines()[0] == manifest["title"]
    assert f"00:00 {manifest['scenes'][0]['title']}" in text
    # each chapter at the container's time, cut to the second as platforms read it
    from pipeline.kit import stamp

    held = probe(out / lang / "video.mp4").chapters
    listed = text.split("\n\n")[-1].strip().splitlines()[1:]
    assert listed == [f"{stamp(t)} {title}" for t, title in held]
    thumb = out / lang / "thumbnail.png"
    assert Image.open(thumb).size == (1280, 720) and thumb.stat().st_size < 2_000_000


def test_store_keys_name_files_by_content(rendered):
    """Every stored segment's key names the files it was made from by their content: no
    path, and no file name (a scene picture is always picture.mp4) that is not itself the
    key of a stored file."""
    out, _, _ = rendered
    cache = out.parent / "cache"
    metas = list((cache / "segments").glob("*/*.json"))
    assert metas
    stored = {m.stem for m in metas}
    names = {f.name for f in out.parent.rglob("*") if f.is_file()} | \
        {f.stem for f in out.parent.rglob("*") if f.is_file()}
    kinds = set()
    for meta in metas:
        record = json.loads(meta.read_text("utf-8"))
        kinds.add(record["kind"])

        def strings(x):
            if isinstance(x, str):
                yield x
            elif isinstance(x, list):
                for y in x:
                    yield from strings(y)
            elif isinstance(x, dict):
                for y in x.values():
                    yield from strings(y)

        for s in strings(record["parts"]):
            assert "/" not in s or not Path(s).exists(), (meta, s)
            assert s not in names or s in stored, (meta.parent.name, s)
    assert {"poster", "voice", "aac", "clip-sound", "deck-picture", "deck"} <= kinds


def _slices(packet: bytes) -> bytes:
    """An MP4 H.264 packet's NAL units (4-byte lengths) without the parameter sets (SPS,
    PPS) that joining the segments repeats in-band: the coded picture alone."""
    out, i = [], 0
    while i + 4 <= len(packet):
        n = int.from_bytes(packet[i:i + 4], "big")
        nal = packet[i + 4:i + 4 + n]
        if nal and nal[0] & 0x1F not in (7, 8):
            out.append(nal)
        i += 4 + n
    return b"".join(out)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_scene_clips_posters_and_deck(rendered, lang):
    out, _, _ = rendered
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    clips = sorted((out / lang / "clips").glob("[0-9][0-9]_*.mp4"))
    assert [c.stem.split("_", 1)[1] for c in clips] == [s["id"] for s in manifest["scenes"]]
    with av.open(str(out / lang / "video.mp4")) as m:
        master = m.streams.video[0]
        size = (master.codec_context.width, master.codec_context.height)
        master_packets = [_slices(bytes(p)) for p in m.demux(master) if p.size]
    total = 0.0
    copied = []
    for clip in clips:
        with av.open(str(clip)) as c:
            v = c.streams.video[0]
            # the master's own picture, copied: same size, and it decodes end to end
            assert (v.codec_context.width, v.codec_context.height) == size
            assert c.streams.audio[0].rate == 48000
            assert [s.language for s in c.streams if s.type == "subtitle"] == [
                {"zh": "chi", "en": "eng"}[x] for x in (lang, "en" if lang == "zh" else "zh")]
            fps = float(v.average_rate)
            total += c.duration / av.time_base
            frames = sum(1 for _ in c.decode(v))
            assert frames == round(c.duration / av.time_base * fps)
        with av.open(str(clip)) as c:
            copied += [_slices(bytes(p)) for p in c.demux(c.streams.video[0]) if p.size]
        for poster in (clip.with_suffix(".first.png"), clip.with_suffix(".last.png")):
            assert poster.stat().st_size > 1000
    assert copied == master_packets  # stream copies of the master's segments, in order
    assert abs(total - manifest["duration"]) <= len(clips) / fps + 0.05
    import zipfile

    from pptx import Presentation

    with zipfile.ZipFile(out / lang / "slides.pptx") as z:  # the deck's captioned clips
        kinds = {i.filename.rsplit(".", 1)[-1]: i.compress_type for i in z.infolist()}
        # media stored as they are (deflating MP4 gains nothing), the XML deflated
        assert kinds["mp4"] == kinds["png"] == zipfile.ZIP_STORED
        assert kinds["xml"] == zipfile.ZIP_DEFLATED
        assert z.testzip() is None
        for name in [n for n in z.namelist() if n.endswith(".mp4")]:
            (tmp := out.parent / "deck-media.mp4").write_bytes(z.read(name))
            with av.open(str(tmp)) as c:
                assert c.streams.video[0].codec_context.height == min(720, size[1])
    deck = Presentation(str(out / lang / "slides.pptx"))
    assert (deck.slide_width, deck.slide_height) == (12192000, 6858000)  # 16:9
    slides = list(deck.slides)
    cover, rest = slides[0], slides[1:]
    assert manifest["title"] in [sh.text_frame.text for sh in cover.shapes if sh.has_text_frame]
    assert cover.notes_slide.notes_text_frame.text.strip()
    movies = [sl for sl in rest if any(sh.shape_type == 16 for sh in sl.shapes)]  # MEDIA
    assert len(movies) == len(clips)
    for slide, scene, clip in zip(movies, manifest["scenes"], clips, strict=True):
        # the video frame carries the title: the slide's title placeholder (for the outline
        # and screen readers) sits above the visible area, and no other text is shown
        title = slide.shapes.title
        assert title.text_frame.text.startswith(scene["title"] + " · ")
        assert title.top + title.height <= 0
        assert not any(sh.has_text_frame and sh.text_frame.text for sh in slide.shapes
                       if sh is not title and sh.shape_id != title.shape_id)
        # the movie: named and described, its poster the scene's fullest frame (last beat)
        movie = next(sh for sh in slide.shapes if sh.shape_type == 16)
        assert movie.name == f"Movie: {scene['title']}"
        assert movie._element._nvXxPr.cNvPr.get("descr").startswith(scene["title"] + ": ")
        poster = slide.part.related_part(movie._element.blipFill.blip.rEmbed).blob
        assert poster == clip.with_suffix(".last.png").read_bytes()
        # notes one per beat, timed
        notes = [p.text for p in slide.notes_slide.notes_text_frame.paragraphs]
        assert len(notes) == len(scene["beats"])
        for note, beat in zip(notes, scene["beats"], strict=True):
            t = round(beat["start"] - scene["start"])
            assert note == f"[{t // 60}:{t % 60:02d}] {beat['text']}"
        movie = next(sh for sh in slide.shapes if sh.shape_type == 16)
        assert abs(movie.left + movie.width / 2 - deck.slide_width / 2) < deck.slide_width / 100
    # the worked example's table, after its movie: a real table of the video's numbers
    at = [s["id"] for s in manifest["scenes"]].index("worked_example")
    we = manifest["scenes"][at]
    after = rest[rest.index(movies[at]) + 1]
    table = next(sh.table for sh in after.shapes if sh.has_table)
    cells = [[table.cell(r, c).text for c in range(len(table.columns))]
             for r in range(len(table.rows))]
    weights = _plain_weights(WE_Q, WE_K, 1)
    from narration import numfmt
    assert [row[-1] for row in cells[1:]] == [numfmt.percent(w, lang).display for w in weights]
    titles = [sh for sh in after.shapes if sh.has_text_frame and sh.text_frame.text == we["title"]]
    assert len(titles) == 1  # centred on the slide
    assert abs(titles[0].left + titles[0].width / 2 - deck.slide_width / 2) < deck.slide_width / 100


def test_deck_converts_to_pdf_with_every_slide(rendered, tmp_path):
    """LibreOffice (Debian's libreoffice-impress) opens the deck and renders every slide."""
    out, _, _ = rendered
    import shutil

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    assert soffice, "libreoffice-impress is installed by the test set-up"
    from pptx import Presentation

    deck = out / "en" / "slides.pptx"
    n = len(Presentation(str(deck)).slides)
    p = subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{tmp_path}/lo",
                        "--convert-to", "pdf", "--outdir", str(tmp_path), str(deck)],
                       capture_output=True, text=True, timeout=300)
    pdf = tmp_path / "slides.pdf"
    assert p.returncode == 0 and pdf.is_file(), p.stderr[-2000:]
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))
    assert pages == n
    # every page shows something, and each movie page its scene complete: as much content as
    # the clip's last poster (the frame where its last beat ends, its fullest)
    from PIL import Image

    from tests.test_deck import content_share, page_pictures

    pictures = page_pictures(pdf)
    assert all(content_share(p) > 0.005 for p in pictures)
    slides = list(Presentation(str(deck)).slides)
    movie_pages = [k for k, sl in enumerate(slides) if any(sh.shape_type == 16
                                                            for sh in sl.shapes)]
    clips = sorted((out / "en" / "clips").glob("[0-9][0-9]_*.mp4"))
    assert len(movie_pages) == len(clips)
    for k, clip in zip(movie_pages, clips, strict=True):
        h, w = pictures[k].shape[:2]
        last = np.asarray(Image.open(clip.with_suffix(".last.png")).convert("RGB").resize(
            (w * 96 // 100, w * 96 // 100 * 9 // 16)))
        shown = content_share(pictures[k]) * h * w / (last.shape[0] * last.shape[1])
        assert shown == pytest.approx(content_share(last), rel=0.25), (k, clip.name)


def _page_json(out: Path) -> dict:
    text = (out / "index.html").read_text("utf-8")
    blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(blob.group(1).replace("<\\/", "</"))


def test_preview_page_in_a_real_browser(rendered, overview, chromium):
    """index.html from file:// in headless Chromium: the overview above the full video,
    subtitles show on both and on a clip (no server: cues come from the page), the language
    follows ?lang= and the switch renames the tab, a chapter seeks, plays and brings the
    player into view."""
    out, _, _ = rendered
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = chromium(1366, 900)
    for lang in ("zh", "en"):
        driver.get((out / "index.html").as_uri() + f"?lang={lang}")
        wait = WebDriverWait(driver, 30)
        player = driver.find_element(By.ID, "player")
        wait.until(lambda d, p=player: d.execute_script("return arguments[0].readyState", p)
                   >= 1)
        assert driver.execute_script("return arguments[0].currentSrc", player).endswith(
            f"/{lang}/video.mp4")
        manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
        assert driver.title == manifest["title"]
        assert driver.execute_script("return document.documentElement.lang") == lang
        tracks = driver.execute_script(
            "return Array.from(arguments[0].textTracks).map(t => [t.language, t.mode, "
            "t.cues.length])", player)
        cues = read_srt(out / lang / "video.srt")
        assert tracks[0] == [lang, "showing", len(cues)]
        assert len(tracks) == 2 and tracks[1][1] == "hidden" and tracks[1][2] > 0
        # the two-minute overview comes first, above the full video, with its subtitles
        short = driver.find_element(By.ID, "overview")
        assert driver.execute_script("return arguments[0].currentSrc", short).endswith(
            f"/{lang}/overview/video.mp4")
        assert driver.execute_script(
            "return arguments[0].getBoundingClientRect().bottom <= "
            "arguments[1].getBoundingClientRect().top", short, player)
        ov_cues = read_srt(out / lang / "overview" / "video.srt")
        assert driver.execute_script(
            "return [arguments[0].textTracks[0].language, arguments[0].textTracks[0].mode,"
            " arguments[0].textTracks[0].cues.length]", short) == [lang, "showing",
                                                                     len(ov_cues)]
        # a cue is on screen at its time, and reads as the subtitle file does
        at = (cues[1].start + cues[1].end) / 2
        driver.execute_script("arguments[0].currentTime = arguments[1]", player, at)
        wait.until(lambda d, p=player: d.execute_script(
            "return arguments[0].textTracks[0].activeCues.length", p) > 0)
        shown = driver.execute_script(
            "return arguments[0].textTracks[0].activeCues[0].text", player)
        assert shown.split("\n") == list(cues[1].lines)
        # every clip carries its scene's captions
        clip_tracks = driver.execute_script(
            "return Array.from(document.querySelectorAll('#clips video')).map(v => "
            "v.textTracks.length && v.textTracks[0].cues.length)")
        assert clip_tracks and all(n > 0 for n in clip_tracks)
        # a chapter seeks, plays and shows the player
        second = manifest["scenes"][1]["start"]
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        items = driver.find_elements(By.CSS_SELECTOR, "#chapters button")
        assert len(items) == len(manifest["scenes"])
        items[1].click()
        wait.until(lambda d, p=player, t=second: d.execute_script(
            "return !arguments[0].paused && Math.abs(arguments[0].currentTime - arguments[1])"
            " < 2", p, t))
        top = driver.execute_script("return arguments[0].getBoundingClientRect().top", player)
        assert 0 <= top < 900
        driver.execute_script("arguments[0].pause()", player)
    driver.find_element(By.CSS_SELECTOR, "#langs button[data-lang=zh]").click()
    zh_title = json.loads((out / "zh" / "manifest.json").read_text("utf-8"))["title"]
    WebDriverWait(driver, 10).until(lambda d: d.title == zh_title)
    assert "lang=zh" in driver.current_url
    driver.save_screenshot(str(out / "page.png"))


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
def test_preview_page_layout_on_a_phone_and_a_desktop(rendered, width, height, chromium):
    """A viewport tag and one column on a phone (nothing wider than the screen, text at least
    14 px); the side column beside the video on a desktop."""
    out, _, _ = rendered
    driver = chromium(width, height)
    driver.get((out / "index.html").as_uri() + "?lang=zh")
    geo = driver.execute_script("""
        const r = id => document.getElementById(id).getBoundingClientRect();
        const px = e => parseFloat(getComputedStyle(e).fontSize);
        return {stage: r("stage"), side: r("side"), inner: window.innerWidth,
                scroll: document.documentElement.scrollWidth,
                chapter: px(document.querySelector("#chapters button")),
                lab: px(document.querySelector("#lab td"))};""")
    assert geo["scroll"] <= geo["inner"]
    assert geo["chapter"] >= 14 and geo["lab"] >= 14
    if width < 1000:
        assert abs(geo["side"]["left"] - geo["stage"]["left"]) < 1
        assert geo["side"]["top"] >= geo["stage"]["bottom"]
    else:
        assert geo["side"]["left"] >= geo["stage"]["right"]
    driver.save_screenshot(str(out / f"page-{width}.png"))


def test_rendered_page_passes_the_audits(rendered, overview, chromium):
    """The page render.py wrote (both cuts, both languages): the W3C Nu checker reports
    nothing, axe-core no violation at 1366x900 and 390x844 in either language."""
    from tests.audit import axe_run, nu_check

    out, _, _ = rendered
    page = out / "index.html"
    assert nu_check(page) == []
    for width, height in [(1366, 900), (390, 844)]:
        driver = chromium(width, height)
        for lang in ("zh", "en"):
            driver.get(page.as_uri() + f"?lang={lang}")
            result = axe_run(driver)
            assert result.get("violations") == [], (width, lang, result)


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
def test_subtitles_stay_in_the_band(rendered, width, height, chromium):
    """At three times in each language, the picture with the subtitle showing differs from
    the same frame without it only inside the video's bottom subtitle band."""
    from PIL import Image

    from narration.style import SUBTITLE_BAND_SHARE

    out, _, _ = rendered
    driver = chromium(width, height)
    for lang in ("zh", "en"):
        driver.get((out / "index.html").as_uri() + f"?lang={lang}")
        player = driver.find_element("id", "player")
        from selenium.webdriver.support.ui import WebDriverWait

        wait = WebDriverWait(driver, 30)
        wait.until(lambda d, p=player: d.execute_script(
            "return arguments[0].readyState", p) >= 1)
        driver.execute_script("arguments[0].controls = false; "
                              "arguments[0].scrollIntoView({block: 'start'})", player)
        cues = read_srt(out / lang / "video.srt")
        for cue in (cues[1], cues[len(cues) // 2], cues[-2]):
            driver.execute_script("arguments[0].textTracks[0].mode = 'showing';"
                                  "arguments[0].currentTime = arguments[1]", player,
                                  (cue.start + cue.end) / 2)
            wait.until(lambda d, p=player: d.execute_script(
                "return !arguments[0].seeking && arguments[0].readyState >= 2 && "
                "arguments[0].textTracks[0].activeCues.length > 0", p))
            time.sleep(0.5)
            with_cue = np.asarray(Image.open(io.BytesIO(player.screenshot_as_png))
                                  .convert("L"), dtype=int)
            driver.execute_script("arguments[0].textTracks[0].mode = 'hidden'", player)
            time.sleep(0.5)
            without = np.asarray(Image.open(io.BytesIO(player.screenshot_as_png))
                                 .convert("L"), dtype=int)
            rows = np.flatnonzero((np.abs(with_cue - without) > 40).any(axis=1))
            assert rows.size, f"no subtitle drawn at {cue.start} s"
            band_top = with_cue.shape[0] * (1 - SUBTITLE_BAND_SHARE)
            assert rows.min() >= band_top - 1, (lang, cue.lines, rows.min(), band_top)


@pytest.fixture(scope="module")
def lab_page(tmp_path_factory) -> Path:
    """index.html written from a manifest per language, as render.py writes it after a
    render, without rendering video: the lab needs only the numbers file (the shipped one)."""
    from pipeline.page import write_page

    out = tmp_path_factory.mktemp("page") / "out"
    for lang in ("zh", "en"):
        scene = {"id": "scaling", "title": f"scaling ({lang})", "start": 0.0, "end": 10.0,
                 "beats": [{"id": "intro", "text": "√d"}]}
        (out / lang).mkdir(parents=True)
        (out / lang / "manifest.json").write_text(json.dumps(
            {"title": f"QKV ({lang})", "scenes": [scene]}), "utf-8")
    assert write_page(out, ["zh", "en"], None, out.parent / "cache") == out / "index.html"
    return out


def _lab_shown(driver) -> tuple[str, list[str], list[str]]:
    """The lab as shown: the factor's text, the score column, the share column."""
    from selenium.webdriver.common.by import By

    def col(css: str) -> list[str]:
        return [e.text.strip() for e in driver.find_elements(By.CSS_SELECTOR, css)]

    return (driver.find_element(By.ID, "lab-amp-out").text.strip(), col("#lab td.score"),
            col("#lab .share"))


def _shown_number(text: str) -> float:
    from narration.numfmt import MINUS

    return float(text.replace(MINUS, "-").rstrip("%"))


def test_lab_shows_qkv_math_shares_for_every_setting(lab_page, chromium):
    """The lab's embedded numbers are qkv_math's over the whole slider, with and without
    the division by √d; moving the slider and ticking the box in the browser shows them, and
    the state is kept in the address."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from narration import numfmt
    from qkv_math import attention, load_numbers

    fb = load_numbers().fill_blank
    lab = _page_json(lab_page)["lab"]
    assert lab["factors"][0] == 1 and len(lab["factors"]) > 5
    for key, scale in (("raw", False), ("scaled", True)):
        for got, f in zip(lab[key], lab["factors"], strict=True):
            a = attention(f * fb.query, fb.K, fb.V, scale=scale)
            assert got["shares"] == pytest.approx(list(a.weights), abs=1e-12)
            for lang in ("zh", "en"):
                assert got["shown"][lang] == [numfmt.percent(float(w), lang).display
                                              for w in a.weights]
    driver = chromium(1366, 900)
    driver.get(lab_page.as_uri() + "/index.html?lang=en")
    slider = driver.find_element(By.ID, "lab-amp")
    box = driver.find_element(By.ID, "lab-sqrt")
    assert _lab_shown(driver)[2] == lab["raw"][0]["shown"]["en"]
    driver.execute_script("arguments[0].scrollIntoView()", slider)
    slider.click()
    slider.send_keys(Keys.HOME)
    for _ in range(6):
        slider.send_keys(Keys.ARROW_RIGHT)
    i = int(slider.get_attribute("value"))
    assert i == 6
    assert _lab_shown(driver)[2] == lab["raw"][i]["shown"]["en"]
    assert _lab_shown(driver)[2] != lab["raw"][0]["shown"]["en"]  # amplified scores peak
    box.click()
    assert _lab_shown(driver)[2] == lab["scaled"][i]["shown"]["en"]
    assert f"amp={lab['factors'][i]:g}" in driver.current_url and "sqrt=1" in driver.current_url
    driver.get(driver.current_url)  # the shared address opens the same setting
    assert _lab_shown(driver)[2] == lab["scaled"][i]["shown"]["en"]
    assert driver.find_element(By.ID, "lab-sqrt").is_selected()


def test_lab_agrees_with_the_scaling_scene_at_every_setting(lab_page, chromium):
    """In the browser: at ×1 with "divide by √d" ticked the lab shows the scaling scene's
    ÷√d shares (its facts, as the scene formats them); at every slider step, ticked and not,
    the shown scores are q·k × factor (÷ √d of the key length when ticked) and softmax of
    the shown scores gives the shown shares."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from narration import numfmt
    from narration.facts import build_facts
    from pipeline.page import LAB_FACTORS
    from qkv_math import derive, load_numbers, softmax

    numbers = load_numbers()
    fb, derived = numbers.fill_blank, derive(numbers)
    facts = build_facts(numbers, derived)
    n, d = len(fb.K), fb.K.shape[1]
    scene = [float(facts[f"fb.weight_scaled.{i}"]) for i in range(n)]
    driver = chromium(1366, 900)
    for lang in ("zh", "en"):
        # the scaling scene's ÷√d shares, straight from a shared address
        driver.get(lab_page.as_uri() + f"/index.html?lang={lang}&amp=1&sqrt=1")
        factor, scores, shares = _lab_shown(driver)
        assert shares == [numfmt.percent(w, lang).display for w in scene]
        assert [_shown_number(s) for s in scores] == pytest.approx(
            list(derived.fill_scores / math.sqrt(d)), abs=0.005 + 1e-9)
        label = driver.find_element(By.ID, "lab-sqrt-label").text
        assert f"√{numfmt.number(d, lang).display}" in label
        assert numfmt.number(math.sqrt(d), lang).display in label
        assert driver.find_element(By.ID, "lab-amp-what").text.strip()

    driver.get(lab_page.as_uri() + "/index.html?lang=en")
    slider = driver.find_element(By.ID, "lab-amp")
    box = driver.find_element(By.ID, "lab-sqrt")
    driver.execute_script("arguments[0].scrollIntoView()", slider)
    slider.click()
    slider.send_keys(Keys.HOME)
    seen = set()
    for i, f in enumerate(LAB_FACTORS):
        assert int(slider.get_attribute("value")) == i
        for ticked in (box.is_selected(), not box.is_selected()):
            if box.is_selected() != ticked:
                box.click()
            factor, scores, shares = _lab_shown(driver)
            assert _shown_number(factor.replace("×", "")) == f
            expected = derived.fill_scores * f / (math.sqrt(d) if ticked else 1.0)
            given = np.array([_shown_number(s) for s in scores])
            assert given == pytest.approx(list(expected), abs=0.005 + 1e-9), (f, ticked)
            # the shares are softmax of what the score column shows
            assert shares == [numfmt.percent(float(w), "en").display
                              for w in softmax(expected)], (f, ticked)
            again = softmax(given)
            for text, w in zip(shares, again, strict=True):
                if text.startswith("<"):
                    assert w < _shown_number(text[1:]) / 100 + 0.005
                else:
                    rounding = 0.0005 if "." in text else 0.005
                    assert abs(_shown_number(text) / 100 - w) <= rounding + 0.01 * w
            seen.add((f, ticked))
        slider.send_keys(Keys.ARROW_RIGHT)
    assert len(seen) == 2 * len(LAB_FACTORS)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_manifest_and_report_say_what_the_voice_was_given(rendered, lang):
    """Each beat carries its display text and what the engine was given; the report's
    pronunciation section checked them all; the changed numbers are said in words."""
    import cn2an

    out, first, _ = rendered
    manifest = json.loads((out / lang / "manifest.json").read_text("utf-8"))
    beats = [b for sc in manifest["scenes"] for b in sc["beats"]]
    assert all(b["spoken"] and not re.search(r"[0-9%√ᵀ−]", b["spoken"]) for b in beats)
    assert any(b["spoken"] != b["text"] for b in beats)
    report = json.loads((out / lang / "report.json").read_text("utf-8"))
    pron = report["pronunciation"]
    assert pron["beats"] == len(beats)
    assert pron["mismatches"] == [] and pron["unspoken"] == []
    if lang == "zh":
        assert pron["syllables_checked"] > 100
        expected = _plain_output(WE_Q, WE_K, NEW_V, 1)
        said = " ".join(b["spoken"] for b in beats)
        assert cn2an.an2cn(f"{expected[0]:.2f}") in said
    assert f"[{lang}] report: pronunciation:" in first.stderr


# -- the quiz's time to think ------------------------------------------------------------------

WINDOW = 0.05  # seconds of audio per loudness measurement
QUIET = 10 ** (-50 / 20)  # RMS under −50 dBFS: no voice (the voice sits near −14 LUFS)
THINK = 8.0  # seconds of silence each prompt must leave
QUESTIONS = 4


def voiced(pcm: np.ndarray, rate: int) -> np.ndarray:
    """One flag per window: is anything louder than silence there."""
    n = int(WINDOW * rate)
    k = len(pcm) // n
    rms = np.sqrt(np.mean(pcm[: k * n].reshape(k, n).astype(np.float64) ** 2, axis=1))
    return rms > QUIET


def longest_silence(flags: np.ndarray) -> tuple[int, int]:
    """(first window, length in windows) of the longest run of silent windows."""
    best, start = (0, 0), None
    for i, v in enumerate([*flags, True]):
        if not v and start is None:
            start = i
        elif v and start is not None:
            if i - start > best[1]:
                best = (start, i - start)
            start = None
    return best


def test_longest_silence_finds_the_run():
    flags = np.array([True, False, False, True, False, False, False, True])
    assert longest_silence(flags) == (4, 3)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_at_least_eight_seconds_of_silence_follow_each_quiz_prompt(rendered, lang):
    """On the rendered soundtrack (the manifest only says where each question's stretch of
    the video lies), at least 8 s without voice follow each quiz prompt, before the answer
    is read."""
    d = rendered[0] / lang
    manifest = json.loads((d / "manifest.json").read_text("utf-8"))
    with av.open(str(d / "video.mp4")) as c:
        stream = c.streams.audio[0]
        rate = stream.rate
        pcm = np.concatenate([f.to_ndarray().mean(axis=0) for f in c.decode(stream)])
    beats = {b["id"]: b for sc in manifest["scenes"] for b in sc["beats"]}
    flags = voiced(pcm, rate)
    for n in range(1, QUESTIONS + 1):
        # from the prompt (the question, then "pause and think") to the end of the answer
        q, answer = beats[f"q{n}"], beats[f"a{n}"]
        lo, hi = int(q["start"] / WINDOW), int(answer["end"] / WINDOW)
        stretch = flags[lo:hi]
        start, length = longest_silence(stretch)
        silence = length * WINDOW  # whole silent windows only: never more than there is
        assert silence >= THINK, f"question {n}: {silence:.2f} s of silence to think"
        # it follows the spoken prompt ("pause and think" is heard before it, in its beat),
        # and the answer's voice ends it
        think = int(beats[f"think{n}"]["start"] / WINDOW)
        assert flags[think:lo + start].any(), f"question {n}: no prompt heard before the silence"
        assert stretch[start + length:].any(), f"question {n}: no answer heard after it"
        assert (lo + start + length) * WINDOW <= answer["start"] + 1.0, n
