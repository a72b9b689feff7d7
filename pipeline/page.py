"""output/index.html: a self-contained preview page that works from the file system, on a
phone as on a desktop.

Everything it shows is embedded (no fetch and no <track> file, which browsers refuse on
file://; no network): the video per language with both subtitle tracks (cues added through
the TextTrack API, drawn in the page's font), the chapters (a click seeks, plays and brings
the player into view), the scene clips with their captions, the recap quiz with each answer
revealed on click, and the lab: the fill-in-the-blank scores and shares under a
score-amplification slider (standing for longer vectors) and a "divide by √d" box (d the
example's key length, on top of the amplification), every value computed by qkv_math when the
page is written; the page only picks them.
The language follows ``?lang=``, else the browser's, else Chinese; the lab's state is kept in
the address. The page is written to pass the W3C Nu checker and axe-core: its content in
header, main and nav landmarks, every section under a heading written into the page (in the
first language; a switch rewrites them), one form control per label. The subtitles are drawn
inside the video's subtitle band (each cue's line and size set, so they never cover a
scene's content), the chapter playing is marked (aria-current), and on a narrow screen the
scene clips fold behind one control. The page's text is drawn with the bundled Noto Sans
CJK, cut down (fontTools) to the characters the page uses and embedded as WOFF2, so Chinese
shows without a CJK font.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import json
import math
import re
import string
import subprocess
import sys
from pathlib import Path

from common.atomic import atomic_write_text
from common.digests import FileContent, digest
from narration import style
from narration.scripts import SCRIPTS_DIR
from qkv_math.numbers import Numbers

LABELS = {"zh": "中文", "en": "English"}
PROJECT = Path(__file__).resolve().parent.parent
_QUESTION = re.compile(r"q(\d+)$")


def _cues(path: Path) -> list[list]:
    """[start s, end s, text] of each cue of a WebVTT file (pysubs2 reads it)."""
    import pysubs2

    return [[round(c.start / 1000, 3), round(c.end / 1000, 3), c.plaintext]
            for c in pysubs2.load(str(path), encoding="utf-8")]


def _clip_cues(cues: list[list], start: float, end: float) -> list[list]:
    """The cues of one scene, timed from the scene's start (as its clip is)."""
    return [[round(max(a, start) - start, 3), round(min(b, end) - start, 3), t]
            for a, b, t in cues if b > start and a < end]


def lab_data(numbers: Numbers | Path | str | None) -> dict:
    """The interactive lab's numbers, every one computed by qkv_math here (the page does no
    attention maths, it only picks): the fill-in-the-blank query and keys, and at each step
    of the amplification slider, without and with the division by √d (d the key length),
    the scores softmax is given and its shares.

    The slider multiplies every score by its factor, as longer vectors would (more terms
    in each dot product); ticking the box also divides by √d of the example itself, on top
    of the amplification. At ×1 with the box ticked this is ``derive().fill_weights_scaled``,
    the shares the scaling scene shows."""
    from narration import numfmt
    from qkv_math import attention, load_numbers

    fb = (numbers if isinstance(numbers, Numbers) else load_numbers(numbers)).fill_blank
    dim = int(fb.K.shape[1])
    langs = list(fb.tokens)
    out: dict = {"query": [float(x) for x in fb.query], "keys": fb.K.tolist(),
                 "factors": list(LAB_FACTORS), "d": dim, "sqrt_d": math.sqrt(dim),
                 "d_shown": {lang: numfmt.number(dim, lang).display for lang in langs},
                 "sqrt_d_shown": {lang: numfmt.number(math.sqrt(dim), lang).display
                                  for lang in langs},
                 "tokens": {}, "query_shown": {}, "keys_shown": {}, "raw": [], "scaled": []}
    for lang in langs:
        out["tokens"][lang] = list(fb.tokens[lang])
        out["query_shown"][lang] = numfmt.vector(fb.query, lang).display
        out["keys_shown"][lang] = [numfmt.vector(k, lang).display for k in fb.K]
    for key, scale in (("raw", False), ("scaled", True)):
        for f in LAB_FACTORS:
            # f·q against each key is f·(q·k): the amplified score; ``scaled`` is what
            # softmax was given (÷ √d when scale is on), ``weights`` what it gave back
            a = attention(f * fb.query, fb.K, fb.V, scale=scale)
            scores = [float(x) for x in a.scaled]
            decimals = 0 if all(x.is_integer() for x in scores) else 2
            out[key].append({
                "factor": f, "scores": scores, "shares": [float(w) for w in a.weights],
                "scores_shown": {lang: [numfmt.number(x, lang, decimals).display
                                        for x in scores] for lang in langs},
                "shown": {lang: [numfmt.percent(float(w), lang).display for w in a.weights]
                          for lang in langs}})
    return out


