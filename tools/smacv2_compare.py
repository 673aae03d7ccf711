"""Play the same SMACv2 episodes with SMACv2's own StarCraft2Env and with sc2env.smac's, each on its own
built-in engine process, and compare every step: observations, state, available actions, unit types, reward,
termination and info.

Both get the same episode configs (drawn by sc2env's distributions from SMACv2's published capability
config), the same game seed and the same actions (random available ones). SMACv2 observes its agents in a
random order, which decides who first sees an enemy (its enemy sharing); both sides observe in id order here,
and draw the sharing's random numbers from the same seeded numpy.random.

SMACv2 imports `pysc2`; pysc2-evolved stands in for it (an import alias). Needs SMACv2's repository:

    python -m sc2env.engine --make-sc2path /tmp/sc2     # the engine behind an install-shaped folder
    SC2PATH=/tmp/sc2 python tools/smacv2_compare.py --smacv2 /path/to/smacv2 zerg 5 5 --episodes 2

Exit status 1 when any step differs (the differences are printed).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.abc
import importlib.util
import sys
from typing import Any

import numpy as np

KINDS = {
    "terran": (["marine", "marauder", "medivac"], [0.45, 0.45, 0.1], ["medivac"]),
    "zerg": (["zergling", "baneling", "hydralisk"], [0.45, 0.1, 0.45], ["baneling"]),
    "protoss": (["stalker", "zealot", "colossus"], [0.45, 0.45, 0.1], []),
}
"""SMACv2's published team configs (examples/configs/sc2_gen_*.yaml): kinds, weights, exceptions."""


