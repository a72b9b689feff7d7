"""What a scene needs to build itself: language, numbers, its script and its beat durations.

``render.py`` passes a plan file through the ``QKV_PLAN`` environment variable. Without it (a
plain ``manim`` run for working on visuals) the scene uses the default numbers, the language
in ``QKV_LANG`` (default zh) and durations estimated from the text.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from narration.facts import build_facts
from narration.marks import estimate_mark_times
from narration.placeholders import FactValue
from narration.scripts import SceneScript, load_script
from narration.timeline import beat_slot, estimate_speech
from qkv_math.derived import Derived, derive
from qkv_math.numbers import Numbers, load_numbers

PLAN_ENV = "QKV_PLAN"
LANG_ENV = "QKV_LANG"


@dataclass(frozen=True)
class ScenePlan:
    """The render plan for one language, as written by render.py.

    Per scene and beat: the slot (speech plus a pause), the speech itself, and the time of
    each cue mark, all in seconds from the beat's start.
    """

    lang: str
    numbers: Path
    durations: dict[str, dict[str, float]]  # scene id -> beat id -> slot seconds
    times_dir: Path  # where scenes report their actual beat times
    speech: dict[str, dict[str, float]] = field(default_factory=dict)
    marks: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"lang": self.lang, "numbers": str(self.numbers), "durations": self.durations,
                "times_dir": str(self.times_dir), "speech": self.speech, "marks": self.marks}

    @classmethod
    def from_json(cls, data: dict) -> ScenePlan:
        return cls(data["lang"], Path(data["numbers"]), data["durations"],
                   Path(data["times_dir"]), data.get("speech", {}), data.get("marks", {}))


@dataclass(frozen=True)
class SceneContext:
    scene_id: str
    lang: str
    numbers: Numbers
    derived: Derived
    facts: dict[str, FactValue]
    script: SceneScript
    durations: dict[str, float]
    estimated: bool
    times_dir: Path | None
    speech: dict[str, float] = field(default_factory=dict)  # beat id -> seconds of speech
    marks: dict[str, dict[str, float]] = field(default_factory=dict)  # beat -> mark -> s


def load_context(scene_id: str) -> SceneContext:
    plan_path = os.environ.get(PLAN_ENV)
    plan = None
    if plan_path:
        plan = ScenePlan.from_json(json.loads(Path(plan_path).read_text("utf-8")))
    lang = plan.lang if plan else os.environ.get(LANG_ENV, "zh")
    numbers = load_numbers(plan.numbers if plan else None)
    derived = derive(numbers)
    facts = build_facts(numbers, derived)
    script = load_script(scene_id, lang, facts)
    if plan and scene_id in plan.durations:
        durations = dict(plan.durations[scene_id])
        speech = dict(plan.speech.get(scene_id, {}))
        marks = {b: dict(m) for b, m in plan.marks.get(scene_id, {}).items()}
        estimated = False
    else:
        speech = {b.id: estimate_speech(b.text.spoken, lang) for b in script.beats}
        durations = {b: beat_slot(t) for b, t in speech.items()}
        marks = {b.id: estimate_mark_times(b.text, speech[b.id]) for b in script.beats}
        estimated = True
    return SceneContext(scene_id, lang, numbers, derived, facts, script, durations, estimated,
                        plan.times_dir if plan else None, speech, marks)
