"""Package list for setuptools: `sc2env` plus the top-level `maps/` shipped as `sc2env.maps`."""

from setuptools import find_namespace_packages, find_packages, setup

setup(
    packages=find_packages(include=["sc2env", "sc2env.*"])
    + ["sc2env.maps"]
    + [f"sc2env.maps.{p}" for p in find_namespace_packages(where="maps")],
)
