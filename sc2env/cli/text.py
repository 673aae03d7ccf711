"""How the command prints: errors on one line, and the width of the terminal a stream goes to."""

from __future__ import annotations

import os
from typing import TextIO


def one_line(error: BaseException) -> str:
    """An error's message on one line (the first, with its most useful detail kept)."""
    text = str(error).strip() or type(error).__name__
    first = text.splitlines()[0]
    if len(text.splitlines()) == 1:
        return first
    if first.endswith(":"):  # it introduces what the next lines hold ("Its last output lines:")
        return f"{first[:-1]} (--verbose shows them)"
    return f"{first} (--verbose for details)"


def columns_of(stream: TextIO) -> int:
    """The width of the terminal `stream` writes to ($COLUMNS first, as shutil has it; 101 when unknown).

    Not shutil.get_terminal_size(): it asks standard output, which may go to a file while the progress line
    goes to the terminal on stderr."""
    if os.environ.get("COLUMNS", "").isdigit() and int(os.environ["COLUMNS"]) > 0:  # 0: unset, as for shutil
        return int(os.environ["COLUMNS"])
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 101


def in_columns(names: list[str], n: int, stream: TextIO) -> list[str]:
    """`names` in up to `n` columns, as many as the width of the terminal `stream` goes to holds."""
    width = max(len(x) for x in names) + 2
    n = max(1, min(n, (columns_of(stream) - 2) // width))
    return ["".join(x.ljust(width) for x in names[i : i + n]).rstrip() for i in range(0, len(names), n)]
