# SPDX-License-Identifier: GPL-2.0
"""Strings from devices and files, made safe before they go anywhere.

A drive chooses its own model and serial number, a file system its label,
and the kernel passes them on unfiltered. Two places must not trust them:

* generated files that root programs parse (udev rules, modprobe.d):
  :func:`rule_value` and :func:`one_line` refuse, rather than escape,
  anything outside a conservative set, so no value can end a quoted
  string, start a new key or a new line, or act as a glob;
* the terminal and logs: :func:`printable` shows control characters
  (escape sequences, carriage returns, bidirectional overrides) as
  ``\\xNN``/``\\uNNNN`` text instead of sending them.
"""

from __future__ import annotations

import re
import unicodedata

#: What a value written into a udev rule may hold: words of letters,
#: digits and ``. _ : + @ / -``, separated by single spaces. No quote,
#: backslash, comma, ``=``, glob character (``* ? [ ] |``) or control
#: character can appear, so the value cannot leave its quotes or match
#: more than itself.
RULE_SAFE = re.compile(r"[A-Za-z0-9._:+@/-]+(?: [A-Za-z0-9._:+@/-]+)*")

RULE_SAFE_TEXT = "letters, digits, single spaces and . _ : + @ / -"


class UnsafeText(ValueError):
    """A string cannot be written safely; the message says which and why."""


def _escape_char(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unsafe_for_terminal(ch: str) -> bool:
    # Cc: C0/C1 controls (ESC, CR, BEL, CSI...); Cf: format characters
    # (bidirectional overrides, zero-width); Cs/Co/Cn: surrogates, private
    # use, unassigned; Zl/Zp: line and paragraph separators.
    cat = unicodedata.category(ch)
    return cat[0] == "C" or cat in ("Zl", "Zp")


def printable(text: str | None, keep_newlines: bool = False) -> str:
    """``text`` with every control or invisible format character written
    as ``\\xNN``/``\\uNNNN`` (a backslash as ``\\\\``, so the result is
    unambiguous); newlines and tabs kept when ``keep_newlines``."""
    if text is None:
        return ""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif keep_newlines and ch in "\n\t":
            out.append(ch)
        elif _unsafe_for_terminal(ch):
            out.append(_escape_char(ch))
        else:
            out.append(ch)
    return "".join(out)


def rule_value(text: str, what: str) -> str:
    """``text`` itself when it may go between the quotes of a udev rule;
    otherwise UnsafeText naming ``what`` and the offending value."""
    if RULE_SAFE.fullmatch(text):
        return text
    raise UnsafeText(f"{what} '{printable(text)}' cannot be written into a udev rule "
                     f"safely: it may only hold {RULE_SAFE_TEXT}")


def one_line(text: str, what: str) -> str:
    """``text`` itself when it is one line of printable text (fit for a
    comment in a generated file, or a message); otherwise UnsafeText."""
    if any(_unsafe_for_terminal(ch) for ch in text):
        raise UnsafeText(f"{what} '{printable(text)}' must be one line of printable text "
                         f"(no newline or control character)")
    return text
