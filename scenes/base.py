"""NarratedScene: a Manim scene whose beats last exactly as long as their narration."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

from manim import DOWN, UP, Animation, FadeIn, FadeOut, Group, Mobject, Scene, config

from narration import numfmt
from narration.timeline import (
    SCENE_TAIL,
    BeatTime,
    SceneTimes,
    SmallestText,
    beat_grid,
    grid_end,
)
from scenes import (
    composition,
    fast_copy,
    legibility,
    overlap,
    pointing,
    role_colours,
    subpaths,
    theme,
    widgets,
)
from scenes.context import load_context, plain_plan
from scenes.contract import ScenePlan, SceneReport
from scenes.recording import project_code

fast_copy.install()  # every scene's copies (animations, always_redraw) a third quicker
subpaths.install()  # each shape's subpaths found once while its points stay the same

MARK_LEAD = 0.2
"""Seconds before a cue mark that ``until`` returns: an entrance is under way as the word
is spoken, not after it."""
LATE = 0.5  # a mark reached this much later than planned is reported
SAFE = composition.Box(-theme.FRAME_W / 2 + theme.MARGIN, theme.FRAME_W / 2 - theme.MARGIN,
                       theme.CONTENT_BOTTOM, theme.CONTENT_TOP)
"""The safe area: inside the side margins, between the header and the subtitle band."""
WORKING_HOLD = 2.0
"""Seconds a line of working (a product, a sum, a division) stays on screen after the voice
reaches its result."""


@dataclass(eq=False)
class WorkingLine:
    """A line of working on screen: the beat and cue mark where the voice says its result,
    that time (``said_at``) and when it left (``gone_at``, None while shown; scene seconds).
    ``mob`` is what shows it: the scene notes when none of it is on stage any more. Compared
    by identity, like the mobjects it holds."""

    beat: str
    mark: str
    said_at: float
    mob: Mobject | None = None
    gone_at: float | None = None


class BeatClock:
    """Time budget of the beat being played; helps scenes size their animations."""

    def __init__(self, scene: NarratedScene, beat_id: str, duration: float,
                 marks: dict[str, float]) -> None:
        self.scene, self.id, self.duration = scene, beat_id, duration
        self.marks = marks
        self.used: set[str] = set()
        self.start = scene.now

    def mark(self, name: str) -> float:
        """Seconds from the beat's start at which the voice reaches cue mark ``name``."""
        if name not in self.marks:
            have = ", ".join(self.marks) or "none"
            raise RuntimeError(f"{self.scene.script.source}: beat.{self.id}: the scene waits "
                               f"for cue mark {{@{name}}}, which the text does not have "
                               f"(its marks: {have})")
        self.used.add(name)
        return self.marks[name]

    def time_to(self, name: str, lead: float = MARK_LEAD) -> float:
        """Seconds from now until ``lead`` before cue mark ``name`` (never below one frame)."""
        return max(1 / config.frame_rate, self.start + self.mark(name) - lead - self.scene.now)

    def until(self, name: str, lead: float = MARK_LEAD) -> None:
        """Wait until ``lead`` seconds before the voice reaches cue mark ``name``."""
        left = self.start + self.mark(name) - lead - self.scene.now
        if left >= 1 / config.frame_rate:
            self.scene.wait(left)
        elif left < -LATE:
            self.scene.warn(f"beat {self.id!r} reaches cue mark {{@{name}}} {-left:.2f} s late")

    @property
    def elapsed(self) -> float:
        return self.scene.now - self.start

    @property
    def remaining(self) -> float:
        return self.duration - self.elapsed

    def rt(self, share: float = 0.25, cap: float = 1.5, floor: float = 0.3) -> float:
        """A run time: ``share`` of the beat, at most ``cap`` s, never past the beat's end."""
        frame = 1 / config.frame_rate
        t = min(cap, max(floor, share * self.duration))
        return max(frame, min(t, self.remaining - frame))


