"""The built-in AI (`Computer` player) on two-player maps: it sends its army at the enemy, smarter by difficulty.

It plays as a player of the Game like an agent does (a seat of its own, its own fog of war: no difficulty
here cheats), deciding every few loops from what its seat sees and giving raw commands through `Game.act`,
so its commands are in the input log and a replay plays them back. It uses no randomness: its games are
deterministic under the game's seed. The units on the duel maps are all it commands (no economy yet).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from s2clientprotocol import raw_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.game import Game, Interface

ATTACK = 23  # the general Attack ability (attack-move with a point, focus with a unit)
INTERFACE = Interface.from_options(sc_pb.InterfaceOptions(raw=True))  # what it reads: raw data only


@dataclass(frozen=True)
class Profile:
    """How one difficulty plays. `reaction`: loops between decisions; `attack_at`: the game loop its army
    sets off for the enemy (before that it holds and defends); `share`: the part of its army it sends;
    `formation`: whether the army advances abreast (each unit to the target plus its place in the army),
    which brings it into range all at once, rather than converging on one point and arriving in a file;
    `focus`: whether units in range of a seen enemy all shoot the same one."""

    reaction: int
    attack_at: int
    share: float
    formation: bool
    focus: bool


# sc2api's Difficulty -> profile. VeryHard and the cheating levels are refused at create_game.
PROFILES: dict[int, Profile] = {
    sc_pb.VeryEasy: Profile(reaction=96, attack_at=0, share=0.5, formation=False, focus=False),
    sc_pb.Easy: Profile(reaction=64, attack_at=0, share=1.0, formation=False, focus=False),
    sc_pb.Medium: Profile(reaction=32, attack_at=0, share=1.0, formation=True, focus=False),
    sc_pb.MediumHard: Profile(reaction=24, attack_at=0, share=1.0, formation=True, focus=True),
    sc_pb.Hard: Profile(reaction=16, attack_at=0, share=1.0, formation=True, focus=True),
    sc_pb.Harder: Profile(reaction=8, attack_at=0, share=1.0, formation=True, focus=True),
}
_REACH_MARGIN = 0.0  # focus only units already in range: others walking to it would hold their fire


class Computer:
    """One built-in AI player: `step(game, count)` runs the game `count` loops, deciding at its reaction
    times. `decide(game)` is one decision (used by `step`)."""

    def __init__(self, player_id: int, difficulty: int) -> None:
        self.player_id = player_id
        self.profile = PROFILES[difficulty]
        self.next_decision = 0
        self._target: int | None = None  # the enemy the focus is on

    def restart(self) -> None:
        self.next_decision = 0
        self._target = None

    def step(self, game: Game, count: int, abandoned: Callable[[], bool] | None = None) -> None:
        """Run `count` loops (`abandoned`: as Game.step's, checked between the AI's decisions too)."""
        remaining = count
        while remaining > 0 and not game.ended:
            if game.game_loop >= self.next_decision:
                self.decide(game)
                self.next_decision = game.game_loop + self.profile.reaction
            run = min(remaining, self.next_decision - game.game_loop)
            start = game.game_loop
            game.step(run, abandoned)
            if game.game_loop - start < run and not game.ended:  # abandoned: its client has gone
                return
            remaining -= run

    def decide(self, game: Game) -> None:
        with game.viewing(self.player_id):
            self._decide(game)
            game.echoed_actions.clear()  # nobody reads this seat's observations
            game.action_errors.clear()

    def _decide(self, game: Game) -> None:
        w, me = game.world, self.player_id
        army = np.flatnonzero((w.owner == me) & (w.speed > 0) & ~w.hidden)
        if not len(army):
            return
        shown = game.vision.shows(w, me)
        seen = (w.owner != me) & (w.owner != 0) & ~w.hidden
        if shown is not None:
            seen &= shown
        enemies = np.flatnonzero(seen)
        if len(enemies):
            self._engage(game, army, enemies)
        elif game.game_loop >= self.profile.attack_at:
            idle = [i for i in army.tolist() if not w.orders[i]]
            sent = idle[: max(1, round(len(army) * self.profile.share))] if idle else []
            if sent:
                self._advance(game, sent, self._enemy_start(game))

    def _engage(self, game: Game, army: np.ndarray, enemies: np.ndarray) -> None:
        w = game.world
        if not self.profile.focus:
            idle = [i for i in army.tolist() if not w.orders[i]]
            if idle:  # idle units attack-move to the nearest enemy; busy ones keep fighting their way
                centre = w.pos[army].mean(axis=0)
                nearest = enemies[int(np.argmin(np.hypot(*(w.pos[enemies] - centre).T)))]
                self._command(game, idle, point=tuple(w.pos[nearest]))
            return
        # Focus: the seen enemy the most units are in range of (ties: the weakest, then the lowest tag) takes
        # the fire of all of them, until it dies or leaves their range.
        reach = np.array(
            [t.weapon.range if t.weapon is not None else 0.0 for t in (w.types[i] for i in army)]
        )
        gap = np.hypot(*(w.pos[army][:, None] - w.pos[enemies][None]).transpose(2, 0, 1))
        in_range = gap - w.radius[army][:, None] - w.radius[enemies][None] <= reach[:, None] + _REACH_MARGIN
        kept = [
            n
            for n, i in enumerate(enemies.tolist())
            if int(w.tag[i]) == self._target and in_range[:, n].any()
        ]
        if kept:
            column = kept[0]
        else:
            order = np.lexsort((w.tag[enemies], w.health[enemies], -in_range.sum(axis=0)))
            column = int(order[0])
        target = int(enemies[column])
        near = army[in_range[:, column]].tolist()
        tag = int(w.tag[target])
        self._target = tag
        # Only units not already on it: a new order would cost a unit the shot it is winding up.
        retarget = [i for i in near if not w.orders[i] or w.orders[i][0].target_tag != tag]
        if retarget:
            self._command(game, retarget, target=tag)
            # Then attack-move on, so the kill does not leave them idle until the next decision.
            self._command(game, retarget, point=tuple(w.pos[target]), queued=True)
        far = [i for i in army.tolist() if i not in set(near) and not w.orders[i]]
        if far:
            self._command(game, far, point=tuple(w.pos[target]))

    def _advance(self, game: Game, rows: list[int], goal: tuple[float, float]) -> None:
        """Attack-move the units to `goal`: abreast (each keeps its place in the army) with `formation`."""
        if not self.profile.formation:
            self._command(game, rows, point=goal)
            return
        w = game.world
        centre = w.pos[rows].mean(axis=0)
        b = game.definition.playable_area
        for i in rows:
            x, y = np.asarray(goal) + (w.pos[i] - centre)
            self._command(game, [i], point=(min(max(x, b.x0), b.x1), min(max(y, b.y0), b.y1)))

    def _enemy_start(self, game: Game) -> tuple[float, float]:
        """Where the enemy starts: the start location of the other slot (the map's centre if none)."""
        d = game.definition
        slots = [slot.player_id for slot in d.players]
        others = [n for n, pid in enumerate(slots) if pid != self.player_id]
        if others and others[0] < len(d.start_locations):
            return d.start_locations[others[0]]
        b = d.playable_area
        return (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2

    def _command(
        self,
        game: Game,
        rows: list[int],
        point: tuple[float, float] | None = None,
        target: int | None = None,
        queued: bool = False,
    ) -> None:
        w = game.world
        cmd = raw_pb2.ActionRawUnitCommand(
            ability_id=ATTACK, unit_tags=[int(w.tag[i]) for i in rows], queue_command=queued
        )
        if target is not None:
            cmd.target_unit_tag = target
        elif point is not None:
            cmd.target_world_space_pos.x, cmd.target_world_space_pos.y = float(point[0]), float(point[1])
        game.act(sc_pb.Action(action_raw=raw_pb2.ActionRaw(unit_command=cmd)))
