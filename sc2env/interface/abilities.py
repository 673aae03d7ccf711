"""Lookups between game abilities and functions: what an available ability offers, what an action was."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from enum import Enum
from types import MappingProxyType

from sc2env.interface.functions import FUNCTIONS, FunctionKind

# An available ability with requires_point offers the point forms; without it, the quick form. Autocast
# toggles are offered either way.
OFFERED_KINDS = {
    True: (FunctionKind.SCREEN, FunctionKind.MINIMAP, FunctionKind.AUTOCAST),
    False: (FunctionKind.QUICK, FunctionKind.AUTOCAST),
}


class AbilityIndex:
    """Precomputed ability lookups of one function table (the feature-layer or the raw one) under one
    `hide_specific_actions` setting (immutable once built)."""

    def __init__(
        self,
        hide_specific_actions: bool,
        functions: Iterable = FUNCTIONS,
        offered_kinds: Mapping[bool, tuple[Enum, ...]] = OFFERED_KINDS,
    ):
        functions = [f for f in functions if f.ability_id]
        by_ability: dict[int, list] = defaultdict(list)
        for f in functions:
            by_ability[f.ability_id].append(f)
        general_of = {f.ability_id: f.general_id for f in functions}
        by_kind = {(f.ability_id, f.kind): f.id for f in functions}
        all_kinds = {f.kind for f in functions}

        offered: dict[tuple[int, bool], tuple[int, ...]] = {}
        for ability_id, funcs in by_ability.items():
            for requires_point, kinds in offered_kinds.items():
                ids: list[int] = []
                for f in funcs:
                    if f.kind not in kinds:
                        continue
                    if not f.general_id or not hide_specific_actions:
                        ids.append(f.id)
                    if f.general_id and (f.general_id, f.kind) in by_kind:
                        ids.append(by_kind[f.general_id, f.kind])  # the general form is always offered
                offered[ability_id, requires_point] = tuple(sorted(set(ids)))

        reverse: dict[tuple[int, Enum], int] = dict(by_kind)
        if hide_specific_actions:
            # A specific ability reads back as its general one in whatever form the action has, even one the
            # specific ability has no function of (a Burrow-up autocast, a minimap Attack_Redirect), as PySC2.
            for ability_id, general in general_of.items():
                if general:
                    for kind in all_kinds:
                        if (general, kind) in by_kind:
                            reverse[ability_id, kind] = by_kind[general, kind]

        self.hide_specific_actions = hide_specific_actions
        self.offered: Mapping[tuple[int, bool], tuple[int, ...]] = MappingProxyType(offered)
        """(ability id, requires_point) -> the function ids an available ability makes available."""
        self.reverse: Mapping[tuple[int, Enum], int] = MappingProxyType(reverse)
        """(ability id, kind) -> the function id an action with that ability reads back as."""


ABILITY_INDEX = MappingProxyType({hide: AbilityIndex(hide) for hide in (True, False)})
"""The two precomputed indexes, by `hide_specific_actions`."""