# the lab's amplification slider: 1x to 10x in steps of 0.5 (the seed's lab goes up to 10x)
LAB_FACTORS = tuple(1 + 0.5 * i for i in range(19))
_LAB_QUESTION = re.compile(r"√|square root|根号")


def _overview(out: Path, lang: str) -> dict | None:
    """The two-minute overview of ``lang`` (``OUT/<lang>/overview/``), if it was rendered."""
    folder = out / lang / "overview"
    if not (folder / "manifest.json").is_file():
        return None
    m = json.loads((folder / "manifest.json").read_text("utf-8"))
    other = m.get("subtitles", {}).get("tracks", [lang])[1:]
    tracks = []
    for o in [lang, *other]:
        file = folder / (f"video.{o}.vtt" if o != lang else "video.vtt")
        if file.is_file():
            tracks.append({"lang": o, "label": LABELS[o], "cues": _cues(file)})
    return {"title": m.get("title", ""), "src": f"{lang}/overview/video.mp4",
            "poster": f"{lang}/overview/thumbnail.png"
            if (folder / "thumbnail.png").is_file() else "",
            "duration": m.get("duration", 0), "tracks": tracks}


def page_data(out: Path, langs: list[str], numbers: Numbers | Path | str | None = None
              ) -> dict:
    data: dict = {"langs": [], "videos": {}, "lab": lab_data(numbers)}
    for lang in langs:
        manifest_path = out / lang / "manifest.json"
        overview = _overview(out, lang)
        if not manifest_path.is_file():
            if overview is not None:  # only the overview was rendered in this language
                data["langs"].append(lang)
                data["videos"][lang] = {"title": overview["title"], "overview": overview,
                                        "src": "", "poster": "", "tracks": [], "chapters": [],
                                        "clips": [], "quiz": []}
            continue
        m = json.loads(manifest_path.read_text("utf-8"))
        other = m.get("subtitles", {}).get("tracks", [lang])[1:]
        clips = sorted((out / lang / "clips").glob("[0-9][0-9]_*.mp4")) \
            if (out / lang / "clips").is_dir() else []
        quiz = []
        for sc in m["scenes"]:
            beats = {b["id"]: b["text"] for b in sc["beats"]}
            for bid, text in beats.items():
                q = _QUESTION.match(bid)
                if q and f"a{q.group(1)}" in beats:
                    quiz.append({"q": text, "a": beats[f"a{q.group(1)}"],
                                 "lab": bool(_LAB_QUESTION.search(text))})
        tracks = [{"file": f"video.{o}.vtt" if o != lang else "video.vtt", "lang": o,
                   "label": LABELS[o]} for o in [lang, *other]]
        tracks = [t for t in tracks if (out / lang / t["file"]).is_file()]
        for t in tracks:
            t["cues"] = _cues(out / lang / t["file"])
        scenes = {sc["id"]: sc for sc in m["scenes"]}
        clip_list = []
        for c in clips:
            if c.stem.endswith(".silent"):
                continue
            sc = scenes.get(c.stem.split("_", 1)[1])
            clip_list.append({
                # the poster: the scene's fullest frame (its last beat's end)
                "src": f"{lang}/clips/{c.name}", "poster": f"{lang}/clips/{c.stem}.last.png",
                "title": sc["title"] if sc else c.stem.split("_", 1)[0],
                "tracks": [{"lang": t["lang"], "label": t["label"],
                            "cues": _clip_cues(t["cues"], sc["start"], sc["end"])}
                           for t in tracks] if sc else []})
        data["langs"].append(lang)
        data["videos"][lang] = {
            "title": m.get("title", ""),
            "src": f"{lang}/video.mp4",
            "poster": f"{lang}/thumbnail.png" if (out / lang / "thumbnail.png").is_file() else "",
            "tracks": [{"lang": t["lang"], "label": t["label"], "cues": t["cues"]}
                       for t in tracks],
            "chapters": [{"t": sc["start"], "title": sc["title"]} for sc in m["scenes"]],
            "clips": clip_list,
            "quiz": quiz,
            "overview": overview,
        }
    return data


