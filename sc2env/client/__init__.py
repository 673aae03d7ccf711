"""One websocket connection to one game process: a method per request, status, pipelining, typed errors."""

from sc2env.client.controller import DEFAULT_TIMEOUT_S, Controller, Pending
from sc2env.client.protocol import VALID_STATUSES, Protocol, Status, status_name

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "VALID_STATUSES",
    "Controller",
    "Pending",
    "Protocol",
    "Status",
    "status_name",
]
