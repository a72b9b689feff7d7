#!/usr/bin/env python3
"""Render the qkv-explainer video: narrated, subtitled, one MP4 per language.

Stages (data flows one way): numbers file -> qkv_math -> narration (scripts, voice, cues)
-> scenes (Manim, one process per scene) -> soundtrack, subtitles, chapters -> master,
clips, deck, kit, report. Outputs per language in OUT/<lang>/, and OUT/index.html.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:  # so `python render.py` works from any directory
    sys.path.insert(0, str(ROOT))


def _ensure_dependencies() -> None:
    """Run with the project's .venv when started by a Python that lacks its packages."""
    import importlib.util

    # find_spec looks without importing: importing Manim costs 1.6 s and sets up logging.
    missing = next((m for m in ("manim", "pysubs2", "av") if importlib.util.find_spec(m) is None),
                   None)
    if missing is not None:
        venv = ROOT / ".venv" / "bin" / "python"
        in_venv = Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()
        if venv.is_file() and not in_venv:
            os.execv(str(venv), [str(venv), str(Path(__file__).resolve()), *sys.argv[1:]])
        print(f"error: {missing}: the project's packages are not installed for "
              f"{sys.executable}; set up once with `bash run.sh setup`, then run "
              f"`.venv/bin/python render.py`", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    _ensure_dependencies()

from narration.fit import check_fit  # noqa: E402
from narration.numfmt import LANGS  # noqa: E402
from narration.scripts import (  # noqa: E402
    SCRIPTS_DIR,
    ScriptError,
    check_parity,
    load_script,
    video_cover,
    video_summary,
    video_title,
)
from pipeline.config import DEFAULT_CACHE, BuildConfig, Inputs, Source, read_source  # noqa: E402
from qkv_math.numbers import DEFAULT_NUMBERS, NumbersError  # noqa: E402
from scenes.contract import QUALITIES, Quality  # noqa: E402
from scenes.registry import CUTS, SceneInfo, discover  # noqa: E402

EXIT_BAD_INPUT = 2


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad option is one line (naming it) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see {self.prog} --help)\n")


