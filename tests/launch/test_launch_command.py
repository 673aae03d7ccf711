"""Engine selection and the command line and environment of a game process (no processes started)."""

from __future__ import annotations

import ctypes.util
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import sc2env
from sc2env.errors import LaunchError
from sc2env.launch import BUILTIN_VERSION, LaunchConfig, plan_launch
from sc2env.run_engine import engine_command

SOURCE_ROOT = pathlib.Path(sc2env.__file__).resolve().parents[1]


def test_builtin_engine_is_started_like_sc2_x64(tmp_path):
    plan = plan_launch(LaunchConfig(engine="builtin"))
    argv = plan.argv(5123, tmp_path / "t")
    assert argv == [
        *engine_command(sys.executable),
        "-listen",
        "127.0.0.1",
        "-port",
        "5123",
        "-dataDir",
        str(SOURCE_ROOT / "maps"),
        "-tempDir",
        str(tmp_path / "t"),
    ]
    assert plan.engine == "builtin" and plan.version == BUILTIN_VERSION and plan.install is None
    assert plan.env["PYTHONUNBUFFERED"] == "1"
    # The engine process imports the same sc2env as this one, from whatever working directory.
    assert plan.env["PYTHONPATH"].split(os.pathsep)[0] == str(SOURCE_ROOT)


def test_spin_wait_off_reaches_the_builtin_engine_only(fake_install, tmp_path):
    assert plan_launch(LaunchConfig(engine="builtin", spin_wait=False)).argv(1, tmp_path)[-2:] == [
        "--spin-wait",
        "0",
    ]
    assert "--spin-wait" not in plan_launch(LaunchConfig(engine="builtin")).argv(1, tmp_path)
    assert "--spin-wait" not in plan_launch(
        LaunchConfig(engine="sc2", sc2path=fake_install, spin_wait=False)
    ).argv(1, tmp_path)


