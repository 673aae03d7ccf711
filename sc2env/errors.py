"""The typed errors sc2env raises; each message says what went wrong and what to do about it."""

from __future__ import annotations

import builtins

from sc2env.shadowed import check_package

# Every part of sc2env imports this module: a folder standing in for the package is named here, at once.
check_package()


class SC2EnvError(Exception):
    """Base class of every error sc2env raises on purpose."""


class LaunchError(SC2EnvError):
    """A game process could not be found, started, or did not become ready."""


class UnknownMapError(LaunchError):
    """No map has that name: neither a mini-game nor a map of the StarCraft II install."""


# Shadows the builtin on purpose (the design's name); it subclasses the builtin, so either catches it.
class ConnectionError(SC2EnvError, builtins.ConnectionError):
    """The websocket to a game process failed: refused, dropped, or a malformed frame."""


class RequestTimeoutError(ConnectionError, builtins.TimeoutError):
    """A request got no answer within its deadline."""


class GameCrashedError(ConnectionError):
    """The game process died while we were talking to it."""


class PlayerJoinError(GameCrashedError):
    """One player of a game of two agents could not join (or restart) it: both players' games were stopped
    at once, rather than the other player waiting out its timeout, and the next reset() starts both anew."""


class ProtocolError(SC2EnvError):
    """The game answered with `Response.error`, or a request is invalid in the current protocol status."""


class RequestError(SC2EnvError):
    """A typed sub-response error, e.g. `ResponseCreateGame.error = MissingMap`.

    `error` is the enum name and `details` the game's `error_details` text.
    """

    def __init__(self, message: str, *, request: str = "", error: str = "", details: str = ""):
        super().__init__(message)
        self.request = request
        self.error = error
        self.details = details


class InvalidActionError(SC2EnvError, ValueError):
    """An action that cannot be sent: unknown function, unavailable now, or a bad argument."""


class MalformedActionError(InvalidActionError):
    """An action vector that is no element of the action space (wrong type or shape, a component out of its
    range): a bug in the caller, so SC2Env raises it even under invalid_action="noop"."""
