"""ffmpeg (bundled by imageio-ffmpeg) for concatenating and muxing; PyAV for probing."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import av
import imageio_ffmpeg

from common import mp4box
from common.h264 import MediaError, gop_frames, x264_args  # noqa: F401 (re-exported)

try:
    FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
except RuntimeError:  # no bundled binary and none on PATH: check_ffmpeg says so
    FFMPEG = "ffmpeg"

# ISO 639-2 codes for the subtitle and audio language tags
LANG_TAGS = {"zh": "chi", "en": "eng"}


def check_ffmpeg() -> str | None:
    """Why the bundled ffmpeg cannot be used, or None when it runs."""
    try:
        proc = subprocess.run([FFMPEG, "-hide_banner", "-version"], capture_output=True,
                              text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{FFMPEG} does not run ({err})"
    if proc.returncode != 0 or "ffmpeg version" not in proc.stdout:
        return f"{FFMPEG} does not run (exit {proc.returncode}: {proc.stderr.strip()[-200:]})"
    return None


def run_ffmpeg(args: list[str]) -> None:
    cmd = [FFMPEG, "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        err = proc.stderr.strip()
        # ffmpeg names the problem first: a long filter echoed after it hid it at the end
        shown = err if len(err) <= 800 else f"{err[:400]} ... {err[-300:]}"
        raise MediaError(f"ffmpeg failed ({proc.returncode}): {shown}")


@dataclass(frozen=True)
class StreamInfo:
    kind: str  # video | audio | subtitle
    codec: str
    duration: float | None
    language: str | None


@dataclass(frozen=True)
class MediaInfo:
    duration: float
    streams: tuple[StreamInfo, ...]
    chapters: tuple[tuple[float, str], ...]

    def of(self, kind: str) -> list[StreamInfo]:
        return [s for s in self.streams if s.kind == kind]


def probe(path: Path) -> MediaInfo:
    """Streams, durations and chapters of a media file (PyAV; no ffprobe is bundled)."""
    with av.open(str(path)) as c:
        streams = []
        for s in c.streams:
            dur = float(s.duration * s.time_base) if s.duration and s.time_base else None
            streams.append(StreamInfo(s.type, s.codec_context.name if s.codec_context else "",
                                      dur, s.metadata.get("language")))
        chapters = tuple(
            (float(ch["start"] * ch["time_base"]), ch["metadata"].get("title", ""))
            for ch in c.chapters()
        )
        duration = float(c.duration / av.time_base) if c.duration else 0.0
    return MediaInfo(duration, tuple(streams), chapters)


def concat_videos(parts: Sequence[tuple[Path, float]], out: Path) -> None:
    """Join scene videos of identical encoding without re-encoding; each part is (file, its
    exact length in seconds). The lengths are given because ffmpeg's concat otherwise takes
    a segment's from its edit list, in the movie's millisecond time scale: the frame before
    each join came out up to half a millisecond short (251/15360 s at 60 fps)."""
    listing = out.with_suffix(".txt")
    listing.write_text("".join(f"file '{p.resolve()}'\nduration {seconds:.9f}\n"
                               for p, seconds in parts), "utf-8")
    run_ffmpeg(["-f", "concat", "-safe", "0", "-i", str(listing), "-c", "copy", str(out)])


def ffmetadata_chapters(chapters: list[tuple[float, float, str]], title: str) -> str:
    """An FFMETADATA1 document with one chapter per (start, end, title)."""

    def esc(s: str) -> str:
        for ch in "\\=;#\n":
            s = s.replace(ch, "\\" + ch)
        return s

    out = [";FFMETADATA1", f"title={esc(title)}"]
    for start, end, name in chapters:
        out += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={round(start * 1000)}",
                f"END={round(end * 1000)}", f"title={esc(name)}"]
    return "\n".join(out) + "\n"


def has_libass() -> bool:
    """Whether the bundled ffmpeg can draw subtitles (its ``subtitles`` filter)."""
    proc = subprocess.run([FFMPEG, "-hide_banner", "-filters"], capture_output=True, text=True)
    return any(line.split()[1:2] == ["subtitles"] for line in proc.stdout.splitlines()
               if len(line.split()) > 1)


def subtitles_filter(ass: Path, fonts_dir: Path) -> str:
    """The ``subtitles`` filter drawing ``ass`` with the fonts in ``fonts_dir``, the paths
    quoted for a filter graph."""

    def esc(p: Path) -> str:
        return str(p).replace("\\", "\\\\").replace(":", "\\:").replace("'", "\\'")

    return f"subtitles={esc(ass)}:fontsdir={esc(fonts_dir)}"


def scaled_width(width: int, full: int, height: int) -> int:
    """The width of a ``width`` x ``full`` picture scaled to ``height`` (even, as ffmpeg's
    ``scale=-2:height``)."""
    return 2 * round(width * height / full / 2)


def frame_size(video: Path) -> tuple[int, int]:
    fmt = picture_format(video)
    return fmt.width, fmt.height


@dataclass(frozen=True)
class PictureFormat:
    """A video stream's size, frame rate and length, read from the container's metadata."""

    width: int
    height: int
    fps: float
    duration: float


def picture_format(video: Path) -> PictureFormat:
    """The first video stream's format, without decoding a frame."""
    with av.open(str(video)) as c:
        s = c.streams.video[0]
        rate = s.average_rate or s.guessed_rate or 0
        if s.duration and s.time_base:
            dur = float(s.duration * s.time_base)
        else:
            dur = float(c.duration / av.time_base) if c.duration else 0.0
        return PictureFormat(s.codec_context.width, s.codec_context.height, float(rate), dur)


