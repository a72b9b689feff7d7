"""Engine choice: offline never touches the network; auto falls back once and remembers it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from narration.tts.cache import AudioCache
from narration.tts.edge import EdgeEngine
from narration.tts.espeak import EspeakEngine
from narration.tts.select import AUTO_TIMEOUT, AutoEngine, OfflineEngine, choose_engine
from narration.types import TTSUnavailable

from .helpers import CountingEdge, CountingEspeak, RecordedEdge, load_recordings

TEXTS = ["第一句话。", "第二句话，稍微长一点。", "第三句。"]
ROOT = Path(__file__).resolve().parents[2]


def test_choose_engine_modes() -> None:
    offline = choose_engine("offline", print)
    assert isinstance(offline, OfflineEngine)
    assert offline.engine_for("zh").name == "kokoro"
    assert isinstance(choose_engine("espeak", print), EspeakEngine)
    assert isinstance(choose_engine("edge", print), EdgeEngine)
    auto = choose_engine("auto", print)
    assert isinstance(auto, AutoEngine)
    assert isinstance(auto.online, EdgeEngine) and auto.online.timeout == AUTO_TIMEOUT
    assert isinstance(auto.offline, OfflineEngine)
    with pytest.raises(ValueError, match="unknown voice mode"):
        choose_engine("loud", print)


def test_offline_mode_never_imports_or_touches_the_network(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import json, socket, sys
        from pathlib import Path

        attempts = []
        def deny(*args, **kwargs):
            attempts.append(repr(args))
            raise OSError("network disabled")
        socket.socket.connect = socket.socket.connect_ex = deny
        socket.getaddrinfo = socket.create_connection = deny

        from narration.tts import AudioCache, choose_engine
        warnings = []
        engine = choose_engine("offline", warnings.append)
        cache = AudioCache(Path(sys.argv[1]))
        clips = [cache.get_or_synthesize(engine, t, None, None, lang)
                 for t, lang in [("离线也能说话。", "zh"), ("Offline works too.", "en")]]
        print(json.dumps({
            "attempts": attempts,
            "warnings": warnings,
            "engines": [c.engine for c in clips],
            "imported": sorted(m for m in sys.modules
                               if m.split(".")[0] in ("edge_tts", "aiohttp")
                               or m == "narration.tts.edge"),
        }))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=True,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert report == {
        "attempts": [],
        "warnings": [],
        "engines": ["kokoro", "piper"],
        "imported": [],
    }


def test_a_kokoro_that_does_not_import_falls_back_to_espeak_with_a_warning(tmp_path: Path
                                                                           ) -> None:
    """Kokoro's modules are looked for, not imported, when the engine is chosen (a second of
    every run); one installed but failing to import (here misaki's G2P blocked in
    ``sys.modules``, as a broken install would) still gives espeak-ng's Chinese with one
    warning, not a failed build."""
    script = textwrap.dedent(
        """
        import json, sys
        from pathlib import Path

        sys.modules["misaki.zh"] = None  # "import misaki.zh" raises ImportError
        from narration.tts import AudioCache, choose_engine
        warnings = []
        engine = choose_engine("offline", warnings.append)
        cache = AudioCache(Path(sys.argv[1]))
        clips = [cache.get_or_synthesize(engine, t, None, None, "zh")
                 for t in ("第一句。", "第二句。")]
        print(json.dumps({"warnings": warnings, "engines": [c.engine for c in clips]}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    report = json.loads(done.stdout)
    assert report["engines"] == ["espeak", "espeak"]
    assert len(report["warnings"]) == 1
    assert report["warnings"][0].startswith("Kokoro voice unavailable: ")
    assert "uses espeak-ng" in report["warnings"][0]
    # Choosing Kokoro and naming its voice (what a build that synthesizes nothing does)
    # imports neither its G2P nor its dictionaries.
    look = subprocess.run(
        [sys.executable, "-c", "import sys; from narration.tts import choose_engine; "
         "e = choose_engine('offline', print); e.default_voice('zh'); "
         "print(sorted(m for m in ('misaki.zh', 'pypinyin', 'jieba', 'onnxruntime') "
         "if m in sys.modules))"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    assert look.stdout.strip() == "[]", look.stdout


def test_auto_falls_back_once(no_network: list[tuple], tmp_path: Path) -> None:
    online, offline, warnings = CountingEdge(timeout=2.0), CountingEspeak(), []
    auto = AutoEngine(online, offline, warnings.append)
    voice = auto.default_voice("zh")
    assert voice == "zh-CN-XiaoxiaoNeural" and auto.active is online
    started = time.monotonic()
    for i, text in enumerate(TEXTS):
        words = auto.synthesize(text, voice, "+0%", tmp_path / f"{i}.wav")
        assert words and (tmp_path / f"{i}.wav").is_file()
        assert auto.last_engine is offline
    assert time.monotonic() - started < online.timeout
    assert len(warnings) == 1
    assert "online voice unreachable" in warnings[0] and "espeak-ng" in warnings[0]
    assert (online.calls, offline.calls) == (1, 3)
    assert auto.fell_back and auto.active is offline


def test_auto_with_cache_rerun_hits_without_waiting(
    no_network: list[tuple], tmp_path: Path
) -> None:
    def run() -> tuple[list, CountingEdge, CountingEspeak, list[str]]:
        online, offline, warnings = CountingEdge(timeout=2.0), CountingEspeak(), []
        auto = AutoEngine(online, offline, warnings.append)
        cache = AudioCache(tmp_path)
        clips = [cache.get_or_synthesize(auto, t, None, None, "zh") for t in TEXTS]
        return clips, online, offline, warnings

    clips, online, offline, warnings = run()
    assert [c.engine for c in clips] == ["espeak"] * 3
    assert [c.voice for c in clips] == ["cmn"] * 3
    assert (online.calls, offline.calls, len(warnings)) == (1, 3, 1)

    attempts_before = len(no_network)
    again, online, offline, warnings = run()  # a new run, still offline
    assert again == clips
    assert offline.calls == 0  # all cache hits
    # Every beat has a clip: the online voice is not even tried, nothing waits, no warning.
    assert (online.calls, len(warnings), len(no_network)) == (0, 0, attempts_before)


def test_auto_uses_cached_online_clips_without_network(
    no_network: list[tuple], tmp_path: Path
) -> None:
    rec = load_recordings()[1]
    recorded = RecordedEdge({rec["text"]: rec["chunks"]})
    first = AudioCache(tmp_path).get_or_synthesize(recorded, rec["text"], None, None, "zh")
    assert (first.engine, first.voice) == ("edge", "zh-CN-XiaoxiaoNeural")

    online, offline, warnings = CountingEdge(), CountingEspeak(), []
    auto = AutoEngine(online, offline, warnings.append)
    clip = AudioCache(tmp_path).get_or_synthesize(auto, rec["text"], None, None, "zh")
    assert clip == first
    assert (online.calls, offline.calls, warnings, no_network) == (0, 0, [], [])
    assert auto.last_engine is online and not auto.fell_back


def test_auto_prefers_the_online_voice_when_it_works(tmp_path: Path) -> None:
    recs = load_recordings()
    online = RecordedEdge({r["text"]: r["chunks"] for r in recs})
    offline, warnings = CountingEspeak(), []
    auto = AutoEngine(online, offline, warnings.append)
    clips = [AudioCache(tmp_path).get_or_synthesize(auto, r["text"], None, None, lang)
             for r, lang in zip(recs, ["en", "zh"], strict=True)]  # fmt: skip
    assert [c.engine for c in clips] == ["edge", "edge"]
    assert [c.voice for c in clips] == ["en-US-AriaNeural", "zh-CN-XiaoxiaoNeural"]
    assert (online.calls, offline.calls, warnings) == (2, 0, [])


def test_edge_mode_reports_unreachable(no_network: list[tuple], tmp_path: Path) -> None:
    engine = choose_engine("edge", print)
    with pytest.raises(TTSUnavailable, match=r"^online voice unreachable: "):
        AudioCache(tmp_path).get_or_synthesize(engine, "Hello.", None, None, "en")
    assert list(tmp_path.iterdir()) == []


def test_what_a_build_would_synthesize_is_what_it_does(no_network: list[tuple],
                                                       tmp_path: Path) -> None:
    """The look-up before the voice (a plan, and whether the build starts its scene server
    early) finds what ``get_or_synthesize`` would: a clip the automatic voice's offline
    fallback made is found by a fresh automatic voice, without the network and without
    falling back; one never made is not found."""
    cache = AudioCache(tmp_path)
    first = AutoEngine(CountingEdge(timeout=2.0), CountingEspeak(), [].append)
    made = cache.get_or_synthesize(first, TEXTS[0], None, None, "zh")
    assert made.engine == "espeak" and first.fell_back
    tries = len(no_network)  # the first engine's tries of the network
    warnings: list[str] = []
    fresh = AutoEngine(CountingEdge(timeout=2.0), CountingEspeak(), warnings.append)
    found = cache.cached(fresh, TEXTS[0], None, None, "zh")
    assert found is not None and found.path == made.path
    assert cache.cached(fresh, TEXTS[1], None, None, "zh") is None
    assert fresh.online.calls == 0 and fresh.offline.calls == 0
    assert not fresh.fell_back and warnings == []
    assert tries > 0 and len(no_network) == tries  # none from the look-ups
