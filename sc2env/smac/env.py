"""StarCraft2Env: SMAC's multi-agent env (its constructor, methods, layouts and rewards) on sc2env's games."""

from __future__ import annotations

import enum
import logging
import math
import numbers
import operator
import pathlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env import errors
from sc2env.game.match_config import require_count, require_seed
from sc2env.game.replay_files import write_replay
from sc2env.launch import LaunchConfig
from sc2env.smac import features
from sc2env.smac.commands import add_commands, target_index
from sc2env.smac.distributions import CapabilityConfigError, episode_generator, team_size
from sc2env.smac.episode import DRAW, LOST, WON, Roster, find_units
from sc2env.smac.game import SmacGame, SocketGame
from sc2env.smac.grids import MapGrids
from sc2env.smac.heuristic import HeuristicPolicy
from sc2env.smac.layout import FeatureOptions, Layout, Smacv2Options
from sc2env.smac.multiagent import MultiAgentEnv
from sc2env.smac.reward import DamageTracker, RewardConfig
from sc2env.smac.scenarios import get_scenario
from sc2env.smac.sharing import EnemySharing
from sc2env.smac.teams import generated_team
from sc2env.smac.unit_kinds import KINDS, MAP_FAMILIES, UnitTypes
from sc2env.smac.units import Column
from sc2env.smac.views import AgentViews

log = logging.getLogger(__name__)

DIFFICULTIES = {
    "1": "very_easy",
    "2": "easy",
    "3": "medium",
    "4": "medium_hard",
    "5": "hard",
    "6": "harder",
    "7": "very_hard",
    "8": "cheat_vision",
    "9": "cheat_money",
    "A": "cheat_insane",
}
"""SMAC's difficulty codes -> the game's built-in AI levels."""

RESTART_LOOPS = 2
"""Game loops SMAC lets pass after killing the last episode's units (the map respawns both sides)."""
MAX_RESET_ATTEMPTS = 10
"""Episodes drawn from capability_config in a row before a reset gives up (SMACv2's wrapper never does)."""
MAX_SPAWN_POLLS = 1000
"""Single game loops to wait for a new episode's units before giving up (SMACv2's limit)."""


class EpisodeState(enum.Enum):
    NOT_STARTED = "not started"
    RUNNING = "running"
    OVER = "over"


class SmacResetError(errors.SC2EnvError):
    """A new episode's units did not appear."""


