"""What the reward follows: the outcome, or one entry of the game's cumulative score (PySC2's score_index)."""

from __future__ import annotations

import math

from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.interface.columns import ScoreCumulative

OUTCOME_SCORE = -1
"""score_index of the outcome: +1, -1 or 0 when the game ends, 0 before."""


def score_value(observation: sc_pb.Observation, index: int) -> float:
    """The `score_cumulative[index]` entry of an observation, read from its protobuf."""
    if index == ScoreCumulative.score:
        return float(observation.score.score)
    return float(getattr(observation.score.score_details, ScoreCumulative(index).name))


def check_score_options(score_index: int | None, score_multiplier: float) -> None:
    """ValueError or TypeError naming a score_index that is no score entry, or a multiplier that is no number."""
    if score_index is not None:
        if isinstance(score_index, bool) or not isinstance(score_index, int):
            raise TypeError(f"score_index must be a whole number or None, not {score_index!r}")
        if not OUTCOME_SCORE <= score_index < len(ScoreCumulative):
            names = ", ".join(f"{entry.value} {entry.name}" for entry in ScoreCumulative)
            raise ValueError(
                f"score_index must be -1 (the outcome) or a score_cumulative entry ({names}), not {score_index}"
            )
    if (
        isinstance(score_multiplier, bool)
        or not isinstance(score_multiplier, (int, float))
        or not math.isfinite(score_multiplier)
    ):
        raise TypeError(f"score_multiplier must be a finite number, not {score_multiplier!r}")
