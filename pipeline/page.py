"""output/index.html: a self-contained preview page, working from the file system.

Everything it shows is embedded (no fetch, which browsers refuse on file://; no network):
the video per language with both subtitle tracks (WebVTT), the chapters (a click seeks),
the scene clips, and the recap quiz with each answer revealed on click. The page's text is
drawn with the bundled Noto Sans CJK, cut down (fontTools) to the characters the page uses
and embedded as WOFF2, so Chinese shows on machines without a CJK font.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from pathlib import Path

from narration import style
from narration.atomic import atomic_write_text

LABELS = {"zh": "中文", "en": "English"}
_QUESTION = re.compile(r"q(\d+)$")


def page_data(out: Path, langs: list[str]) -> dict:
    data: dict = {"langs": [], "videos": {}}
    for lang in langs:
        manifest_path = out / lang / "manifest.json"
        if not manifest_path.is_file():
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
                    quiz.append({"q": text, "a": beats[f"a{q.group(1)}"]})
        data["langs"].append(lang)
        data["videos"][lang] = {
            "title": m.get("title", ""),
            "src": f"{lang}/video.mp4",
            "poster": f"{lang}/thumbnail.png" if (out / lang / "thumbnail.png").is_file() else "",
            "tracks": [{"src": f"{lang}/video.vtt", "lang": lang, "label": LABELS[lang]}]
            + [{"src": f"{lang}/video.{o}.vtt", "lang": o, "label": LABELS[o]} for o in other
               if (out / lang / f"video.{o}.vtt").is_file()],
            "chapters": [{"t": sc["start"], "title": sc["title"]} for sc in m["scenes"]],
            "clips": [{"src": f"{lang}/clips/{c.name}",
                       "poster": f"{lang}/clips/{c.stem}.first.png",
                       "title": next((sc["title"] for sc in m["scenes"]
                                      if c.stem.split("_", 1)[1] == sc["id"]), c.stem)}
                      for c in clips if not c.stem.endswith(".silent")],
            "quiz": quiz,
        }
    return data


_TEMPLATE = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
{font_face}
body {{ background:#10131a; color:#e8e8ee;
       font-family:"QKV Noto","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;
       margin:0 auto; max-width:1100px; padding:16px; }}
h1 {{ font-size:1.4em; }} h2 {{ font-size:1.1em; color:#8a90a0; margin-top:1.6em; }}
button {{ font-family:inherit; font-size:1em; background:#1c2230; color:#e8e8ee;
         border:1px solid #8a90a0; padding:4px 12px;
         margin-right:6px; cursor:pointer; }} button.on {{ border-color:#f4c542; color:#f4c542; }}
video#player {{ width:100%; background:#000; }}
#chapters li {{ cursor:pointer; margin:2px 0; }} #chapters li:hover {{ color:#f4c542; }}
#chapters .t {{ color:#8a90a0; display:inline-block; width:4.5em; }}
#clips {{ display:grid; grid-template-columns:repeat(auto-fill,minmax(240px,1fr)); gap:12px; }}
#clips figure {{ margin:0; }} #clips video {{ width:100%; }}
#clips figcaption {{ font-size:.85em; color:#8a90a0; }}
details {{ background:#1c2230; margin:6px 0; padding:8px; }} summary {{ cursor:pointer; }}
details p {{ color:#2ec4b6; }}
</style>
</head>
<body>
<h1 id="title"></h1>
<div id="langs"></div>
<p><video id="player" controls preload="metadata"></video></p>
<h2 id="h-chapters"></h2><ol id="chapters"></ol>
<h2 id="h-clips"></h2><div id="clips"></div>
<h2 id="h-quiz"></h2><div id="quiz"></div>
<script id="data" type="application/json">{data}</script>
<script>
const DATA = JSON.parse(document.getElementById("data").textContent);
const WORDS = {{zh: {{chapters: "章节", clips: "场景片段", quiz: "小测验"}},
                en: {{chapters: "Chapters", clips: "Scene clips", quiz: "Quiz"}}}};
const player = document.getElementById("player");
function stamp(t) {{ t = Math.floor(t); const m = Math.floor(t / 60), s = t % 60;
  return String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0"); }}
function el(tag, attrs, text) {{ const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = text;
  return e; }}
function show(lang) {{
  const v = DATA.videos[lang];
  document.documentElement.lang = lang;
  document.getElementById("title").textContent = v.title;
  for (const b of document.querySelectorAll("#langs button"))
    b.classList.toggle("on", b.dataset.lang === lang);
  player.replaceChildren(el("source", {{src: v.src, type: "video/mp4"}}));
  if (v.poster) player.setAttribute("poster", v.poster);
  v.tracks.forEach((t, i) => {{ const tr = el("track", {{kind: "subtitles", src: t.src,
    srclang: t.lang, label: t.label}}); if (i === 0) tr.default = true; player.appendChild(tr); }});
  player.load();
  const w = WORDS[lang];
  document.getElementById("h-chapters").textContent = w.chapters;
  document.getElementById("h-clips").textContent = w.clips;
  document.getElementById("h-quiz").textContent = w.quiz;
  const ch = document.getElementById("chapters"); ch.replaceChildren();
  v.chapters.forEach(c => {{ const li = el("li", {{"data-t": c.t}});
    li.appendChild(el("span", {{class: "t"}}, stamp(c.t)));
    li.appendChild(el("span", {{}}, c.title));
    li.addEventListener("click", () => {{ player.currentTime = c.t; }}); ch.appendChild(li); }});
  const cl = document.getElementById("clips"); cl.replaceChildren();
  v.clips.forEach(c => {{ const f = el("figure");
    f.appendChild(el("video", {{src: c.src, poster: c.poster, controls: "", preload: "none"}}));
    f.appendChild(el("figcaption", {{}}, c.title)); cl.appendChild(f); }});
  const qz = document.getElementById("quiz"); qz.replaceChildren();
  v.quiz.forEach(q => {{ const d = el("details"); d.appendChild(el("summary", {{}}, q.q));
    d.appendChild(el("p", {{}}, q.a)); qz.appendChild(d); }});
}}
const langs = document.getElementById("langs");
DATA.langs.forEach(l => {{ const b = el("button", {{"data-lang": l}}, {labels}[l]);
  b.addEventListener("click", () => show(l)); langs.appendChild(b); }});
show(DATA.langs[0]);
</script>
</body>
</html>
"""