class _Pysc2Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import pysc2.x` gives pysc2_evolved.x (the same module objects, so absl flags register once)."""

    def find_spec(self, name, path, target=None):
        if name == "pysc2" or name.startswith("pysc2."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("pysc2_evolved" + spec.name[len("pysc2") :])

    def exec_module(self, module):
        pass


class _InOrder:
    """A generator for EnemySharing that observes agents in id order and draws from numpy.random (as SMACv2)."""

    def permutation(self, n: int) -> np.ndarray:
        return np.arange(n)

    def random(self, size: Any = None) -> Any:
        return np.random.random(size)


def capability_config(race: str, n_units: int, n_enemies: int) -> dict:
    kinds, weights, exceptions = KINDS[race]
    return {
        "n_units": n_units,
        "n_enemies": n_enemies,
        "team_gen": {
            "dist_type": "weighted_teams",
            "unit_types": kinds,
            "weights": weights,
            "exception_unit_types": exceptions,
            "observe": True,
        },
        "start_positions": {"dist_type": "surrounded_and_reflect", "p": 0.5, "map_x": 32, "map_y": 32},
    }


def observe(theirs, ours, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Both envs' observations, each drawing its sharing's numbers from numpy.random seeded alike. Only the
    first get_obs() of a step counts: SMACv2's next one may differ (enemies told meanwhile), ours is cached."""
    out = []
    for env in (theirs, ours):
        np.random.seed(seed)
        out.append(np.array(env.get_obs()))
    return out[0], out[1]


def compare(theirs, ours, o1: np.ndarray, o2: np.ndarray) -> list[str]:
    """What differs between the two envs now (o1, o2: their observations this step)."""
    s1, s2 = theirs.get_state(), ours.get_state()
    problems = []
    if not np.allclose(o1, o2, atol=1e-5):
        where = np.argwhere(~np.isclose(o1, o2, atol=1e-5))
        problems.append(f"obs differ at (agent, index) {where[:6].tolist()}")
    if not np.allclose(s1, s2, atol=1e-5):
        problems.append(f"state differs at {np.flatnonzero(~np.isclose(s1, s2, atol=1e-5))[:6].tolist()}")
    if theirs.get_avail_actions() != ours.get_avail_actions():
        problems.append("available actions differ")
    if theirs.get_unit_types() != ours.get_unit_types():
        problems.append(f"unit types {theirs.get_unit_types()} vs {ours.get_unit_types()}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("race", choices=sorted(KINDS))
    parser.add_argument("n_units", type=int)
    parser.add_argument("n_enemies", type=int)
    parser.add_argument("--smacv2", required=True, help="SMACv2's repository (its smacv2 package inside)")
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--prob-obs-enemy", type=float, default=1.0)
    parser.add_argument("--no-action-mask", action="store_true")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="another StarCraft2Env argument for both envs (a Python literal: obs_last_action=True)",
    )
    args = parser.parse_args(argv)

    sys.meta_path.insert(0, _Pysc2Alias())
    sys.path.insert(0, args.smacv2)
    from absl import flags

    flags.FLAGS(["smacv2_compare"])
    import smacv2.env.starcraft2.starcraft2 as smacv2_env

    from sc2env.smac import StarCraft2Env
    from sc2env.smac.distributions import episode_generator

    smacv2_env.random.shuffle = lambda items: None  # SMACv2 observes its agents in id order too

    config = capability_config(args.race, args.n_units, args.n_enemies)
    # SMACv2's env reads n_units/n_enemies inside team_gen (its wrapper puts them there).
    smacv2_config = {
        k: dict(v, n_units=args.n_units, n_enemies=args.n_enemies) if isinstance(v, dict) else v
        for k, v in config.items()
    }
    kwargs = dict(
        map_name=f"10gen_{args.race}",
        obs_own_pos=True,
        use_unit_ranges=True,
        min_attack_range=2,
        prob_obs_enemy=args.prob_obs_enemy,
        action_mask=not args.no_action_mask,
        seed=args.seed,
    )
    for option in args.option:
        name, _, value = option.partition("=")
        kwargs[name] = ast.literal_eval(value)
    theirs = smacv2_env.StarCraft2Env(capability_config=smacv2_config, **kwargs)
    ours = StarCraft2Env(capability_config=config, engine="sc2", **kwargs)
    problems = 0
    try:
        for names in ("get_obs_feature_names", "get_state_feature_names"):
            if getattr(theirs, names)() != getattr(ours, names)():
                print(f"{names}: SMACv2 {getattr(theirs, names)()}\n  sc2env {getattr(ours, names)()}")
                problems += 1
        if theirs.get_env_info() != ours.get_env_info():
            print(f"env info: SMACv2 {theirs.get_env_info()}\n          sc2env {ours.get_env_info()}")
            return 1
        generate = episode_generator(config, KINDS[args.race][0], args.n_units, args.n_enemies)
        draws, actions_rng = np.random.default_rng(args.seed), np.random.default_rng(args.seed + 1)
        steps = 0
        ours._rng = _InOrder()
        for episode in range(args.episodes):
            episode_config = generate(draws)
            first = []
            for env in (theirs, ours):
                np.random.seed(1000 * episode)
                first.append(np.array(env.reset(episode_config)[0]))  # the episode's first observation
            o1, o2 = first
            terminated = False
            while True:
                for problem in compare(theirs, ours, o1, o2):
                    problems += 1
                    print(f"episode {episode} step {steps}: {problem}")
                if terminated:
                    break
                avail = np.array(theirs.get_avail_actions())
                actions = [int(actions_rng.choice(np.flatnonzero(a))) for a in avail]
                r1, t1, i1 = theirs.step(list(actions))  # a heuristic writes its actions back
                r2, t2, i2 = ours.step(list(actions))
                if not (np.isclose(r1, r2) and t1 == t2 and i1 == i2):
                    problems += 1
                    print(
                        f"episode {episode} step {steps}: reward {r1} vs {r2}, end {t1} vs {t2}, {i1} vs {i2}"
                    )
                terminated = t1 or t2
                steps += 1
                o1, o2 = observe(theirs, ours, 1000 * episode + steps)
        same_stats = theirs.get_stats() == ours.get_stats()
        problems += not same_stats
        print(
            f"{args.race} {args.n_units}v{args.n_enemies}: {steps} steps, {problems} differences"
            + ("" if same_stats else f"; stats {theirs.get_stats()} vs {ours.get_stats()}")
        )
    finally:
        theirs.close()
        ours.close()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
