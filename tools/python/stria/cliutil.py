# SPDX-License-Identifier: GPL-2.0
"""What every stria command line does the same way around its work.

* Ctrl-C: one line on stderr, exit 130 (128 + SIGINT, as a shell reports
  a program it interrupted), no traceback.
* A closed output (``stria-bench compare A B | head``): exit 141 (128 +
  SIGPIPE, as ``yes | head`` reports), quietly, no traceback.
* Usage errors exit 2 (argparse's code), which no tool uses for anything
  else.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Callable

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_PIPE = 141


def _silence_stdout() -> None:
    """Point stdout at /dev/null: the interpreter flushes it once more at
    exit and would report the broken pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def run_main(work: Callable[[], int], prog: str, err: IO[str] | None = None,
             interrupted: str = "interrupted") -> int:
    """Run ``work`` and return its exit code, or 130 / 141 as above."""
    try:
        code = work()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_PIPE
    except KeyboardInterrupt:
        (err or sys.stderr).write(f"{prog}: {interrupted}\n")
        return EXIT_INTERRUPTED
