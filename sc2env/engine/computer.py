"""The built-in AI (`Computer` player) on two-player maps: it sends its army at the enemy, smarter by difficulty.

It plays as a player of the Game like an agent does (a seat of its own, its own fog of war: no difficulty
here cheats), deciding every few loops from what its seat sees and giving raw commands through `Game.act`,
so its commands are in the input log and a replay plays them back. It uses no randomness: its games are
deterministic under the game's seed. On the duel maps it commands the army it starts with; on a melee map
(it starts with a building: Simple64) it also runs a base (`build_order`) and attacks in waves.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.engine.banelings import BURSTS, Charge, charge, dodge, keep_with_banelings
from sc2env.engine.build_order import BuildOrder, EconomyPlan, command
from sc2env.engine.building import BUILT_BY
from sc2env.engine.focus import Fire, attack, focus
from sc2env.engine.game import Game, Interface
from sc2env.engine.mapdef import Region
from sc2env.engine.micro import LINE_SPACING, OVERLAP_SPACING, SPLIT_SPACING, line_offsets, nearest
from sc2env.engine.orders import STOP
from sc2env.engine.type_tables import STRUCTURE_TYPES, WORKER_TYPES, type_mask

INTERFACE = Interface.from_options(sc_pb.InterfaceOptions(raw=True))  # what it reads: raw data only
ARMY_TYPES = type_mask(lambda t: t.army)


class Formation(enum.Enum):
    """How an AI's army advances on the duel maps."""

    CONVERGE = "converge"  # every unit to the target point: they arrive in a file, the fastest first
    ABREAST = "abreast"  # each unit to the target plus its place in the army: all come into range at once
    LINE = "line"  # first a line square to the way (the ranged side by side, melee in front), then abreast
    SPLIT = "split"  # a line, against Zerg spaced so that a Baneling's burst reaches one unit and no more
    # split against Zerg; against Terran wider than LINE, so its ends reach past the enemy's line and (with
    # Fire.FINISH) turn onto its flanks
    OVERLAP = "overlap"


@dataclass(frozen=True)
class Profile:
    """How one difficulty plays. `reaction`: loops between decisions; `attack_at`: the game loop its army
    sets off for the enemy (before that it holds and defends); `share`: the part of its army it sends;
    `formation`: how the army advances (Formation; on melee maps LINE advances abreast);
    `fire`: how its ranged units pick their targets (Fire); `charge`: how its Zerglings and Banelings go in
    (Charge); `dodge`: how near (edge to edge) an enemy Baneling draws its ranged units a step back (0: never). On melee maps: `economy`, how it
    runs its base; `wave`, the army it gathers at its ramp's top before each attack; `defend`, how near its
    buildings (world units) a seen enemy draws the army at home onto it; `reinforce`, whether units trained
    while a wave is out follow it rather than wait for the next."""

    reaction: int
    attack_at: int
    share: float
    formation: Formation
    fire: Fire
    charge: Charge
    dodge: float
    economy: EconomyPlan
    wave: int
    defend: float
    reinforce: bool


# sc2api's Difficulty -> profile. VeryHard and the cheating levels are refused at create_game. On Simple64 a
# harder level reacts sooner, mines with more SCVs, builds its depots ahead of need and more Barracks,
# attacks with a larger wave and fights better (formation, focus fire).
# fmt: off
PROFILES: dict[int, Profile] = {
    sc_pb.VeryEasy: Profile(96, 0, 0.5, Formation.CONVERGE, Fire.LOOSE, Charge.LOOSE, 0.0, EconomyPlan(13, 1, 0, 1), 4, 8.0, False),
    sc_pb.Easy: Profile(64, 0, 1.0, Formation.CONVERGE, Fire.FOCUS, Charge.TOGETHER_AIMED, 0.0, EconomyPlan(15, 2, 1, 1), 6, 10.0, False),
    sc_pb.Medium: Profile(32, 0, 1.0, Formation.ABREAST, Fire.LOOSE, Charge.TOGETHER_AIMED, 0.0, EconomyPlan(16, 3, 2, 1), 8, 12.0, False),
    sc_pb.MediumHard: Profile(24, 0, 1.0, Formation.SPLIT, Fire.FOCUS, Charge.AIMED, 0.0, EconomyPlan(18, 4, 3, 1), 10, 14.0, True),
    sc_pb.Hard: Profile(16, 0, 1.0, Formation.SPLIT, Fire.SPLIT, Charge.AIMED, 2.0, EconomyPlan(18, 4, 4, 1), 12, 16.0, True),
    sc_pb.Harder: Profile(8, 0, 1.0, Formation.OVERLAP, Fire.FINISH, Charge.AIMED, 2.0, EconomyPlan(19, 5, 4, 1), 12, 18.0, True),
}
# fmt: on
_MELEE_RANGE = 1.0  # attack ranges up to this are melee (and a Baneling's burst): no focus fire
_ENGAGE_RANGE = 10.0  # on melee maps: how near its army a seen enemy must be for the army to turn on it
_STILL = 0.1  # moving less than this between two decisions while under orders is being stuck
_LINES = (Formation.LINE, Formation.SPLIT, Formation.OVERLAP)  # the formations formed before advancing
_FORMED = 1.0  # a line is formed when every unit stands this near its place in it
_ARRIVED = 4.0  # how near a target point the army's centre must come before it moves on to the next


