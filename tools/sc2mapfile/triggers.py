"""A map script's triggers as data: events, conditions and actions in a small JSON vocabulary.

The trigger editor writes every trigger as three functions: `gt_X_Init` (creates it and adds its events),
`gt_X_Func(testConds, runActions)` (conditions, then actions) and `gf_Y` helpers the actions call. This
reads them back: helpers are inlined, local variables are substituted, and each call the scenarios use is
translated by one table row. A call outside the table is an error naming it, never silently dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .galaxy import (
    Assign,
    Binary,
    Call,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Name,
    Number,
    Return,
    Script,
    Stmt,
    String,
    Unary,
    VarDecl,
)

Json = Any


class ScriptError(ValueError):
    """The script does something this reader cannot express; the message names the call or statement."""


@dataclasses.dataclass(frozen=True)
class Trigger:
    name: str
    events: list[Json]
    conditions: list[Json]
    actions: list[Json]

    def to_json(self) -> Json:
        return {
            "name": self.name,
            "events": self.events,
            "conditions": self.conditions,
            "actions": self.actions,
        }


# Galaxy constants the scenarios use, by the word that stands for them in the JSON.
_CONSTANTS = {
    "true": True,
    "false": False,
    "null": None,
    "c_visTypeFog": "fog",
    "c_visTypeMask": "mask",
    "c_orderQueueReplace": "replace",
    "c_orderQueueAddToEnd": "add_to_end",
    "c_unitCountAlive": "alive",
    "c_timeGame": "game",
    "c_timeReal": "real",
}
_TARGET_FILTER = "c_targetFilter"
_COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}


def _filter_names(expr: Expr) -> set[str]:
    """The target-filter flags of one UnitFilter word: `(1 << c_targetFilterMissile) | ...` -> {"Missile"}."""
    if isinstance(expr, Number) and expr.value == 0:
        return set()
    if isinstance(expr, Binary) and expr.op == "|":
        return _filter_names(expr.left) | _filter_names(expr.right)
    if isinstance(expr, Binary) and expr.op == "<<":
        shift = expr.right
        if isinstance(shift, Binary) and shift.op == "-":  # the high word: (c_targetFilterX - 32)
            shift = shift.left
        if isinstance(shift, Name) and shift.id.startswith(_TARGET_FILTER):
            return {shift.id.removeprefix(_TARGET_FILTER)}
    raise ScriptError(f"unreadable UnitFilter word {expr}")


def _unit_group(name_filter: Json, player: Json, region: Json, unit_filter: Json, max_count: Json) -> Json:
    group: dict[str, Json] = {"player": player, "region": region, **unit_filter}
    if name_filter is not None:
        group["unit_type"] = name_filter
    if max_count:
        group["max_count"] = max_count
    return {"units_of": group}


def _order(command: Json, target: Json) -> Json:
    return {**command, "target": target}


# Value-returning calls: name -> how its translated arguments become a term.
_EXPRESSIONS: dict[str, Callable[..., Json]] = {
    "RegionEntireMap": lambda: "entire_map",
    "UnitGroup": _unit_group,
    "UnitGroupEmpty": lambda: {"empty_group": True},
    "UnitGroupCount": lambda units, which: {"count": {"units": units, "which": which}},
    "UnitGroupClosestToPoint": lambda units, point: {"closest": {"of": units, "to": point}},
    "UnitGetPosition": lambda unit: {"position_of": unit},
    "UnitLastCreated": lambda: "last_created",
    "UnitOrderCount": lambda unit: {"order_count": unit},
    "AbilityCommand": lambda ability, index: {"ability": ability, "command_index": index},
    "OrderTargetingPoint": lambda command, point: _order(command, point),
    "OrderTargetingUnit": lambda command, unit: _order(command, {"unit": unit}),
    "OrderTargetingUnitGroup": lambda command, units: _order(command, {"units": units}),
    "libNtve_gf_RandomPointBetweenPoints": lambda a, b: {"random_point_between": [a, b]},
}


def _spawn(count: Json, unit_type: Json, flags: Json, player: Json, at: Json) -> Json:
    # The default facing is the unit type's own (`Facing` in its data, else 0); the call gives none.
    spawn = {"count": count, "unit_type": unit_type, "player": player, "at": at}
    if flags:
        spawn["flags"] = flags
    return {"spawn": spawn}


# Statement calls: name -> the action it is.
_ACTIONS: dict[str, Callable[..., Json]] = {
    "VisEnable": lambda layer, enabled: {"set_visibility": {"layer": layer, "enabled": enabled}},
    "libNtve_gf_CreateUnitsWithDefaultFacing": _spawn,
    "UnitGroupIssueOrder": lambda units, order, queue: {"order": {"units": units, **order, "queue": queue}},
    "UnitIssueOrder": lambda unit, order, queue: {"order": {"unit": unit, **order, "queue": queue}},
    "UnitGroupClear": lambda group: {"group_clear": group},
    "UnitGroupAdd": lambda group, unit: {"group_add": {"to": group, "unit": unit}},
}

# Event registrations: name -> the event, from the arguments after the trigger.
_EVENTS: dict[str, Callable[..., Json]] = {
    "TriggerAddEventMapInit": lambda: {"map_init": {}},
    "TriggerAddEventUnitDied": lambda unit: {"unit_died": {"unit": "any" if unit is None else unit}},
    "TriggerAddEventTimePeriodic": lambda seconds, clock: {"periodic": {"seconds": seconds, "clock": clock}},
}

_EACH_UNIT = "each_unit"  # the unit a for-each loop is at


@dataclasses.dataclass
class _Scope:
    """What the names in one trigger function stand for while it is read."""

    script: Script
    points: dict[int, str]
    values: dict[str, Json] = dataclasses.field(default_factory=dict)
    loop_units: Json = None  # the group a for-each loop walks, inside its body

    def term(self, expr: Expr) -> Json:
        if isinstance(expr, Number | String):
            return expr.value
        if isinstance(expr, Name):
            return self.name(expr.id)
        if isinstance(expr, Unary) and expr.op == "!":
            return {"not": self.term(expr.operand)}
        if isinstance(expr, Unary) and expr.op == "-" and isinstance(expr.operand, Number):
            return -expr.operand.value
        if isinstance(expr, Binary) and expr.op in ("&&", "||"):
            key = "all" if expr.op == "&&" else "any"
            parts = [self.term(expr.left), self.term(expr.right)]
            return {key: [q for p in parts for q in (p[key] if isinstance(p, dict) and key in p else [p])]}
        if isinstance(expr, Binary) and expr.op in _COMPARISONS:
            return {"compare": [self.term(expr.left), expr.op, self.term(expr.right)]}
        if isinstance(expr, Call):
            return self.call(expr)
        raise ScriptError(f"unreadable expression {expr}")

    def name(self, name: str) -> Json:
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in self.values:
            return self.values[name]
        if self.script.globals.get(name) == "unitgroup":
            return {"group": name.removeprefix("gv_")}
        raise ScriptError(f"{name} has no value here")

    def call(self, call: Call) -> Json:
        if call.function == "PointFromId":
            point_id = self.term(call.args[0])
            if point_id not in self.points:
                raise ScriptError(
                    f"line {call.line}: PointFromId({point_id}) names no point of the Objects file"
                )
            return {"point": self.points[point_id]}
        if call.function == "UnitFilter":
            required = _filter_names(call.args[0]) | _filter_names(call.args[1])
            excluded = _filter_names(call.args[2]) | _filter_names(call.args[3])
            return (
                {"require": sorted(required), "exclude": sorted(excluded)}
                if required
                else {"exclude": sorted(excluded)}
            )
        if call.function == "UnitGroupUnit":
            if self.loop_units is None or self.term(call.args[0]) != self.loop_units:
                raise ScriptError(f"line {call.line}: UnitGroupUnit outside a loop over that group")
            return _EACH_UNIT
        if call.function not in _EXPRESSIONS:
            raise ScriptError(f"line {call.line}: {call.function}(...) is not a call this reader knows")
        return _EXPRESSIONS[call.function](*(self.term(arg) for arg in call.args))

    def actions(self, statements: tuple[Stmt, ...], nested: bool = False) -> list[Json]:
        done: list[Json] = []
        for statement in statements:
            if isinstance(statement, VarDecl):
                continue
            if isinstance(statement, Return):
                if nested or statement is not statements[-1]:
                    # An early return would skip what follows; the JSON vocabulary has no way to say so.
                    raise ScriptError(f"line {statement.line}: a return before the end of the function")
                break
            if isinstance(statement, Assign):
                self.assign(statement)
            elif isinstance(statement, If):
                branch = {
                    "condition": self.term(statement.condition),
                    "then": self.actions(statement.then, True),
                }
                if statement.orelse:
                    branch["else"] = self.actions(statement.orelse, True)
                done.append({"if": branch})
            elif isinstance(statement, For):
                done.append(self.for_each(statement))
            elif isinstance(statement, ExprStmt) and isinstance(statement.expr, Call):
                done += self.action(statement.expr)
            else:
                raise ScriptError(f"line {statement.line}: a statement this reader cannot follow")
        return done

    def assign(self, statement: Assign) -> None:
        if statement.target in self.script.globals:
            raise ScriptError(f"line {statement.line}: an assignment to the global {statement.target}")
        if statement.op == "=":
            self.values[statement.target] = self.term(statement.value)
        elif not (self.loop_units is not None and isinstance(self.values.get(statement.target), int)):
            # Inside a for-each loop an integer that counts up is the loop's index, which "each_unit" stands for.
            raise ScriptError(
                f"line {statement.line}: {statement.target} {statement.op} ... outside a loop index"
            )

    def action(self, call: Call) -> list[Json]:
        helper = self.script.functions.get(call.function)
        if helper is not None and call.function.startswith("gf_"):
            if call.args:
                raise ScriptError(f"line {call.line}: {call.function} takes arguments, which are not read")
            return _Scope(self.script, self.points, {}, self.loop_units).actions(helper.body)
        if call.function not in _ACTIONS:
            raise ScriptError(f"line {call.line}: {call.function}(...) is not an action this reader knows")
        return [_ACTIONS[call.function](*(self.term(arg) for arg in call.args))]

    def for_each(self, loop: For) -> Json:
        """`for (i = 1; i <= UnitGroupCount(g, alive); i += 1) {...UnitGroupUnit(g, i)...}`: each unit of g."""
        counter, condition = loop.init.target, loop.condition
        count = self.term(condition.right) if isinstance(condition, Binary) else None
        if (
            not (isinstance(condition, Binary) and condition.op == "<=" and condition.left == Name(counter))
            or not (isinstance(count, dict) and "count" in count)
            or self.term(loop.init.value) != 1
            or (loop.step.target, loop.step.op, loop.step.value) != (counter, "+=", Number(1))
        ):
            raise ScriptError(f"line {loop.line}: a for loop that does not walk a unit group")
        inner = _Scope(self.script, self.points, dict(self.values), count["count"]["units"])
        inner.values[counter] = 1
        return {"for_each_unit": {"in": count["count"]["units"], "do": inner.actions(loop.body, True)}}


def _trigger_function(script: Script, points: dict[int, str], function: Function) -> tuple[list, list]:
    """(conditions, actions) of one gt_X_Func: `if (testConds) {if (!(C)) return false;}`, then actions."""
    scope = _Scope(script, points)
    conditions: list[Json] = []
    body: list[Stmt] = []
    for statement in function.body:
        if isinstance(statement, If) and statement.condition == Name("testConds"):
            for check in statement.then:
                if not (
                    isinstance(check, If) and isinstance(check.condition, Unary) and check.condition.op == "!"
                ):
                    raise ScriptError(f"line {check.line}: a condition block this reader cannot follow")
                conditions.append(scope.term(check.condition.operand))
        elif isinstance(statement, If) and statement.condition == Unary("!", Name("runActions")):
            continue
        else:
            body.append(statement)
    return conditions, scope.actions(tuple(body))


def read_triggers(script: Script, points: dict[int, str]) -> list[Trigger]:
    """Every trigger InitTriggers creates, in its order, with its events, conditions and actions."""
    init = script.functions.get("InitTriggers")
    if init is None:
        raise ScriptError("the script has no InitTriggers function")
    triggers = []
    for statement in init.body:
        if not (isinstance(statement, ExprStmt) and isinstance(statement.expr, Call)):
            raise ScriptError(f"line {statement.line}: InitTriggers does more than call gt_*_Init functions")
        setup = script.functions[statement.expr.function]
        name = setup.name.removeprefix("gt_").removesuffix("_Init")
        events, function = [], None
        for line in setup.body:
            if (
                isinstance(line, Assign)
                and isinstance(line.value, Call)
                and line.value.function == "TriggerCreate"
            ):
                created = line.value.args[0]
                function = script.functions[created.value] if isinstance(created, String) else None
            elif isinstance(line, ExprStmt) and isinstance(line.expr, Call) and line.expr.function in _EVENTS:
                scope = _Scope(script, points)
                events.append(_EVENTS[line.expr.function](*(scope.term(arg) for arg in line.expr.args[1:])))
            else:
                raise ScriptError(
                    f"line {line.line}: {setup.name} does something other than create and add events"
                )
        if function is None:
            raise ScriptError(f"{setup.name} creates no trigger function")
        conditions, actions = _trigger_function(script, points, function)
        triggers.append(Trigger(name, events, conditions, actions))
    return triggers


def read_groups(script: Script) -> list[str]:
    """The global unit groups the triggers share (`gv_allies` -> "allies")."""
    return sorted(name.removeprefix("gv_") for name, type_ in script.globals.items() if type_ == "unitgroup")
