# SPDX-License-Identifier: GPL-2.0
"""Generated blocks of the documentation: the text between a begin and an
end marker line, which a script in the tree rewrites (scripts/render-mutants,
scripts/render-performance)."""

from __future__ import annotations


def splice(doc: str, begin: str, end: str, text: str) -> str:
    """@doc with what lies between its lines @begin and @end replaced by
    @text (a blank line after @begin, @text, then @end)."""
    try:
        head, rest = doc.split(begin + "\n", 1)
        _, tail = rest.split(end + "\n", 1)
    except ValueError:
        raise ValueError(f"the document lacks the lines {begin!r} and {end!r}") from None
    return f"{head}{begin}\n\n{text}\n{end}\n{tail}"