# Page text in each language (the scripts' text comes from the manifests). In the lab's
# lines, {d} and {sqrt_d} are the example's key length and its square root, filled in from
# lab_data when the page is written.
WORDS = {
    "zh": {"chapters": "章节", "clips": "场景片段", "quiz": "小测验", "lab": "动手试一试",
           "overview": "两分钟精简版", "full": "完整版讲解",
           "lang": "语言", "amp": "分数放大",
           "amp_what": "滑块模拟更长的向量：d 越大，点积相加的项越多，分数越大；"
                       "√d 数的是这 d 项，不是数字的大小。",
           "sqrt": "先除以 √d：这里 d = {d}，÷ √{d} = {sqrt_d}（在放大之后再除）",
           "word": "词", "key": "键 k", "score": "送入 softmax 的分数", "share": "注意力份额",
           "query": "空格的 q", "try": "到实验台试一试",
           "lab_note": "分数 = q 和 k 的点积 × 放大倍数（勾选时再 ÷ √{d}），正是 softmax "
                       "拿到的数。所有数字都在生成本页时事先算好。",
           "video": "视频", "clips_show": "全部 {n} 个场景片段", "site": "讲解视频预览"},
    "en": {"chapters": "Chapters", "clips": "Scene clips", "quiz": "Quiz", "lab": "Try it",
           "overview": "The two-minute overview", "full": "The full explainer",
           "lang": "Language", "amp": "Score amplification",
           "amp_what": "The slider stands for longer vectors: larger d, more terms in each "
                       "dot product, larger scores; √d counts the d terms, not their size.",
           "sqrt": "Divide by √d first: here d = {d}, so ÷ √{d} = {sqrt_d} "
                   "(on top of the amplification)",
           "word": "word", "key": "key k", "score": "score given to softmax",
           "share": "share of attention", "query": "the blank's q", "try": "Try it in the lab",
           "lab_note": "score = q · k × amplification (÷ √{d} when ticked): the number "
                       "softmax is given. Every number was computed when this page was written.",
           "video": "Video", "clips_show": "All {n} scene clips",
           "site": "Explainer preview"},
}


def page_words(lab: dict) -> dict[str, dict[str, str]]:
    """WORDS with the lab's d and √d written in, as each language shows numbers."""
    return {lang: {k: v.format(d=lab["d_shown"][lang], sqrt_d=lab["sqrt_d_shown"][lang],
                               n="{n}")
                   for k, v in w.items()} for lang, w in WORDS.items()}