def folder(value: str) -> Path:
    """An --out or --cache folder; refuses an empty path and folders the run would litter or
    that ``render.py clean`` must never empty (the filesystem root, your home, this project)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("empty path; give a folder such as output")
    path = Path(value).expanduser()
    real = path.resolve()
    for unsafe, what in ((Path(real.anchor), "the filesystem root"),
                         (Path.home().resolve(), "your home folder"),
                         (ROOT, "this project's own folder")):
        if real == unsafe:
            raise argparse.ArgumentTypeError(f"{value} is {what}; give a folder of its own, "
                                             f"such as {path / 'output'}")
    return path


def parse_args(argv: list[str] | None, scenes: list[SceneInfo]) -> argparse.Namespace:
    """``scenes``: every cut's scenes (see ``discover(cut=None)``)."""
    ids = ", ".join(s.scene_id for s in scenes if s.cut == "full")
    ov_ids = ", ".join(s.scene_id for s in scenes if s.cut == "overview")
    p = _Parser(
        prog="render.py",
        description="Render the Query/Key/Value explainer as narrated, subtitled MP4 videos.",
        epilog=(f"Scenes of the full explainer, in order: {ids}.\n"
                f"Scenes of the two-minute overview (--cut overview): {ov_ids}.\n"
                "Outputs: OUT/<lang>/video.mp4 (H.264 + AAC + soft subtitles + chapters), "
                "video.srt, manifest.json, report.json, clips/ and slides.pptx; the "
                "overview's in OUT/<lang>/overview/; OUT/index.html shows both.\n"
                "Builds are incremental: beat audio, scene pictures and each language's "
                "outputs are cached under keys of what made them, so a rerun only redoes "
                "what changed (see --plan). `render.py clean` removes outputs and caches."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--lang", choices=[*LANGS, "all"], default="zh",
                   help="language of narration, on-screen text and subtitles (default: zh)")
    p.add_argument("--cut", choices=[*CUTS, "all"],
                   help="which video: full = the whole explainer (about 17 minutes), "
                        "overview = the four steps in two minutes, on the same numbers "
                        "(OUT/<lang>/overview/), all = both (default: full)")
    p.add_argument("--quality", choices=list(QUALITIES), default="high",
                   help=", ".join(f"{name} = {h}p{fps}" for name, (_w, h, fps)
                                  in QUALITIES.items()) + " (default: high)")
    p.add_argument("--scenes", metavar="ID[,ID]",
                   help="render only these scenes of the cut, in video order (default: all; "
                        "see --list)")
    p.add_argument("--tts", choices=["auto", "edge", "offline", "espeak"], default="auto",
                   help="voice: auto = online neural voice (edge-tts) if reachable, else the "
                        "offline voice with a warning; edge = online only (fail if "
                        "unreachable); offline = Piper (en_US-joe-medium) for English and "
                        "Kokoro for Chinese, never touches the network; espeak = espeak-ng "
                        "for both (default: auto)")
    p.add_argument("--voice", metavar="NAME", default=None,
                   help="the offline Mandarin voice (Kokoro), one of those vendored in "
                        "narration/tts/voices/ (default: zf_xiaobei)")
    p.add_argument("--numbers", type=Path, metavar="FILE",
                   help=f"TOML numbers file replacing the examples (default: {DEFAULT_NUMBERS})")
    p.add_argument("--scripts", type=Path, metavar="DIR",
                   help="narration scripts to read instead of the shipped ones: a copy of "
                        f"{SCRIPTS_DIR} (<lang>/<scene>.toml, <lang>/_video.toml and "
                        "_overview.toml) with your own wording; every scene keeps its beats "
                        "and cue marks (default: the shipped scripts)")
    p.add_argument("--out", type=folder, default=Path("output"), metavar="DIR",
                   help="output directory (default: ./output)")
    p.add_argument("--cache", type=folder, metavar="DIR", default=DEFAULT_CACHE,
                   help="build cache: audio/ clips and scenes/ pictures "
                        "(default: ~/.cache/qkv-explainer)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="scene processes at once, both languages in one pool "
                        "(default: the number of cores, %(default)s)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="render the scene jobs (and encode the deck's clips) on a Dask "
                        "cluster: the address of its "
                        "scheduler, e.g. tcp://10.0.0.5:8786 (workers need this project "
                        "installed, the same version; see README, Rendering on a cluster). "
                        "Default: a local pool of --jobs processes")
    p.add_argument("--plan", action="store_true",
                   help="print each job (beat audio, scene, language outputs) and whether it "
                        "would be reused or rebuilt, and why; do nothing")
    p.add_argument("--burn-subs", action="store_true",
                   help="also write video.burned.mp4 with the subtitles drawn into the picture "
                        "(bundled CJK font, inside the bottom band)")
    p.add_argument("--no-clips", dest="clips", action="store_false",
                   help="skip the scene clips (clips/NN_<scene>.mp4 with posters) and "
                        "slides.pptx")
    p.add_argument("--clip-height", type=int, default=720, metavar="PX",
                   help="height of the scene clips (default: 720; large PowerPoint decks "
                        "stop playing full-HD video)")
    p.add_argument("--silent-clips", action="store_true",
                   help="also write each clip without voice (clips/NN_<scene>.silent.mp4)")
    p.add_argument("--deck-captions", choices=("on", "off"), default="on",
                   help="draw the subtitles into the deck's clips (default: on; PowerPoint "
                        "shows no subtitle track inside an MP4)")
    p.add_argument("--accept-layout", action="store_true",
                   help="publish even when a scene reports something crossing the frame edge "
                        "or the subtitle band (by default that stops the run, naming the scene "
                        "and beat)")
    p.add_argument("--verbose", action="store_true",
                   help="show Manim's own log lines and the full traceback when a stage "
                        "fails")
    p.add_argument("--list", action="store_true",
                   help="list the scenes of the cut (--cut, default: both cuts) with their "
                        "titles, then exit")
    args = p.parse_args(argv)
    # --list without --cut lists every cut; anything else defaults to the full explainer
    everything = args.cut == "all" or (args.cut is None and args.list)
    args.cuts = list(CUTS) if everything else [args.cut or "full"]
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if args.scheduler is not None and not re.fullmatch(r"(\w+://)?[\w.\-\[\]:]+:\d+",
                                                       args.scheduler):
        p.error(f"--scheduler {args.scheduler!r}: give the scheduler's address as "
                f"tcp://HOST:PORT")
    if args.silent_clips and not args.clips:
        p.error("--silent-clips needs the clips: drop --no-clips")
    if not 144 <= args.clip_height <= 2160 or args.clip_height % 2:
        p.error("--clip-height must be an even number of pixels from 144 to 2160")
    if args.voice is not None:
        from narration.tts.kokoro import installed_voices

        if args.voice not in installed_voices():
            p.error(f"--voice {args.voice!r}: not a vendored Mandarin voice (have "
                    f"{', '.join(installed_voices()) or 'none'})")
        if args.tts in ("edge", "espeak"):
            p.error(f"--voice picks the offline Mandarin voice; --tts {args.tts} does not "
                    f"use it")
    in_cut = [s.scene_id for s in scenes if s.cut in args.cuts]
    if args.scenes is not None:
        wanted = [x.strip() for x in args.scenes.split(",") if x.strip()]
        unknown = [x for x in wanted if x not in in_cut]
        if not wanted or unknown:
            other = [x for x in unknown if x in {s.scene_id for s in scenes}]
            why = (f" ({', '.join(other)} belong{'s' if len(other) == 1 else ''} to another "
                   f"cut: see --cut)") if other else ""
            p.error(f"--scenes: unknown scene id(s) {', '.join(unknown) or '(none given)'}"
                    f"{why}; known: {', '.join(in_cut)}")
        args.scene_ids = wanted
    else:
        args.scene_ids = in_cut
    if args.burn_subs:
        from narration import style
        from pipeline.media import has_libass

        if not style.FONT_FILE.is_file() or not has_libass():
            _say(f"error: --burn-subs: the bundled ffmpeg cannot draw subtitles with "
                 f"{style.FONT_FILE} (libass or the font is missing)")
            raise SystemExit(EXIT_BAD_INPUT)
    if args.numbers is not None and not args.numbers.is_file():
        _say(f"error: {args.numbers}: -: numbers file not found")
        raise SystemExit(EXIT_BAD_INPUT)
    if args.scripts is not None:
        if not args.scripts.is_dir():
            _say(f"error: {args.scripts}: -: narration scripts folder not found (--scripts)")
            raise SystemExit(EXIT_BAD_INPUT)
        args.scripts = args.scripts.resolve()
    return args


def load_inputs(args: argparse.Namespace, all_scenes: list[SceneInfo], source: Source,
                cut: str = "full") -> Inputs | None:
    """The checked inputs of one cut (None when --scenes picks none of its scenes)."""
    numbers_path, numbers, derived, facts = (source.path, source.numbers, source.derived,
                                             source.facts)
    chosen = [s for s in all_scenes if s.cut == cut and s.scene_id in set(args.scene_ids)]
    if not chosen:
        return None
    root = args.scripts or SCRIPTS_DIR
    check_parity([s.scene_id for s in chosen], root)
    langs = list(LANGS) if args.lang == "all" else [args.lang]
    # Every language's scripts: each video carries the other language's subtitles too.
    scripts = {lang: [load_script(s.scene_id, lang, facts, root) for s in chosen]
               for lang in LANGS}
    for lang in langs:  # the title, summary and cover the outputs will need, checked now
        for read in (video_title, video_summary, video_cover):
            read(lang, root, cut)
    check_fit(numbers_path, numbers, scripts)
    return Inputs(numbers_path, numbers, derived, chosen, scripts, langs, cut, args.scripts)


def list_scenes(all_scenes: list[SceneInfo], cuts: list[str], source: Source,
                root: Path = SCRIPTS_DIR) -> int:
    """One line per scene: its id, its cut and its title in each language."""
    facts = source.facts
    for s in all_scenes:
        if s.cut not in cuts:
            continue
        titles = " / ".join(load_script(s.scene_id, lang, facts, root).title
                            for lang in LANGS)
        try:
            print(f"{s.scene_id:<16} {s.cut:<9} {titles}", flush=True)
        except BrokenPipeError:  # `render.py --list | head`
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the interpreter's exit
            return 0
    return 0


def check_out_dir(out: Path) -> str | None:
    """Why ``out`` cannot hold the outputs, or None (creates it)."""
    for parent in [out, *out.parents]:
        if parent.exists() and not parent.is_dir():
            return f"{parent} is a file, not a directory"
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        return f"cannot write there ({err.strerror or err})"
    return None


def take_lock(out: Path):
    """An exclusive lock on ``out`` for this run (released at exit), or None if taken."""
    import fcntl

    fh = (out / ".render.lock").open("a")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        return None
    return fh


def clean(argv: list[str]) -> int:
    """``render.py clean [--out DIR] [--cache DIR]``: remove outputs and caches."""
    p = _Parser(prog="render.py clean",
                                description="Remove the outputs (OUT/zh, OUT/en, "
                                            "OUT/index.html, work files) and the build cache.")
    p.add_argument("--out", type=folder, default=Path("output"), metavar="DIR")
    p.add_argument("--cache", type=folder, default=DEFAULT_CACHE, metavar="DIR")
    p.add_argument("--keep-cache", action="store_true", help="remove the outputs only")
    args = p.parse_args(argv)
    gone = []
    if args.out.is_dir():
        lock = take_lock(args.out)
        if lock is None:
            _say(f"error: --out {args.out}: a render is writing there; clean it afterwards")
            return EXIT_BAD_INPUT
        names = [*LANGS, ".work", "index.html", *(f".{x}.staging" for x in LANGS),
                 *(f".{x}.old" for x in LANGS),
                 *(f".{x}-{c}.staging" for x in LANGS for c in CUTS if c != "full")]
        for name in names:
            target = args.out / name
            if target.is_dir():
                shutil.rmtree(target)
                gone.append(str(target))
            elif target.exists():
                target.unlink()
                gone.append(str(target))
    if not args.keep_cache:
        for sub in ("audio", "scenes", "segments", "fonts"):
            target = args.cache / sub
            if target.is_dir():
                shutil.rmtree(target)
                gone.append(str(target))
    _say("removed: " + (", ".join(gone) if gone else "nothing (already clean)"))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["clean"]:
        return clean(argv[1:])
    all_scenes = discover(cut=None)
    args = parse_args(argv, all_scenes)
    try:
        source = read_source(args.numbers)  # once a run, handed on
        if args.list:
            return list_scenes(all_scenes, args.cuts, source, args.scripts or SCRIPTS_DIR)
        # Every cut's inputs are checked before anything is synthesized or written.
        cut_inputs = [i for i in (load_inputs(args, all_scenes, source, c) for c in args.cuts)
                      if i]
    except (NumbersError, ScriptError) as err:
        _say(f"error: {err}")
        return EXIT_BAD_INPUT

    from narration.tts.select import choose_engine
    from narration.types import TTSError
    from pipeline.build import LayoutError, Summary, build  # heavy: only for valid inputs
    from pipeline.media import MediaError, check_ffmpeg
    from pipeline.progress import BuildProgress
    from pipeline.scene_render import SceneRenderError

    # Absolute: the scene processes run with the project as their working directory.
    config = BuildConfig(out=args.out.absolute(), cache=args.cache.absolute(),
                         quality=Quality.of(args.quality),
                         jobs=args.jobs, burn_subs=args.burn_subs, clips=args.clips,
                         clip_height=args.clip_height, silent_clips=args.silent_clips,
                         verbose=args.verbose, accept_layout=args.accept_layout,
                         deck_captions=args.deck_captions == "on",
                         scheduler=args.scheduler)
    progress = BuildProgress()
    problem = check_out_dir(args.out)
    if problem:
        _say(f"error: --out {args.out}: {problem}")
        return EXIT_BAD_INPUT
    broken = None if args.plan else check_ffmpeg()
    if broken:
        _say(f"error: ffmpeg: {broken}; set up again with `bash run.sh setup`, or point "
             f"IMAGEIO_FFMPEG_EXE at a working ffmpeg")
        return 1
    lock = take_lock(args.out)
    if lock is None:
        _say(f"error: --out {args.out}: another render is writing there; wait for it to "
             f"finish or choose another --out")
        return EXIT_BAD_INPUT
    engine = choose_engine(args.tts, warn=lambda m: progress.say(f"warning: {m}"),
                           zh_voice=args.voice)
    t_all = time.monotonic()
    font = None
    if not args.plan:
        from narration.scripts import video_summary, video_title
        from pipeline.page import FontPrefetch

        texts = [f"{s.title}{b.text.display}" for i in cut_inputs
                 for scripts in i.scripts.values() for s in scripts for b in s.beats]
        texts += [f(lang, i.script_root, i.cut) for i in cut_inputs for lang in LANGS
                  for f in (video_title, video_summary)]
        font = FontPrefetch("".join(texts), source.numbers, config.cache)
    summaries_done = False
    try:
        summaries = []
        for inputs in cut_inputs:
            summaries.append(build(config, inputs, engine, progress, plan_only=args.plan))
            if inputs.cut != "full":  # name the cut in the summary line
                last = summaries[-1]
                last.langs_built = [f"{x} {inputs.cut}" for x in last.langs_built]
                last.langs_reused = [f"{x} {inputs.cut}" for x in last.langs_reused]
        summaries_done = True
    except TTSError as err:
        hint = " (--tts auto falls back to the offline voice)" if args.tts == "edge" else ""
        _say(f"error: voice: {err}{hint}")
        return 1
    except KeyboardInterrupt:
        _say("interrupted: finished scenes are kept in the cache; previous outputs left "
             "as they were")
        return 130
    except (SceneRenderError, MediaError, LayoutError) as err:
        if args.verbose:
            raise
        _say(f"error: {str(err).splitlines()[0]}")
        return 1
    except OSError as err:  # a full disk, a file-size limit, a folder made read-only
        if args.verbose:
            raise
        where = f" ({err.filename})" if err.filename else ""
        _say(f"error: cannot write{where}: {err.strerror or err}; finished scenes are kept "
             f"in the cache, previous outputs left as they were")
        return 1
    finally:
        if font is not None and not summaries_done:
            font.close()  # the build failed: no page to make
    if args.plan:
        return 0
    summary = Summary.combine(summaries)
    if summary.langs_built or not (args.out / "index.html").is_file():
        from pipeline.page import write_page

        page = write_page(args.out, list(LANGS), source.numbers, config.cache, font)
        if page is not None:
            _say(f"preview page: {page} ({page.stat().st_size / 1e6:.1f} MB)")
    if font is not None:
        font.close()  # unused when the page was kept (it has already finished otherwise)
    _say(f"summary: voice {summary.voiced} beats, {summary.synthesized} synthesized; "
         f"scenes {len(summary.rendered)} rendered, {len(summary.reused)} reused; "
         f"outputs {', '.join(summary.langs_built) or 'none'} rebuilt, "
         f"{', '.join(summary.langs_reused) or 'none'} unchanged")
    if progress.stages:
        _say("time: " + ", ".join(f"{k} {v:.1f} s" for k, v in progress.stages.items()))
    _say(f"done in {time.monotonic() - t_all:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
