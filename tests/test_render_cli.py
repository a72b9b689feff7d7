"""render.py as a user meets it: help, listing, and bad input refused before any output."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from narration.scripts import SCRIPTS_DIR
from qkv_math.numbers import DEFAULT_NUMBERS
from scenes.registry import discover
from tests.shared_renders import TERSE, scripts_with

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "render.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_help_explains_the_options():
    p = run("--help")
    assert p.returncode == 0
    for flag in ("--lang", "--quality", "--scenes", "--tts", "--numbers", "--out", "--list"):
        assert flag in p.stdout
    assert "offline" in p.stdout and "1080p60" in p.stdout


def test_list_shows_every_scene_with_titles():
    p = run("--list")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert [line.split()[:2] for line in lines] == [[s.scene_id, s.cut]
                                                    for s in discover(cut=None)]
    assert {s.cut for s in discover(cut=None)} == {"full", "overview"}
    assert all(" / " in line for line in lines)


def test_list_of_one_cut():
    p = run("--list", "--cut", "overview")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.strip().splitlines()]
    assert ids == [s.scene_id for s in discover(cut="overview")] and len(ids) >= 4


def test_a_scene_of_the_other_cut_is_refused_naming_the_cut(tmp_path):
    p = run("--scenes", "ov_scores", "--out", str(tmp_path / "out"))
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "ov_scores" in lines[0] and "--cut" in lines[0], p.stderr
    assert not (tmp_path / "out").exists()


def test_plan_lists_the_overview_jobs(tmp_path):
    """``--plan --cut all``: every scene job of both cuts and each cut's outputs, per
    language; nothing is synthesized or written."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    p = run("--plan", "--cut", "all", "--lang", "all", "--tts", "offline", "--quality", "low",
            "--out", str(out), "--cache", str(cache))
    assert p.returncode == 0, p.stderr
    for lang in ("zh", "en"):
        for s in discover(cut=None):
            assert re.search(rf"^\[{lang}\] {s.scene_id} +rebuild", p.stderr, re.M), s
        assert re.search(rf"^\[{lang}\] outputs +rebuild", p.stderr, re.M)
        assert re.search(rf"^\[{lang}\] overview outputs +rebuild", p.stderr, re.M)
    assert not (cache / "audio").exists() or not any((cache / "audio").iterdir())
    assert not (out / "zh").exists()


@pytest.mark.parametrize(("args", "option"), [
    (["--lang", "fr"], "--lang"),
    (["--quality", "8k"], "--quality"),
    (["--tts", "siri"], "--tts"),
    (["--jobs", "0"], "--jobs"),
    (["--jobs", "two"], "--jobs"),
    (["--clip-height", "721"], "--clip-height"),
    (["--no-clips", "--silent-clips"], "--silent-clips"),
    (["--bogus"], "--bogus"),
])
def test_a_bad_option_is_one_line_naming_it(tmp_path, args, option):
    p = run(*args, "--out", str(tmp_path / "out"))
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and option in lines[0], p.stderr
    assert not (tmp_path / "out").exists()


def test_unknown_scene_is_refused():
    p = run("--scenes", "worked_example,nope", "--out", "unused")
    assert p.returncode == 2
    assert "nope" in p.stderr