_TEMPLATE = string.Template("""<!doctype html>
<html lang="$lang">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<link rel="icon" type="image/svg+xml" href="$icon">
<style>
$font_face
* { box-sizing:border-box; }
body { background:#10131a; color:#e8e8ee; margin:0 auto; max-width:1280px; padding:12px;
       font-family:"QKV Noto","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;
       font-size:16px; line-height:1.45; }
header { display:flex; flex-wrap:wrap; align-items:center; gap:0 16px; }
h1 { font-size:1.35em; margin:.3em 0; flex:1 1 20em; }
h2 { font-size:1.1em; color:#8a90a0; margin:1.2em 0 .5em; }
button { font-family:inherit; font-size:1em; background:#1c2230; color:#e8e8ee;
         border:1px solid #8a90a0; padding:6px 12px; margin:0 6px 6px 0; cursor:pointer; }
button[aria-pressed=true] { border-color:#f4c542; color:#f4c542; }
button:focus-visible, input:focus-visible, summary:focus-visible, a:focus-visible
  { outline:3px solid #7aa2f7; outline-offset:2px; }
video { width:100%; background:#000; display:block; }
#layout { display:grid; grid-template-columns:minmax(0,1fr); gap:0 16px;
          grid-template-areas:"stage" "side" "rest"; }
#stage { grid-area:stage; } #side { grid-area:side; } #rest { grid-area:rest; }
@media (min-width: 1000px) {
  #layout { grid-template-columns:minmax(0,2fr) minmax(300px,1fr);
            grid-template-areas:"stage side" "rest side"; }
  #side { align-self:start; max-height:calc(100vh - 24px); overflow:auto; position:sticky;
          top:12px; } #side h2:first-child { margin-top:0; } }
#chapters { list-style:none; padding:0; margin:0; }
#chapters button { width:100%; text-align:left; margin:0 0 4px; background:none;
                   border:1px solid #2a3142; }
#chapters button:hover { color:#f4c542; }
#chapters button[aria-current] { border-color:#f4c542; color:#f4c542;
                                 box-shadow:inset 4px 0 0 #f4c542; }
#chapters .t { color:#8a90a0; display:inline-block; width:3.6em; }
#chapters button[aria-current] .t { color:#f4c542; }
#clips { display:grid; grid-template-columns:repeat(auto-fill,minmax(240px,1fr)); gap:12px; }
#clips figure { margin:0; } #clips figcaption { font-size:.85em; color:#8a90a0; }
#clips-box { background:none; padding:0; } #clips-box > summary { margin-bottom:8px; }
details { background:#1c2230; margin:6px 0; padding:8px; } summary { cursor:pointer; }
details p { color:#2ec4b6; } a { color:#7aa2f7; }
#lab { background:#1c2230; padding:1px 12px 10px; margin-top:16px; }
#lab h2 { margin-top:.6em; }
#lab .row { margin:6px 0; } #lab label { display:inline; } #lab input[type=range] { width:100%; }
#lab table { width:100%; border-collapse:collapse; font-size:.95em; }
#lab td, #lab th { padding:3px 4px; text-align:left; white-space:nowrap; }
#lab th { color:#a3a9b8; font-weight:normal; white-space:normal; vertical-align:bottom; }
#lab .bar { background:#c39bd3; height:.9em; display:inline-block; vertical-align:middle; }
#lab .k { color:#2ec4b6; } #lab .q { color:#f4c542; }
#lab .note { color:#a3a9b8; font-size:.85em; }
</style>
</head>
<body>
<header>
<h1 id="title">$title</h1>
<div id="langs" role="group" aria-label="$w_lang"></div>
</header>
<main id="layout">
<div id="stage"></div>
<div id="side">
<nav id="chapter-nav" aria-labelledby="h-chapters">
<h2 id="h-chapters">$w_chapters</h2><ol id="chapters"></ol>
</nav>
<section id="lab" aria-labelledby="h-lab">
<h2 id="h-lab">$w_lab</h2>
<p><span id="lab-q-label" class="q">$w_query</span> <span id="lab-q" class="q">$lab_q</span></p>
<div class="row"><label id="lab-amp-label" for="lab-amp">$w_amp</label>
<output id="lab-amp-out" for="lab-amp"></output></div>
<input id="lab-amp" type="range" min="0" max="$lab_max" step="1" value="0">
<p id="lab-amp-what" class="note">$w_amp_what</p>
<div class="row"><input id="lab-sqrt" type="checkbox">
<label id="lab-sqrt-label" for="lab-sqrt">$w_sqrt</label></div>
<table><thead><tr><th id="lab-h-word" scope="col">$w_word</th>
<th id="lab-h-key" scope="col">$w_key</th><th id="lab-h-score" scope="col">$w_score</th>
<th id="lab-h-share" scope="col">$w_share</th></tr></thead><tbody id="lab-rows"></tbody></table>
<p id="lab-note" class="note">$w_lab_note</p>
</section>
</div>
<div id="rest">
<section id="clips-section" aria-labelledby="h-clips">
<h2 id="h-clips">$w_clips</h2>
<details id="clips-box" open><summary id="clips-summary">$clips_summary</summary>
<div id="clips"></div></details>
</section>
<section id="quiz-section" aria-labelledby="h-quiz">
<h2 id="h-quiz">$w_quiz</h2><div id="quiz"></div>
</section>
</div>
</main>
<script id="data" type="application/json">$data</script>
<script>
const DATA = JSON.parse(document.getElementById("data").textContent);
const WORDS = $words;
const LABELS = $labels;
// the bottom share of the picture the scenes keep free for subtitles
const BAND = $band;
let lang = null, player = null;
function stamp(t) { t = Math.floor(t); const m = Math.floor(t / 60), s = t % 60;
  return String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0"); }
function el(tag, attrs, text) { const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text; return e; }
// WebVTT's ::cue draws the subtitles in the page's font. The rule is added here, not in the
// style sheet, because the W3C Nu checker's CSS parser does not know ::cue (an error there).
document.head.appendChild(el("style", {}, 'video::cue { font-family:"QKV Noto",'
  + '"Noto Sans CJK SC",sans-serif; line-height:1.25; }'));
// Subtitles come from the page itself (TextTrack API): browsers refuse <track> files on file://.
// Each cue hangs from the top of the subtitle band, not where the browser would put it: line
// is the band's top (plus 1%) as a share of the picture's height, so two lines (each 5% of
// the height) end inside the band and one line stays above the player's control bar; size
// leaves the sides free.
function placeCue(c) {
  c.snapToLines = false; c.line = Math.round(1000 * (1 - BAND)) / 10 + 1;
  c.lineAlign = "start"; c.position = 50; c.size = 92; c.align = "center";
  return c;
}
function addCues(video, tracks) {
  tracks.forEach((t, i) => {
    const tt = video.addTextTrack("subtitles", t.label, t.lang);
    t.cues.forEach(c => tt.addCue(placeCue(new VTTCue(c[0], c[1], c[2]))));
    tt.mode = i === 0 ? "showing" : "hidden";
  });
}
const labAmp = document.getElementById("lab-amp"), labSqrt = document.getElementById("lab-sqrt");
labAmp.max = DATA.lab.factors.length - 1;
function saveState() {
  const p = new URLSearchParams();
  p.set("lang", lang); p.set("amp", String(DATA.lab.factors[labAmp.value]));
  if (labSqrt.checked) p.set("sqrt", "1");
  history.replaceState(null, "", "?" + p.toString() + location.hash);
}
function drawLab() {
  const L = DATA.lab, i = Number(labAmp.value);
  const row = (labSqrt.checked ? L.scaled : L.raw)[i];
  document.getElementById("lab-amp-out").textContent = "× " + L.factors[i];
  const body = document.getElementById("lab-rows"); body.replaceChildren();
  L.tokens[lang].forEach((tok, k) => {
    const tr = el("tr", {id: "lab-row-" + k});
    tr.appendChild(el("td", {}, tok));
    tr.appendChild(el("td", {class: "k"}, L.keys_shown[lang][k]));
    tr.appendChild(el("td", {class: "score", id: "lab-score-" + k}, row.scores_shown[lang][k]));
    const td = el("td", {});
    const bar = el("span", {class: "bar"}); bar.style.width = (row.shares[k] * 7) + "em";
    td.appendChild(bar);
    td.appendChild(el("span", {class: "share", id: "lab-share-" + k}, " " + row.shown[lang][k]));
    tr.appendChild(td); body.appendChild(tr);
  });
}
// the chapter playing, marked with aria-current while the video has started
function markChapter() {
  const buttons = document.querySelectorAll("#chapters button");
  let current = -1;
  if (player && (!player.paused || player.currentTime > 0))
    DATA.videos[lang].chapters.forEach((c, i) => {
      if (player.currentTime >= c.t - 0.05) current = i; });
  buttons.forEach((b, i) => { if (i === current) b.setAttribute("aria-current", "true");
                              else b.removeAttribute("aria-current"); });
}
function show(l) {
  lang = l; const v = DATA.videos[l], w = WORDS[l];
  document.documentElement.lang = l;
  document.title = v.title;
  document.getElementById("title").textContent = v.title;
  const group = document.getElementById("langs");
  group.setAttribute("aria-label", w.lang);
  for (const b of group.querySelectorAll("button"))
    b.setAttribute("aria-pressed", String(b.dataset.lang === l));
  // The overview first, above the full explainer (seed 000 embeds its short cut on top).
  const stage = document.getElementById("stage"); stage.replaceChildren();
  if (v.overview) {
    const o = v.overview;
    stage.appendChild(el("h2", {id: "h-overview"}, w.overview + " · " + stamp(o.duration)));
    const ov = el("video", {id: "overview", controls: "", preload: "metadata"});
    if (o.poster) ov.setAttribute("poster", o.poster);
    ov.appendChild(el("source", {src: o.src, type: "video/mp4"})); addCues(ov, o.tracks);
    stage.appendChild(ov);
  }
  player = null;
  if (v.src) {
    stage.appendChild(el("h2", {id: "h-full"}, v.overview ? w.full : w.video));
    player = el("video", {id: "player", controls: "", preload: "metadata"});
    if (v.poster) player.setAttribute("poster", v.poster);
    player.appendChild(el("source", {src: v.src, type: "video/mp4"}));
    addCues(player, v.tracks);
    for (const e of ["timeupdate", "seeked", "play", "pause"])
      player.addEventListener(e, markChapter);
    stage.appendChild(player);
  }
  for (const k of ["chapters", "clips", "quiz", "lab"])
    document.getElementById("h-" + k).textContent = w[k];
  // with the overview above, say whose chapters and clips these are
  if (v.overview && v.src) for (const k of ["chapters", "clips"])
    document.getElementById("h-" + k).textContent = w.full + " · " + w[k];
  // a language with only the overview has no chapters, clips or quiz: no empty sections
  document.getElementById("chapter-nav").hidden = !v.chapters.length;
  document.getElementById("clips-section").hidden = !v.clips.length;
  document.getElementById("quiz-section").hidden = !v.quiz.length;
  const ch = document.getElementById("chapters"); ch.replaceChildren();
  v.chapters.forEach(c => { const li = el("li"); const b = el("button", {"data-t": c.t});
    b.appendChild(el("span", {class: "t"}, stamp(c.t))); b.appendChild(el("span", {}, c.title));
    b.addEventListener("click", () => { player.currentTime = c.t;
      const p = player.play(); if (p) p.catch(() => {});
      player.scrollIntoView({block: "nearest"}); });
    li.appendChild(b); ch.appendChild(li); });
  document.getElementById("clips-summary").textContent =
    w.clips_show.replace("{n}", String(v.clips.length));
  const cl = document.getElementById("clips"); cl.replaceChildren();
  v.clips.forEach(c => { const f = el("figure");
    const cv = el("video", {poster: c.poster, controls: "", preload: "none"});
    cv.appendChild(el("source", {src: c.src, type: "video/mp4"})); addCues(cv, c.tracks);
    f.appendChild(cv); f.appendChild(el("figcaption", {}, c.title)); cl.appendChild(f); });
  const qz = document.getElementById("quiz"); qz.replaceChildren();
  v.quiz.forEach(q => { const d = el("details"); d.appendChild(el("summary", {}, q.q));
    d.appendChild(el("p", {}, q.a));
    if (q.lab) { const a = el("a", {href: "#lab"}, w.try); const p = el("p"); p.appendChild(a);
                 d.appendChild(p); }
    qz.appendChild(d); });
  document.getElementById("lab-q-label").textContent = w.query;
  document.getElementById("lab-q").textContent = DATA.lab.query_shown[l];
  document.getElementById("lab-amp-label").textContent = w.amp;
  document.getElementById("lab-amp-what").textContent = w.amp_what;
  document.getElementById("lab-sqrt-label").textContent = w.sqrt;
  for (const k of ["word", "key", "score", "share"])
    document.getElementById("lab-h-" + k).textContent = w[k];
  document.getElementById("lab-note").textContent = w.lab_note;
  drawLab(); saveState(); markChapter();
}
const langs = document.getElementById("langs");
DATA.langs.forEach(l => { const b = el("button", {"data-lang": l, lang: l}, LABELS[l]);
  b.addEventListener("click", () => show(l)); langs.appendChild(b); });
labAmp.addEventListener("input", () => { drawLab(); saveState(); });
labSqrt.addEventListener("change", () => { drawLab(); saveState(); });
// on a narrow screen the clips fold behind their summary (one tab stop, a short page)
document.getElementById("clips-box").open = !matchMedia("(max-width: 999px)").matches;
// the language: ?lang=, else the browser's, else Chinese; the lab's state from the address
const asked = new URLSearchParams(location.search);
const browser = (navigator.languages || [navigator.language || ""]).map(x => x.slice(0, 2));
const pick = [asked.get("lang"), ...browser, "zh"].find(x => DATA.langs.includes(x))
  || DATA.langs[0];
const amp = DATA.lab.factors.indexOf(Number(asked.get("amp")));
if (amp >= 0) labAmp.value = amp;
labSqrt.checked = asked.get("sqrt") === "1";
show(pick);
</script>
</body>
</html>
""")

