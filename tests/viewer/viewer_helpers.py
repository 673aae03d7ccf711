"""Event builders and a synthetic game_info for the viewer tests."""

from __future__ import annotations

import pygame
from s2clientprotocol import sc2api_pb2 as sc_pb


def game_info(size=(64, 64), playable=(22, 20, 44, 36), name="Synthetic") -> sc_pb.ResponseGameInfo:
    """A minimal ResponseGameInfo: map size and playable area, no grids."""
    info = sc_pb.ResponseGameInfo(map_name=name)
    info.start_raw.map_size.x, info.start_raw.map_size.y = size
    area = info.start_raw.playable_area
    area.p0.x, area.p0.y, area.p1.x, area.p1.y = playable
    return info


def key(name: str, mod: int = 0) -> pygame.event.Event:
    code = pygame.key.key_code(name)
    return pygame.event.Event(
        pygame.KEYDOWN, key=code, mod=mod, unicode=name if len(name) == 1 else "", scancode=0
    )


def click(pos, button: int = 1) -> list[pygame.event.Event]:
    return [
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=tuple(map(int, pos)), button=button),
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=tuple(map(int, pos)), button=button),
    ]


def drag(start, end) -> list[pygame.event.Event]:
    start, end = tuple(map(int, start)), tuple(map(int, end))
    return [
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=start, button=1),
        pygame.event.Event(pygame.MOUSEMOTION, pos=end, rel=(0, 0), buttons=(1, 0, 0)),
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=end, button=1),
    ]