@pytest.fixture
def previous_output(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    (out / "zh").mkdir(parents=True)
    (out / "zh" / "video.mp4").write_bytes(b"previous render")
    return out


def _bad_numbers(tmp_path: Path, old: str, new: str) -> Path:
    text = DEFAULT_NUMBERS.read_text("utf-8")
    assert old in text
    path = tmp_path / "my numbers.toml"
    path.write_text(text.replace(old, new, 1), "utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("V = [[1, 2], [3, 0], [0, 1]]", "V = [[1, 2], [3, nan], [0, 1]]", "worked_example.V"),
        ("V = [[1, 2], [3, 0], [0, 1]]", "V = [[1, 2], [3], [0, 1]]", "worked_example.V"),
        ("query = 1 ", "query = 7 ", "worked_example.query"),
        ('en = ["cat", "chases", "ball"]', 'en = ["cat", "chases"]',
         "worked_example.tokens.en"),
        ("shift = 3", 'shift = "three"', "fill_blank.shift"),
        # e^x of these scores is shown: overflowing (or absurd) values are refused
        ("K = [[0, 1], [1, 0], [1, 2]]", "K = [[0, 2000], [1, 0], [1, 2]]",
         "worked_example.K"),
        ("x_query = [1, 0, 1]", "x_query = [60, 0, 1]", "fill_blank.K_others"),
        # a word wider than the scenes lay out is refused before any voice is made
        ('"France"', '"Liechtensteinerland"', "fill_blank.tokens.en[0]"),
    ],
)
def test_bad_numbers_file_one_line_exit_2_nothing_touched(tmp_path, previous_output, old, new,
                                                          key):
    numbers = _bad_numbers(tmp_path, old, new)
    p = run("--numbers", str(numbers), "--out", str(previous_output), "--tts", "offline")
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert str(numbers) in lines[0] and key in lines[0]
    assert (previous_output / "zh" / "video.mp4").read_bytes() == b"previous render"
    assert sorted(p.name for p in previous_output.iterdir()) == ["zh"]


FIVE_WORDS = [
    ('zh = ["法国", "北京", "长大", "我"], en = ["France", "Beijing", "grew up", "I"]',
     'zh = ["法国", "北京", "长大", "我", "说"], '
     'en = ["France", "Beijing", "grew up", "I", "speak"]'),
    ("K_others = [[1, 0, 0], [0, 0, 1], [-2, -1, 0]]",
     "K_others = [[1, 0, 0], [0, 0, 1], [-2, -1, 0], [0, 0, 1]]"),
    ("V_others = [[0, 1, 0], [0, 0, 1], [0, 0, 0]]",
     "V_others = [[0, 1, 0], [0, 0, 1], [0, 0, 0], [0, 0, 1]]"),
]


def test_valid_numbers_the_scenes_cannot_show_are_refused_up_front(tmp_path, previous_output):
    """Five words for the fill-in-the-blank: valid maths, but the hook's sentence and the
    party are written for four. Refused before anything starts, naming both files."""
    text = DEFAULT_NUMBERS.read_text("utf-8")
    for old, new in FIVE_WORDS:
        assert old in text
        text = text.replace(old, new, 1)
    numbers = tmp_path / "five.toml"
    numbers.write_text(text, "utf-8")
    p = run("--numbers", str(numbers), "--out", str(previous_output), "--tts", "offline")
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert str(numbers) in lines[0] and "fill_blank.tokens" in lines[0]
    assert "hook.toml" in lines[0] or "blind_date.toml" in lines[0]
    assert (previous_output / "zh" / "video.mp4").read_bytes() == b"previous render"
    # Scenes that do not show those words render from the same file.
    ok = run("--numbers", str(numbers), "--scenes", "formula", "--plan", "--tts", "offline",
             "--out", str(tmp_path / "plan-out"), "--cache", str(tmp_path / "cache"))
    assert ok.returncode == 0, ok.stderr


FOUR_WORKED = [
    ('zh = ["猫", "追", "球"], en = ["cat", "chases", "ball"]',
     'zh = ["猫", "追", "球", "狗"], en = ["cat", "chases", "ball", "dog"]'),
    ("Q = [[1, 0], [0, 1], [1, 1]]", "Q = [[1, 0], [0, 1], [1, 1], [2, 0]]"),
    ("K = [[0, 1], [1, 0], [1, 2]]", "K = [[0, 1], [1, 0], [1, 2], [0, 2]]"),
    ("V = [[1, 2], [3, 0], [0, 1]]", "V = [[1, 2], [3, 0], [0, 1], [1, 1]]"),
]


def test_a_script_reading_fewer_entries_than_the_numbers_give_is_refused(tmp_path):
    """Four worked-example words: the worked example's narration scores three, one by one
    (it would show and say three scores of four). Refused up front naming its script; the
    formula scene, whose grid shows every word, plans from the same file."""
    text = DEFAULT_NUMBERS.read_text("utf-8")
    for old, new in FOUR_WORKED:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    numbers = tmp_path / "four.toml"
    numbers.write_text(text, "utf-8")
    common = ("--numbers", str(numbers), "--lang", "all", "--plan", "--tts", "espeak",
              "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"))
    p = run(*common, "--scenes", "worked_example")
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert re.search(r"worked_example\.tokens\.(zh|en): 4 entries, but \S+/\1/"
                     r"worked_example\.toml reads 3 ", lines[0]), lines[0]
    ok = run(*common, "--scenes", "formula")
    assert ok.returncode == 0, ok.stderr


