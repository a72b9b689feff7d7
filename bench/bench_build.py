"""The build against plain Manim, and incremental rebuilds, measured in one run (prints
figures and writes BENCHMARKS.md; nothing here asserts a timing).

    .venv/bin/python bench/bench_build.py [--qualities low,high] [--scenes ID,...]
                                          [--work DIR] [--write BENCHMARKS.md]

For each quality it renders the same scenes, with the same beat durations (from the same
cached offline voice), twice, side by side in one pool of two processes:

- plain: ``python -m manim render -q? --disable_caching`` per scene, the plan handed over
  in ``<media_dir>/qkv-plan.json`` (see ``scenes.context``);
- pipeline: ``render.py --lang zh`` from an empty scene cache (the voice already cached).

At low quality it then measures, on both languages: ``--jobs 1`` against ``--jobs 2``,
the same build with its scene jobs on a Dask cluster on this machine (a scheduler and two
single-threaded workers, ``--scheduler``), a rerun with nothing changed, a changed number
of the worked example, and a changed sentence (one beat of the softmax script, restored
afterwards).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from narration.facts import build_facts  # noqa: E402
from narration.scripts import SCRIPTS_DIR, load_script, script_path  # noqa: E402
from narration.tts.cache import AudioCache  # noqa: E402
from narration.tts.select import choose_engine  # noqa: E402
from pipeline.voice import beat_plans, synthesize  # noqa: E402
from qkv_math.derived import derive  # noqa: E402
from qkv_math.numbers import DEFAULT_NUMBERS, load_numbers  # noqa: E402
from scenes.context import PLAIN_PLAN  # noqa: E402
from scenes.contract import QUALITIES, ScenePlan, SceneReport  # noqa: E402
from scenes.registry import discover  # noqa: E402

FLAGS = {"low": "l", "medium": "m", "high": "h", "4k": "k"}


def say(msg: str) -> None:
    print(msg, flush=True)


def run_measured(cmd: list[str], cwd: Path = ROOT) -> tuple[float, float, str]:
    """Wall seconds, peak memory (MB) of the process, and its stderr."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    err = p.stderr.read() if p.stderr else ""
    _pid, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err[-2000:]}")
    return time.monotonic() - t0, usage.ru_maxrss / 1024, err


def voice(cache: Path, lang: str, ids: list[str]):
    """The scenes' scripts and their beats' clips (synthesized once, then cached)."""
    numbers = load_numbers()
    facts = build_facts(numbers, derive(numbers))
    scripts = [load_script(i, lang, facts) for i in ids]
    clips = synthesize(lang, scripts, choose_engine("offline", print), AudioCache(cache),
                       say=lambda m: None)
    return scripts, clips


def plain(quality: str, work: Path, cache: Path, ids: list[str]) -> dict:
    """Plain manim CLI renders of the scenes, two at a time; wall time and peak memory."""
    infos = {i.scene_id: i for i in discover()}
    scripts, clips = voice(cache, "zh", ids)
    jobs = []
    for script in scripts:
        d = work / f"plain-{quality}" / script.scene_id
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        plan = ScenePlan(uuid.uuid4().hex, script.scene_id, "zh", DEFAULT_NUMBERS, quality,
                         beat_plans(script, clips), d / "unused.mp4", d / "report.json", d)
        plan.write(d / PLAIN_PLAN)
        info = infos[script.scene_id]
        jobs.append((d, [sys.executable, "-m", "manim", "render", "-q", FLAGS[quality],
                         "--disable_caching", "--media_dir", str(d), "--progress_bar",
                         "none", "-v", "WARNING", str(info.path), info.class_name]))
    # Longest first, as the pipeline orders its pool.
    jobs.sort(key=lambda j: -sum(b.slot for b in ScenePlan.read(j[0] / PLAIN_PLAN).beats))
    t0 = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda j: run_measured(j[1]), jobs))
    wall = time.monotonic() - t0
    video = 0.0
    for d, _cmd in jobs:
        rep = SceneReport.from_json(json.loads((d / "report.json").read_text("utf-8")))
        video += rep.times.duration
    return {"wall": wall, "video": video, "peak_mb": max(r[1] for r in results)}


