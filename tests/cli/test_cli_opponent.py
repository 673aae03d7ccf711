"""`sc2env run --opponent` and `sc2env play --opponent` on the duel maps, over real sockets."""

from __future__ import annotations

import threading
import time

import pytest

from sc2env.cli import main

BUILTIN = ["--engine", "builtin", "--screen-size", "24", "--minimap-size", "24", "--step-mul", "16"]


def run_cli(capsys, *args):
    code = main(["sc2env", *args])
    out, err = capsys.readouterr()
    return code, out, err


def table_row(out: str, map_name: str) -> list[str]:
    (row,) = [line for line in out.splitlines() if line.startswith(map_name)]
    return row.split()


@pytest.mark.parametrize("opponent", ["computer:easy", "Computer:MediumHard", "random", "scripted"])
def test_run_plays_a_duel_against_the_opponent_and_counts_the_results(capsys, opponent):
    code, out, err = run_cli(
        capsys,
        "run",
        "--map",
        "DuelMarines",
        "--agent",
        "scripted",
        "--opponent",
        opponent,
        "--episodes",
        "2",
        *BUILTIN,
    )
    assert code == 0, err
    header = out.splitlines()[0].split()
    assert header[-4:] == ["opponent", "won", "lost", "tied"]
    row = table_row(out, "DuelMarines")
    assert row[-4] == opponent
    assert sum(int(n) for n in row[-3:]) == 2  # each episode won, lost or tied


def test_run_on_a_duel_map_names_the_default_opponent(capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "--map",
        "DuelMarines",
        "--agent",
        "random",
        "--max-steps",
        "5",
        "--seed",
        "1",
        *BUILTIN,
    )
    assert code == 0, err
    assert table_row(out, "DuelMarines")[-4] == "computer:very_easy"


def test_run_on_mini_games_keeps_its_table(capsys):
    code, out, err = run_cli(capsys, "run", "--map", "MoveToBeacon", "--max-steps", "5", *BUILTIN)
    assert code == 0, err
    assert "opponent" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--map", "MoveToBeacon", "--opponent", "computer:easy"], "single-player mini-game"),
        (["--map", "DuelMarines", "--opponent", "computer:godlike"], "very_easy, easy, medium"),
        (["--map", "DuelMarines", "--opponent", "nobody"], "unknown agent"),
    ],
)
def test_bad_opponents_are_usage_errors_before_any_game(capsys, args, message):
    code, _, err = run_cli(capsys, "run", *args, *BUILTIN)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_play_against_the_computer_in_the_window_until_it_closes(capsys):
    import pygame

    def close_the_window():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            pygame.display.get_init() and pygame.display.get_surface()
        ):
            time.sleep(0.05)
        time.sleep(0.5)
        pygame.event.post(pygame.event.Event(pygame.QUIT))

    closer = threading.Thread(target=close_the_window)
    closer.start()
    code, out, err = run_cli(
        capsys, "play", "--map", "DuelMarines", "--opponent", "computer:easy", *BUILTIN[:2]
    )
    closer.join()
    assert code == 0, err
    assert "DuelMarines episode 1: unfinished when the window closed" in out


def test_play_refuses_an_opponent_on_a_mini_game(capsys):
    code, _, err = run_cli(
        capsys, "play", "--map", "MoveToBeacon", "--opponent", "computer:easy", *BUILTIN[:2]
    )
    assert code == 2 and "single-player mini-game" in err
