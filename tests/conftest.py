"""Fixtures shared by every test area: `../shared` and its real recorded messages, and reference checkouts."""

from __future__ import annotations

import lzma
import os
import pathlib
import signal
import threading

import pytest

SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared"
# SMACv2's repository, unpacked beside the project as ../shared is (its maps are not in ../shared).
SMACV2_REPO = pathlib.Path(os.environ.get("SMACV2_REPO", SHARED.parent / "ref" / "smacv2"))
SMACV2_MAPS = SMACV2_REPO / "smacv2" / "env" / "starcraft2" / "maps" / "SMAC_Maps"

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


@pytest.fixture(scope="session")
def shared_dir() -> pathlib.Path:
    """`../shared` beside the project; tests that need it skip on a user's clone, where it is absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared is absent (it exists only beside the developers' checkout)")
    return SHARED


@pytest.fixture(scope="session")
def smacv2_repo() -> pathlib.Path:
    """SMACv2's repository at $SMACV2_REPO (default ../ref/smacv2); tests that need it skip where it is absent."""
    if not (SMACV2_REPO / "smacv2" / "env" / "starcraft2" / "starcraft2.py").is_file():
        pytest.skip(
            f"SMACv2's repository is not at {SMACV2_REPO} (set SMACV2_REPO to a checkout of oxwhirl/smacv2)"
        )
    return SMACV2_REPO


@pytest.fixture(scope="session")
def smacv2_maps(smacv2_repo) -> pathlib.Path:
    """SMACv2's SMAC_Maps folder in its repository."""
    return SMACV2_MAPS


@pytest.fixture
def ctrl_c():
    """ctrl_c(after_s): a Ctrl-C (SIGINT) to this process after `after_s` seconds; ctrl_c(when=ready): as soon as
    ready() is true (looked at every 10 ms, for a minute at most). Python's handler is put in place for the
    test: a run started in the background (`cmd &` in a script) inherits SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = threading.Event()
    threads = []

    def press(after_s: float = 0.0, when=None) -> None:
        def run() -> None:
            if when is None:
                if done.wait(after_s):
                    return
            else:
                for _ in range(6000):
                    if when():
                        break
                    if done.wait(0.01):
                        return
                else:
                    return
            os.kill(os.getpid(), signal.SIGINT)

        threads.append(threading.Thread(target=run, daemon=True))
        threads[-1].start()

    yield press
    done.set()  # one that has not fired must not interrupt the next test
    for thread in threads:
        thread.join()
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def marked_games(monkeypatch, request):
    """marked_games(): the pids of the processes this test started since (games and their helpers), found by a
    mark in their environment, which they inherit."""
    mark = f"sc2env-test-{os.getpid()}-{request.node.name}"
    monkeypatch.setenv("SC2ENV_TEST_MARK", mark)

    def pids() -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            try:
                if entry.isdigit() and mark.encode() in pathlib.Path(f"/proc/{entry}/environ").read_bytes():
                    found.append(int(entry))
            except OSError:  # gone meanwhile, or not ours to read
                pass
        return found

    return pids


@pytest.fixture(scope="session")
def realdata(shared_dir):
    """Load one recorded message: realdata("pysc2_obs_data1.observation") -> ResponseObservation."""
    from s2clientprotocol import sc2api_pb2 as sc_pb

    kinds = {
        "observation": sc_pb.ResponseObservation,
        "game_info": sc_pb.ResponseGameInfo,
        "data": sc_pb.ResponseData,
    }
    cache: dict[str, object] = {}

    def load(stem: str):
        if stem not in cache:
            path = shared_dir / "realdata" / f"{stem}.pb.xz"
            if not path.exists():
                pytest.skip(f"{path} is absent")
            message = kinds[stem.rsplit(".", 1)[1]]()
            with lzma.open(path) as file:
                message.ParseFromString(file.read())
            cache[stem] = message
        return cache[stem]

    return load


@pytest.fixture
def make_env():
    """make_env(name="MoveToBeacon", **kwargs): gymnasium.make on the built-in engine, closed at teardown.

    `name` is a mini-game (made as "sc2env/<name>-v0") or a full id such as "sc2env/SC2-v0".
    """
    import gymnasium as gym

    import sc2env  # noqa: F401  (registers the ids)

    made = []

    def make(name: str = "MoveToBeacon", **kwargs):
        env = gym.make(name if "/" in name else f"sc2env/{name}-v0", engine="builtin", **kwargs)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()