def check_format(video: Path, width: int | None, height: int, fps: int, duration: float,
                 what: str) -> None:
    """Raise MediaError (one line) unless ``video`` is ``width``x``height`` (any width if
    None) at ``fps`` and lasts ``duration`` s to within a frame and a half: the last check
    before an output is published."""
    got = picture_format(video)
    problems = []
    if got.height != height or (width is not None and got.width != width):
        want = f"{width}x{height}" if width is not None else f"{height} px high"
        problems.append(f"{got.width}x{got.height} instead of {want}")
    if abs(got.fps - fps) > 0.01:
        problems.append(f"{got.fps:g} fps instead of {fps}")
    if abs(got.duration - duration) > 1.5 / fps:
        problems.append(f"{got.duration:.3f} s instead of {duration:.3f} s")
    if problems:
        raise MediaError(f"{what} {video.name} came out {', '.join(problems)}; nothing was "
                         f"published (clear the cache with `render.py clean` if this repeats)")


def frame_png(video: Path, at: float, out: Path) -> None:
    """One frame of ``video`` at ``at`` seconds as PNG."""
    run_ffmpeg(["-ss", f"{max(0.0, at):.3f}", "-i", str(video), "-frames:v", "1", str(out)])
    if not out.is_file():
        raise MediaError(f"no frame of {video} at {at:.3f} s")


@dataclass(frozen=True)
class SubtitleTrack:
    path: Path  # SRT
    lang: str  # "zh" | "en"
    default: bool


def _subtitle_args(tracks: list[SubtitleTrack],
                   first_input: int) -> tuple[list[str], list[str], list[str]]:
    """ffmpeg inputs, maps and per-track options (language tag, default flag) for
    ``tracks``, whose files are inputs ``first_input`` onwards."""
    inputs: list[str] = []
    maps: list[str] = []
    opts: list[str] = []
    for k, t in enumerate(tracks):
        inputs += ["-i", str(t.path)]
        maps += ["-map", f"{first_input + k}:s:0"]
        opts += [f"-metadata:s:s:{k}", f"language={LANG_TAGS[t.lang]}",
                 f"-disposition:s:{k}", "default" if t.default else "0"]
    return inputs, maps, opts


AAC_ARGS = ["-c:a", "aac", "-aac_coder", "fast", "-profile:a", "aac_low", "-ar", "48000",
            "-ac", "2"]
"""AAC-LC 48 kHz stereo. The "fast" coder: ffmpeg's default (twoloop) took 41 s for 15 min
of narration, 2.5 times as long as fast (16 s), for no audible difference at these rates."""


def mux_master(video: Path, sound: Path, tracks: list[SubtitleTrack], metadata: Path,
                  out: Path) -> None:
    """The platform master: ``video`` (H.264 High, yuv420p, BT.709, closed GOPs of at most
    half a second, 2 B-frames, CRF 18: the scenes' segments, joined) and ``sound`` (AAC-LC
    48 kHz stereo, starting at its first sample: no priming packet), both copied, one
    mov_text track per language (the first default), chapters from ``metadata`` (their
    track tagged with the first language), fast start, and no edit lists, as platforms ask:
    the picture's B-frame delay is carried by negative composition offsets instead, so
    picture and sound both start at 0."""
    sub_inputs, sub_maps, sub_opts = _subtitle_args(tracks, first_input=2)
    meta_index = len(tracks) + 2
    run_ffmpeg([
        "-i", str(video), "-i", str(sound), *sub_inputs, "-i", str(metadata),
        "-map", "0:v:0", "-map", "1:a:0", *sub_maps,
        "-map_metadata", str(meta_index), "-map_chapters", str(meta_index),
        # Subtitle time base in ms: with the picture copied, the muxer otherwise gave
        # the QT chapter track durations past 32 bits and dropped it.
        "-c:v", "copy", "-c:a", "copy", "-c:s", "mov_text", "-time_base:s", "1/1000",
        *sub_opts,
        "-metadata:s:a:0", f"language={LANG_TAGS[tracks[0].lang] if tracks else 'und'}",
        "-use_editlist", "0", "-movflags", "+faststart+negative_cts_offsets", str(out),
    ])
    if tracks:
        # ffmpeg leaves the chapter track's language unset (read as English).
        mp4box.set_chapter_language(out, LANG_TAGS[tracks[0].lang])


def replace_picture(source: Path, video: Path, out: Path) -> None:
    """``source`` (a clip) with its picture replaced by ``video``'s; sound and subtitle
    tracks copied."""
    run_ffmpeg(["-i", str(video), "-i", str(source), "-map", "0:v:0", "-map", "1:a?",
                "-map", "1:s?", "-map_chapters", "-1", "-c", "copy", "-movflags", "+faststart",
                str(out)])


def mux_clip(video: Path, sound: Path | None, tracks: list[SubtitleTrack], out: Path
             ) -> None:
    """A scene clip: its encoded ``video`` and ``sound`` (the scene's AAC, as long; none: a
    silent clip), both copied, and the subtitle tracks."""
    inputs = ["-i", str(video)]
    maps = ["-map", "0:v:0"]
    if sound is not None:
        inputs += ["-i", str(sound)]
        maps += ["-map", "1:a:0"]
    sub_inputs, sub_maps, sub_opts = _subtitle_args(tracks, first_input=1 + (sound is not None))
    inputs += sub_inputs
    maps += sub_maps
    run_ffmpeg([*inputs, *maps, "-c:v", "copy", *(["-c:a", "copy"] if sound else ["-an"]),
                "-c:s", "mov_text", "-time_base:s", "1/1000", *sub_opts,
                "-map_chapters", "-1", "-movflags", "+faststart", str(out)])
