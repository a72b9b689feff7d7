"""Quality figures a creator reads before publishing: still pictures, subtitles, layout.

* Frozen stretches: consecutive frames of the rendered picture that do not differ, while
  the voice speaks (measured on the frames, not taken from the scene code).
* Cues: reading speed, durations outside 1.2-7 s, and bad breaks (between lines or cues):
  inside a number, a bracketed or quoted phrase, a word or a tight phrase, and breaks a
  reader would call bad by grammar (before a particle, after a preposition, between a verb
  and its object, inside a coordinated pair; ``narration.breaks`` has the rules, the same
  the line breaker follows).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

from common.stills import THRESHOLD, StillSpans, luma
from narration.breaks import counted_break
from narration.style import MIN_LABEL_PX
from narration.subtitles import (
    MAX_CPS,
    MAX_DURATION,
    MIN_DURATION,
    ZH_DROP,
    Cue,
    cues_by_beat,
    reading_chars,
)
from narration.timeline import SmallestText, still_while_speaking

HOLD_LIMIT = 8.0
"""Longest stretch (s) the picture may stand still while the voice speaks."""
HOLD_LIMITS = {"full": HOLD_LIMIT, "overview": 5.0}
"""The same limit for each cut: a two-minute overview must keep moving."""
STILL_REPORTED = 3.0
"""Still stretches shorter than this are not listed."""
CPS_LIMIT = {"zh": MAX_CPS[True], "en": MAX_CPS[False]}  # what the cues are made to
CPS_MEDIAN_LIMIT = {"zh": 9.0, "en": 17.0}



def _break_positions(text: str, lines: Sequence[tuple[str, bool]], zh: bool
                     ) -> list[tuple[int, int, int | None]]:
    """Where each line after the first starts in ``text`` (``lines``: each line and
    whether it starts a cue, found in order), with where the line before it starts and
    where it ends (None when it starts a cue: the cue shows it apart from what came
    before, whatever line it is on)."""
    out, pos, prev = [], 0, 0
    for k, (line, first) in enumerate(lines):
        found = _find_line(text, line, pos, zh)
        if found is None:
            return out
        start, end = found
        if k:
            out.append((start, prev, None if first else end))
        pos, prev = end, start
    return out


def _find_line(text: str, line: str, pos: int, zh: bool) -> tuple[int, int] | None:
    """Span of ``line`` in ``text`` from ``pos``, ignoring differences in whitespace and
    (Chinese) the punctuation a line drops at its end."""
    chars = [c for c in line if not c.isspace()]
    i = pos
    first = chars[0] if chars else ""
    while i < len(text) and (text[i].isspace()
                             or (zh and text[i] in ZH_DROP and text[i] != first)):
        i += 1
    start = i
    for c in chars:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text) or text[i] != c:
            return None
        i += 1
    return start, i


def break_problem(text: str, p: int, zh: bool, start: int = 0,
                  end: int | None = None) -> str | None:
    """Why a break before ``text[p]`` is bad, or None (``narration.breaks``: the rules the
    line breaker follows); ``start``: where the line before it starts, ``end``: where the
    line after it ends."""
    problem = counted_break(text, p, zh, start, end)
    return str(problem) if problem else None


def cue_report(cues: Sequence[Cue], beats: Sequence[tuple[str, object, float, float]],
               lang: str) -> dict:
    """Reading speed, durations and bad breaks of ``cues``; ``beats`` are (text, words,
    offset, speech_end) as given to ``build_track``."""
    cps = []
    over = []
    durations = []
    for c in cues:
        d = c.end - c.start
        rate = reading_chars(c.lines, lang == "zh") / d if d > 0 else float("inf")
        cps.append(rate)
        if rate > CPS_LIMIT[lang] + 1e-9:
            over.append(f"{c.start:.2f} s: {rate:.1f} cps: {' / '.join(c.lines)}")
        if d < MIN_DURATION - 1e-3 or d > MAX_DURATION + 1e-3:
            durations.append(f"{c.start:.2f} s: {d:.2f} s: {' / '.join(c.lines)}")
    bad = []
    for (text, _words, offset, _end), beat_cues in zip(
            beats, cues_by_beat(cues, [(b[2], b[3]) for b in beats]), strict=True):
        mine = [(line, n == 0) for c in beat_cues for n, line in enumerate(c.lines)]
        for p, start, end in _break_positions(text, mine, lang == "zh"):
            problem = break_problem(text, p, lang == "zh", start, end)
            if problem:
                bad.append(f"{offset:.2f} s: {problem}")
    return {
        "count": len(cues),
        "cps": {"min": round(min(cps), 1) if cps else 0.0,
                "median": round(statistics.median(cps), 1) if cps else 0.0,
                "max": round(max(cps), 1) if cps else 0.0},
        "cps_limit": CPS_LIMIT[lang],
        "cps_median_limit": CPS_MEDIAN_LIMIT[lang],
        "over_cps": over,
        "durations_out_of_range": durations,
        "bad_breaks": bad,
    }


def still_frames(video: Path, threshold: int = THRESHOLD, fps: float | None = None
                 ) -> tuple[list[tuple[float, float]], float]:
    """Stretches (start, end seconds) in which no frame differs from the first, and fps,
    measured on the decoded frames (``common.stills``: frames compared in brightness over
    cells of the same share of the frame at every resolution, 4 px at 480p, so a thin line
    that moves still shows and the preview and the master agree).

    The picture may store a held frame once with its duration (variable frame rate); it
    counts as that many identical frames at ``fps``, the picture's nominal rate (default:
    the stream's own rate, right for a constant-rate video). The scenes' writer records the
    same stretches as it stores the frames (``SceneReport.stills``); this is for any video.
    """
    import av

    with av.open(str(video)) as c:
        stream = c.streams.video[0]
        stream.thread_type = "AUTO"
        fps = fps or float(stream.guessed_rate or stream.average_rate)
        total = round(float(c.duration / av.time_base) * fps) if c.duration else None
        found = StillSpans(fps, threshold)
        last_at = 0
        for frame in c.decode(stream):
            at = round(float(frame.time) * fps) if frame.time is not None else last_at + 1
            last_at = at
            found.add(luma(frame), at)
        spans = found.finish(max(total or 0, last_at + 1))
    return [(a / fps, b / fps) for a, b in spans], fps


def join_spans(per_scene: Sequence[tuple[float, Sequence[tuple[float, float]]]]
               ) -> list[tuple[float, float]]:
    """Still stretches of the whole video from each scene's (offset, stretches): shifted,
    and joined where one scene's last stretch runs into the next one's first. Inside a
    scene, a stretch that ends where the next begins is two: the picture changed there."""
    out: list[tuple[float, float]] = []
    for offset, spans in per_scene:
        for i, (a, b) in enumerate(spans):
            a, b = a + offset, b + offset
            if i == 0 and out and abs(out[-1][1] - a) < 1e-6:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return out


def frozen_report(video: Path | None, speech: Sequence[tuple[float, float]],
                  fps: float | None = None,
                  spans: Sequence[tuple[float, float]] | None = None,
                  limit: float = HOLD_LIMIT) -> dict:
    """Frozen stretches of ``video`` while the voice speaks (``speech`` intervals, s);
    ``spans``, if given, are its still stretches already measured; ``limit``: the longest
    allowed."""
    if spans is None:
        assert video is not None
        spans, _fps = still_frames(video, fps=fps)
    stills = [(a, b) for a, b in still_while_speaking(spans, speech) if b - a >= STILL_REPORTED]
    return {
        "limit_s": limit,
        "over_limit": sum(1 for a, b in stills if b - a > limit),
        "longest_s": round(max((b - a for a, b in stills), default=0.0), 2),
        "total_over_3s": round(sum(b - a for a, b in stills), 1),
        "stretches": [{"start": round(a, 2), "end": round(b, 2), "seconds": round(b - a, 2)}
                      for a, b in stills],
    }


def build_report(lang: str, picture: Path | None, speech: Sequence[tuple[float, float]],
                 cues: Sequence[Cue], beats: Sequence[tuple[str, object, float, float]],
                 scenes: Sequence[tuple[str, float, float, Sequence[str], Sequence[str]]],
                 fps: float | None = None,
                 spans: Sequence[tuple[float, float]] | None = None,
                 hold_limit: float = HOLD_LIMIT,
                 smallest_text: Mapping[str, SmallestText | None] | None = None,
                 lopsided: Mapping[str, Sequence[str]] | None = None,
                 overlaps: Mapping[str, Sequence[str]] | None = None) -> dict:
    """The whole report: frozen stretches, cues, and per scene its length, warnings,
    smallest text (``smallest_text``: scene id -> its smallest text, px at 1080p) and
    stretches over 3 s of content in the top half or one side (``lopsided``) and text drawn
    over text (``overlaps``)."""
    frozen = frozen_report(picture, speech, fps, spans, hold_limit)
    for st in frozen["stretches"]:
        st["scene"] = next((sid for sid, a, b, _w, _l in scenes if a <= st["start"] < b), "?")
    return {
        "lang": lang,
        "frozen_while_speaking": frozen,
        "cues": cue_report(cues, beats, lang),
        "scenes": [{"id": sid, "start": round(a, 3), "duration": round(b - a, 3),
                    "warnings": list(w), "layout": list(lay),
                    "smallest_text": _smallest_json((smallest_text or {}).get(sid)),
                    "lopsided": list((lopsided or {}).get(sid, ())),
                    "overlaps": list((overlaps or {}).get(sid, ()))}
                   for sid, a, b, w, lay in scenes],
        "duration": round(max((b for _s, _a, b, _w, _l in scenes), default=0.0), 3),
    }


def _smallest_json(small: SmallestText | None) -> dict | None:
    return None if small is None else small.to_json()


def smallest_text_line(report: dict) -> str | None:
    """One line: the smallest text in the video, px at 1080p, and the scene it is in."""
    shown = [(s["smallest_text"], s["id"]) for s in report["scenes"]
             if s.get("smallest_text")]
    if not shown:
        return None
    small, sid = min(shown, key=lambda x: x[0]["px"])
    return (f"report: smallest text {small['px']:.1f} px at 1080p ({sid}: "
            f"{small['text']!r}); labels need {MIN_LABEL_PX:.0f} px")


def summary(report: dict) -> list[str]:
    """A few lines for the end of a run; ``report.json`` has the details."""
    fr, cu = report["frozen_while_speaking"], report["cues"]
    lines = [
        f"report: {report['duration'] / 60:.1f} min; picture still while speaking: "
        f"{fr['over_limit']} stretch(es) over {fr['limit_s']:.0f} s, longest "
        f"{fr['longest_s']:.1f} s, {fr['total_over_3s']:.0f} s in stretches over 3 s",
        f"report: {cu['count']} cues, reading speed min/median/max "
        f"{cu['cps']['min']}/{cu['cps']['median']}/{cu['cps']['max']} chars/s "
        f"(limits {cu['cps_median_limit']:.0f} median, {cu['cps_limit']:.0f} max); "
        f"{len(cu['over_cps'])} too fast, {len(cu['durations_out_of_range'])} too short/long, "
        f"{len(cu['bad_breaks'])} bad breaks",
    ]
    bi = report.get("bilingual")
    if bi is not None:
        lines.append(f"report: bilingual subtitles: {bi['count']} cues, "
                     f"{len(bi['over_two_lines_per_language'])} with over two lines of a "
                     f"language, {len(bi['punctuation_only_lines'])} with a line of "
                     f"punctuation alone, {len(bi.get('under_min_duration', []))} under "
                     f"{MIN_DURATION} s, shortest {bi['shortest_s']:.2f} s, "
                     f"{len(bi.get('bad_breaks', []))} bad breaks")
    small = smallest_text_line(report)
    if small is not None:
        lines.append(small)
        lop = sum(len(s.get("lopsided", ())) for s in report["scenes"])
        lines.append(f"report: {lop} stretch(es) over 3 s with all content in the top half "
                     f"or one side of the safe area")
        over = sum(len(s.get("overlaps", ())) for s in report["scenes"])
        lines.append(f"report: {over} text(s) drawn over other text or across a filled shape "
                     f"(scenes.overlap)")
    pron = report.get("pronunciation")
    if pron is not None:
        lines.append("report: " + pronunciation_summary(pron))
    warnings = sum(len(s["warnings"]) + len(s["layout"]) for s in report["scenes"])
    if warnings:
        lines.append(f"report: {warnings} scene warning(s), see report.json")
    return lines


def pronunciation_summary(pron: dict) -> str:
    """One line on what the voice is given: mismatches against the reference reading (zh)
    and digits or symbols left unverbalised."""
    zh = (f"{pron['syllables_checked']} syllables against the reference reading, "
          f"{len(pron['mismatches'])} mismatch(es); " if pron["lang"] == "zh" else "")
    first = [f"{m['scene']}.{m['beat']} {m['word']} {m['expected']}->{m['engine']}"
             for m in pron["mismatches"][:2]]
    return (f"pronunciation: {pron['beats']} beats, {zh}{len(pron['unspoken'])} beat(s) with "
            f"unverbalised digits or symbols" + (f" (e.g. {'; '.join(first)})" if first else ""))


def bilingual_report(cues: Sequence[Cue], own_zh: bool,
                     beats: Sequence[tuple[str, str, float, float]] = ()) -> dict:
    """``video.bilingual.srt`` against its rules: one line of the video's language, at most
    two of the other, no line of punctuation alone; its cues' shortest duration; and, given
    ``beats`` (own text, other text, offset, speech end), the breaks of either language a
    reader would call bad (the own tracks' rules)."""
    from narration.bilingual import MAX_OTHER_LINES

    too_many = [f"{c.start:.2f} s: {' / '.join(c.lines)}" for c in cues
                if len(c.lines) - 1 > MAX_OTHER_LINES]
    bare = [f"{c.start:.2f} s: {' / '.join(c.lines)}" for c in cues
            if any(line.strip() and not any(ch.isalnum() for ch in line) for line in c.lines)]
    shortest = min((c.end - c.start for c in cues), default=0.0)
    short = [f"{c.start:.2f} s: {c.end - c.start:.2f} s: {' / '.join(c.lines)}" for c in cues
             if c.end - c.start < MIN_DURATION - 1e-3]  # as the own track: whole ms
    bad = []
    for (own_text, other_text, offset, _end), mine in zip(
            beats, cues_by_beat(cues, [(b[2], b[3]) for b in beats]), strict=True):
        for text, zh, lines in (
                (own_text, own_zh, [(c.lines[0], True) for c in mine if c.lines]),
                (other_text, not own_zh, [(line, n == 0) for c in mine
                                          for n, line in enumerate(c.lines[1:])])):
            for p, start, end in _break_positions(text, lines, zh):
                problem = break_problem(text, p, zh, start, end)
                if problem:
                    bad.append(f"{offset:.2f} s: {problem}")
    return {"count": len(cues), "over_two_lines_per_language": too_many,
            "punctuation_only_lines": bare, "under_min_duration": short, "bad_breaks": bad,
            "shortest_s": round(shortest, 3),
            "own_language": "zh" if own_zh else "en"}
