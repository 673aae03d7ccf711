"""How the command prints: text from files made safe, errors on one line, and the terminal's width."""

from __future__ import annotations

import os
import unicodedata
from typing import TextIO

NAME_LIMIT = 40
"""The most characters a name read from a file takes in a line or a table column (map and player names)."""
_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Unicode categories printed as escapes: control characters (NUL, newline, CR, ESC and so ANSI escape
sequences, C1 controls), format characters (bidirectional overrides), lone surrogates (bytes of a file name
that are no UTF-8, which print() would refuse) and line and paragraph separators."""


def shown(text: str, limit: int | None = NAME_LIMIT) -> str:
    """Untrusted text (a map, player or file name read from a file or a folder) as it is safe to print on one
    line: characters that would move the cursor, end the line, recolour the terminal or reorder the text are
    written as Python escapes (\\n, \\x1b, \\u202e), and text longer than `limit` characters is shortened in
    the middle with an ellipsis (the start names it, the end often tells it from its neighbours)."""
    safe = "".join(
        char.encode("unicode_escape").decode("ascii") if unicodedata.category(char) in _UNSAFE else char
        for char in text
    )
    if limit is None or len(safe) <= limit:
        return safe
    tail = (limit - 1) // 3
    return f"{safe[: limit - 1 - tail]}…{safe[len(safe) - tail :] if tail else ''}"


def one_line(error: BaseException) -> str:
    """An error's message on one line (the first, with its most useful detail kept)."""
    text = str(error).strip() or type(error).__name__
    first = shown(text.splitlines()[0], limit=None)  # messages quote names from files
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