class StarCraft2Env(AgentViews, MultiAgentEnv):
    """SMAC's StarCraft2Env on sc2env: the same arguments, methods, observation and state vectors, actions,
    rewards and info, playing the scenario on the built-in engine or StarCraft II over the SC2 API.

    `from sc2env.smac import StarCraft2Env` in place of `from smac.env import StarCraft2Env` runs a SMAC
    training script as it is. Beyond SMAC's arguments (all of them, with its defaults):

    engine:  "builtin", "sc2" (StarCraft II with SMAC's maps under Maps/SMAC_Maps) or "auto"; None reads
             $SC2ENV_ENGINE, else "auto" (a real install when there is one).
    sc2path: the StarCraft II install (None: $SC2PATH, else ~/StarCraftII).
    direct:  on the built-in engine, play it inside this process (no game process, socket or serialisation:
             the same answers for less CPU, docs/direct.md); False starts it as a process, over a websocket.
             None reads $SC2ENV_DIRECT (0 or 1), else True. No effect on StarCraft II.
    game:    a game to play on instead of starting one (anything with SmacGame's methods).

    Where it differs from SMAC, on purpose (docs/smac.md): step() raises InvalidActionError for a wrong
    action list and GameCrashedError when the game dies (the next reset() starts a new one; SMAC returns
    a terminated step instead); with obs_timestep_number the observation is get_obs_size() long (SMAC's is
    one longer); get_stats() gives a win rate of 0 before any battle.
    """

    def __init__(
        self,
        map_name: str = "8m",
        step_mul: int = 8,
        move_amount: float = 2,
        difficulty: str = "7",
        game_version: str | None = None,
        seed: int | None = None,
        continuing_episode: bool = False,
        obs_all_health: bool = True,
        obs_own_health: bool = True,
        obs_last_action: bool = False,
        obs_pathing_grid: bool = False,
        obs_terrain_height: bool = False,
        obs_instead_of_state: bool = False,
        obs_timestep_number: bool = False,
        state_last_action: bool = True,
        state_timestep_number: bool = False,
        reward_sparse: bool = False,
        reward_only_positive: bool = True,
        reward_death_value: float = 10,
        reward_win: float = 200,
        reward_defeat: float = 0,
        reward_negative_scale: float = 0.5,
        reward_scale: bool = True,
        reward_scale_rate: float = 20,
        replay_dir: str = "",
        replay_prefix: str = "",
        window_size_x: int = 1920,
        window_size_y: int = 1200,
        heuristic_ai: bool = False,
        heuristic_rest: bool = False,
        debug: bool = False,
        *,
        obs_own_pos: bool = False,
        obs_starcraft: bool = True,
        conic_fov: bool = False,
        num_fov_actions: int = 12,
        use_unit_ranges: bool = False,
        min_attack_range: float = 2,
        kill_unit_step_mul: int = 2,
        fully_observable: bool = False,
        capability_config: Mapping[str, Any] | None = None,
        prob_obs_enemy: float = 1.0,
        action_mask: bool = True,
        engine: str | None = None,
        sc2path: str | pathlib.Path | None = None,
        direct: bool | None = None,
        game: SmacGame | None = None,
    ) -> None:
        scenario = get_scenario(map_name)
        if obs_starcraft is not True:
            raise ValueError(
                "obs_starcraft=False (SMACv2's observation of nothing but the timestep) is not played"
            )
        if conic_fov is not False:
            raise ValueError(
                "conic_fov=True (SMACv2's view cones and their actions) is not played by sc2env.smac yet"
            )
        capability_config = dict(capability_config or {})
        if capability_config and not scenario.generated:
            raise CapabilityConfigError(
                f"capability_config applies to SMACv2's generated scenarios (10gen_terran, 10gen_zerg, "
                f"10gen_protoss), not {map_name}"
            )
        n_agents, n_enemies = team_size(capability_config, scenario.n_agents, scenario.n_enemies)
        # Checked now: a bad or unplayed capability fails at construction, not at the first reset.
        generate = episode_generator(
            capability_config, MAP_FAMILIES[scenario.map_type].allies, n_agents, n_enemies
        )
        team_gen = capability_config.get("team_gen", {})
        require_count("step_mul", step_mul, "game loop")
        require_seed("seed", seed)
        if difficulty not in DIFFICULTIES:
            raise ValueError(
                f"difficulty must be one of {', '.join(DIFFICULTIES)} (SMAC's codes), not {difficulty!r}"
            )
        if not _positive_finite(move_amount):
            raise ValueError(f"move_amount must be a distance above 0, not {move_amount!r}")
        self.map_name = map_name
        self.scenario = scenario
        self.n_agents = n_agents
        self.n_enemies = n_enemies
        self.capability_config = capability_config
        self.kill_unit_step_mul = kill_unit_step_mul
        self.num_fov_actions = num_fov_actions
        self.conic_fov = False
        self.obs_starcraft = True
        self.episode_limit = scenario.limit
        self.map_type = scenario.map_type
        self.difficulty = difficulty
        self.game_version = game_version
        self.continuing_episode = continuing_episode
        self.heuristic_ai = heuristic_ai
        self.heuristic_rest = heuristic_rest
        self.debug = debug
        self.window_size = (window_size_x, window_size_y)
        self.replay_dir = replay_dir
        self.replay_prefix = replay_prefix
        self._step_mul = step_mul
        self._move_amount = float(move_amount)
        self._seed = seed
        self.options = FeatureOptions(
            obs_all_health=obs_all_health,
            obs_own_health=obs_own_health,
            obs_last_action=obs_last_action,
            obs_pathing_grid=obs_pathing_grid,
            obs_terrain_height=obs_terrain_height,
            obs_instead_of_state=obs_instead_of_state,
            obs_timestep_number=obs_timestep_number,
            state_last_action=state_last_action,
            state_timestep_number=state_timestep_number,
        )
        self.rewards = RewardConfig(
            sparse=reward_sparse,
            only_positive=reward_only_positive,
            death_value=reward_death_value,
            win=reward_win,
            defeat=reward_defeat,
            negative_scale=reward_negative_scale,
            scale=reward_scale,
            scale_rate=reward_scale_rate,
            clip_at_zero=scenario.generated,
        )
        self.v2 = Smacv2Options(
            obs_own_pos=obs_own_pos,
            use_unit_ranges=use_unit_ranges,
            min_attack_range=min_attack_range,
            prob_obs_enemy=prob_obs_enemy,
            action_mask=action_mask,
            fully_observable=fully_observable,
            observe_types=bool(team_gen.get("observe", True)),
            share_enemies=scenario.generated,
        )
        self.layout = Layout.of(scenario, self.options, n_agents, n_enemies, self.v2)
        self.n_actions = self.layout.n_actions
        self.shield_bits_ally = self.layout.shield_bits_ally
        self.shield_bits_enemy = self.layout.shield_bits_enemy
        self.unit_type_bits = scenario.unit_type_bits
        self.ally_state_attr_names = self.layout.ally_state_names
        self.enemy_state_attr_names = self.layout.enemy_state_names
        self.max_reward = self.n_enemies * self.rewards.death_value + self.rewards.win
        self._game: SmacGame = game or SocketGame(
            scenario,
            LaunchConfig(engine=engine, sc2path=sc2path, version=game_version, direct=direct),
            DIFFICULTIES[difficulty],
            step_mul,
        )
        self._family = MAP_FAMILIES[scenario.map_type]
        self._grids: MapGrids | None = None
        self._types: UnitTypes | None = None
        self._reward_counted = False
        self._roster: Roster | None = None
        self._tracker = DamageTracker(self.rewards, self.n_agents, self.n_enemies)
        self._heuristic = HeuristicPolicy(self.n_agents, heuristic_rest)
        self._rng = np.random.default_rng(seed)  # SMACv2's enemy sharing
        self._draws = np.random.default_rng(None if seed is None else [seed, 1])  # episodes from capabilities
        self._generate = generate if "team_gen" in capability_config else None
        self._sharing: EnemySharing | None = None
        self._units: Sequence[raw_pb2.Unit] = ()  # the last observation's units (SMACv2 kills them all)
        self.episode_config: dict[str, Any] = {}
        self._state = EpisodeState.NOT_STARTED
        self._cache: dict[str, Any] = {}
        self._unit_types: list[int] | None = None
        self._episode_count = 0
        self._episode_steps = 0
        self._total_steps = 0
        self.battles_won = 0
        self.battles_game = 0
        self.timeouts = 0
        self.force_restarts = 0
        self.reward = 0.0
        self.win_counted = False
        self.defeat_counted = False
        self.timed_out = False
        """The last episode ended at its step limit, not in a battle's end (for time-limit truncation)."""
        self.last_action = np.zeros((self.n_agents, self.n_actions))
        self._one_hot_actions = np.eye(self.n_actions)
        self._agent_ids = np.arange(self.n_agents)
        self.renderer: Any = None

    # --- episodes ------------------------------------------------------------------------------------

    def reset(
        self, episode_config: Mapping[str, Any] | None = None, *, seed: int | None = None
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Start a new episode; returns (observations, state). The first reset starts the game; later ones kill
        the last episode's units and let the map spawn both sides again, as SMAC does. `seed` (ours) starts a
        new game with that random seed (and reseeds the draws below).

        SMACv2's generated scenarios create each episode's units from `episode_config` (SMACv2's keys:
        "team_gen" {"ally_team", "enemy_team"}, "ally_start_positions" and "enemy_start_positions" {"item"});
        without one, it is drawn from capability_config (as StarCraftCapabilityEnvWrapper does), again if
        the drawn units can't all appear (SMACv2's wrapper retries too).
        """
        require_seed("seed", seed)
        if seed is not None:
            self._seed = seed
            self._rng = np.random.default_rng(seed)
            self._draws = np.random.default_rng([seed, 1])
        if episode_config is not None or self._generate is None:
            return self._reset(episode_config or {}, new_game=seed is not None)
        for attempt in range(MAX_RESET_ATTEMPTS):
            drawn = self._generate(self._draws)
            try:
                return self._reset(drawn, new_game=seed is not None and attempt == 0)
            except SmacResetError as error:
                log.warning("a drawn episode could not start (%s); drawing another", error)
        raise SmacResetError(f"{MAX_RESET_ATTEMPTS} drawn episodes in a row could not start")

    def _reset(
        self, episode_config: Mapping[str, Any], new_game: bool
    ) -> tuple[list[np.ndarray], np.ndarray]:
        team = self._team(episode_config)
        self.episode_config = dict(episode_config)
        self._episode_steps = 0
        self._state = EpisodeState.OVER
        if new_game or not self._game.running:
            if not new_game and self._grids is not None:  # the game was lost or closed: SMAC counts a restart
                self.force_restarts += 1
            response = self._start_game(team)
        else:
            try:
                response = self._restart(team)
            except errors.ConnectionError as error:
                log.warning("the game was lost while restarting (%s); starting a new one", error)
                self.force_restarts += 1
                response = self._start_game(team)
        self._begin_episode(response)
        return self.get_obs(), self.get_state()

    def _team(self, episode_config: Mapping[str, Any]) -> list[tuple[str, int, float, float]] | None:
        """The units to create (kind, owner, x, y) for a generated scenario's episode, None for SMAC's maps
        (the map spawns them); the game's type ids are filled in once the game is up."""
        if not self.scenario.generated:
            if episode_config:
                raise CapabilityConfigError(
                    f"{self.map_name} spawns its own units: it takes no episode_config"
                )
            return None
        kinds = MAP_FAMILIES[self.scenario.map_type].allies
        return generated_team(episode_config, kinds, self.n_agents, self.n_enemies, self.map_name)

    def _start_game(self, team: list[tuple[str, int, float, float]] | None) -> sc_pb.ResponseObservation:
        self._roster = None
        response = self._game.start(self._seed)
        self._grids = MapGrids.from_game_info(self._game.game_info)
        if team is not None:
            response = self._create(team)
        return self._spawned(response)

    def _restart(self, team: list[tuple[str, int, float, float]] | None) -> sc_pb.ResponseObservation:
        if team is not None:  # SMACv2: kill every unit, step until none is left, create the next teams
            units = self._units
            for _ in range(MAX_SPAWN_POLLS):
                if not units:
                    return self._spawned(self._create(team))
                self._game.kill([u.tag for u in units])
                units = self._game.step_observe(RESTART_LOOPS).observation.raw_data.units
            raise SmacResetError(f"{self.map_name}: units are left after {MAX_SPAWN_POLLS} debug kills")
        roster = self._roster
        if roster is not None:
            alive = np.concatenate(
                [roster.agents.tags[roster.agents.alive], roster.enemies.tags[roster.enemies.alive]]
            )
            if len(alive):
                self._game.kill(alive.tolist())
        return self._spawned(self._game.step_observe(RESTART_LOOPS))

    def _create(self, team: list[tuple[str, int, float, float]]) -> sc_pb.ResponseObservation:
        """Create the episode's units (the agents' as the map's own types, the enemy's as real ones), step one
        loop, observe."""
        types = self._unit_types_of_game()
        self._game.create_units(
            (types.type_id(kind) if owner == 1 else KINDS[kind].real_id, owner, x, y)
            for kind, owner, x, y in team
        )
        return self._game.step_observe(1)

    def _unit_types_of_game(self) -> UnitTypes:
        if self._types is None:
            self._types = UnitTypes.from_type_count(self._family, self._game.unit_type_count())
        return self._types

    def _spawned(self, response: sc_pb.ResponseObservation) -> sc_pb.ResponseObservation:
        """Step one loop at a time until the map has spawned the episode's units."""
        for _ in range(MAX_SPAWN_POLLS):
            self._units = response.observation.raw_data.units
            if find_units(response.observation.raw_data.units, self.n_agents, self.n_enemies):
                return response
            response = self._game.step_observe(1)
        raise SmacResetError(
            f"{self.map_name}: {MAX_SPAWN_POLLS} game loops after the reset the game still does not show "
            f"{self.n_agents} agents (player 1) and {self.n_enemies} enemies (player 2); its map does not "
            "spawn SMAC's scenario"
        )

    def _begin_episode(self, response: sc_pb.ResponseObservation) -> None:
        units = response.observation.raw_data.units
        table = find_units(units, self.n_agents, self.n_enemies)
        assert table is not None  # _spawned waited for them
        unit_type = table.values[:, Column.unit_type].astype(np.int64)
        if not self._reward_counted:
            if self._types is None:
                self._types = UnitTypes.from_first_ally_type(
                    self._family, int(unit_type[: self.n_agents].min())
                )
            # SMAC's reward scale counts the first episode's enemies' health and shields.
            e = table.values[self.n_agents :]
            self.max_reward += float((e[:, Column.health_max] + e[:, Column.shield_max]).sum())
            self._reward_counted = True
        assert self._types is not None
        self._roster = Roster.of(table, self._types, self.layout, self._move_amount)
        self._unit_types = unit_type.tolist()
        self._tracker = DamageTracker(self.rewards, self.n_agents, self.n_enemies)
        if self.v2.share_enemies:
            self._sharing = EnemySharing(self.n_agents, self.n_enemies, self.v2.prob_obs_enemy, self._rng)
        self._heuristic.reset()
        self.last_action = np.zeros((self.n_agents, self.n_actions))
        self.win_counted = self.defeat_counted = self.timed_out = False
        self._cache.clear()
        self._state = EpisodeState.RUNNING
        if self.debug:
            log.debug("episode %d started", self._episode_count)

    def step(self, actions: Sequence[int]) -> tuple[float, bool, dict[str, Any]]:
        """Every agent's action (SMAC's ids: 0 no-op, 1 stop, 2-5 move north/south/east/west, 6+j attack
        enemy j, or for a Medivac heal agent j); returns (reward, terminated, info)."""
        roster = self._running()
        numbers_ = self._action_numbers(actions)
        self.last_action = self._one_hot_actions[numbers_]
        if self.heuristic_ai:
            numbers_ = self._heuristic_actions()
            if hasattr(actions, "__setitem__"):
                for i, number in enumerate(numbers_):  # SMAC writes the actions taken back
                    actions[i] = number
        else:
            self._check_available(numbers_)
        values, n = roster.table.values, self.n_agents
        before = values[:, Column.health] + values[:, Column.shield]
        request = self._request(roster, numbers_)
        try:
            response = self._game.act_step_observe(request)
        except errors.ConnectionError:
            self._state = EpisodeState.OVER
            self._game.close()
            raise
        self._total_steps += 1
        self._episode_steps += 1
        self._units = response.observation.raw_data.units
        present = roster.update(self._units)
        self._cache.clear()
        health = values[:, Column.health]
        dead = health == 0
        if self._sharing is not None:
            self._sharing.after_step(dead[:n], dead[n:])
        end = roster.outcome(*present)
        reward = 0.0
        if not self.rewards.sparse:
            after = health + values[:, Column.shield]
            reward = self._tracker.step(before[:n], after[:n], health[:n], before[n:], after[n:], health[n:])
        info: dict[str, Any] = {
            "battle_won": False,
            "dead_allies": int(np.count_nonzero(dead[:n])),
            "dead_enemies": int(np.count_nonzero(dead[n:])),
        }
        terminated = False
        if end is not None:
            terminated = True
            self.battles_game += 1
            if end == WON and not self.win_counted:
                self.battles_won += 1
                self.win_counted = True
                info["battle_won"] = True
                reward = 1.0 if self.rewards.sparse else reward + self.rewards.win
            elif end == LOST and not self.defeat_counted:
                self.defeat_counted = True
                reward = -1.0 if self.rewards.sparse else reward + self.rewards.defeat
            assert end in (WON, LOST, DRAW)
        elif self._episode_steps >= self.episode_limit:
            terminated = True
            self.timed_out = True
            if self.continuing_episode:
                info["episode_limit"] = True
            self.battles_game += 1
            self.timeouts += 1
        if terminated:
            self._episode_count += 1
            self._state = EpisodeState.OVER
        if self.rewards.scale:
            reward /= self.max_reward / self.rewards.scale_rate
        self.reward = reward
        if self.debug:
            log.debug("actions %s -> reward %s, terminated %s, info %s", numbers_, reward, terminated, info)
        return reward, terminated, info

    def _running(self) -> Roster:
        if self._state is not EpisodeState.RUNNING or self._roster is None:
            raise errors.ProtocolError(
                f"step() needs a running episode, and the episode is {self._state.value}: call reset()"
            )
        return self._roster

    def _action_numbers(self, actions: Sequence[int]) -> list[int]:
        if (
            isinstance(actions, np.ndarray)
            and actions.dtype.kind in "iu"
            and actions.shape == (self.n_agents,)
            and not np.count_nonzero((actions < 0) | (actions >= self.n_actions))  # (cheaper than min, max)
        ):  # an array of valid ids (what a learner passes): no check per item needed
            return actions.tolist()
        try:
            values = list(actions)
        except TypeError:
            raise errors.InvalidActionError(
                f"actions must be a sequence of {self.n_agents} action ids (one per agent), not {actions!r}"
            ) from None
        if len(values) != self.n_agents:
            raise errors.InvalidActionError(
                f"{self.map_name} has {self.n_agents} agents: step() needs {self.n_agents} actions, "
                f"got {len(values)}"
            )
        numbers_ = []
        for i, value in enumerate(values):
            try:
                number = operator.index(value)
            except TypeError:
                number = int(value) if isinstance(value, numbers.Real) and float(value).is_integer() else -1
            if not 0 <= number < self.n_actions:
                raise errors.InvalidActionError(
                    f"agent {i}'s action {value!r} is no action id: ids are whole numbers from 0 to "
                    f"{self.n_actions - 1} on {self.map_name}"
                )
            numbers_.append(number)
        return numbers_

    def _check_available(self, numbers_: list[int]) -> None:
        avail = self._avail()
        if np.count_nonzero(avail[self._agent_ids, numbers_]) == self.n_agents:  # (cheaper than .all())
            return
        for i, number in enumerate(numbers_):
            if not avail[i, number]:
                raise errors.InvalidActionError(
                    f"agent {i} cannot take action {number} ({action_name(number)}) now; its available actions "
                    f"are {np.flatnonzero(avail[i]).tolist()} (get_avail_agent_actions({i}))"
                )

    def _request(self, roster: Roster, numbers_: list[int]) -> sc_pb.RequestAction:
        """Every living agent's command (SMAC's: one per agent, never queued; agents given the same stop,
        attack or heal share one)."""
        agents, request = roster.agents, sc_pb.RequestAction()
        acting = np.where(agents.alive, numbers_, features.NO_OP)  # the dead send nothing
        if not self.v2.action_mask:  # SMACv2 without its action mask: a target out of range gets no command
            acting[(acting >= features.TARGETS) & (self._true_avail()[self._agent_ids, acting] == 0)] = (
                features.NO_OP
            )
        heals = roster.plan.heals.tolist()
        own, enemy = agents.tags.tolist(), roster.enemies.tags.tolist()
        actions = acting.tolist()
        targets = [
            (own if heal else enemy)[action - features.TARGETS] if action >= features.TARGETS else 0
            for action, heal in zip(actions, heals)
        ]
        add_commands(
            request,
            actions,
            own,
            agents.x.tolist(),
            agents.y.tolist(),
            self._move_amount,
            targets,
            heals,
            agents.unit_type.tolist(),
        )
        return request

    def _command(self, i: int, number: int) -> sc_pb.Action | None:
        # The batch's own rules (the dead, SMACv2's out-of-range targets), with every other agent idle.
        numbers = [features.NO_OP] * self.n_agents
        numbers[i] = number
        request = self._request(self._roster_now(), numbers)
        return request.actions[0] if request.actions else None

    def _heuristic_actions(self) -> list[int]:
        roster = self._running()
        a = roster.agents.values
        full = a[:, Column.health] == a[:, Column.health_max]
        grids = self._map()
        diagonal = float(np.hypot(grids.max_distance_x, grids.max_distance_y))
        return self._heuristic.actions(roster.plan, self._frame(), self._avail(), full, diagonal)

    def get_agent_action(self, a_id: int, action: int) -> sc_pb.Action | None:
        """The raw command agent `a_id`'s action stands for (None for a no-op); raises if unavailable."""
        i = self._agent(a_id)
        if not self._avail()[i, action]:
            raise errors.InvalidActionError(f"agent {a_id} cannot perform action {action} now")
        return self._command(i, action)

    def get_agent_action_heuristic(self, a_id: int, action: int) -> tuple[sc_pb.Action | None, int]:
        """The scripted policy's command for agent `a_id` and the action id it stands for (`action` is
        ignored, as in SMAC)."""
        i = self._agent(a_id)
        number = self._heuristic_actions()[i]
        return self._command(i, number), number

    def get_stats(self) -> dict[str, float]:
        return {
            "battles_won": self.battles_won,
            "battles_game": self.battles_game,
            "battles_draw": self.timeouts,
            "win_rate": self.battles_won / self.battles_game if self.battles_game else 0.0,
            "timeouts": self.timeouts,
            "restarts": self.force_restarts,
        }

    # --- the rest of SMAC's surface ------------------------------------------------------------------

    def seed(self) -> int | None:
        """The random seed the game was created with (SMAC's seed())."""
        return self._seed

    def full_restart(self) -> None:
        """Stop the game (SMAC's full restart); the next reset() starts a new one and counts the restart."""
        self._game.close()
        self._state = EpisodeState.OVER

    def save_replay(self) -> pathlib.Path:
        """Save the game's replay as `<replay_dir>/<replay_prefix>_<UTC time>.SC2Replay` (replay_dir ""
        means ./replays, the prefix "" the map's name); returns the path."""
        path = write_replay(
            self._game.save_replay(), self.replay_dir or "replays", self.replay_prefix or self.map_name
        )
        log.info("replay saved at %s", path)
        return path

    def render(self, mode: str = "human") -> np.ndarray | None:
        """Draw the battle: "rgb_array" returns an image, "human" shows it in a window."""
        from sc2env.smac.render import SmacRenderer

        if self.renderer is None:
            self.renderer = SmacRenderer(mode)
        return self.renderer.render(self._map(), self._frame(), f"sc2env SMAC: {self.map_name}", mode)

    def close(self) -> None:
        """Stop the game and close the window, if any. Idempotent."""
        if self.renderer is not None:
            self.renderer.close()
            self.renderer = None
        self._game.close()
        self._state = EpisodeState.OVER

    def __enter__(self) -> StarCraft2Env:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _positive_finite(value: object) -> bool:
    """Whether `value` is a real number above 0 and finite (bools are not numbers here)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < float(value) < math.inf


def action_name(number: int) -> str:
    """A readable name of a SMAC action id."""
    names = ("no-op", "stop", "move north", "move south", "move east", "move west")
    return names[number] if number < len(names) else f"target {target_index(number)}"
