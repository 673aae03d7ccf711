"""The observation and state layout: which features, in which order, and every size derived from them."""

from __future__ import annotations

import dataclasses
import functools

from sc2env.smac.scenarios import Race, Scenario
from sc2env.smac.unit_kinds import MAP_FAMILIES, MedivacRule

N_NO_ATTACK_ACTIONS = 6
"""no-op, stop, move north, south, east, west; the target actions follow."""
N_MOVE_ACTIONS = 4
N_PATHING_POINTS = 8
N_HEIGHT_POINTS = 9
SIGHT_RANGE = 9.0
"""SMAC's sight range for every unit (observations and the visibility matrix)."""
SHOOT_RANGE = 6.0
"""SMAC's shooting range for every unit (target action availability)."""


@dataclasses.dataclass(frozen=True)
class FeatureOptions:
    """SMAC's observation and state switches (its constructor arguments of the same names)."""

    obs_all_health: bool = True
    obs_own_health: bool = True
    obs_last_action: bool = False
    obs_pathing_grid: bool = False
    obs_terrain_height: bool = False
    obs_instead_of_state: bool = False
    obs_timestep_number: bool = False
    state_last_action: bool = True
    state_timestep_number: bool = False

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, bool):
                raise TypeError(f"{field.name} must be True or False, not {value!r}")
        if self.obs_all_health:  # SMAC: all health implies own health
            object.__setattr__(self, "obs_own_health", True)


