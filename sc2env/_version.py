"""sc2env's version, the one place it is written (pyproject.toml and sc2env.__version__ read it here)."""

__version__ = "0.1.0"
