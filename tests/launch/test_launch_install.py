"""Finding a StarCraft II install and choosing its version (no processes started)."""

from __future__ import annotations

import pytest
from fake_sc2 import make_fake_install

from sc2env.errors import LaunchError
from sc2env.launch import KNOWN_VERSIONS, Version, find_install, known_version


def test_finds_the_argument_then_sc2path_then_home(tmp_path, monkeypatch):
    by_arg = make_fake_install(tmp_path / "by_arg", builds=(75689,))
    by_env = make_fake_install(tmp_path / "by_env", builds=(81009,))
    home = make_fake_install(tmp_path / "home" / "StarCraftII", builds=(76114,))
    assert find_install().root == home
    monkeypatch.setenv("SC2PATH", str(by_env))
    assert find_install().root == by_env
    assert find_install(by_arg).root == by_arg


def test_missing_install_says_what_to_do(tmp_path):
    with pytest.raises(LaunchError) as raised:
        find_install(tmp_path / "nowhere")
    message = str(raised.value)
    assert str(tmp_path / "nowhere") in message
    assert "set SC2PATH" in message and "engine='builtin'" in message


def test_install_without_versions_is_reported(tmp_path):
    (tmp_path / "Empty" / "Versions").mkdir(parents=True)
    with pytest.raises(LaunchError, match=r"Versions/Base<build>/SC2_x64"):
        find_install(tmp_path / "Empty")


def test_non_executable_binary_is_reported(tmp_path):
    root = make_fake_install(tmp_path / "sc2", executable=False)
    with pytest.raises(LaunchError, match="chmod"):
        find_install(root)


def test_lists_builds_including_lowercase_and_skips_strays(tmp_path):
    root = make_fake_install(tmp_path / "sc2", builds=(75689, 81009))
    lower = root / "Versions" / "base76114"
    lower.mkdir()
    (root / "Versions" / "Base81009" / "SC2_x64").replace(lower / "SC2_x64")
    (root / "Versions" / "Base81009" / "SC2_x64").symlink_to(lower / "SC2_x64")
    (root / "Versions" / "Shaders12345").mkdir()
    (root / "Versions" / "Base99999").mkdir()  # no binary in it
    install = find_install(root)
    assert install.builds == (75689, 76114, 81009)
    assert install.executables[76114] == lower / "SC2_x64"
    assert install.maps_dir == root / "Maps" and install.replays_dir == root / "Replays"
    assert install.libs_dir == root / "Libs"


def test_newest_build_is_the_default(tmp_path):
    install = find_install(make_fake_install(tmp_path / "sc2", builds=(75689, 81009, 76114)))
    # 81009 is exactly one known version; the data version is left to the game for "latest".
    assert install.choose_version() == Version("5.0.1", 81009, None)
    assert install.choose_version("latest") == install.choose_version()


def test_build_with_several_game_versions_stays_unnamed(tmp_path):
    install = find_install(make_fake_install(tmp_path / "sc2", builds=(60321,)))
    assert install.choose_version() == Version(None, 60321, None)


def test_requested_build_as_int_or_digits(tmp_path):
    install = find_install(make_fake_install(tmp_path / "sc2", builds=(75689, 81009)))
    assert install.choose_version(75689) == Version("4.10.0", 75689, None)
    assert install.choose_version("75689") == Version("4.10.0", 75689, None)


def test_requested_game_version_carries_its_data_version(tmp_path):
    install = find_install(make_fake_install(tmp_path / "sc2", builds=(75689, 81009)))
    expected = Version("4.10.0", 75689, "B89B5D6FA7CBF6452E721311BFBC6CB2")
    assert install.choose_version("4.10.0") == expected
    assert install.choose_version("4.10") == expected


def test_unknown_or_missing_versions_list_what_is_installed(tmp_path):
    install = find_install(make_fake_install(tmp_path / "sc2", builds=(75689, 81009)))
    expected = r"Unknown StarCraft II version '9\.9\.9'.*75689 \(4\.10\.0\), 81009 \(5\.0\.1\)"
    with pytest.raises(LaunchError, match=expected):
        install.choose_version("9.9.9")
    with pytest.raises(LaunchError, match=r"version 4\.10\.1 is not installed: no .*Base75800/SC2_x64"):
        install.choose_version("4.10.1")
    with pytest.raises(LaunchError, match=r"build 76114 is not installed"):
        install.choose_version(76114)
    with pytest.raises(LaunchError, match="predates the SC2 API"):
        install.choose_version(52910)
    with pytest.raises(LaunchError, match="game version such as"):
        install.choose_version(4.10)


def test_an_install_with_only_builds_older_than_the_api_is_refused_by_default(tmp_path):
    install = find_install(make_fake_install(tmp_path / "sc2", builds=(52910,)))
    for default in (None, "latest"):  # refused only when named, it used to be launched when newest
        with pytest.raises(LaunchError, match="the newest installed build, 52910, predates the SC2 API"):
            install.choose_version(default)


def test_map_paths_are_relative_to_maps(tmp_path):
    root = make_fake_install(tmp_path / "sc2")
    (root / "Maps" / "mini_games" / "MoveToBeacon.SC2Map").write_bytes(b"MPQ")
    (root / "Maps" / "Ladder.SC2Map").write_bytes(b"MPQ")
    (root / "Maps" / "notes.txt").write_text("not a map")
    assert find_install(root).map_paths() == ["Ladder.SC2Map", "mini_games/MoveToBeacon.SC2Map"]


def test_version_table_is_consistent():
    assert known_version("4.10.0") == Version("4.10.0", 75689, "B89B5D6FA7CBF6452E721311BFBC6CB2")
    assert known_version("1.0") is None
    names = [v.game_version for v in KNOWN_VERSIONS]
    assert len(names) == len(set(names))
    assert all(len(v.data_version) == 32 and int(v.data_version, 16) >= 0 for v in KNOWN_VERSIONS)
    assert [v.build for v in KNOWN_VERSIONS] == sorted(v.build for v in KNOWN_VERSIONS)
