"""A MultiDiscrete action space that also samples under the env's flat `action_mask`."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from sc2env.interface.spec import split_mask


class FlatMaskMultiDiscrete(spaces.MultiDiscrete):
    """MultiDiscrete whose sample(mask=...) takes the observation's flat `action_mask` (every component's
    values concatenated) as well as Gymnasium's tuple of per-component masks, so that code written for
    masked spaces (PettingZoo's api tests, `space.sample(mask=obs["action_mask"])`) works unchanged."""

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if isinstance(mask, np.ndarray) and mask.ndim == 1 and mask.size == int(self.nvec.sum()):
            offsets = np.concatenate([[0], np.cumsum(self.nvec)])
            mask = tuple(split_mask(mask, offsets))
        return super().sample(mask=mask, probability=probability)
