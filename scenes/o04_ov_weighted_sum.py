"""Overview ④: the values scaled by the shares and added up (step ④).

The weighted-sum scene's first four beats, re-timed to the overview's script (its "why not
just the top word" beat is left for the full explainer).
"""

from __future__ import annotations

from scenes.s09_weighted_sum import WeightedSumScene


class OverviewWeightedSumScene(WeightedSumScene):
    scene_id = "ov_weighted_sum"
    quick_title = True

    def narrate(self) -> None:
        ctx = self._context()
        self._intro(ctx)
        self._values(ctx)
        self._multiply(ctx)
        self._sum(ctx)
