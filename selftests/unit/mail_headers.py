#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The oracle of selftests/unit/test_monitor_text.c: each mail FILE that
striactl monitor wrote for sendmail -t, parsed by Python's email package
(strictly, and as a mail client would), has exactly the headers To and
Subject, no defect, and no line break inside a header value. Prints one
line: "mails: N, ..." when all are so, else what is wrong with the first
that is not; exit 0 or 1."""

from __future__ import annotations

import email
import email.policy
import sys
from email.parser import BytesParser


def problem(raw: bytes) -> str | None:
    for policy in (email.policy.compat32, email.policy.default):
        msg = BytesParser(policy=policy).parsebytes(raw)
        keys = list(msg.keys())
        if keys != ["To", "Subject"]:
            return f"headers {keys} ({policy.__class__.__name__})"
        if msg.defects:
            return f"defects {msg.defects}"
        for key in keys:
            value = str(msg[key])
            if "\r" in value or "\n" in value:
                return f"a line break in {key}: {value!r}"
            header = msg[key]
            if getattr(header, "defects", None):
                return f"defects in {key}: {header.defects}"
    return None


def main() -> int:
    files = sys.argv[1:]
    for name in files:
        with open(name, "rb") as f:
            why = problem(f.read())
        if why:
            print(f"{name}: {why}")
            return 1
    print(f"mails: {len(files)}, each with To and Subject alone, no defect")
    return 0 if files else 1


if __name__ == "__main__":
    sys.exit(main())