def ramp_top(game: Game, ramp: Region) -> tuple[float, float]:
    """The middle of the highest pathable cells in `ramp` (its centre on a flat map or where none is
    pathable): the ramp's top, where it meets the high ground."""
    t = game.terrain
    h, w = t.pathable.shape
    x0, y0, x1, y1 = ramp.bounds()
    xs = np.arange(max(int(x0), 0), min(int(np.ceil(x1)), w))
    ys = np.arange(max(int(y0), 0), min(int(np.ceil(y1)), h))
    cx, cy = np.meshgrid(xs + 0.5, ys + 0.5)
    cells = ramp.contains(cx, cy) & t.pathable[ys[:, None], xs[None, :]]
    if not cells.any():
        return ramp.centre()
    height = t.heights[ys[:, None], xs[None, :]]
    top = cells & (height == height[cells].max())
    return float(cx[top].mean()), float(cy[top].mean())


class Computer:
    """One built-in AI player: `step(game, count)` runs the game `count` loops, deciding at its reaction
    times. `decide(game)` is one decision (used by `step`)."""

    def __init__(self, player_id: int, difficulty: int) -> None:
        self.player_id = player_id
        self.profile = PROFILES[difficulty]
        self.base = BuildOrder(player_id, self.profile.economy)
        self.restart()

    def restart(self) -> None:
        self.next_decision = 0
        self._targets: set[int] = set()  # the enemies its focus was on at the last decision (Fire)
        self._wave: set[int] = set()  # the tags of the units out on an attack (melee maps)
        self._seen_structures: dict[int, tuple[float, float]] = {}  # enemy buildings seen, by tag: where
        self._search = 0  # which of the search points the wave heads for when it knows of no building
        self._last_pos: dict[int, tuple[float, float]] = {}  # where each wave unit stood at the last decision
        self._formed = False  # whether its duel army has formed its line (Formation.LINE) and set off
        # The tags of its SCVs taken off mining onto raiding workers (melee maps).
        self._pulled: set[int] = set()

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
            if self._melee(game):
                self.base.decide(game, self._rally_point(game))
                self._decide_melee(game)
            else:
                self._decide(game)
            game.echoed_actions.clear()  # nobody reads this seat's observations
            game.action_errors.clear()

    def _melee(self, game: Game) -> bool:
        """Whether it has a base to run: a building of its own (Simple64). Workers alone are not a base:
        DuelTerranMixed's SCVs are part of its army."""
        w = game.world
        return bool(((w.owner == self.player_id) & STRUCTURE_TYPES[w.type_id]).any())

    def _seen_enemies(self, game: Game) -> np.ndarray:
        w, me = game.world, self.player_id
        shown = game.vision.shows(w, me)
        seen = (w.owner != me) & (w.owner != 0) & ~w.hidden
        if shown is not None:
            seen &= shown
        return np.flatnonzero(seen)

    def _decide(self, game: Game) -> None:
        """The duel maps: the army it starts with engages what it sees, else heads for the enemy's start, and
        from there back to its own (armies that passed each other out of sight meet again, not tie)."""
        w, me = game.world, self.player_id
        army = np.flatnonzero((w.owner == me) & (w.speed > 0) & ~w.hidden)
        if not len(army):
            return
        enemies = self._seen_enemies(game)
        if len(enemies):
            self._engage(game, army, enemies)
        elif game.game_loop >= self.profile.attack_at:
            ends = (self._enemy_start(game), self._own_start(game))
            goal = ends[self._search % 2]
            if self.profile.formation in _LINES and not self._formed:
                self._form_line(game, army, goal)
                return
            if self.profile.charge is not Charge.LOOSE:
                keep_with_banelings(game, army)  # the Zerglings following are not idle
            idle = [i for i in army.tolist() if not w.orders[i]]
            sent = idle[: max(1, round(len(army) * self.profile.share))] if idle else []
            if not sent:
                return
            if np.hypot(*(w.pos[sent].mean(axis=0) - goal)) <= _ARRIVED:
                self._search += 1  # nothing here: sweep back the other way
                goal = ends[self._search % 2]
            self._advance(game, sent, goal)

    # ---- melee: defend the base, gather a wave at the ramp's top, attack, hunt the buildings left ----------------
    def _decide_melee(self, game: Game) -> None:
        w, me = game.world, self.player_id
        army = np.flatnonzero((w.owner == me) & ARMY_TYPES[w.type_id] & ~w.hidden)
        enemies = self._seen_enemies(game)
        self._remember(game, enemies)
        wave = np.array([i for i in army.tolist() if int(w.tag[i]) in self._wave], int)
        home = np.setdiff1d(army, wave)
        # The base first: what comes near its buildings, or its army gathering at home, meets all it has home.
        threats = np.union1d(
            self._near(game, enemies, self._own_buildings(game), self.profile.defend),
            self._near(game, enemies, home, _ENGAGE_RANGE),
        )
        if len(threats) and len(home):
            self._engage(game, home, threats)
        self._pull_workers(game, enemies)
        if self._wave and len(wave) < max(1, self.profile.wave // 3):
            self._wave = set()  # the wave is spent: its survivors come home to the next one
            attack(game, wave.tolist(), point=self._rally_point(game))
            return
        if not self._wave and len(army) >= self.profile.wave and game.game_loop >= self.profile.attack_at:
            sent = army[: max(1, round(len(army) * self.profile.share))]
            self._wave = {int(t) for t in w.tag[sent]}
            wave, home = sent, np.setdiff1d(army, sent)
        elif self._wave and self.profile.reinforce and not len(threats):
            self._wave |= {int(t) for t in w.tag[home]}  # new units follow the wave out
            wave, home = army, home[:0]
        if not len(threats):
            rally = np.asarray(self._rally_point(game))
            away = [i for i in home.tolist() if not w.orders[i] and np.hypot(*(w.pos[i] - rally)) > _ARRIVED]
            if away:
                attack(game, away, point=(float(rally[0]), float(rally[1])))
        if not len(wave):
            return
        close = self._near(game, enemies, wave, _ENGAGE_RANGE)
        stuck = self._stuck(game, wave)
        if len(close):
            self._engage(game, wave, close)
            # Held up round buildings short of their target: onto the nearest enemy unit instead (else building).
            units = close[~STRUCTURE_TYPES[w.type_id[close]]]
            for i in stuck:
                pool = units if len(units) else close
                attack(game, [i], target=int(w.tag[nearest(w.pos, pool, w.pos[i])]))
            return
        goal = self._wave_target(game, wave)
        idle = [i for i in wave.tolist() if not w.orders[i]]
        if idle:
            self._advance(game, idle, goal)

    def _pull_workers(self, game: Game, enemies: np.ndarray) -> None:
        """Enemy workers raiding its base meet as many of its SCVs and one more, the nearest: a worker rush
        comes before the army does, and SCVs left mining lose the base to it. Once no raider is near its
        buildings, the pulled SCVs stop, and the base sends them back to mining."""
        w = game.world
        raiders = self._near(
            game, enemies[WORKER_TYPES[w.type_id[enemies]]], self._own_buildings(game), self.profile.defend
        )
        own = np.flatnonzero((w.owner == self.player_id) & WORKER_TYPES[w.type_id] & ~w.hidden)
        # Not its builders: a structure left unfinished stays so, and one counts as built (a depot left at half
        # held a Harder base at 23 supply for the rest of a game).
        own = own[~game.building.constructing_rows(own)]
        own = own[[not (w.orders[i] and w.orders[i][0].ability_id in BUILT_BY) for i in own.tolist()]]
        pulled: list[int] = []
        if len(raiders) and len(own):
            gap = np.hypot(*(w.pos[own] - w.pos[raiders].mean(axis=0)).T)
            pulled = own[np.argsort(gap, kind="stable")][: len(raiders) + 1].tolist()
            for i in pulled:
                attack(game, [i], target=int(w.tag[nearest(w.pos, raiders, w.pos[i])]))
        tags = {int(w.tag[i]) for i in pulled}
        released = [int(w.tag[i]) for i in own.tolist() if int(w.tag[i]) in self._pulled - tags]
        if released:
            command(game, released, STOP)
        self._pulled = tags

    def _stuck(self, game: Game, rows: np.ndarray) -> list[int]:
        """The rows that have an order, have not fired and have not moved since the last decision (a unit held
        up by the others or by steering can stand beside its target for good); remembers where each stands."""
        w = game.world
        stuck, now = [], {}
        for i in rows.tolist():
            tag = int(w.tag[i])
            x, y = float(w.pos[i][0]), float(w.pos[i][1])
            last = self._last_pos.get(tag)
            moved = np.hypot(x - last[0], y - last[1]) if last is not None else np.inf
            if moved < _STILL and w.orders[i] and not w.firing[i]:
                stuck.append(i)
            now[tag] = (x, y)
        self._last_pos = now
        return stuck

    def _remember(self, game: Game, enemies: np.ndarray) -> None:
        """Keep where seen enemy buildings stand; forget those whose place it sees empty now."""
        w = game.world
        for i in enemies.tolist():
            if STRUCTURE_TYPES[w.type_id[i]]:
                self._seen_structures[int(w.tag[i])] = (float(w.pos[i][0]), float(w.pos[i][1]))
        seen_tags = {int(w.tag[i]) for i in enemies.tolist()}
        grid = game.vision.grid()
        for tag, (x, y) in list(self._seen_structures.items()):
            cell = grid[min(int(y), grid.shape[0] - 1), min(int(x), grid.shape[1] - 1)]
            if tag not in seen_tags and cell == 2:  # visible, and not there: destroyed
                del self._seen_structures[tag]

    def _wave_target(self, game: Game, army: np.ndarray) -> tuple[float, float]:
        """The known enemy building nearest the army, else the enemy's start, then the other bases in turn."""
        w = game.world
        centre = w.pos[army].mean(axis=0)
        if self._seen_structures:
            spots = sorted(
                self._seen_structures.items(), key=lambda kv: (np.hypot(*(np.subtract(kv[1], centre))), kv[0])
            )
            return spots[0][1]
        points = self._search_points(game)
        goal = points[self._search % len(points)]
        if np.hypot(*(centre - goal)) <= _ARRIVED and not any(w.orders[i] for i in army.tolist()):
            self._search += 1
            goal = points[self._search % len(points)]
        return goal

    def _search_points(self, game: Game) -> list[tuple[float, float]]:
        """Where a player may have buildings: the enemy's start, then each mineral line's middle."""
        w = game.world
        points = [self._enemy_start(game)]
        fields = w.pos[np.flatnonzero((w.owner == 0) & STRUCTURE_TYPES[w.type_id])]
        # Resources within 10 of each other are one base; its middle is where a town hall would stand.
        taken = np.zeros(len(fields), bool)
        for n in range(len(fields)):
            if taken[n]:
                continue
            group = ~taken & (np.hypot(*(fields - fields[n]).T) <= 10)
            taken |= group
            x, y = fields[group].mean(axis=0)
            points.append((float(x), float(y)))
        return points

    def _own_buildings(self, game: Game) -> np.ndarray:
        w = game.world
        return np.flatnonzero((w.owner == self.player_id) & STRUCTURE_TYPES[w.type_id])

    @staticmethod
    def _near(game: Game, rows: np.ndarray, around: np.ndarray, reach: float) -> np.ndarray:
        """The `rows` within `reach` of any of the `around` rows."""
        if not len(rows) or not len(around):
            return rows[:0]
        w = game.world
        gap = np.hypot(*(w.pos[rows][:, None] - w.pos[around][None]).transpose(2, 0, 1))
        return rows[(gap <= reach).any(axis=1)]

    def _rally_point(self, game: Game) -> tuple[float, float]:
        """Where its army gathers: the top of the map's `ramp<player id>` region (the highest of its pathable
        cells: the army holds the way into its main from above), else a quarter of the way from its start to
        the centre."""
        d = game.definition
        ramp = d.regions.get(f"ramp{self.player_id}")
        if ramp is not None:
            return ramp_top(game, ramp)
        start = self._own_start(game)
        b = d.playable_area
        middle = ((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2)
        return (start[0] + (middle[0] - start[0]) / 4, start[1] + (middle[1] - start[1]) / 4)

    def _engage(self, game: Game, army: np.ndarray, enemies: np.ndarray) -> None:
        w = game.world
        reach = np.array([w.types[i].attack_range for i in army.tolist()])
        # Focus is for ranged units: melee ones (and Banelings) crowding round one target would mostly stand
        # behind each other, so they attack-move and the game's own acquisition spreads them.
        ranged = reach > _MELEE_RANGE
        loose = army if self.profile.fire is Fire.LOOSE else army[~ranged]
        if self.profile.charge is not Charge.LOOSE and BURSTS[w.type_id[army]].any():
            charge(game, army[~ranged], enemies, self.profile.charge)
            loose = loose[ranged[np.isin(army, loose)]]
        if self.profile.dodge and len(enemies) and BURSTS[w.type_id[enemies]].any():
            stepping = dodge(game, army[ranged], enemies, self.profile.dodge)
            keep = ~np.isin(army, stepping)
            army, reach, ranged = army[keep], reach[keep], ranged[keep]
            loose = loose[~np.isin(loose, stepping)]
        idle = [i for i in loose.tolist() if not w.orders[i]]
        if idle:  # idle units attack-move to the nearest enemy; busy ones keep fighting their way
            attack(game, idle, point=tuple(w.pos[nearest(w.pos, enemies, w.pos[loose].mean(axis=0))]))
        if self.profile.fire is not Fire.LOOSE and ranged.any():
            self._targets = focus(
                game, army[ranged], reach[ranged], enemies, self.profile.fire, self._targets
            )

    def _advance(self, game: Game, rows: list[int], goal: tuple[float, float]) -> None:
        """Attack-move the units to `goal`: abreast (each keeps its place in the army) with `formation`."""
        if self.profile.formation is Formation.CONVERGE:
            attack(game, rows, point=goal)
            return
        w = game.world
        centre = w.pos[rows].mean(axis=0)
        b = game.definition.playable_area
        for i in rows:
            x, y = np.asarray(goal) + (w.pos[i] - centre)
            attack(game, [i], point=b.clamp(x, y))

    def _form_line(self, game: Game, army: np.ndarray, goal: tuple[float, float]) -> None:
        """Form the army's line where it stands, square to the way to `goal`; once formed it advances abreast."""
        w = game.world
        ranged = np.array([w.types[i].attack_range > _MELEE_RANGE for i in army.tolist()])
        spacing = OVERLAP_SPACING if self.profile.formation is Formation.OVERLAP else LINE_SPACING
        if self.profile.formation is not Formation.LINE and self._enemy_race(game) == common_pb2.Zerg:
            spacing = SPLIT_SPACING
        slots = w.pos[army].mean(axis=0) + line_offsets(w.pos[army], ranged, goal, spacing)
        off = np.hypot(*(w.pos[army] - slots).T)
        if (off <= _FORMED).all():
            self._formed = True
            self._advance(game, army.tolist(), goal)
            return
        for k in np.flatnonzero(off > _FORMED).tolist():
            if not w.orders[army[k]]:
                attack(game, [int(army[k])], point=(float(slots[k][0]), float(slots[k][1])))

    def _enemy_race(self, game: Game) -> int:
        """The other slot's race (a player knows whom it plays)."""
        return next((slot.race for slot in game.definition.players if slot.player_id != self.player_id), 0)

    def _own_start(self, game: Game) -> tuple[float, float]:
        """Where it starts: its slot's start location (the map's centre if none)."""
        return self._start(game, mine=True)

    def _enemy_start(self, game: Game) -> tuple[float, float]:
        """Where the enemy starts: the start location of the other slot (the map's centre if none)."""
        return self._start(game, mine=False)

    def _start(self, game: Game, mine: bool) -> tuple[float, float]:
        d = game.definition
        slots = [n for n, slot in enumerate(d.players) if (slot.player_id == self.player_id) == mine]
        if slots and slots[0] < len(d.start_locations):
            return d.start_locations[slots[0]]
        b = d.playable_area
        return (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2