# the favicon: the three roles' colours (Q, K, V) on the video's background, inline so that
# it shows from file:// and costs no request
_ICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
         '<rect width="32" height="32" rx="6" fill="#10131a"/>'
         '<rect x="5" y="7" width="6" height="18" rx="2" fill="#f4c542"/>'
         '<rect x="13" y="7" width="6" height="18" rx="2" fill="#2ec4b6"/>'
         '<rect x="21" y="7" width="6" height="18" rx="2" fill="#ef6f6c"/></svg>')
ICON = "data:image/svg+xml;base64," + base64.b64encode(_ICON.encode()).decode("ascii")


def font_face(text: str, cache: Path | None = None) -> str:
    """A CSS @font-face embedding the bundled font, subset to the characters of ``text``;
    kept in ``cache/fonts`` (``pipeline.config.font_cache_in``) under the character set (a
    subset takes about 5 CPU s, and a changed number rarely brings a new character)."""
    import fontTools

    from pipeline.config import font_cache_in

    chars = "".join(sorted(set(text) | set(" 0123456789:.")))
    font_file = style.FONT_FILE
    key = digest([chars, FileContent.of(font_file), style.FONT_INDEX_SC, fontTools.version,
                  "variable"])
    cached = font_cache_in(cache) / f"{key}.css" if cache is not None else None
    if cached is not None and cached.is_file():
        return cached.read_text("utf-8")
    css = _subset_face(chars)
    if cached is not None:
        atomic_write_text(cached, css)
    return css


