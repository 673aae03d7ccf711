"""The game clock: game loops per game second, and per real second at the "faster" speed games are played at."""

LOOPS_PER_GAME_SECOND = 16
"""Game loops per second of game time: the unit game data gives speeds, cooldowns and timers in (and the clock
the mini-games' timers show)."""
LOOPS_PER_REAL_SECOND = 22.4
"""Game loops per real second at the "faster" speed: what ladder games, realtime mode, APM and replay durations
count in (PySC2's realtime too)."""
LOOPS_PER_REAL_MINUTE = round(60 * LOOPS_PER_REAL_SECOND)
"""1344: the window of the score's collection rates (income per real minute)."""
