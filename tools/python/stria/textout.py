# SPDX-License-Identifier: GPL-2.0
"""Text for people, the same way in every tool: tables that fit the width
they are printed in without cutting a value, colour only where it shows.

* Width: the terminal's; off a terminal (a pipe, a log, a serial console
  captured to a file) ``$COLUMNS`` or 80.
* Colour: ``--color auto`` (the default) colours on a terminal unless
  ``NO_COLOR`` is set (https://no-color.org) or ``TERM=dumb``;
  ``--color never`` and anything that is not a terminal get plain text
  without a single escape sequence; ``--color always`` forces it.
* Device strings: a drive's model and serial, a label, are chosen by
  whoever made the device; every cell and line is printed with control
  characters escaped (:func:`stria.safetext.printable`) and never read as
  rich markup, so no escape sequence or ``[tag]`` reaches the terminal.
* Tables: a table whose columns fit is printed as columns, long cells
  wrapped at spaces; one that cannot fit even so (a column's longest word
  is wider than what is left) is printed as one block per row, ``column
  value`` lines under the row's first cell, so no value is ever cut.
"""

from __future__ import annotations

import argparse
import os
import shutil
import re
from typing import IO, Any, Iterable, Iterator

from .safetext import printable

COLOR_CHOICES = ("auto", "always", "never")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--color``, ``-q`` and ``-v``: the same in every stria tool."""
    parser.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                        help="colour on a terminal: auto (default; off with NO_COLOR "
                             "or TERM=dumb), always or never")
    parser.add_argument("-q", "--quiet", action="count", default=0,
                        help="print less: only results, warnings and errors")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="print more: every detail, every step")


def color_wanted(mode: str, stream: IO[str]) -> bool:
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return _isatty(stream) and os.environ.get("TERM") != "dumb"


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def width_for(stream: IO[str]) -> int:
    """The terminal's width, else $COLUMNS, else 80."""
    if _isatty(stream):
        try:
            cols = os.get_terminal_size(stream.fileno()).columns
            if cols > 0:
                return cols
        except (OSError, ValueError, AttributeError):
            pass
    try:
        cols = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        cols = 0
    return cols if cols > 20 else (shutil.get_terminal_size((80, 24)).columns
                                    if _isatty(stream) else 80)


def console(stream: IO[str], color: str = "auto") -> Any:
    """A rich Console that prints ``stream``'s way (see the module's doc)."""
    from rich.console import Console

    on = color_wanted(color, stream)
    return Console(file=stream, width=width_for(stream), force_terminal=on,
                   color_system="standard" if on else None, no_color=not on,
                   highlight=False, emoji=False, legacy_windows=False)


class Table:
    """Rows of strings under a header and an optional title; printed as
    columns or as blocks (see the module's doc)."""

    def __init__(self, columns: Iterable[str], title: str | None = None) -> None:
        self.columns = list(columns)
        self.title = title
        self.rows: list[list[str]] = []

    def add_row(self, *cells: Any) -> None:
        row = ["" if c is None else printable(str(c)) for c in cells]
        if len(row) != len(self.columns):
            raise ValueError(f"{len(row)} cells for {len(self.columns)} columns")
        self.rows.append(row)

    def _widths(self, room: int) -> list[int] | None:
        """Column widths within ``room`` columns that break no word: the
        longest cells get their whole width when all fit; otherwise the
        narrow columns stay whole and the wide ones share the rest alike
        (each at least its longest word). None when even the longest
        words do not fit."""
        from rich.cells import cell_len

        cells = [[h] + [r[i] for r in self.rows] for i, h in enumerate(self.columns)]
        most = [max(cell_len(c) for c in col) for col in cells]
        least = [max([cell_len(w) for c in col for w in c.split()] or [1]) for col in cells]
        room -= _GAP * (len(self.columns) - 1)
        if sum(most) <= room:
            return most
        if sum(least) > room:
            return None

        def at(cap: int) -> list[int]:
            return [max(n, min(m, cap)) for n, m in zip(least, most)]

        lo, hi = 0, max(most)         # the widest cap that fits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if sum(at(mid)) <= room else (lo, mid - 1)
        widths = at(lo)
        spare = room - sum(widths)    # less than one more for each capped column
        for i in range(len(widths)):
            if spare and widths[i] < most[i]:
                widths[i] += 1
                spare -= 1
        return widths

    def _columns(self, widths: list[int]) -> Any:
        from rich import box
        from rich.table import Table as RichTable
        from rich.text import Text

        t = RichTable(header_style="bold", box=box.Box(_RULE_UNDER_HEADER, ascii=True),
                      show_edge=False, pad_edge=False, padding=(0, _GAP - 1, 0, 0),
                      collapse_padding=True)
        for c, w in zip(self.columns, widths):
            t.add_column(c, overflow="fold", width=w)
        for r in self.rows:
            t.add_row(*(Text(c) for c in r))
        return t

    def _blocks(self) -> Iterator[Any]:
        from rich.table import Table as RichTable
        from rich.text import Text

        if self.title:
            yield Text(self.title, style="bold")
        for r in self.rows:
            yield Text(f"{self.columns[0]} {r[0] or '-'}", style="bold")
            t = RichTable(box=None, show_header=False, pad_edge=False, padding=(0, 1))
            t.add_column(overflow="fold", no_wrap=True)
            t.add_column(overflow="fold")
            for name, value in zip(self.columns[1:], r[1:]):
                if value:
                    t.add_row(Text("  " + name), Text(value))
            yield t

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.text import Text

        widths = self._widths(options.max_width)
        if widths is None:
            yield from self._blocks()
            return
        if self.title:
            yield Text(self.title, style="bold")
        yield self._columns(widths)


def to_text(things: Iterable[Any], width: int = 80) -> str:
    """What emit() prints, as a string ``width`` columns wide, plain."""
    import io

    from rich.console import Console

    buf = io.StringIO()
    emit(Console(file=buf, width=width, color_system=None, no_color=True,
                 highlight=False, emoji=False), *things)
    return buf.getvalue()


def emit(con: Any, *things: Any) -> None:
    """Print on ``con`` without the spaces rich pads lines with; a string
    is printed as it is (no markup), control characters escaped."""
    from rich.text import Text

    with con.capture() as cap:
        for t in things:
            con.print(Text(printable(t, keep_newlines=True)) if isinstance(t, str) else t)
    text = _TRAILING.sub(r"\1", cap.get())
    con.file.write(text)
    con.file.flush()


_TRAILING = re.compile(r"[ ]+((?:\x1b\[[0-9;]*m)*)$", re.M)

# spaces between columns (a space of padding, the box's blank divider)
_GAP = 2

# rich box lines (left, horizontal, divider, right) for: top, head, head
# row, mid, row, foot row, foot, bottom. Only a dashed line under the header.
_RULE_UNDER_HEADER = "    \n    \n -- \n    \n    \n    \n    \n    \n"
