"""Unit-type facts (real ids, names, stats, command cards) for the mini-games, from real ResponseData and game data."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sc2env.gamedata import unit_ids
from sc2env.gamedata.clock import LOOPS_PER_GAME_SECOND

# common.proto Race values.
NO_RACE, TERRAN, ZERG, PROTOSS = 0, 1, 2, 3
# data.proto Weapon.TargetType values.
GROUND, AIR, ANY = 1, 2, 3

_ARMY_CARD = (4, 16, 17, 18, 23)


@dataclass(frozen=True)
class Sweep:
    """A beam swept across the target (the Colossus's Thermal Lances): each attack also hits every other
    enemy ground unit within `radius` (plus its own radius) of the line through the target's centre,
    perpendicular to the attack, `half_length` to each side (game data: ThermalLancesForward/Reverse search
    circles of radius 0.15 at offsets -1.25 to 1.25, each unit hit once per beam)."""

    half_length: float = 1.25
    radius: float = 0.15


@dataclass(frozen=True)
class Weapon:
    """`UnitTypeData.weapons[0]` plus game-data timing: `cooldown` and `damage_point` in game seconds.

    `bonus` maps an attribute name to extra damage (added before armor). `projectile_speed` (cells per game
    second) is 0 for instant weapons; a missile lands when it reaches its target and never misses.
    `min_range` is a ranged weapon's dead zone, covered by a melee variant sharing the cooldown. `sweep`: each
    attack also hits a line across the target (see Sweep).
    """

    target: int
    damage: float
    range: float
    cooldown: float
    attacks: int = 1
    bonus: tuple[tuple[str, float], ...] = ()
    damage_point: float = 0.0
    projectile_speed: float = 0.0
    scan_range: float = 5.0
    sweep: Sweep | None = None

    @property
    def cooldown_loops(self) -> float:
        return self.cooldown * LOOPS_PER_GAME_SECOND

    @property
    def damage_point_loops(self) -> float:
        return self.damage_point * LOOPS_PER_GAME_SECOND

    @property
    def projectile_speed_per_loop(self) -> float:
        return self.projectile_speed / LOOPS_PER_GAME_SECOND


@dataclass(frozen=True)
class Burst:
    """A suicide splash (the Baneling's VolatileBurst): fires within `trigger_range` of its target, edge to edge.

    Every enemy ground unit whose centre is within `radius` plus its own radius takes `damage` (+`bonus` by
    attribute, minus armor); structures take `structure_damage`, armor ignored. The unit dies doing it, and
    also bursts when killed.
    """

    damage: float
    radius: float
    trigger_range: float
    bonus: tuple[tuple[str, float], ...] = ()
    structure_damage: float = 0.0
    scan_range: float = 5.0


@dataclass(frozen=True)
class Heal:
    """A healing ability (the Medivac's): restores `rate` life per game second to a damaged own unit with the
    `attribute` within `range` (edge to edge), at `energy_per_life` energy per point restored."""

    rate: float
    range: float
    energy_per_life: float
    attribute: str = "Biological"
    ability_id: int = 386


@dataclass(frozen=True)
class Harvest:
    """What one worker trip takes from a resource: `amount` per trip after `loops` of harvesting."""

    kind: str  # "minerals" or "vespene"
    amount: int
    loops: float
    pause: float = 0.0  # loops the worker waits after harvesting before it walks back


@dataclass(frozen=True)
class UnitType:
    """One unit type: the `ResponseData` fields plus what the engine needs to simulate and draw it.

    `speed` is `movement_speed` in world units per game second (LOOPS_PER_GAME_SECOND loops); `acceleration` in
    units per game second squared (0: instant, as for most units). `command_card` lists the specific ability ids its
    command card offers (each shown when usable). `army` / `worker` decide `select_army`, `army_count`
    and idle-worker counts; `selectable=False` units can't be clicked (map items, beacons); `collides=False`
    units don't block movement (beacons, shards, lowered depots). `footprint` is the (width, height) in
    placement cells of structures and resources. `cost_category` is the score category (army, economy,
    technology). `tech_alias` lists the types this one counts as for tech requirements, and `unit_alias` the
    type it is a form of (a lowered Supply Depot is a Supply Depot), as ResponseData reports them.
    """

    unit_id: int
    name: str
    race: int = NO_RACE
    health: float = 0.0
    shields: float = 0.0
    energy: float = 0.0  # the maximum
    energy_start: float = 0.0
    energy_regen: float = 0.0  # per game second
    armor: float = 0.0
    radius: float = 0.5
    speed: float = 0.0
    acceleration: float = 0.0
    sight: float = 0.0
    attributes: tuple[str, ...] = ()
    mineral_cost: int = 0
    vespene_cost: int = 0
    food_required: float = 0.0
    food_provided: float = 0.0
    build_time: float = 0.0
    build_ability: int = 0
    weapon: Weapon | None = None
    burst: Burst | None = None
    heal: Heal | None = None
    flying: bool = False  # an air unit: no ground collision, hit only by weapons that target air
    cliff_walker: bool = False  # walks over cliffs and unpathable cells, and is hit as air too (the Colossus)
    command_card: tuple[int, ...] = ()
    army: bool = False
    worker: bool = False
    structure: bool = False
    selectable: bool = True
    collides: bool = True
    invulnerable: bool = False
    auto_acquire: bool = True
    responds: bool = True  # fights back and calls idle allies when attacked (the data's `Response`)
    life_regen: float = 0.0  # hit points per game second
    shield_regen: float = (
        0.0  # shield points per game second, once `shield_regen_delay` passed without damage
    )
    shield_regen_delay: float = 0.0  # game seconds
    mineral_contents: int = 0
    vespene_contents: int = 0
    harvest: Harvest | None = None
    dropoff: bool = False
    queue_size: int = 0
    footprint: tuple[int, int] = (0, 0)
    cost_category: str = ""
    tech_requirement: int = 0
    cargo_size: int = 0
    tech_alias: tuple[int, ...] = ()
    unit_alias: int = 0

    @property
    def speed_per_loop(self) -> float:
        return self.speed / LOOPS_PER_GAME_SECOND

    @property
    def acceleration_per_loop(self) -> float:
        """World units per loop gained each loop (0: instant)."""
        return self.acceleration / LOOPS_PER_GAME_SECOND**2

    @property
    def regen_per_loop(self) -> float:
        return self.life_regen / LOOPS_PER_GAME_SECOND

    @property
    def energy_regen_per_loop(self) -> float:
        return self.energy_regen / LOOPS_PER_GAME_SECOND

    @property
    def shield_regen_per_loop(self) -> float:
        return self.shield_regen / LOOPS_PER_GAME_SECOND

    @property
    def shield_delay_loops(self) -> float:
        return self.shield_regen_delay * LOOPS_PER_GAME_SECOND

    @property
    def scan_range(self) -> float:
        """How far the unit looks for targets when idle or attack-moving (edge to edge): its weapon's scan range
        or range, whichever is greater, and for a mobile ground unit at least its range + 0.5."""
        if self.weapon is not None:
            # Legacy of the Void raised the minimum scan range of ground units to weapon range + 0.5 (static
            # defence kept its own); a short weapon keeps the default 5.
            margin = 0.0 if self.flying or self.structure else _GROUND_SCAN_MARGIN
            return max(self.weapon.scan_range, self.weapon.range + margin)
        return self.burst.scan_range if self.burst is not None else 0.0

    @property
    def attack_range(self) -> float:
        """How close (edge to edge) it attacks from: its weapon's range, or where its burst triggers; 0 if it
        can't attack."""
        if self.weapon is not None:
            return self.weapon.range
        return self.burst.trigger_range if self.burst is not None else 0.0

    @property
    def planes(self) -> int:
        """The planes it stands in, as Weapon.target values: AIR, GROUND, or ANY (the Colossus: both)."""
        return ANY if self.cliff_walker else AIR if self.flying else GROUND

    @property
    def has_vespene(self) -> bool:
        """Holds vespene, as ResponseData says: a geyser, or the refinery built on one."""
        return self.vespene_contents > 0 or (self.harvest is not None and self.harvest.kind == "vespene")

    @property
    def can_attack(self) -> bool:
        return self.weapon is not None or self.burst is not None


_GROUND_SCAN_MARGIN = (
    0.5  # a ground unit scans at least this far beyond its weapon's range (UnitType.scan_range)
)
_ZERG_REGEN = 0.2734  # hit points per game second (game data LifeRegenRate)
# Protoss shields regenerate 2 points per game second after 10 game seconds without damage (game data
# ShieldRegenRate / ShieldRegenDelay, as SMAC's maps copy them).
_SHIELD_REGEN, _SHIELD_REGEN_DELAY = 2.0, 10.0
_MINERALS = Harvest("minerals", 5, 44.58, pause=8)
_GAS = Harvest("vespene", 4, 31.70)

_TABLE = (
    UnitType(
        48,
        "Marine",
        TERRAN,
        health=45,
        radius=0.375,
        speed=2.25,
        sight=9,
        attributes=("Light", "Biological"),
        mineral_cost=50,
        food_required=1,
        build_time=400,
        build_ability=560,
        weapon=Weapon(ANY, 6, 5, 0.860839844, damage_point=0.05),
        command_card=_ARMY_CARD,
        army=True,
        cost_category="army",
        cargo_size=1,
    ),
    UnitType(
        51,
        "Marauder",
        TERRAN,
        health=125,
        armor=1,
        radius=0.5625,
        speed=2.25,
        sight=10,
        attributes=("Armored", "Biological"),
        mineral_cost=100,
        vespene_cost=25,
        food_required=2,
        build_time=480,
        build_ability=563,
        # Punisher Grenades fly as a missile in the game; here they land at the end of the damage point.
        weapon=Weapon(GROUND, 10, 6, 1.5, bonus=(("Armored", 10),)),
        command_card=_ARMY_CARD,
        army=True,
        cost_category="army",
        tech_requirement=5,
        cargo_size=2,
    ),
    UnitType(
        54,
        "Medivac",
        TERRAN,
        health=150,
        armor=1,
        radius=0.75,
        speed=2.5,
        acceleration=2.3125,
        sight=11,
        attributes=("Armored", "Mechanical"),
        mineral_cost=100,
        vespene_cost=100,
        food_required=2,
        build_time=672,
        build_ability=620,
        energy=200,
        energy_start=50,
        energy_regen=0.5625,
        # Heal: 12.6 life a second at the Faster speed (9 a game second), 1 energy per 3 life, range 4
        # (cast_range in ResponseData); the rate and cost are Liquipedia's, not in the data at hand.
        heal=Heal(rate=9.0, range=4.0, energy_per_life=1 / 3),
        flying=True,
        command_card=(4, 16, 17, 18, 386),
        army=True,
        collides=False,
        cost_category="army",
    ),
    UnitType(
        74,
        "Stalker",
        PROTOSS,
        health=80,
        shields=80,
        armor=1,
        radius=0.625,
        speed=2.953125,
        sight=10,
        attributes=("Armored", "Mechanical"),
        mineral_cost=125,
        vespene_cost=50,
        food_required=2,
        build_time=672,
        build_ability=917,
        # Particle Disruptors fly as a missile in the game; here they land at the end of the damage point.
        weapon=Weapon(ANY, 13, 6, 1.87011719, bonus=(("Armored", 5),)),
        command_card=_ARMY_CARD,
        army=True,
        cost_category="army",
        tech_requirement=72,
        cargo_size=2,
        shield_regen=_SHIELD_REGEN,
        shield_regen_delay=_SHIELD_REGEN_DELAY,
    ),
    UnitType(
        73,
        "Zealot",
        PROTOSS,
        health=100,
        shields=50,
        armor=1,
        radius=0.5,
        speed=2.25,
        sight=9,
        attributes=("Light", "Biological"),
        mineral_cost=100,
        food_required=2,
        build_time=608,
        build_ability=916,
        weapon=Weapon(GROUND, 8, 0.100097656, 1.19995117, attacks=2),
        command_card=_ARMY_CARD,
        army=True,
        cost_category="army",
        cargo_size=2,
        shield_regen=_SHIELD_REGEN,
        shield_regen_delay=_SHIELD_REGEN_DELAY,
    ),
    UnitType(
        4,
        "Colossus",
        PROTOSS,
        # Life and shields of SMAC's maps' data version (200 / 150, as Colossus_RL copies them and as one of the
        # recorded observations has it; the newest recorded build has 250 / 100).
        health=200,
        shields=150,
        armor=1,
        radius=1.0,
        speed=2.25,
        sight=10,
        attributes=("Armored", "Mechanical", "Massive"),
        mineral_cost=300,
        vespene_cost=200,
        food_required=6,
        build_time=1200,
        build_ability=978,
        # Thermal Lances: two beams (attacks), 10 (+5 vs Light) each, swept across the target.
        weapon=Weapon(GROUND, 10, 7, 1.5, attacks=2, bonus=(("Light", 5),), sweep=Sweep()),
        command_card=_ARMY_CARD,
        army=True,
        # Walks over cliffs, and ground units pass under it (Colossi keep apart from each other); stands in both
        # planes, so weapons that hit air hit it too.
        cliff_walker=True,
        cost_category="army",
        tech_requirement=70,
        cargo_size=8,
        shield_regen=_SHIELD_REGEN,
        shield_regen_delay=_SHIELD_REGEN_DELAY,
    ),
    UnitType(
        98,
        "SpineCrawler",
        ZERG,
        # Life 300 and radius 1.0 (its 2x2 footprint) are the game data's as commonly documented: no recording
        # here has a Spine Crawler, and ResponseData has neither.
        health=300,
        armor=2,
        radius=1.0,
        sight=11,
        attributes=("Armored", "Biological", "Structure"),
        mineral_cost=150,
        build_time=800,
        build_ability=1166,
        # Impaler tentacle: 25 (+5 vs Armored), range 7, every 1.85 game seconds, ground only.
        weapon=Weapon(GROUND, 25, 7, 1.85009766, bonus=(("Armored", 5),)),
        command_card=(4, 23),
        structure=True,
        footprint=(2, 2),
        life_regen=_ZERG_REGEN,
        cost_category="technology",
        tech_requirement=89,
    ),
    UnitType(
        45,
        "SCV",
        TERRAN,
        health=45,
        radius=0.375,
        speed=2.8125,
        acceleration=2.5,
        sight=8,
        attributes=("Light", "Biological", "Mechanical"),
        mineral_cost=50,
        food_required=1,
        build_time=272,
        build_ability=524,
        weapon=Weapon(GROUND, 5, 0.100097656, 1.5, damage_point=0.167),
        command_card=(4, 16, 17, 18, 23, 295, 296, 316, 315, 318, 319, 320, 321, 322),
        worker=True,
        auto_acquire=False,
        cost_category="economy",
        cargo_size=1,
    ),
    UnitType(
        105,
        "Zergling",
        ZERG,
        health=35,
        radius=0.375,
        speed=2.953125,
        sight=8,
        attributes=("Light", "Biological"),
        mineral_cost=25,
        food_required=0.5,
        build_time=384,
        weapon=Weapon(GROUND, 5, 0.100097656, 0.696044922, damage_point=0.167),
        command_card=_ARMY_CARD,
        army=True,
        life_regen=_ZERG_REGEN,
        cost_category="army",
        tech_requirement=89,
        cargo_size=1,
    ),
    UnitType(
        9,
        "Baneling",
        ZERG,
        health=30,
        radius=0.375,
        speed=2.5,
        sight=8,
        attributes=("Biological",),
        mineral_cost=50,
        vespene_cost=25,
        food_required=0.5,
        build_time=320,
        burst=Burst(20, 2.2, 0.25, bonus=(("Light", 15),), structure_damage=80),
        command_card=_ARMY_CARD + (42,),
        army=True,
        life_regen=_ZERG_REGEN,
        cost_category="army",
        tech_requirement=96,
        cargo_size=2,
    ),
    UnitType(
        107,
        "Hydralisk",
        ZERG,
        health=90,  # recorded observations (ares-sc2); ResponseData has no life
        radius=0.625,
        speed=2.25,
        sight=9,
        attributes=("Light", "Biological"),
        mineral_cost=100,
        vespene_cost=50,
        food_required=2,
        build_time=528,
        # Needle Spines fly as a missile in the game; here they land at the end of the damage point.
        weapon=Weapon(ANY, 12, 5, 0.824951172),
        command_card=_ARMY_CARD,
        army=True,
        life_regen=_ZERG_REGEN,
        cost_category="army",
        tech_requirement=91,
        cargo_size=2,
    ),
    UnitType(
        110,
        "Roach",
        ZERG,
        health=145,
        armor=1,
        radius=0.5,
        speed=2.25,
        sight=9,
        attributes=("Armored", "Biological"),
        mineral_cost=75,
        vespene_cost=25,
        food_required=2,
        build_time=432,
        weapon=Weapon(GROUND, 16, 4, 2.0, damage_point=0.167, projectile_speed=18.75),
        command_card=_ARMY_CARD,
        army=True,
        life_regen=_ZERG_REGEN,
        cost_category="army",
        tech_requirement=97,
        cargo_size=2,
    ),
    UnitType(
        18,
        "CommandCenter",
        TERRAN,
        health=1500,
        armor=1,
        radius=2.75,
        sight=11,
        attributes=("Armored", "Mechanical", "Structure"),
        mineral_cost=400,
        food_provided=15,
        build_time=1600,
        build_ability=318,
        command_card=(524, 203, 308),
        structure=True,
        dropoff=True,
        queue_size=5,
        footprint=(5, 5),
        cost_category="economy",
    ),
    UnitType(
        19,
        "SupplyDepot",
        TERRAN,
        health=400,
        armor=1,
        radius=1.25,
        sight=9,
        attributes=("Armored", "Mechanical", "Structure"),
        mineral_cost=100,
        food_provided=8,
        build_time=480,
        build_ability=319,
        command_card=(556,),
        structure=True,
        footprint=(2, 2),
        cost_category="economy",
    ),
    UnitType(
        47,
        "SupplyDepotLowered",
        TERRAN,
        health=400,
        armor=1,
        radius=1.25,
        sight=9,
        attributes=("Armored", "Mechanical", "Structure"),
        mineral_cost=100,
        food_provided=8,
        build_ability=556,
        command_card=(558,),
        structure=True,
        collides=False,
        footprint=(2, 2),
        cost_category="economy",
        tech_alias=(19,),
        unit_alias=19,
    ),
    UnitType(
        21,
        "Barracks",
        TERRAN,
        health=1000,
        armor=1,
        radius=1.8125,
        sight=9,
        attributes=("Armored", "Mechanical", "Structure"),
        mineral_cost=150,
        build_time=1040,
        build_ability=321,
        command_card=(560, 195, 306),
        structure=True,
        queue_size=5,
        footprint=(3, 3),
        cost_category="technology",
        tech_requirement=19,
    ),
    UnitType(
        22,
        "EngineeringBay",
        TERRAN,
        health=850,
        armor=1,
        radius=1.8125,
        sight=9,
        attributes=("Armored", "Mechanical", "Structure"),
        mineral_cost=125,
        build_time=560,
        build_ability=322,
        structure=True,
        footprint=(3, 3),
        cost_category="technology",
        tech_requirement=18,
    ),
    UnitType(
        20,
        "Refinery",
        TERRAN,
        health=500,
        armor=1,
        radius=1.6875,
        sight=9,
        attributes=("Armored", "Mechanical", "Structure"),
        mineral_cost=75,
        build_time=480,
        build_ability=320,
        structure=True,
        harvest=_GAS,
        footprint=(3, 3),
        cost_category="economy",
    ),
    UnitType(
        341,
        "MineralField",
        armor=10,
        radius=1.125,
        attributes=("Structure",),
        structure=True,
        invulnerable=True,
        mineral_contents=1800,
        harvest=_MINERALS,
        footprint=(2, 1),
    ),
    UnitType(
        483,
        "MineralField750",
        armor=10,
        radius=1.125,
        attributes=("Structure",),
        structure=True,
        invulnerable=True,
        mineral_contents=900,
        harvest=_MINERALS,
        footprint=(2, 1),
    ),
    UnitType(
        342,
        "VespeneGeyser",
        armor=10,
        radius=1.5,
        attributes=("Structure",),
        structure=True,
        invulnerable=True,
        vespene_contents=2250,
        footprint=(3, 3),
    ),
    UnitType(
        317, "Beacon_Terran", health=25, radius=1.875, invulnerable=True, selectable=False, collides=False
    ),
    # The mineral shard of CollectMineralShards (Liberty campaign data; absent from ladder ResponseData).
    UnitType(
        1680, "NaturalMinerals", radius=0.5, sight=2.5, invulnerable=True, selectable=False, collides=False
    ),
)

REAL_TYPE_COUNT = 1 + max(t.value for race in unit_ids.__all__ for t in getattr(unit_ids, race))
"""How many unit types the real game's data lists (ids 0 .. REAL_TYPE_COUNT - 1, as in the newest recorded
ResponseData): a map's own new types come after them."""

# SMAC's maps define their own unit types (`Marine_RL`, ...): whole copies of a real type that never acquire
# targets or respond to attacks (DefaultAcquireLevel Passive, Response Nothing), so only the agent decides
# what they do; the stats are the real type's. A map's own types get ids after every real type, in the order
# of its catalog (alphabetical), so the id a game reports depends on which the map defines: the engine keeps
# one id per name here (every spelling the maps use, alphabetically) and a game maps it to the id it reports.
MAP_OWN_TYPES = {
    "Baneling_RL": "Baneling",
    "Colossus_RL": "Colossus",
    "Colosus_RL": "Colossus",  # sic: 1c3s5z and SMACv2's maps spell it so
    "Hydralisk_RL": "Hydralisk",
    "Marauder_RL": "Marauder",
    "Marine_RL": "Marine",
    "Medivac_RL": "Medivac",
    "Stalker_RL": "Stalker",
    "Zealot_RL": "Zealot",
    "Zergling_RL": "Zergling",
}
"""A map's own type name -> the real type it copies (only those whose real type the engine plays exist)."""

# Where SMAC's maps' copies differ from the data at hand (SMAC's maps were made with an older game version):
# Medivac_RL moves at 2.75 (the real Medivac's 2.5 here), Hydralisk_RL has 80 life (the recorded Hydralisk 90).
_MAP_OWN_SPEEDS = {"Medivac_RL": 2.75}
_MAP_OWN_HEALTH = {"Hydralisk_RL": 80.0}
_REAL_BY_NAME = {u.name: u for u in _TABLE}
_MAP_OWN = tuple(
    replace(
        _REAL_BY_NAME[base],
        unit_id=REAL_TYPE_COUNT + index,
        name=name,
        speed=_MAP_OWN_SPEEDS.get(name, _REAL_BY_NAME[base].speed),
        health=_MAP_OWN_HEALTH.get(name, _REAL_BY_NAME[base].health),
        auto_acquire=False,
        responds=False,
        tech_requirement=0,
        build_ability=0,
    )
    for index, (name, base) in enumerate(sorted(MAP_OWN_TYPES.items()))
    if base in _REAL_BY_NAME
)

UNIT_TYPES: dict[int, UnitType] = {u.unit_id: u for u in _TABLE + _MAP_OWN}
_BY_NAME = {u.name: u for u in _TABLE + _MAP_OWN}


def unit_type_by_name(name: str) -> UnitType:
    """The unit type called `name` (as in ResponseData, e.g. "Marine"); KeyError names the known ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown unit type {name!r}; known: {', '.join(sorted(_BY_NAME))}") from None
