"""Commands and their options: each command's options are a typed dataclass whose fields declare them.

A field's type says what the option takes (bool: a switch with its --no- form; int: a whole number; str:
text; tuple[str, ...]: comma-separated names), `option(...)` its default, help, value name and bounds. One
generic routine builds the argparse parser and the help from those declarations, and turns the words of
the command line into the dataclass, with errors that name the option and what it expected.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import enum
import re
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

_SPEC = "sc2env.cli.option"


class UsageError(ValueError):
    """A value the command line gave that no run could use: exit status 2."""


@dataclasses.dataclass(frozen=True)
class Spec:
    """What the help says of an option, and the bounds of a whole number."""

    help: str
    metavar: str = ""
    at_least: int | None = None
    at_most: int | None = None
    choices: tuple[str, ...] = ()
    argument: bool = False
    """Also taken as the command's one argument, without the flag (`sc2env replay FILE`)."""


def option(
    default: Any,
    help: str,
    *,
    metavar: str = "",
    at_least: int | None = None,
    at_most: int | None = None,
    choices: tuple[str, ...] = (),
    argument: bool = False,
) -> Any:
    """Declare an option: the default of a dataclass field, with what the parser and the help need."""
    spec = Spec(help, metavar, at_least, at_most, choices, argument)
    return dataclasses.field(default=default, metadata={_SPEC: spec})


@dataclasses.dataclass(frozen=True)
class Options:
    """The options every command takes; each command's options extend them."""

    verbose: bool = option(False, "log what happens, and show the traceback of an error")
    given: frozenset[str] = frozenset()
    """Not an option: the fields the command line set (an agent's own settings may not contradict them)."""


OptionsT = TypeVar("OptionsT", bound=Options)


@dataclasses.dataclass(frozen=True)
class Command(Generic[OptionsT]):
    """One command: its name, a line saying what it does, its options and the function that runs it."""

    name: str
    summary: str
    options: type[OptionsT]
    run: Callable[[OptionsT], int]
    epilog: str = ""


class Kind(enum.Enum):
    """What an option takes, from its field's type."""

    SWITCH = "switch"
    WHOLE = "a whole number"
    TEXT = "text"
    NAMES = "comma-separated names"
    CHOICE = "one of its choices"


@dataclasses.dataclass(frozen=True)
class Declared:
    """One option as the parser and the help see it."""

    field: str
    spec: Spec
    kind: Kind
    default: Any

    @property
    def flag(self) -> str:
        return "--" + self.field.replace("_", "-")

    @property
    def metavar(self) -> str:
        if self.spec.metavar:
            return self.spec.metavar
        return "{" + ",".join(self.spec.choices) + "}" if self.spec.choices else "VALUE"


def declared(cls: type[Options]) -> list[Declared]:
    """The options of `cls` in help order: its own fields first, then those every command takes."""
    hints = typing.get_type_hints(cls)
    found = [
        Declared(f.name, f.metadata[_SPEC], _kind(hints[f.name], f.metadata[_SPEC]), f.default)
        for f in dataclasses.fields(cls)
        if _SPEC in f.metadata
    ]
    common = {f.name for f in dataclasses.fields(Options)}
    return [d for d in found if d.field not in common] + [d for d in found if d.field in common]


def _kind(hint: Any, spec: Spec) -> Kind:
    if spec.choices:
        return Kind.CHOICE
    base = hint
    if typing.get_origin(hint) in (typing.Union, types.UnionType):  # X | None: X
        (base,) = [t for t in typing.get_args(hint) if t is not type(None)]
    if base is bool:
        return Kind.SWITCH
    if base is int:
        return Kind.WHOLE
    if base is str:
        return Kind.TEXT
    if typing.get_origin(base) is tuple:
        return Kind.NAMES
    raise TypeError(f"an option of type {hint} has no kind")


def parse(command: Command[OptionsT], words: Sequence[str]) -> OptionsT:
    """The options the words after the command's name give; UsageError says what is wrong with them."""
    options = declared(command.options)
    parser = _parser(command, options)
    namespace, extra = parser.parse_known_args(list(words))
    unknown = [word for word in extra if word.startswith("-") and word != "-"]
    if unknown:
        raise UsageError(_unknown_flag(unknown[0], options))
    arguments = [*namespace.arguments, *(word for word in extra if word not in unknown)]
    raw = {d.field: getattr(namespace, d.field) for d in options}
    takes = [d for d in options if d.spec.argument]
    if takes and len(arguments) == 1 and raw[takes[0].field] is None:
        raw[takes[0].field] = arguments.pop()
    if arguments:
        raise UsageError(f"unexpected argument(s) {' '.join(arguments)}")
    values = {d.field: value(d, raw[d.field]) for d in options}
    given = frozenset(field for field, text in raw.items() if text is not None)
    return command.options(**values, given=given)


