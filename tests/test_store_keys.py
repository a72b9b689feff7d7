"""Every stored artefact is keyed by the content of what it is made from: the segment store
refuses a key that names a file by its path, and posters come from their own scene's
picture even when every picture has the same file name and the poster times coincide."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from common.digests import FileContent, file_names
from narration.types import Cue
from pipeline import media
from pipeline.clips import SceneSpan, write_clips
from pipeline.segments import SegmentStore


def _picture(path: Path, colour: str, size: str, fps: int = 15, seconds: float = 2.0) -> Path:
    """A scene picture like the scene store keeps: ``picture.mp4``, one colour, H.264."""
    path.parent.mkdir(parents=True, exist_ok=True)
    media.run_ffmpeg(["-f", "lavfi", "-i", f"color=c={colour}:s={size}:r={fps}:d={seconds}",
                      *media.x264_args(fps), str(path)])
    return path


def _frame_at(video: Path, at: float) -> np.ndarray:
    with av.open(str(video)) as c:
        s = c.streams.video[0]
        for frame in c.decode(s):
            if frame.time is not None and frame.time >= at - 1e-6:
                return frame.to_ndarray(format="rgb24")
    raise AssertionError(f"no frame of {video} at {at}")


def _png(path: Path) -> np.ndarray:
    with av.open(str(path)) as c:
        return next(c.decode(video=0)).to_ndarray(format="rgb24")


def test_store_refuses_a_key_naming_a_file_by_its_path(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path / "segments")
    f = tmp_path / "scene" / "picture.mp4"
    f.parent.mkdir()
    f.write_bytes(b"one")

    def make(out: Path) -> None:
        out.write_bytes(b"made")

    with pytest.raises(TypeError, match=r"picture\.mp4"):
        store.get("poster", [f, 1.0], make, ".png")
    with pytest.raises(TypeError, match="names a file"):
        store.get("poster", {"picture": str(f)}, make, ".png")
    assert not (tmp_path / "segments").exists()  # nothing was made
    # By content: two files of the same name and different bytes get different entries,
    # and the record says what the key was made of.
    g = tmp_path / "other" / "picture.mp4"
    g.parent.mkdir()
    g.write_bytes(b"two")
    a = store.get("poster", [FileContent.of(f), 1.0], make, ".png")
    b = store.get("poster", [FileContent.of(g), 1.0], make, ".png")
    assert a != b and store.made["poster"] == 2
    assert store.get("poster", [FileContent.of(f), 1.0], make, ".png") == a
    assert store.reused["poster"] == 1
    # A stored file stands for its content by its key; another file is not the store's.
    assert store.stored(a) == a.stem
    with pytest.raises(ValueError):
        store.stored(f)


def test_file_names_finds_paths_anywhere_in_a_key(tmp_path: Path) -> None:
    f = tmp_path / "x.wav"
    f.write_bytes(b"x")
    assert file_names([1, ("a", {"k": f})]) == [str(f)]
    assert file_names({str(f): "0123abcd"}) == []  # a file named beside its digest
    assert file_names([str(f)]) == [str(f)]
    assert file_names(["not/a/file/here", "plain", 2.0, FileContent("ab")]) == []


def test_posters_come_from_their_own_scene_at_its_own_size(tmp_path: Path) -> None:
    """Two scenes whose pictures are both called picture.mp4 and whose posters fall at the
    same time; a third picture of another size (a 1080p run's) is in the same store first."""
    store = SegmentStore(tmp_path / "segments")
    big = _picture(tmp_path / "1080" / "a" / "picture.mp4", "white", "1920x1080")
    red = _picture(tmp_path / "480" / "a" / "picture.mp4", "red", "854x480")
    blue = _picture(tmp_path / "480" / "b" / "picture.mp4", "blue", "854x480")
    # the 1080p run's poster at the same time, stored first
    write_clips(tmp_path / "hd", tmp_path / "work-hd", [None], 15,
                [SceneSpan("a", "A", 0.0, 2.0, "", 1.0, 1.5)], [("en", [])], [big],
                store=store)
    spans = [SceneSpan("a", "A", 0.0, 2.0, "", 1.0, 1.5),
             SceneSpan("b", "B", 2.0, 4.0, "", 3.0, 3.5)]
    cues = [Cue(0.1, 1.0, ("one",)), Cue(2.1, 3.0, ("two",))]
    made = write_clips(tmp_path / "out", tmp_path / "work", [None, None], 15, spans,
                       [("en", cues)], [red, blue], store=store)
    for clip, colour in zip(made, [(255, 0, 0), (0, 0, 255)], strict=True):
        for poster, at in [(clip.poster_first, 1.0 - 1 / 15), (clip.poster_last, 1.5 - 1 / 15)]:
            got = _png(poster)
            assert got.shape == (480, 854, 3), poster.name  # its own size
            own = _frame_at(clip.video, at)
            assert np.abs(got.astype(int) - own.astype(int)).mean() < 3, poster.name
            assert np.abs(got.mean(axis=(0, 1)) - colour).max() < 40, poster.name
    assert not np.array_equal(_png(made[0].poster_first), _png(made[1].poster_first))


def test_store_makes_a_file_once_when_two_threads_ask_for_it(tmp_path: Path) -> None:
    """The build makes scene voices as scenes finish, and the soundtrack asks for the same
    ones: a second thread asking while the first makes it waits for that file."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    store = SegmentStore(tmp_path / "segments")
    started, calls = threading.Event(), []

    def make(out: Path) -> None:
        calls.append(out)
        started.set()
        time.sleep(0.3)  # long enough for the other thread to ask meanwhile
        out.write_bytes(b"voice")

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(store.get, "voice", ["scene", 1], make, ".wav")
        assert started.wait(5)
        second = pool.submit(store.get, "voice", ["scene", 1], make, ".wav")
        assert first.result() == second.result()
    assert len(calls) == 1 and (store.made["voice"], store.reused["voice"]) == (1, 1)
    assert first.result().read_bytes() == b"voice"
