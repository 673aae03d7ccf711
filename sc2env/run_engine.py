"""The command line that starts the built-in engine in a new Python: this very sc2env, whatever the working
folder holds.

Why: `python -m sc2env.engine` puts the working folder first on sys.path, so a folder named sc2env there (a
clone of the repository: git names it so) is imported instead of the package, and the engine dies with
"cannot import name '__version__' from 'sc2env' (unknown location)" while its client waits for it. Python
3.11's -P leaves the working folder out; the code below does the same on every Python sc2env supports, and
the launcher and the SC2_x64 wrapper (`python -m sc2env.engine --make-sc2path`) both start the engine so.
"""

from __future__ import annotations

import os
import sys

from sc2env.mapfiles import source_root

ENGINE_MODULE = "sc2env.engine"
_RUN_ENGINE = (  # double quotes only: the SC2_x64 wrapper holds it in single quotes
    # -c puts the working folder first on sys.path, as "" (unless 3.11's -P or PYTHONSAFEPATH left it out).
    "import sys\n"
    'if sys.path[:1] == [""]: del sys.path[0]\n'
    "import runpy\n"
    f'runpy.run_module("{ENGINE_MODULE}", run_name="__main__", alter_sys=True)\n'
)


def engine_command(python: str = sys.executable) -> list[str]:
    """`python -m sc2env.engine` (the engine's flags follow) as `python -P` runs it: without the working
    folder on sys.path."""
    return [python, "-c", _RUN_ENGINE]


def engine_pythonpath(pythonpath: str | None) -> str | None:
    """The PYTHONPATH the engine needs to import this sc2env, given the current one: the checkout this sc2env
    runs from goes first (an editable install, or none, is found through it); an install is found as it is."""
    root = source_root()
    if root is None:
        return pythonpath
    return os.pathsep.join(filter(None, [str(root), pythonpath]))