def value(option: Declared, text: str | bool | None) -> Any:
    """What the option's words on the command line stand for (its default when it was not given)."""
    if text is None:
        return option.default
    if isinstance(text, bool) or option.kind is Kind.TEXT:
        return text
    if option.kind is Kind.NAMES:  # "" is no name at all; a stray comma is an empty one, for the command
        return tuple(name.strip() for name in text.split(",")) if text.strip() else ()
    if option.kind is Kind.CHOICE:
        if text not in option.spec.choices:
            raise UsageError(f"{option.flag}: expected one of {', '.join(option.spec.choices)}, got {text!r}")
        return text
    if not re.fullmatch(r"\s*[-+]?\d+\s*", text):
        raise UsageError(f"{option.flag}: expected a whole number, got {text!r}")
    number, low, high = int(text), option.spec.at_least, option.spec.at_most
    if (low is not None and number < low) or (high is not None and number > high):
        raise UsageError(f"{option.flag}={text.strip()}: {number} is not {_range(low, high)}")
    return number


def _range(low: int | None, high: int | None) -> str:
    """The whole numbers an option takes, in words (as absl's flags said them)."""
    if low is not None and high is not None:
        return f"an integer in the range [{low}, {high}]"
    if high is not None:
        return f"integer <= {high}"
    return {1: "a positive integer", 0: "a non-negative integer"}.get(low or 0, f"integer >= {low}")


def _unknown_flag(word: str, options: list[Declared]) -> str:
    name = word.lstrip("-").partition("=")[0]
    flags = [d.flag for d in options] + [f"--no-{d.flag[2:]}" for d in options if d.kind is Kind.SWITCH]
    close = difflib.get_close_matches(f"--{name}", flags, n=1)
    return f"Unknown command line flag {name!r}" + (f": did you mean {close[0]}?" if close else "")


_ARGPARSE_WORDS = (
    (re.compile(r"argument (--[\w-]+).*: expected one argument"), r"\1: expected a value"),
    (re.compile(r"argument (--[\w-]+).*: ignored explicit argument (.*)"), r"\1 takes no value, got \2"),
)
"""argparse's messages that our words say better: pattern, replacement."""


class _Parser(argparse.ArgumentParser):
    """argparse without its exits: a mistake is a UsageError, for the command to report as all its errors."""

    def error(self, message: str) -> typing.NoReturn:
        for pattern, words in _ARGPARSE_WORDS:
            if pattern.fullmatch(message):
                raise UsageError(pattern.sub(words, message))
        raise UsageError(message.removeprefix("argument "))


def _parser(command: Command[Any], options: list[Declared]) -> argparse.ArgumentParser:
    takes = next((d.metavar + " " for d in options if d.spec.argument), "")
    parser = _Parser(
        prog=f"sc2env {command.name}",
        usage=f"sc2env {command.name} {takes}[--flags]",
        description=command.summary[0].upper() + command.summary[1:] + ".",
        epilog=command.epilog or None,
        add_help=False,
        allow_abbrev=False,  # a script's --epi would change meaning the day another flag starts so
        formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, max_help_position=28),
    )
    flags = parser.add_argument_group("flags")
    for d in options:
        described = _help(d).replace("%", "%%")  # argparse formats the help with %
        if d.kind is Kind.SWITCH:
            flags.add_argument(d.flag, dest=d.field, action=argparse.BooleanOptionalAction, help=described)
        else:
            flags.add_argument(d.flag, dest=d.field, metavar=d.metavar, help=described)
    flags.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    parser.add_argument("arguments", nargs="*", help=argparse.SUPPRESS)
    return parser


def _help(option: Declared) -> str:
    default = option.default
    if default is None or default is False or default == ():
        return option.spec.help
    shown = ",".join(default) if isinstance(default, tuple) else "on" if default is True else default
    return f"{option.spec.help} (default: {shown})"


def help_text(command: Command[Any]) -> str:
    """The command's help: usage, what it does, its flags with their value names and defaults."""
    return _parser(command, declared(command.options)).format_help()
