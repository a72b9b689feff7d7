"""Check scenes quickly, without writing video: real voice timings, Manim dry runs.

``python -m pipeline.check --lang en --scenes softmax,formula`` synthesizes the beats with
the offline voice (cached; Piper for English, Kokoro for Chinese), plans the scenes
exactly as a render would and builds them with Manim's dry run. It prints, per scene, its
length, every stretch over 3 s in which the picture holds still while the voice speaks
(from the scene's own record of its waits), late cue marks, overruns and layout problems,
the subtitles' reading speed and breaks, and the pronunciation check (what the offline voice
will say against the reference reading; digits or symbols left unverbalised). Exit status 1
when a hold over 8 s, a layout problem, a bad subtitle break or a pronunciation problem is
found.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from narration import pronunciation
from narration.marks import display_words
from narration.numfmt import LANGS
from narration.scripts import SCRIPTS_DIR, check_parity, load_script
from narration.subtitles import build_track
from narration.timeline import still_while_speaking
from narration.tts.cache import AudioCache
from narration.tts.select import choose_engine
from pipeline.config import DEFAULT_CACHE, read_source, text_cache_in
from pipeline.quality import HOLD_LIMIT, cue_report, pronunciation_summary
from pipeline.voice import beat_plans, synthesize
from scenes.contract import ContractError, ScenePlan, SceneReport
from scenes.registry import discover


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m pipeline.check", description=__doc__.split("\n")[0])
    p.add_argument("--lang", choices=[*LANGS, "all"], default="all")
    p.add_argument("--scenes", metavar="ID[,ID]", help="default: all")
    p.add_argument("--numbers", type=Path)
    p.add_argument("--scripts", type=Path, metavar="DIR",
                   help="narration scripts to check instead of the shipped ones (as "
                        "render.py --scripts)")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    p.add_argument("--tts", choices=["offline", "espeak"], default="offline",
                   help="offline voice to time the beats with (default: offline, as the "
                        "video: Piper for English, Kokoro for Chinese)")
    args = p.parse_args(argv)
    infos = discover(cut=None)  # both cuts
    if args.scenes:
        wanted = args.scenes.split(",")
        infos = [i for i in infos if i.scene_id in wanted]
    root = args.scripts.resolve() if args.scripts else SCRIPTS_DIR
    check_parity([i.scene_id for i in infos], root)
    source = read_source(args.numbers)  # as render.py reads it
    facts, numbers_path = source.facts, source.path
    engine = choose_engine(args.tts, warn=print)
    cache = AudioCache(args.cache / "audio")
    bad = False
    langs = LANGS if args.lang == "all" else (args.lang,)
    for lang in langs:
        scripts = [load_script(i.scene_id, lang, facts, root) for i in infos]
        pron = pronunciation.check(lang, [(s.scene_id, b.id, b.text) for s in scripts
                                          for b in s.beats])
        print(f"[{lang}] {pronunciation_summary(pron.to_json())}")
        for problem in [*pron.mismatches, *pron.unspoken]:
            print(f"    {problem.line()}")
            bad = True
        clips = synthesize(lang, scripts, engine, cache)
        total = 0.0
        with tempfile.TemporaryDirectory() as tmp:
            for info, script in zip(infos, scripts, strict=True):
                d = Path(tmp) / info.scene_id
                plan = ScenePlan(uuid.uuid4().hex, info.scene_id, lang, numbers_path, "low",
                                 beat_plans(script, clips), d / "picture.mp4",
                                 d / "report.json", Path(tmp) / "media" / info.scene_id,
                                 dry_run=True, scripts=root if args.scripts else None,
                                 texts=text_cache_in(args.cache))
                plan.write(d / "plan.json")
                proc = subprocess.run([sys.executable, "-m", "scenes.run", str(d / "plan.json")],
                                      capture_output=True, text=True,
                                      cwd=Path(__file__).resolve().parent.parent)
                try:
                    if proc.returncode != 0:
                        raise ContractError(proc.stderr[-3000:])
                    times = SceneReport.read_for(plan).times
                except ContractError as err:
                    print(f"[{lang}] {info.scene_id}: FAILED\n{err}")
                    bad = True
                    continue
                total += times.duration
                speech = [(bt.start, bt.start + clips[(info.scene_id, bt.id)].duration)
                          for bt in times.beats]
                stills = [(a, b) for a, b in still_while_speaking(times.holds, speech)
                          if b - a > 3.0]
                small = times.smallest_text
                print(f"[{lang}] {info.scene_id}: {times.duration:.1f} s, "
                      f"{len(times.beats)} beats"
                      + ("" if small is None else f", smallest text {small.px:.1f} px at "
                         f"1080p ({small.text!r}, beat {small.beat})"))
                for a, b in stills:
                    beat = next((bt.id for bt in times.beats if bt.start <= a < bt.end), "?")
                    flag = "  !!" if b - a > HOLD_LIMIT else ""
                    print(f"    still {b - a:4.1f} s while speaking at {a:6.1f} s "
                          f"(beat {beat}){flag}")
                    bad |= b - a > HOLD_LIMIT
                for w in times.warnings:
                    print(f"    warning: {w}")
                for w in times.lopsided:
                    print(f"    composition: {w}")
                for w in times.overlaps:
                    print(f"    overlap: {w}")
                for w in times.layout:
                    print(f"    layout: {w}")
                    bad = True
                placed = [(b.text.display, display_words(b.text, clips[(info.scene_id, b.id)]
                                                         .words), bt.start,
                           clips[(info.scene_id, b.id)].duration)
                          for b, bt in zip(script.beats, times.beats, strict=True)]
                rep = cue_report(build_track(placed, lang), placed, lang)
                print(f"    cues: {rep['count']}, cps min/median/max "
                      f"{rep['cps']['min']}/{rep['cps']['median']}/{rep['cps']['max']}"
                      + (f", over limit: {rep['over_cps']}" if rep["over_cps"] else ""))
                for problem in rep["bad_breaks"]:
                    print(f"    break: {problem}")
                    bad = True
        print(f"[{lang}] total {total:.1f} s ({total / 60:.1f} min)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