def test_sc2_command_line_and_library_path(fake_install, tmp_path, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/gl")
    plan = plan_launch(LaunchConfig(engine="sc2", sc2path=fake_install, extra_args=["-verbose"]))
    exe = fake_install / "Versions" / "Base75689" / "SC2_x64"
    assert plan.argv(5124, tmp_path / "t") == [
        str(exe),
        "-listen",
        "127.0.0.1",
        "-port",
        "5124",
        "-dataDir",
        str(fake_install),
        "-tempDir",
        str(tmp_path / "t"),
        "-verbose",
    ]
    assert plan.env["LD_LIBRARY_PATH"] == f"/opt/gl:{fake_install}/Libs/"


def test_sc2_library_path_without_a_previous_one(fake_install, monkeypatch):
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    env = plan_launch(LaunchConfig(engine="sc2", sc2path=fake_install)).env
    assert env["LD_LIBRARY_PATH"] == f"{fake_install}/Libs/"


def test_requested_game_version_passes_its_data_version(fake_install, tmp_path):
    argv = plan_launch(LaunchConfig(engine="sc2", sc2path=fake_install, version="4.10.0")).argv(1, tmp_path)
    assert argv[argv.index("-dataVersion") + 1] == "B89B5D6FA7CBF6452E721311BFBC6CB2"
    latest = plan_launch(LaunchConfig(engine="sc2", sc2path=fake_install))
    assert "-dataVersion" not in latest.argv(1, tmp_path)
    builtin = plan_launch(LaunchConfig(engine="builtin", version="4.10.0")).argv(1, tmp_path)
    assert builtin[builtin.index("-dataVersion") + 1] == BUILTIN_VERSION.data_version


def test_ipv6_host_adds_the_flag(fake_install, tmp_path):
    argv = plan_launch(LaunchConfig(engine="sc2", sc2path=fake_install, host="::1")).argv(1, tmp_path)
    assert argv[argv.index("-listen") + 1] == "::1" and "-ipv6" in argv


def test_render_asks_sc2_for_a_gl_library(fake_install, tmp_path, monkeypatch):
    libraries = {"EGL": None, "OSMesa": "libOSMesa.so.8"}
    monkeypatch.setattr(ctypes.util, "find_library", libraries.get)
    cfg = LaunchConfig(engine="sc2", sc2path=fake_install, render=True)
    assert plan_launch(cfg).argv(1, tmp_path)[-2:] == ["-osmesapath", "libOSMesa.so.8"]
    libraries["EGL"] = "libEGL.so.1"
    assert plan_launch(cfg).argv(1, tmp_path)[-2:] == ["-eglpath", "libEGL.so.1"]
    libraries.update(EGL=None, OSMesa=None)
    assert plan_launch(cfg).argv(1, tmp_path)[-1] == "-headlessNoRender"
    # The built-in engine draws RGB itself: no GL flags.
    builtin = plan_launch(LaunchConfig(engine="builtin", render=True)).argv(1, tmp_path)
    assert not {"-eglpath", "-osmesapath", "-headlessNoRender"} & set(builtin)


def test_engine_selection_argument_then_env_then_auto(fake_install, monkeypatch):
    monkeypatch.setenv("SC2PATH", str(fake_install))
    assert plan_launch(LaunchConfig()).engine == "sc2"  # auto prefers a real install
    monkeypatch.setenv("SC2ENV_ENGINE", "builtin")
    assert plan_launch(LaunchConfig()).engine == "builtin"
    monkeypatch.setenv("SC2ENV_ENGINE", " BuiltIn")  # a shell setting typed by hand
    assert plan_launch(LaunchConfig()).engine == "builtin"
    assert plan_launch(LaunchConfig(engine="sc2")).engine == "sc2"
    assert plan_launch(LaunchConfig(engine="auto")).engine == "sc2"


def test_auto_without_an_install_uses_the_builtin_engine():
    assert plan_launch(LaunchConfig(engine="auto")).engine == "builtin"
    assert plan_launch(LaunchConfig()).engine == "builtin"


def test_auto_with_a_broken_named_install_is_an_error(tmp_path, monkeypatch):
    with pytest.raises(LaunchError, match=r"No StarCraft II under .*nowhere.*engine='auto'"):
        plan_launch(LaunchConfig(engine="auto", sc2path=tmp_path / "nowhere"))
    monkeypatch.setenv("SC2PATH", str(tmp_path / "nowhere"))
    with pytest.raises(LaunchError, match="nowhere"):
        plan_launch(LaunchConfig())


def test_unknown_engine_names_its_source(monkeypatch):
    with pytest.raises(LaunchError, match=r"engine='sc3'.*auto, builtin, sc2"):
        plan_launch(LaunchConfig(engine="sc3"))
    monkeypatch.setenv("SC2ENV_ENGINE", "fast")
    with pytest.raises(LaunchError, match=r"\$SC2ENV_ENGINE='fast'"):
        plan_launch(LaunchConfig())


@pytest.mark.parametrize(
    "field, value, message",
    [
        (
            "port",
            "5000",
            "port must be a port number, not '5000'",
        ),  # was a TypeError from comparing str and int
        ("port", True, "port must be a port number, not True"),
        ("timeout_s", "30", "timeout_s must be a number of seconds"),
        ("extra_args", None, "extra_args must be a sequence of flags, not None"),
        ("spin_wait", "no", "spin_wait must be True or False, not 'no'"),  # was taken as True
        (
            "sc2path",
            123,
            r"sc2path must be a path \(str or pathlib.Path\), not 123",
        ),  # was a TypeError at launch
        ("host", None, "host must be a host name or address, not None"),
    ],
)
def test_a_launch_option_of_the_wrong_type_is_named(field, value, message):
    with pytest.raises(LaunchError, match=message):
        LaunchConfig(**{field: value})


def test_numpy_numbers_are_launch_options_too():
    config = LaunchConfig(port=np.int64(5000), timeout_s=np.float32(2.5), version=np.int64(75689))
    assert type(config.port) is int and type(config.timeout_s) is float and config.timeout_s == 2.5
    assert type(config.version) is int  # the install's check takes only Python ints


def test_sc2_engine_without_install_says_what_to_do():
    with pytest.raises(LaunchError, match=r"set SC2PATH.*engine='builtin'"):
        plan_launch(LaunchConfig(engine="sc2"))


@pytest.mark.parametrize("version", [None, "latest", "4.10.0", "4.10", 75689, "75689"])
def test_builtin_engine_accepts_its_own_version(version):
    assert plan_launch(LaunchConfig(engine="builtin", version=version)).version == BUILTIN_VERSION


@pytest.mark.parametrize("version", ["5.0.11", 81009, "nonsense"])
def test_builtin_engine_refuses_other_versions(version):
    expected = r"built-in engine provides only StarCraft II 4\.10\.0 \(build 75689\)"
    with pytest.raises(LaunchError, match=expected):
        plan_launch(LaunchConfig(engine="builtin", version=version))


def test_config_validation():
    with pytest.raises(LaunchError, match="timeout_s"):
        LaunchConfig(timeout_s=0)
    with pytest.raises(LaunchError, match="port"):
        LaunchConfig(port=70000)
    with pytest.raises(LaunchError, match="sequence of flags"):
        LaunchConfig(extra_args="-verbose")
    assert LaunchConfig(extra_args=["-a", 1]).extra_args == ("-a", "1")
    default = LaunchConfig()
    assert (default.readiness_timeout_s("builtin"), default.readiness_timeout_s("sc2")) == (30, 120)
    assert LaunchConfig(timeout_s=7).readiness_timeout_s("sc2") == 7


def test_client_side_imports_the_engine_only_to_play_it_in_process():
    # Every client-side package, and a whole env played over a socket for a step with rendering, without
    # sc2env.engine; the same env in direct mode loads it, through the one module that plays it in-process.
    code = (
        "import os, sys; os.environ['SDL_VIDEODRIVER'] = 'dummy'\n"
        "import gymnasium as gym, sc2env, sc2env.launch, sc2env.client, sc2env.interface, sc2env.game, "
        "sc2env.env, sc2env.agents, sc2env.viewer, sc2env.cli\n"
        "print([m for m in sys.modules if m.startswith('sc2env.engine')])\n"
        "env = gym.make('sc2env/MoveToBeacon-v0', engine='builtin', render_mode='rgb_array', "
        "screen_size=16, minimap_size=16, direct=sys.argv[1] == 'direct')\n"
        "env.reset(seed=0); env.step(env.action_space.sample()); env.render(); env.close()\n"
        "print([m for m in sys.modules if m.startswith('sc2env.engine')])"
    )
    for mode in ("socket", "direct"):
        result = subprocess.run(
            [sys.executable, "-c", code, mode], capture_output=True, text=True, check=True, timeout=120
        )
        imported, played = result.stdout.strip().splitlines()[-2:]
        assert imported == "[]"
        assert (played == "[]") == (mode == "socket")
        assert mode == "socket" or "'sc2env.engine.inprocess'" in played
    package = pathlib.Path(sc2env.__file__).parent
    naming_the_engine = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.parts[len(package.parts)] not in ("engine", "gamedata", "__main__.py", "run_engine.py")
        and re.search(r"^\s*(from|import) sc2env\.engine", path.read_text(), re.MULTILINE)
    )
    assert naming_the_engine == ["client/direct.py"]