def stages(stderr: str) -> dict[str, float]:
    line = next((x for x in stderr.splitlines() if x.startswith("time: ")), "time: ")
    return {k.strip(): float(v) for k, v in re.findall(r"([a-z ]+?) ([\d.]+) s", line[6:])}


def summary(stderr: str) -> str:
    return next((x for x in stderr.splitlines() if x.startswith("summary: ")), "?")[9:]


def render(args: list[str], out: Path, cache: Path, tts: str | None = "offline",
           profile: Path | None = None) -> dict:
    """One render.py run; with ``profile``, sampled by py-spy into that file as collapsed
    stacks: its main process (where the build waits, including on ffmpeg) and its scene
    processes (``bench_limit.py`` reads their drawing from it)."""
    voice = ["--tts", tts] if tts else []
    spy = [str(Path(sys.executable).with_name("py-spy")), "record", "--rate", "20",
           "--subprocesses",
           "--format", "raw", "-o", str(profile), "--"] if profile else []
    wall, _mb, err = run_measured([*spy, sys.executable, str(ROOT / "render.py"), *voice,
                                   "--out", str(out), "--cache", str(cache), *args])
    peaks = [json.loads(p.read_text("utf-8")).get("peak_rss_mb", 0.0)
             for p in (cache / "scenes").glob("*/*/*/entry.json")]
    return {"wall": wall, "stages": stages(err), "summary": summary(err),
            "peak_mb": max(peaks, default=0.0)}