@dataclasses.dataclass(frozen=True)
class Smacv2Options:
    """SMACv2's observation and action switches (its constructor arguments of the same names), and whether its
    enemy sharing applies (its generated scenarios; SMAC's own maps keep SMAC's features).

    observe_types: the team_gen capability's `observe`: other agents' type one-hots shown (else zeros).
    """

    obs_own_pos: bool = False
    use_unit_ranges: bool = False
    min_attack_range: float = 2.0
    prob_obs_enemy: float = 1.0
    action_mask: bool = True
    fully_observable: bool = False
    observe_types: bool = True
    share_enemies: bool = False

    def __post_init__(self) -> None:
        for name in ("obs_own_pos", "use_unit_ranges", "action_mask", "fully_observable", "observe_types"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, not {getattr(self, name)!r}")
        for name, low in (("min_attack_range", 0.0), ("prob_obs_enemy", 0.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low:
                raise ValueError(f"{name} must be a number of at least {low:g}, not {value!r}")
        if self.prob_obs_enemy > 1:
            raise ValueError(f"prob_obs_enemy is a probability (0 to 1), not {self.prob_obs_enemy!r}")


@dataclasses.dataclass(frozen=True)
class Layout:
    """Sizes of one scenario's observation, state and action vectors under some FeatureOptions."""

    n_agents: int
    n_enemies: int
    unit_type_bits: int
    shield_bits_ally: int
    shield_bits_enemy: int
    options: FeatureOptions
    v2: Smacv2Options = Smacv2Options()
    heals: bool = False
    """Medivacs may be among the agents, whose target actions heal agents instead of attacking enemies."""

    @classmethod
    def of(
        cls,
        scenario: Scenario,
        options: FeatureOptions,
        n_agents: int | None = None,
        n_enemies: int | None = None,
        v2: Smacv2Options | None = None,
    ) -> Layout:
        return cls(
            n_agents=scenario.n_agents if n_agents is None else n_agents,
            n_enemies=scenario.n_enemies if n_enemies is None else n_enemies,
            unit_type_bits=scenario.unit_type_bits,
            shield_bits_ally=int(scenario.agent_race is Race.PROTOSS),
            shield_bits_enemy=int(scenario.enemy_race is Race.PROTOSS),
            options=options,
            v2=v2 or Smacv2Options(),
            heals=MAP_FAMILIES[scenario.map_type].medivac_rule is not MedivacRule.NONE,
        )

    @functools.cached_property
    def n_actions(self) -> int:
        """6 + a target action per enemy, or per agent where Medivacs heal agents and agents outnumber
        enemies (SMACv2)."""
        return N_NO_ATTACK_ACTIONS + max(self.n_enemies, self.n_agents if self.heals else 0)

    # --- observation ---------------------------------------------------------------------------------

    @functools.cached_property
    def move_feats(self) -> int:
        opts = self.options
        return (
            N_MOVE_ACTIONS
            + N_PATHING_POINTS * opts.obs_pathing_grid
            + N_HEIGHT_POINTS * opts.obs_terrain_height
        )

    @functools.cached_property
    def enemy_feats(self) -> int:
        """Features per enemy: attackable, distance, relative x and y, [health, [shield]], [type one-hot]."""
        health = (1 + self.shield_bits_enemy) if self.options.obs_all_health else 0
        return 4 + health + self.unit_type_bits

    @functools.cached_property
    def ally_feats(self) -> int:
        """Features per other agent: visible, distance, relative x and y, [health, [shield]], [type],
        [last action one-hot]."""
        health = (1 + self.shield_bits_ally) if self.options.obs_all_health else 0
        last = self.n_actions if self.options.obs_last_action else 0
        return 4 + health + self.unit_type_bits + last

    @functools.cached_property
    def own_feats(self) -> int:
        """The agent's own: [health, [shield]], [position over the map's size (SMACv2's obs_own_pos)],
        [type one-hot]."""
        health = (1 + self.shield_bits_ally) if self.options.obs_own_health else 0
        return health + 2 * self.v2.obs_own_pos + self.unit_type_bits

    @functools.cached_property
    def obs_size(self) -> int:
        """The observation's length. With obs_timestep_number the episode's progress is its last value (SMAC
        counts it in its size but appends it after a zero it leaves in its place: one too long)."""
        return (
            self.move_feats
            + self.n_enemies * self.enemy_feats
            + (self.n_agents - 1) * self.ally_feats
            + self.own_feats
            + self.options.obs_timestep_number
        )

    def obs_feature_names(self) -> list[str]:
        """A name per observation value, in order (SMACv2's names; other agents as agent 0 sees them)."""
        opts = self.options
        names = ["move_action_north", "move_action_south", "move_action_east", "move_action_west"]
        names += [f"pathing_grid_{n}" for n in range(N_PATHING_POINTS * opts.obs_pathing_grid)]
        names += [f"terrain_height_{n}" for n in range(N_HEIGHT_POINTS * opts.obs_terrain_height)]
        health = ["health"] * opts.obs_all_health
        for e in range(self.n_enemies):
            fields = ["shootable", "distance", "relative_x", "relative_y", *health]
            fields += ["shield"] * (opts.obs_all_health and self.shield_bits_enemy)
            names += [f"enemy_{field}_{e}" for field in fields] + self._bit_names(f"enemy_unit_type_{e}")
        for a in range(1, self.n_agents):
            fields = ["visible", "distance", "relative_x", "relative_y", *health]
            fields += ["shield"] * (opts.obs_all_health and self.shield_bits_ally)
            names += [f"ally_{field}_{a}" for field in fields] + self._bit_names(f"ally_unit_type_{a}")
            names += [
                f"ally_last_action_{a}_action_{n}" for n in range(self.n_actions * opts.obs_last_action)
            ]
        if opts.obs_own_health:
            names += ["own_health"] + ["own_shield"] * self.shield_bits_ally
        names += ["own_pos_x", "own_pos_y"] * self.v2.obs_own_pos
        names += self._bit_names("own_unit_type")
        return names + ["timestep"] * opts.obs_timestep_number

    def state_feature_names(self) -> list[str]:
        """A name per state value, in order (SMACv2's names; with obs_instead_of_state, each agent's
        observation's names prefixed by `agent_<i>_`)."""
        opts = self.options
        if opts.obs_instead_of_state:
            return [f"agent_{i}_{name}" for i in range(self.n_agents) for name in self.obs_feature_names()]
        names = []
        for a in range(self.n_agents):
            fields = ["health", "cooldown", "relative_x", "relative_y"] + ["shield"] * self.shield_bits_ally
            names += [f"ally_{field}_{a}" for field in fields] + self._bit_names(f"ally_unit_type_{a}")
        for e in range(self.n_enemies):
            fields = ["health", "relative_x", "relative_y"] + ["shield"] * self.shield_bits_enemy
            names += [f"enemy_{field}_{e}" for field in fields] + self._bit_names(f"enemy_unit_type_{e}")
        last = range(self.n_actions) if opts.state_last_action else range(0)
        names += [f"ally_last_action_{a}_action_{n}" for a in range(self.n_agents) for n in last]
        return names + ["timestep"] * opts.state_timestep_number

    def _bit_names(self, prefix: str) -> list[str]:
        return [f"{prefix}_bit_{bit}" for bit in range(self.unit_type_bits)]

    # --- state ---------------------------------------------------------------------------------------

    @property
    def ally_state_names(self) -> list[str]:
        names = ["health", "energy/cooldown", "rel_x", "rel_y"]
        return names + ["shield"] * self.shield_bits_ally + self._type_names

    @property
    def enemy_state_names(self) -> list[str]:
        names = ["health", "rel_x", "rel_y"]
        return names + ["shield"] * self.shield_bits_enemy + self._type_names

    @property
    def _type_names(self) -> list[str]:
        return [f"type_{bit}" for bit in range(self.unit_type_bits)]

    @functools.cached_property
    def ally_state_width(self) -> int:
        """Values per agent in the state."""
        return len(self.ally_state_names)

    @functools.cached_property
    def enemy_state_width(self) -> int:
        """Values per enemy in the state."""
        return len(self.enemy_state_names)

    @functools.cached_property
    def state_size(self) -> int:
        opts = self.options
        if opts.obs_instead_of_state:
            return self.obs_size * self.n_agents
        return (
            self.n_agents * self.ally_state_width
            + self.n_enemies * self.enemy_state_width
            + self.n_agents * self.n_actions * opts.state_last_action
            + opts.state_timestep_number
        )
