"""show_cloaked, show_burrowed_shadows, show_placeholders: the game's InterfaceOptions, honoured or refused."""

from __future__ import annotations

import numpy as np
import pytest

from sc2env import errors
from sc2env.env import EnvConfig

SMALL = dict(screen_size=16, minimap_size=16)


@pytest.mark.parametrize("name", ["show_cloaked", "show_burrowed_shadows", "show_placeholders"])
def test_each_option_reaches_the_interface_options_sent_with_join(name):
    config = EnvConfig(**{name: True})
    options = config.match_config(config.interface_format().to_interface_options()).interface_options
    assert getattr(options, name) is True
    others = {"show_cloaked", "show_burrowed_shadows", "show_placeholders"} - {name}
    assert not any(getattr(options, other) for other in others)
    with pytest.raises(TypeError, match=f"{name} must be True or False, not 'yes'"):
        EnvConfig(**{name: "yes"})


def test_cloaked_and_burrowed_play_on_the_engine_which_has_neither(make_env):
    env = make_env(
        "DefeatRoaches", show_cloaked=True, show_burrowed_shadows=True, use_raw_units=True, **SMALL
    )
    env.reset(seed=0)
    env.step(np.zeros(env.action_space.shape, np.int64))
    units = env.unwrapped.last_response.observation.raw_data.units
    assert len(units) == 13  # nine Marines, four Roaches: each shown as it is
    assert all(u.display_type == 1 and u.cloak == 3 for u in units)  # Visible, NotCloaked


def test_placeholders_are_refused_by_the_engine_before_a_game_starts(make_env):
    env = make_env("BuildMarines", show_placeholders=True, **SMALL)
    with pytest.raises(
        errors.LaunchError, match="show_placeholders=True asks for buildings queued but not started"
    ):
        env.reset(seed=0)
    assert env.unwrapped.match is None or env.unwrapped.match.controller is None