def _subset_face(chars: str) -> str:
    """The bundled variable font's SC face subset to ``chars``, as WOFF2 in a data URL, for
    every weight it has (the headings' bold is the font's own, not one the browser smears).
    It is not instanced at one weight: instancing its CFF2 outlines took 4-7 CPU s (more
    than the subset and the WOFF2 together) to save about 90 KB."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    font = TTCollection(str(style.FONT_FILE), lazy=True).fonts[style.FONT_INDEX_SC]
    sub = subset.Subsetter(subset.Options(layout_features=["*"]))
    sub.populate(text=chars)
    sub.subset(font)
    axis = next(a for a in font["fvar"].axes if a.axisTag == "wght")
    font.flavor = "woff2"
    buf = io.BytesIO()
    font.save(buf)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return ('@font-face { font-family: "QKV Noto"; '
            f'font-weight: {axis.minValue:g} {axis.maxValue:g}; '
            f'src: url(data:font/woff2;base64,{data}) format("woff2"); }}')


@functools.cache
def shipped_chars() -> frozenset[str]:
    """Every character of the shipped scripts (every scene, both cuts, both languages)."""
    return frozenset(ch for path in sorted(SCRIPTS_DIR.rglob("*.toml"))
                     for ch in path.read_text("utf-8"))


class FontPrefetch:
    """The page's font subset, made in a process of its own while the build runs (fontTools
    is pure Python: seconds that would otherwise come after everything else, or hold the
    build's interpreter): subset to every character the page could show from this run's
    inputs (``text``: the scripts' texts and titles of both languages), the page's own
    words and numbers, and printable ASCII, and kept in ``cache/fonts``. The page uses it
    when it covers what the page shows (:func:`write_page`), else subsets again.

    Every character of the shipped scripts is in the subset too, whichever scenes a run
    builds: so one subset serves every run of the shipped scripts (a few scenes, the other
    cut, changed numbers), where each set of scenes took its own 5 CPU s, for 6% more
    font than a full run's page needs (325 KB against 307)."""

    def __init__(self, text: str, numbers: Numbers | Path | str | None, cache: Path) -> None:
        lab = lab_data(numbers)
        chars = (set(text) | shipped_chars() | set(string.printable)
                 | set("".join(LABELS.values())))
        chars |= set(json.dumps([lab, page_words(lab)], ensure_ascii=False))
        self.text = "".join(sorted(chars))
        self.cache = cache
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline.page", str(cache)], cwd=PROJECT,
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, encoding="utf-8")
        assert self._proc.stdin is not None
        self._proc.stdin.write(self.text)
        self._proc.stdin.close()

    def face_for(self, shown: str) -> str | None:
        """The prefetched @font-face if it covers ``shown`` (None if not, or if its process
        failed: the page then subsets here, and says why if that fails too)."""
        assert self._proc.stderr is not None
        self._proc.stderr.read()
        if self._proc.wait() != 0 or not set(shown) <= set(self.text):
            return None
        return font_face(self.text, self.cache)  # kept in the cache by the process

    def close(self) -> None:
        """Stop it if it still runs (the build failed)."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


def write_page(out: Path, langs: list[str], numbers: Numbers | Path | str | None = None,
               cache: Path | None = None, font: FontPrefetch | None = None) -> Path | None:
    """Write ``out/index.html`` for the languages rendered there; None if there are none
    (the font's subset kept in ``cache``, if given; ``font``: made while the build ran)."""
    data = page_data(out, langs, numbers)
    if not data["langs"]:
        return None
    first_lang = data["langs"][0]
    first = data["videos"][first_lang]
    blob = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    all_words = page_words(data["lab"])
    words = json.dumps(all_words, ensure_ascii=False)
    shown = blob + words + "".join(LABELS.values())
    # the page's text in its first language, written in (the script rewrites it on a switch)
    w = {f"w_{k}": html.escape(v) for k, v in all_words[first_lang].items()}
    face = (font.face_for(shown) if font is not None else None) or font_face(shown, cache)
    text = _TEMPLATE.substitute(
        lang=first_lang, title=html.escape(first["title"] or w["w_site"]), data=blob,
        words=words, labels=json.dumps(LABELS, ensure_ascii=False),
        font_face=face, icon=ICON, band=f"{style.SUBTITLE_BAND_SHARE:.4f}",
        lab_q=html.escape(data["lab"]["query_shown"][first_lang]),
        lab_max=len(data["lab"]["factors"]) - 1,
        clips_summary=html.escape(all_words[first_lang]["clips_show"].replace(
            "{n}", str(len(first["clips"])))), **w)
    path = out / "index.html"
    atomic_write_text(path, text)
    return path


if __name__ == "__main__":  # FontPrefetch: the characters on stdin, the cache folder as argv
    font_face(sys.stdin.read(), Path(sys.argv[1]))