def font_face(text: str) -> str:
    """A CSS @font-face embedding the bundled font, subset to the characters of ``text``."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection
    from fontTools.varLib import instancer

    font = TTCollection(str(style.FONT_FILE), lazy=True).fonts[style.FONT_INDEX_SC]
    sub = subset.Subsetter(subset.Options(layout_features=["*"]))
    sub.populate(text="".join(sorted(set(text) | set(" 0123456789:."))))
    sub.subset(font)
    font = instancer.instantiateVariableFont(font, {"wght": 400})
    font.flavor = "woff2"
    buf = io.BytesIO()
    font.save(buf)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return ('@font-face { font-family: "QKV Noto"; font-weight: 400; '
            f'src: url(data:font/woff2;base64,{data}) format("woff2"); }}')


def write_page(out: Path, langs: list[str]) -> Path | None:
    """Write ``out/index.html`` for the languages rendered there; None if there are none."""
    data = page_data(out, langs)
    if not data["langs"]:
        return None
    first = data["videos"][data["langs"][0]]
    blob = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    shown = blob + "".join(LABELS.values()) + "章节场景片段小测验ChaptersScene clipsQuiz"
    text = _TEMPLATE.format(lang=data["langs"][0], title=html.escape(first["title"]),
                            data=blob, labels=json.dumps(LABELS, ensure_ascii=False),
                            font_face=font_face(shown))
    path = out / "index.html"
    atomic_write_text(path, text)
    return path
