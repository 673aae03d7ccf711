"""Controller test fixtures: a websocket server in a thread (see stub_game.py) and the fake install."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import threading

import pytest
from websockets.sync.server import serve


def _load_fake_sc2():
    """The fake StarCraft II install helper that lives with the launcher tests."""
    if "fake_sc2" not in sys.modules:
        path = pathlib.Path(__file__).resolve().parents[1] / "launch" / "fake_sc2.py"
        spec = importlib.util.spec_from_file_location("fake_sc2", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["fake_sc2"] = module
        spec.loader.exec_module(module)
    return sys.modules["fake_sc2"]


_fake_sc2 = _load_fake_sc2()
clean_env, fake_install, start = _fake_sc2.clean_env, _fake_sc2.fake_install, _fake_sc2.start


@pytest.fixture
def serve_game():
    """serve_game(handler) -> url of a websocket endpoint that runs `handler(connection)` per client."""
    servers = []

    def start_server(handler) -> str:
        server = serve(handler, "127.0.0.1", 0, max_size=None)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append((server, handler))
        return f"ws://127.0.0.1:{server.socket.getsockname()[1]}/sc2api"

    yield start_server
    for server, handler in servers:
        if hasattr(handler, "stop"):
            handler.stop.set()
        server.shutdown()
