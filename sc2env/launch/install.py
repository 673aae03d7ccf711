"""Find a StarCraft II install on disk and choose which of its game versions to run."""

from __future__ import annotations

import dataclasses
import os
import pathlib

from sc2env.errors import LaunchError
from sc2env.launch.versions import MIN_API_BUILD, Version, known_version, versions_of_build

DEFAULT_SC2PATH = "~/StarCraftII"
EXECUTABLE = "SC2_x64"
USE_BUILTIN = "or use the built-in engine with engine='builtin' (on the command line: --engine builtin)"


@dataclasses.dataclass(frozen=True)
class Sc2Install:
    """A StarCraft II install: `root` and the runnable `Versions/Base<build>/SC2_x64` it holds."""

    root: pathlib.Path
    executables: dict[int, pathlib.Path]  # build -> SC2_x64, for every build that can be started

    @property
    def builds(self) -> tuple[int, ...]:
        """The installed builds, oldest first."""
        return tuple(sorted(self.executables))

    @property
    def maps_dir(self) -> pathlib.Path:
        return self.root / "Maps"

    @property
    def replays_dir(self) -> pathlib.Path:
        return self.root / "Replays"

    @property
    def libs_dir(self) -> pathlib.Path:
        return self.root / "Libs"

    def map_paths(self) -> list[str]:
        """Every `.SC2Map` under `Maps/`, as the relative paths `RequestCreateGame.local_map` takes."""
        if not self.maps_dir.is_dir():
            return []
        return sorted(p.relative_to(self.maps_dir).as_posix() for p in self.maps_dir.rglob("*.SC2Map"))

    def choose_version(self, requested: str | int | None = None) -> Version:
        """The version to run: the newest build for None/"latest", else the requested build or version.

        A game version ("4.10.0") carries its data version, which the launcher passes as `-dataVersion`;
        a bare build leaves `data_version` None and the game picks its own data for that build.
        """
        if requested is None or requested == "latest":
            newest = max(self.executables)
            self._require_build(newest, f"the newest installed build, {newest},")
            return _version_of_build(newest)
        if isinstance(requested, int) or (isinstance(requested, str) and requested.isdigit()):
            build = int(requested)
            self._require_build(build, f"build {build}")
            return _version_of_build(build)
        if not isinstance(requested, str):
            raise LaunchError(
                f"version must be a game version such as '4.10.0' or a build number, not {requested!r}"
            )
        version = known_version(requested)
        if version is None:
            raise LaunchError(
                f"Unknown StarCraft II version {requested!r}. Installed under {self.root}: "
                f"{self.describe_builds()}; pass one of those, a build number, or None for the newest."
            )
        self._require_build(version.build, f"version {version.game_version}")
        return version

    def describe_builds(self) -> str:
        """The installed builds with their known game versions, e.g. "75689 (4.10.0), 81009 (5.0.1)"."""
        parts = []
        for build in self.builds:
            names = [v.game_version for v in versions_of_build(build) if v.game_version]
            parts.append(f"{build} ({', '.join(names)})" if names else str(build))
        return ", ".join(parts)

    def _require_build(self, build: int, what: str) -> None:
        if build < MIN_API_BUILD:
            raise LaunchError(
                f"{what} predates the SC2 API (it needs build {MIN_API_BUILD}, game 3.16.1, "
                f"or newer); installed: {self.describe_builds()}."
            )
        if build not in self.executables:
            raise LaunchError(
                f"{what} is not installed: no {self.root}/Versions/Base{build:05d}/{EXECUTABLE}. "
                f"Installed: {self.describe_builds()}."
            )


def _version_of_build(build: int) -> Version:
    known = versions_of_build(build)
    # One known version for this build names it; several (data-only patches) or none leave it open.
    game_version = known[0].game_version if len(known) == 1 else None
    return Version(game_version, build, None)


def sc2path_of(sc2path: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """The install root: the argument, else $SC2PATH, else ~/StarCraftII."""
    chosen = sc2path if sc2path is not None else os.environ.get("SC2PATH") or DEFAULT_SC2PATH
    return pathlib.Path(chosen).expanduser()


def find_install(sc2path: str | os.PathLike[str] | None = None) -> Sc2Install:
    """The StarCraft II install at `sc2path`, $SC2PATH or ~/StarCraftII, with its runnable versions."""
    root = sc2path_of(sc2path)
    if not root.is_dir():
        raise LaunchError(f"No StarCraft II under {root}: set SC2PATH to your install, {USE_BUILTIN}.")
    versions_dir = root / "Versions"
    executables: dict[int, pathlib.Path] = {}
    not_executable = []
    entries = sorted(versions_dir.iterdir()) if versions_dir.is_dir() else []
    for entry in entries:
        # Some downloaders write lowercase `base<build>`; accept it as it is rather than renaming.
        name = entry.name
        if not (name[:4].lower() == "base" and name[4:].isdigit()):
            continue
        exe = entry / EXECUTABLE
        if exe.is_file() and os.access(exe, os.X_OK):
            executables.setdefault(int(name[4:]), exe)
        elif exe.exists():
            not_executable.append(exe)
    if not executables:
        hint = f" ({', '.join(map(str, not_executable))} not executable: chmod +x)" if not_executable else ""
        raise LaunchError(
            f"No runnable StarCraft II under {root}: expected {versions_dir}/Base<build>/{EXECUTABLE}{hint}. "
            f"Reinstall the Linux package there, set SC2PATH, {USE_BUILTIN}."
        )
    return Sc2Install(root=root, executables=executables)