@contextmanager
def dask_cluster(work: Path, workers: int, settings: bool = True,
                 texts: Path | None = None) -> Iterator[str]:
    """A Dask scheduler and ``workers`` single-threaded workers on 127.0.0.1, started as the
    README says (with the project's ``cluster/dask.yaml``, unless ``settings`` is false).
    ``texts``: the workers' store of made texts (``QKV_TEXT_CACHE``) in place of this
    machine's cache, so that a build on them starts as empty as a local build's."""
    dask = Path(sys.executable).with_name("dask")
    work.mkdir(parents=True, exist_ok=True)
    file = work / "scheduler.json"
    file.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if texts is not None:
        env["QKV_TEXT_CACHE"] = str(texts)
    if settings:
        env["DASK_CONFIG"] = str(ROOT / "cluster")
    procs = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(file)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        while not file.is_file() or not file.read_text().strip():
            time.sleep(0.2)
        address = json.loads(file.read_text())["address"]
        procs += [subprocess.Popen([str(dask), "worker", address, "--nthreads", "1",
                                    "--no-dashboard"], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                  for _ in range(workers)]
        from distributed import Client

        with Client(address) as c:
            c.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait()


def fresh_cache(work: Path, name: str, audio: Path) -> Path:
    c = work / name
    shutil.rmtree(c, ignore_errors=True)
    c.mkdir(parents=True)
    shutil.copytree(audio, c / "audio")
    return c


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--qualities", default="low,high")
    p.add_argument("--scenes", help="default: all")
    p.add_argument("--work", type=Path, default=Path("/tmp/qkv-bench"))
    p.add_argument("--write", type=Path, default=ROOT / "BENCHMARKS.md")
    p.add_argument("--profile", action="store_true",
                   help="sample each quality's pipeline run with py-spy (WORK/profile-Q.txt, "
                        "collapsed stacks; summarised by bench/profile_top.py)")
    p.add_argument("--no-dask", action="store_true",
                   help="skip the first build on a local Dask cluster")
    p.add_argument("--no-jobs1", action="store_true",
                   help="skip the --jobs 1 build (the rest still runs)")
    p.add_argument("--no-incremental", action="store_true",
                   help="only plain Manim against the pipeline at each quality: skip the "
                        "builds of both languages and the incremental runs")
    args = p.parse_args()
    # Checked before an hour of work, not when the first profiled run starts.
    if args.profile and not Path(sys.executable).with_name("py-spy").is_file():
        p.error(f"--profile needs py-spy next to {sys.executable}: "
                f"{Path(sys.executable).with_name('pip')} install py-spy")
    if not args.no_dask and not importlib.util.find_spec("distributed"):
        p.error("the Dask run needs distributed: pip install -e '.[cluster]', or --no-dask")
    ids = args.scenes.split(",") if args.scenes else [i.scene_id for i in discover()]
    scene_args = ["--scenes", ",".join(ids)] if args.scenes else []
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    audio = work / "audio"
    say("voice (offline, cached for every run below)...")
    for lang in ("zh", "en"):
        voice(audio, lang, ids)

    rows: dict[str, dict] = {}
    for quality in args.qualities.split(","):
        say(f"[{quality}] plain manim...")
        pl = plain(quality, work, audio, ids)
        say(f"[{quality}] plain: {pl['wall']:.1f} s for {pl['video']:.1f} s of video")
        say(f"[{quality}] pipeline...")
        cache = fresh_cache(work, f"cache-{quality}", audio)
        out = work / f"out-{quality}"
        shutil.rmtree(out, ignore_errors=True)
        pipe = render(["--lang", "zh", "--quality", quality, "--jobs", "2", *scene_args],
                      out, cache, profile=work / f"profile-{quality}.txt"
                      if args.profile else None)
        say(f"[{quality}] pipeline: {pipe['wall']:.1f} s; {pipe['stages']}")
        rows[quality] = {"plain": pl, "pipeline": pipe}

    inc: dict[str, dict] = {}
    if "low" in args.qualities.split(",") and not args.no_incremental:
        low = ["--quality", "low", *scene_args]
        for jobs in ((2,) if args.no_jobs1 else (1, 2)):
            say(f"[low] both languages, --jobs {jobs}...")
            cache = fresh_cache(work, f"cache-jobs{jobs}", audio)
            out = work / f"out-jobs{jobs}"
            shutil.rmtree(out, ignore_errors=True)
            inc[f"jobs{jobs}"] = render(["--lang", "all", "--jobs", str(jobs), *low], out,
                                        cache)
            say(f"  {inc[f'jobs{jobs}']['wall']:.1f} s")
        if not args.no_dask:
            say("[low] both languages, scene jobs on a local Dask cluster (2 workers)...")
            cache = fresh_cache(work, "cache-dask", audio)
            out = work / "out-dask"
            shutil.rmtree(out, ignore_errors=True)
            # the workers' texts in this run's empty cache, as the local pool's are
            with dask_cluster(work / "dask", workers=2, texts=cache / "texts") as address:
                inc["dask"] = render(["--lang", "all", "--scheduler", address, *low], out,
                                     cache)
            say(f"  {inc['dask']['wall']:.1f} s")
        out, cache = work / "out-jobs2", work / "cache-jobs2"
        inc["nochange"] = render(["--lang", "all", *low], out, cache)
        say(f"[low] no change: {inc['nochange']['wall']:.2f} s")
        inc["nochange_auto"] = render(["--lang", "all", *low], out, cache, tts=None)
        say(f"[low] no change, default voice (auto): {inc['nochange_auto']['wall']:.2f} s")
        numbers = work / "numbers.toml"
        text = DEFAULT_NUMBERS.read_text("utf-8")
        changed = text.replace("V = [[1, 2], [3, 0], [0, 1]]", "V = [[1, 2], [3, 0], [0, 2]]",
                               1)
        assert changed != text, "the worked example's V is not where the benchmark expects"
        numbers.write_text(changed, "utf-8")
        inc["number"] = render(["--lang", "all", "--numbers", str(numbers), *low], out, cache,
                               profile=work / "profile-number.txt" if args.profile else None)
        say(f"[low] one number: {inc['number']['wall']:.1f} s ({inc['number']['summary']})")
        # the edit is made in a copy of the scripts (--scripts), as a course author would
        scripts = work / "scripts"
        shutil.rmtree(scripts, ignore_errors=True)
        shutil.copytree(SCRIPTS_DIR, scripts)
        script = script_path("softmax", "zh", scripts)
        original = script.read_text("utf-8")
        assert "softmax" in ids, "the sentence change is made in the softmax scene"
        edited = original.replace("\ntext = \"", "\ntext = \"我们再看一遍。", 1)
        assert edited != original
        script.write_text(edited, "utf-8")
        inc["sentence"] = render(["--lang", "zh", "--numbers", str(numbers), "--scripts",
                                  str(scripts), *low], out, cache)
        say(f"[low] one sentence: {inc['sentence']['wall']:.1f} s "
            f"({inc['sentence']['summary']})")

    table = report(rows, inc, ids)
    print(table)
    args.write.write_text(table, "utf-8")
    say(f"wrote {args.write}")
    return 0


def report(rows: dict, inc: dict, ids: list[str]) -> str:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    lines = [
        "# Benchmarks",
        "",
        f"Measured by `bench/bench_build.py` on {time.strftime('%Y-%m-%d')}: "
        f"{os.cpu_count()} cores, {mem:.1f} GB memory, {platform.platform()}, "
        f"Python {platform.python_version()}. Chinese video, "
        f"{'all ' if len(ids) == len(discover()) else ''}{len(ids)} scenes, offline voice "
        "(cached before every run). Plain Manim and the pipeline render the same scenes "
        "with the same beat durations, two processes at a time.",
        "",
        "| quality | video | plain `manim` | pipeline: scenes | + master | ratio (scenes) "
        "| ratio (scenes + master) | whole run (master, clips, deck, page, report) "
        "| ratio (whole run) | report's share | render s per s of video | peak memory "
        "per scene process (plain / pipeline) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for q, r in rows.items():
        pl, pi = r["plain"], r["pipeline"]
        scenes, master = pi["stages"].get("scenes", 0.0), pi["stages"].get("master", 0.0)
        _w, h, fps = QUALITIES[q]
        lines.append(
            f"| {q} ({h}p{fps}) | {pl['video']:.0f} s | {pl['wall']:.0f} s | {scenes:.0f} s "
            f"| {master:.0f} s | {pl['wall'] / max(scenes, 1e-9):.2f}x "
            f"| {pl['wall'] / max(scenes + master, 1e-9):.2f}x | {pi['wall']:.0f} s "
            f"| {pl['wall'] / pi['wall']:.2f}x "
            f"| {100 * pi['stages'].get('report', 0.0) / pi['wall']:.1f}% "
            f"| plain {pl['wall'] / pl['video']:.2f}, pipeline "
            f"{(scenes + master) / pl['video']:.2f} "
            f"| {pl['peak_mb']:.0f} MB / {pi['peak_mb']:.0f} MB |")
    if inc:
        lines += [
            "",
            "Incremental runs at low quality, both languages (`--lang all`) unless noted:",
            "",
            "| run | wall | what it did | stages (both languages) |",
            "|---|---|---|---|",
        ]
        names = {"jobs1": "first build, `--jobs 1`", "jobs2": "first build, `--jobs 2`",
                 "dask": "first build, `--jobs 2`'s scene jobs on a Dask cluster here "
                         "(`--scheduler`, two single-threaded workers)",
                 "nochange": "rerun, nothing changed",
                 "nochange_auto": "rerun, nothing changed, default `--tts auto` (no network)",
                 "number": "one number of the worked example changed (V[2][1] 1 -> 2)",
                 "sentence": "one sentence added to the softmax scene (zh only)"}
        for k, label in names.items():
            if k in inc:
                st = ", ".join(f"{n} {v:.1f}" for n, v in inc[k]["stages"].items())
                lines.append(f"| {label} | {inc[k]['wall']:.1f} s | {inc[k]['summary']} "
                             f"| {st} |")
        if "number" in inc and "jobs2" in inc:
            share = 100 * inc["number"]["wall"] / inc["jobs2"]["wall"]
            lines += ["", f"The changed number took {share:.0f}% of the first build of both "
                      "languages (`--jobs 2`)."]
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
