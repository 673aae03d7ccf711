"""Say what is wrong when a folder named sc2env (a clone of the repository, say) stands in for the package."""

from __future__ import annotations

import sys


def check_package(name: str = "sc2env") -> None:
    """Raise ImportError naming the folder if the imported `name` is a bare folder, not the package.

    Why: Python looks in the script's folder (the working folder for `python -c` and `-m`) before the
    installed packages, and takes a folder there without an __init__.py for a namespace package when the
    package itself is found by an import hook (as editable installs are). `sc2env` then has no
    `__version__`, registers no env ids (gymnasium says "Namespace sc2env not found"), and its submodules,
    found by the hook, fail on the first name they import from it.
    """
    package = sys.modules.get(name)
    if package is None or getattr(package, "__file__", None) is not None:
        return
    folders = list(getattr(package, "__path__", None) or [])
    if not folders:
        return
    raise ImportError(
        f"'{name}' was imported from the folder {folders[0]}, which is not the {name} package (a clone of "
        f"its repository, named {name} by git?): Python looks in the script's or the working folder before "
        f"the installed packages. Run from another folder, rename that folder (git clone URL {name}-src), "
        "or start Python with -P (3.11+), which leaves the working folder out.",
        name=name,
    )