def test_missing_numbers_file(tmp_path, previous_output):
    p = run("--numbers", str(tmp_path / "nope.toml"), "--out", str(previous_output))
    assert p.returncode == 2
    assert "nope.toml" in p.stderr and "not found" in p.stderr


def test_missing_scripts_folder(tmp_path, previous_output):
    p = run("--scripts", str(tmp_path / "nope"), "--out", str(previous_output))
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "nope" in lines[0] and "--scripts" in lines[0], p.stderr
    assert (previous_output / "zh" / "video.mp4").read_bytes() == b"previous render"


def _scripts_copy(tmp_path: Path, lang: str, name: str, old: str, new: str) -> Path:
    root = tmp_path / "my scripts"
    shutil.copytree(SCRIPTS_DIR, root)
    path = root / lang / name
    text = path.read_text("utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), "utf-8")
    return root


@pytest.mark.parametrize(("lang", "name", "old", "new", "key"), [
    # a cue mark the other language does not have: the scene waits for both in one order
    ("en", "formula.toml", "{@", "{@extra}{@", "beat."),
    # a placeholder no fact fills
    ("zh", "softmax.toml", 'text = "', 'text = "{nope}', "beat."),
    # the video's title, read for the description and the cover
    ("zh", "_video.toml", "title = ", "titel = ", "title"),
])
def test_a_bad_narration_file_in_a_scripts_copy_is_one_line(tmp_path, previous_output, lang,
                                                             name, old, new, key):
    """``--scripts``: the copy is checked as the shipped scripts are, before anything is
    synthesized or written; the line names the file and the key."""
    root = _scripts_copy(tmp_path, lang, name, old, new)
    p = run("--scripts", str(root), "--lang", "all", "--out", str(previous_output),
            "--tts", "espeak")
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert str(root / lang / name) in lines[0] and key in lines[0], lines[0]
    assert (previous_output / "zh" / "video.mp4").read_bytes() == b"previous render"
    assert sorted(x.name for x in previous_output.iterdir()) == ["zh"]


def test_out_under_a_file_is_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = run("--scenes", "hook", "--tts", "offline", "--out", str(blocker / "out"))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "is a file" in lines[0] and "--out" in lines[0]
    assert blocker.read_text() == "x"


def test_a_second_run_on_the_same_output_is_refused(tmp_path):
    import fcntl

    out = tmp_path / "out"
    out.mkdir()
    with (out / ".render.lock").open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running render holds it
        p = run("--scenes", "hook", "--tts", "offline", "--out", str(out))
    assert p.returncode == 2
    assert "another render" in p.stderr and p.stderr.count("\n") == 1
    assert sorted(x.name for x in out.iterdir()) == [".render.lock"]


def test_silent_clips_without_clips_is_refused():
    p = run("--no-clips", "--silent-clips", "--out", "unused")
    assert p.returncode == 2 and "--silent-clips" in p.stderr


def test_started_by_a_python_without_the_packages(tmp_path):
    """`python render.py` with the base interpreter runs itself with the project's .venv."""
    base = Path(sys.base_prefix) / "bin" / "python3"
    if (ROOT / ".venv").resolve() == Path(sys.prefix).resolve() and base.is_file():
        p = subprocess.run([str(base), str(ROOT / "render.py"), "--list"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert p.stdout.split()[0] == discover()[0].scene_id
    else:
        pytest.skip("not running from the project's .venv")


def test_clean_removes_outputs_and_caches_and_nothing_else(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    for d in (out / "zh" / "clips", out / ".work" / "zh", cache / "audio", cache / "scenes" / "x"):
        d.mkdir(parents=True)
    (out / "index.html").write_text("x")
    (out / "mine.txt").write_text("a user's own file")
    (cache / "audio" / "k.wav").write_bytes(b"RIFF")
    p = run("clean", "--out", str(out), "--cache", str(cache))
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in out.iterdir()) == [".render.lock", "mine.txt"]
    assert not (cache / "audio").exists() and not (cache / "scenes").exists()
    again = run("clean", "--out", str(out), "--cache", str(cache))
    assert "nothing" in again.stderr


def test_plan_on_a_fresh_output_does_nothing(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    p = run("--plan", "--scenes", "library", "--tts", "offline", "--quality", "low",
            "--out", str(out), "--cache", str(cache))
    assert p.returncode == 0, p.stderr
    assert "rebuild" in p.stderr and "beat(s) to synthesize" in p.stderr
    assert not (cache / "audio").exists() or not any((cache / "audio").iterdir())
    assert not (out / "zh").exists()


def test_an_unwritable_output_directory_is_one_line_and_exit_2():
    """/proc refuses new folders even to root (CI runs as root, so chmod would not do)."""
    p = run("--out", "/proc/qkv-explainer-out", "--scenes", "hook", "--tts", "offline")
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--out" in lines[0] and "cannot write" in lines[0], p.stderr


@pytest.mark.parametrize(("value", "says"), [
    ("", "empty path"),
    ("  ", "empty path"),
    ("/", "filesystem root"),
    (str(Path.home()), "home folder"),
    (str(ROOT), "this project's own folder"),
])
@pytest.mark.parametrize("command", [[], ["clean"]])
def test_an_empty_or_unsafe_folder_is_refused(tmp_path, value, says, command):
    """Nothing is written or removed in the current folder, the root, home or the project."""
    before = sorted(p.name for p in tmp_path.iterdir())
    p = run(*command, "--out", value, *([] if command else ["--plan"]), cwd=tmp_path)
    assert p.returncode == 2
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--out" in lines[0] and says in lines[0], p.stderr
    assert sorted(q.name for q in tmp_path.iterdir()) == before


@pytest.mark.slow
def test_a_layout_problem_fails_the_render_unless_accepted(tmp_path):
    """A valid numbers file whose seven-word worked example the formula scene's grid cannot
    fit: the run stops naming the scene and beat and publishes nothing; --accept-layout
    publishes it."""
    from qkv_math.numbers import DEFAULT_NUMBERS

    text = DEFAULT_NUMBERS.read_text("utf-8")
    old = ('tokens = { zh = ["猫", "追", "球"], en = ["cat", "chases", "ball"] }\n'
           "query = 1        # index of the token whose new representation is computed\n"
           "Q = [[1, 0], [0, 1], [1, 1]]\nK = [[0, 1], [1, 0], [1, 2]]\n"
           "V = [[1, 2], [3, 0], [0, 1]]\n")
    assert old in text
    rows = "[[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1], [1, 0]]"
    new = ('tokens = { zh = ["猫", "追", "球", "跑", "跳", "吃", "睡"], en = ["cat", "chases", '
           '"ball", "runs", "jumps", "eats", "sleeps"] }\nquery = 1\n'
           f"Q = {rows}\nK = {rows}\nV = {rows}\n")
    numbers = tmp_path / "seven.toml"
    numbers.write_text(text.replace(old, new), "utf-8")
    out, cache = tmp_path / "out", tmp_path / "cache"
    # the formula's beats in few words: the grid's layout does not depend on them
    scripts = scripts_with(tmp_path / "scripts", {"formula": TERSE["formula"]})
    args = ["--numbers", str(numbers), "--scenes", "formula", "--lang", "zh", "--quality", "low",
            "--tts", "espeak", "--no-clips", "--scripts", str(scripts), "--out", str(out),
            "--cache", str(cache)]
    p = run(*args)
    assert p.returncode == 1, p.stderr[-2000:]
    last = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert len(last) == 1 and "layout: formula." in last[0] and "--accept-layout" in last[0]
    assert not (out / "zh").exists()
    p = run(*args, "--accept-layout")
    assert p.returncode == 0, p.stderr[-2000:]
    assert "scenes 0 rendered, 1 reused" in p.stderr  # the picture was kept in the cache
    assert (out / "zh" / "video.mp4").is_file()
