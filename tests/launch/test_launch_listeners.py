"""Who listens on a port: what keeps a launch from taking another program's game for its own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import portpicker
import pytest
from fake_sc2 import wait_until

from sc2env.launch.listeners import Listener, port_listener

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="needs Linux /proc")


@pytest.fixture
def listening():
    sockets = []

    def listen(family=socket.AF_INET, host="127.0.0.1") -> int:
        sock = socket.socket(family)
        sockets.append(sock)
        sock.bind((host, 0))
        sock.listen()
        return sock.getsockname()[1]

    yield listen
    for sock in sockets:
        sock.close()


@pytest.mark.parametrize("family, host", [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")])
def test_a_socket_the_process_listens_on_is_its_own(listening, family, host):
    assert port_listener(listening(family, host), os.getpid()) is Listener.OURS


def test_a_port_nobody_listens_on_is_free_whoever_asks(listening):
    port = portpicker.pick_unused_port()
    assert port_listener(port, os.getpid()) is Listener.NONE
    bound = socket.socket()  # bound but not listening (what portpicker's own check does): still nobody's
    try:
        bound.bind(("127.0.0.1", port))
        assert port_listener(port, os.getpid()) is Listener.NONE
    finally:
        bound.close()


def test_a_socket_another_process_listens_on_is_foreign(listening):
    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        assert port_listener(listening(), sleeper.pid) is Listener.FOREIGN
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_game_a_wrapper_started_in_its_group_is_ours(tmp_path):
    # An SC2_x64 that is a script starting the real binary as its child: the listener is in the group.
    port = portpicker.pick_unused_port()
    listener = (
        f"import socket, time; s = socket.create_server(('127.0.0.1', {port})); "
        f"open({str(tmp_path / 'up')!r}, 'w').close(); time.sleep(60)"
    )
    wrapper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; subprocess.run([sys.executable, '-c', {listener!r}])",
        ],
        start_new_session=True,
    )
    try:
        assert wait_until(lambda: (tmp_path / "up").exists(), timeout_s=30)
        assert port_listener(port, wrapper.pid) is Listener.OURS
        assert port_listener(port, os.getpid()) is Listener.FOREIGN  # not in our group (its own session)
    finally:
        os.killpg(wrapper.pid, 9)
        wrapper.wait()
