"""pygame, imported without its greeting line (it would land in the command line's output)."""

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

__all__ = ["pygame"]