class NarratedScene(Scene):
    """Base class: subclasses set ``scene_id`` and implement :meth:`narrate` with beats.

    Each ``with self.beat(id) as b:`` block plays its animations and then waits out the rest
    of the beat's planned duration, so the picture follows the voice. The actual start and end
    of every beat are written for render.py, which places the audio clips at those times.
    """

    scene_id: ClassVar[str] = ""
    quick_title: ClassVar[bool] = False  # see ``title_card``

    def __init__(self, *args, plan: ScenePlan | None = None, **kwargs) -> None:
        """``plan`` comes from ``scenes.run``; a plain ``manim`` run looks for one in its
        ``--media_dir`` (see ``scenes.context``) and writes the report itself."""
        self.writes_report = plan is None
        self.plan = plan if plan is not None else plain_plan(config.media_dir)
        self.times: SceneTimes | None = None
        super().__init__(*args, **kwargs)

    def setup(self) -> None:
        # Our beat clock reads the renderer's time, which Manim's partial-movie cache skips.
        config.disable_caching = True
        self.camera.background_color = theme.BG
        if config.dry_run:
            # A dry run writes no frame, and nothing here reads one: drawing them with Cairo
            # (the static background before each animation, each wait's frame) took a
            # quarter of its time. Manim has no switch for it.
            self.renderer.update_frame = lambda *_args, **_kwargs: None
        self.ctx = load_context(self.scene_id, self.plan)
        self.lang = self.ctx.lang
        self.script = self.ctx.script
        self.numbers = self.ctx.numbers
        self.derived = self.ctx.derived
        self._next_beat = 0
        self._times: list[BeatTime] = []
        self._planned_clock = 0.0
        self.layout_issues: list[str] = []
        self.warnings: list[str] = []
        self._holds: list[tuple[float, float]] = []
        self.working: list[WorkingLine] = []  # lines of working shown, in order
        self._beat_id = ""
        self.smallest_text: tuple[float, str, str] | None = None  # (px, text, beat)
        self._small_seen: set[str] = set()
        self._beat_start = 0.0
        self._frames: list[tuple[float, str | None, str, float]] = []  # composition samples
        self.overlaps: list[str] = []  # text over text (scenes.overlap), once each
        self._overlaps_seen: set[str] = set()
        self.targets: dict[str, Mobject] = {}  # names ``{@see_<name>}`` marks point at
        self._cues: list[pointing.Cue] = []  # indications due in the beat being played
        self.pointed: list[tuple[str, str, float]] = []  # (beat, name, scene s) as played
        self._still = False  # in a wait with nothing on screen moving
        self._stage_checked = False  # the stage as the last play's checks left it
        if self.ctx.estimated:
            print(f"[{self.scene_id}] no plan given: beat durations estimated from the text",
                  file=sys.stderr)

    # -- time ---------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        """Seconds of video written so far (planned time when nothing is written)."""
        if self.renderer.skip_animations:
            return self._planned_clock
        return float(self.renderer.time)

    def add(self, *mobjects: Mobject) -> NarratedScene:
        self._stage_checked = False  # what comes on without a play is checked at the next
        return super().add(*mobjects)

    def play(self, *args, **kwargs) -> None:
        """Manim's play, measuring the text on screen once the animations end, noting text
        drawn over text while they run or after (``scenes.overlap``) and a role's item lit
        out of its colour (``scenes.role_colours``, a warning). A wait in which nothing
        moves, on a stage the last play checked, is not checked again: it shows what was
        checked (about a third of the checks' time was spent on such waits)."""
        if self._still and self._stage_checked:
            super().play(*args, **kwargs)
            self._measure_text()
            return
        before = overlap.shown_texts(self.mobjects)
        super().play(*args, **kwargs)
        after = overlap.shown_texts(self.mobjects)
        found = (overlap.overprints(before, after, overlap.halves(args))
                 + overlap.morphs(args) + overlap.collisions(self.mobjects, after)
                 + overlap.crowding(self.mobjects, after))
        for what in found:
            if what not in self._overlaps_seen:
                self._overlaps_seen.add(what)
                self.overlaps.append(f"{self.scene_id}.{self._beat_id} at {self.now:.1f} s: "
                                     f"{what}")
        for what in role_colours.flashes(a for a in args if isinstance(a, Animation)):
            if what not in self._overlaps_seen:
                self._overlaps_seen.add(what)
                self.warn(f"beat {self._beat_id!r} at {self.now:.1f} s: {what}")
        self._stage_checked = True
        self._measure_text()

    def wait(self, duration: float = 1.0, stop_condition=None, frozen_frame=None) -> None:
        """Manim's wait, playing the beat's indications (``{@see_…}`` marks) that fall
        inside it at their marks (``scenes.pointing``); the wait lasts ``duration`` all
        the same."""
        start = self.now
        end = start + duration
        frame = 1 / config.frame_rate
        while (stop_condition is None and self._cues
               and self._cues[0].at - pointing.LEAD < end - 2 * frame):
            cue = self._cues.pop(0)
            pause = cue.at - pointing.LEAD - self.now
            if pause >= frame:
                self._hold(pause, None, frozen_frame)
            elif pause < -LATE:
                self.warn(f"beat {self._beat_id!r} points at {cue.name!r} {-pause:.2f} s "
                          f"after {{@{cue.mark}}}")
            self._point(cue, min(pointing.RUN, end - self.now))
        if self.now == start:
            self._hold(duration, stop_condition, frozen_frame)
        elif end - self.now >= frame / 2:
            self._hold(end - self.now, None, frozen_frame)

    def _hold(self, duration: float, stop_condition, frozen_frame) -> None:
        """Manim's wait, lasting the whole number of frames nearest ``duration``, and
        remembering the stretch when nothing on screen moves."""
        start = self.now
        frozen = (frozen_frame if frozen_frame is not None
                  else not self._time_based_updates())
        if stop_condition is None:
            frames = round(duration * config.frame_rate)
            if frames < 1:
                return
            # Manim draws int(t x fps) frames of a frozen wait and ceil(t x fps) of one with
            # updaters: half a frame either side makes both exactly ``frames``
            duration = (frames + (0.5 if frozen else -0.5)) / config.frame_rate
        self._still = frozen
        try:
            super().wait(duration, stop_condition, frozen_frame)
        finally:
            self._still = False
        if frozen:
            end = self.now
            if self._holds and abs(self._holds[-1][1] - start) < 1e-6:
                start = self._holds[-1][0]
                self._holds.pop()
            self._holds.append((start, end))

    def _time_based_updates(self) -> bool:
        """Whether a wait now would be drawn frame by frame (Manim's test, before the wait)."""
        return bool(self.always_update_mobjects or self.updaters or any(
            m.has_time_based_updater() for m in self.get_mobject_family_members()))

    def target(self, name: str, mob: Mobject) -> Mobject:
        """Register ``mob`` as what a ``{@see_<name>}`` mark points at; returns it."""
        self.targets[name] = mob
        return mob

    def _point(self, cue: pointing.Cue, run_time: float) -> None:
        """Indicate what ``cue`` names: a registered target, else the texts on screen that
        read the script's on-screen string of that name."""
        if run_time < 2 / config.frame_rate:
            return
        mob = self.targets.get(cue.name)
        if mob is not None:
            found = [mob] if pointing.on_stage(mob, self.mobjects) else []
        else:
            found = pointing.texts_reading(
                self.mobjects, pointing.screen_strings(self.script.screen, cue.name))
        if not found:
            self.warn(f"beat {self._beat_id!r}: {{@{cue.mark}}} names nothing on screen")
            return
        self.pointed.append((self._beat_id, cue.name, self.now))
        named = {id(m) for mob in found for m in mob.get_family()}
        others = [t.box for t in overlap.shown_texts(self.mobjects) if not t.glyphs & named]
        self.play(pointing.indication(found, run_time, others))

    def play_internal(self, skip_rendering: bool = False) -> None:
        """Manim's animation loop, noting the working lines it took off the stage (gone as
        it began)."""
        start = self.now
        super().play_internal(skip_rendering)
        self._note_gone(start)

    # -- working lines ------------------------------------------------------------------------
    def show_working(self, b: BeatClock, mob: Mobject, mark: str | None = None) -> WorkingLine:
        """Record ``mob``, on stage, as a line of working whose result the voice has said by
        cue mark ``mark`` of beat ``b`` (None: by the end of the beat's speech); take it off
        only after :meth:`hold_working`."""
        said = b.mark(mark) if mark is not None else self.ctx.speech[b.id]
        line = WorkingLine(b.id, mark or "end", b.start + said, mob)
        self.working.append(line)
        return line

    def working_left(self, *mobs: Mobject) -> float:
        """Seconds until the working lines on stage (those within ``mobs``, if given) have
        shown ``WORKING_HOLD`` s past their results (0: they may go now)."""
        inside = {id(m) for mob in mobs for m in mob.get_family()}
        shown = [w for w in self.working if w.gone_at is None
                 and (not mobs or (w.mob is not None and id(w.mob) in inside))]
        if not shown:
            return 0.0
        return max(0.0, max(w.said_at for w in shown) + WORKING_HOLD - self.now)

    def hold_working(self, *mobs: Mobject) -> None:
        """Wait until the working lines on stage (those within ``mobs``, if given) have shown
        ``WORKING_HOLD`` s past their results, so they can go."""
        left = self.working_left(*mobs)
        if left > 0:
            self.wait(left + 1 / config.frame_rate)  # a frame more: never a hair short

    def _note_gone(self, at: float) -> None:
        on_stage = {id(m) for m in self.get_mobject_family_members()}
        for w in self.working:
            if w.gone_at is None and w.mob is not None and not any(
                    id(m) in on_stage for m in w.mob.get_family()):
                w.gone_at = at

    def warn(self, message: str) -> None:
        """A problem worth a creator's look (reported, printed, never fatal)."""
        text = f"{self.scene_id}: {message}"
        self.warnings.append(text)
        print(f"[{self.scene_id}] {message}", file=sys.stderr)

    def s(self, key: str) -> str:
        """An on-screen string of this scene's script."""
        return self.script.s(key)

    def items(self, key: str) -> tuple[str, ...]:
        return self.script.items(key)

    # -- beats --------------------------------------------------------------------------------
    @contextmanager
    def beat(self, beat_id: str, at_least: float = 0.0) -> Iterator[BeatClock]:
        """Play one narration beat; ``at_least`` extends it (e.g. a silent pause to think)."""
        beats = self.script.beats
        if self._next_beat >= len(beats):
            raise RuntimeError(f"{self.script.source}: scene plays beat {beat_id!r} "
                               f"but the script has only {len(beats)} beats")
        expected = beats[self._next_beat].id
        if beat_id != expected:
            raise RuntimeError(f"{self.script.source}: scene plays beat {beat_id!r} "
                               f"where the script has {expected!r}")
        self._next_beat += 1
        duration = max(float(self.ctx.durations[beat_id]), at_least)
        start_planned = self._planned_clock
        clock = BeatClock(self, beat_id, duration, self.ctx.marks.get(beat_id, {}))
        self._beat_id, self._beat_start = beat_id, clock.start
        self._cues = pointing.cues(clock.marks, clock.start)
        clock.used.update(c.mark for c in self._cues)
        yield clock
        unused = [m for m in clock.marks if m not in clock.used]
        if unused:
            self.warn(f"beat {beat_id!r} never waits for cue mark(s) "
                      + ", ".join(f"{{@{m}}}" for m in unused))
        if clock.remaining < -0.1:
            self.warn(f"beat {beat_id!r} animations overrun its narration by "
                      f"{-clock.remaining:.2f} s")
        # the beat ends on the grid every frame rate shares (narration.timeline.BEAT_GRID)
        frame = 1 / config.frame_rate
        grid = beat_grid(config.frame_rate)
        left = grid_end(clock.start + max(duration, clock.elapsed), grid) - self.now
        if left >= frame / 2:
            self.wait(left)
        for cue in self._cues:
            self.warn(f"beat {beat_id!r} never points at {cue.name!r} ({{@{cue.mark}}}): "
                      f"its animations run past the end of the beat")
        self._cues = []
        self._planned_clock = grid_end(start_planned + max(duration, clock.elapsed),
                                       beat_grid(config.frame_rate))
        self._times.append(BeatTime(beat_id, clock.start, self.now))
        self._check_layout(beat_id)
        self._measure_text()

    def construct(self) -> None:
        self.narrate()
        if self._next_beat != len(self.script.beats):
            missing = [b.id for b in self.script.beats[self._next_beat:]]
            raise RuntimeError(f"{self.script.source}: beats never played: {', '.join(missing)}")
        if self.mobjects:
            self.play(FadeOut(Group(*self.mobjects)), run_time=SCENE_TAIL)
        else:
            self.wait(SCENE_TAIL)
        self._planned_clock += SCENE_TAIL
        self._write_times()

    def narrate(self) -> None:
        raise NotImplementedError

    def _check_layout(self, beat_id: str) -> None:
        """Record anything on screen that leaves the frame margins or enters the subtitle band."""
        half_w, half_h = theme.FRAME_W / 2, theme.FRAME_H / 2
        tol = 0.02
        for m in self.mobjects:
            if m.width == 0 and m.height == 0:
                continue
            where = []
            if m.get_left()[0] < -half_w + theme.MARGIN - tol - 0.25:
                where.append("left edge")
            if m.get_right()[0] > half_w - theme.MARGIN + tol + 0.25:
                where.append("right edge")
            if m.get_top()[1] > half_h - 0.1 + tol:
                where.append("top edge")
            if m.get_bottom()[1] < theme.CONTENT_BOTTOM - tol:
                where.append("subtitle band")
            if where:
                name = type(m).__name__
                self.layout_issues.append(f"{self.scene_id}.{beat_id}: {name} crosses the "
                                          f"{' and '.join(where)}")

    def _measure_text(self) -> None:
        """Measure every text on screen (px at 1080p): remember the scene's smallest, and
        report each text under the smallest size a label may have. Note where the content
        sits in the safe area (``scenes.composition``)."""
        box = composition.content_box(self.mobjects, theme.CONTENT_TOP)
        why = composition.lopsided(box, SAFE)
        if self._frames and abs(self._frames[-1][0] - self.now) < 1e-9:
            self._frames.pop()
        self._frames.append((self.now, why, self._beat_id, self._beat_start))
        for t in legibility.measure(self.mobjects):
            if self.smallest_text is None or t.px < self.smallest_text[0]:
                self.smallest_text = (t.px, t.text, self._beat_id)
            if t.px < theme.MIN_LABEL_PX - 0.05 and t.text not in self._small_seen:
                self._small_seen.add(t.text)
                self.warn(f"beat {self._beat_id!r}: text {t.text!r} is {t.px:.1f} px at "
                          f"1080p, under the {theme.MIN_LABEL_PX:.0f} px a label needs")

    def _write_times(self) -> None:
        small = self.smallest_text
        self.times = SceneTimes(self.scene_id, tuple(self._times), self.now,
                                tuple(self._holds), tuple(self.warnings),
                                tuple(self.layout_issues),
                                None if small is None else SmallestText(*small),
                                tuple(st.line(self.scene_id) for st in
                                      composition.stretches(self._frames, self.now)),
                                tuple(self.overlaps))
        if self.plan is not None and self.writes_report:  # a plain manim run
            SceneReport(self.plan.run_id, self.scene_id, self.times, dict(self.ctx.inputs),
                        project_code(), None, 0.0).write(self.plan.report)

    # -- shared pieces ------------------------------------------------------------------------
    def title_card(self, b: BeatClock) -> Mobject:
        """Show the scene title large, then move it to the header; returns the header.

        With ``quick_title`` (the overview's scenes: a short cut must move on) the title
        fades in at the header's place at once."""
        if self.quick_title:
            header = self.header_text(self.script.title)
            self.header_mob = header
            self.play(FadeIn(header, shift=0.1 * DOWN), run_time=b.rt(0.05, 0.4))
            return header
        big = theme.text(self.script.title, theme.TITLE_SIZE, theme.FG, weight="BOLD", qkv=True)
        theme.fit(big, theme.CONTENT_W)
        self.play(theme.reveal(big), run_time=b.rt(0.2, 1.2))
        self.play(big.animate.become(self.header_text(self.script.title)),
                  run_time=b.rt(0.12, 0.7))
        self.header_mob = big
        return big

    def retitle(self, text: str) -> list[Animation]:
        """Animations (for one ``play``) changing the running header to ``text``: a new
        part of the scene under its own heading, not the one it opened with."""
        old, new = getattr(self, "header_mob", None), self.header_text(text)
        self.header_mob = new
        return widgets.out_then_in(old, new, shift=0.1 * DOWN)

    def header_text(self, text: str) -> Mobject:
        """A running header reading ``text``, in the header's place."""
        header = theme.text(text, theme.HEAD_SIZE, theme.MUTED, qkv=True)
        theme.fit(header, theme.CONTENT_W)
        return header.to_edge(UP, buff=0.3)

    def fade_in(self, *mobs: Mobject, b: BeatClock, share: float = 0.15, cap: float = 0.8):
        self.play(*[FadeIn(m, shift=0.1 * DOWN) for m in mobs], run_time=b.rt(share, cap))

    def clear_content(self, b: BeatClock, keep: tuple[Mobject, ...] = ()) -> None:
        """Fade out everything but ``keep`` (e.g. the header)."""
        gone = [m for m in self.mobjects if m not in keep]
        if gone:
            self.play(*[FadeOut(m) for m in gone], run_time=b.rt(0.1, 0.5))

    # -- numbers, formatted like the narration (one place: narration.numfmt) ----------------
    def num(self, x: float, decimals: int | None = None) -> str:
        return numfmt.number(float(x), self.lang, decimals).display

    def pct(self, share: float) -> str:
        return numfmt.percent(float(share), self.lang).display

    def vec(self, xs, decimals: int | None = None) -> str:
        return numfmt.vector([float(x) for x in xs], self.lang, decimals).display
