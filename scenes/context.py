"""What a scene needs to build itself: language, numbers, its script and its beat durations.

``python -m scenes.run PLAN`` hands the scene its :class:`~scenes.contract.ScenePlan`. A
plain ``manim`` run (for working on visuals, or the benchmark's baseline) finds its plan at
``<media_dir>/qkv-plan.json`` when that file exists, so the plan still comes from the
command line (``--media_dir``). Without one, the scene uses the default numbers, the language
in ``QKV_LANG`` (default zh) and durations estimated from the text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from common.digests import digest
from narration.facts import build_facts
from narration.marks import estimate_mark_times
from narration.placeholders import FactValue
from narration.scripts import SCRIPTS_DIR, SceneScript, load_script
from narration.timeline import beat_slot, estimate_speech
from qkv_math.derived import Derived, derive
from qkv_math.numbers import Numbers, load_numbers
from scenes.contract import ScenePlan
from scenes.recording import Recorded

LANG_ENV = "QKV_LANG"
PLAIN_PLAN = "qkv-plan.json"  # a plain manim run's plan, in its --media_dir


@dataclass(frozen=True)
class SceneContext:
    scene_id: str
    lang: str
    numbers: Numbers  # a Recorded view: reads are logged in ``inputs``
    derived: Derived  # likewise
    facts: dict[str, FactValue]
    script: SceneScript
    durations: dict[str, float]
    estimated: bool
    plan: ScenePlan | None
    speech: dict[str, float] = field(default_factory=dict)  # beat id -> seconds of speech
    marks: dict[str, dict[str, float]] = field(default_factory=dict)  # beat -> mark -> s
    inputs: dict[str, str] = field(default_factory=dict)  # name -> digest, as read


def script_digest(script: SceneScript) -> str:
    """The digest of a filled-in script (titles, on-screen strings, beat texts)."""
    return digest((script.title, dict(script.screen), script.beats))


def plain_plan(media_dir: str | Path) -> ScenePlan | None:
    path = Path(media_dir) / PLAIN_PLAN
    return ScenePlan.read(path) if path.is_file() else None


def load_context(scene_id: str, plan: ScenePlan | None) -> SceneContext:
    if plan is not None and plan.scene_id != scene_id:
        raise ValueError(f"plan for scene {plan.scene_id!r} given to scene {scene_id!r}")
    lang = plan.lang if plan else os.environ.get(LANG_ENV, "zh")
    numbers = load_numbers(plan.numbers if plan else None)
    derived = derive(numbers)
    facts = build_facts(numbers, derived)
    script = load_script(scene_id, lang, facts, (plan.scripts if plan else None) or SCRIPTS_DIR)
    inputs: dict[str, str] = {"script": script_digest(script)}
    if plan:
        durations = {b.id: b.slot for b in plan.beats}
        speech = {b.id: b.speech for b in plan.beats}
        marks = {b.id: dict(b.marks) for b in plan.beats}
        estimated = False
    else:
        speech = {b.id: estimate_speech(b.text.spoken, lang) for b in script.beats}
        durations = {b: beat_slot(t) for b, t in speech.items()}
        marks = {b.id: estimate_mark_times(b.text, speech[b.id]) for b in script.beats}
        estimated = True
    return SceneContext(scene_id, lang, Recorded(numbers, "numbers", inputs),  # type: ignore[arg-type]
                        Recorded(derived, "derived", inputs),  # type: ignore[arg-type]
                        facts, script, durations, estimated, plan, speech, marks, inputs)
