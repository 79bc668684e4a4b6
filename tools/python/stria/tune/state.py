# SPDX-License-Identifier: GPL-2.0
"""The revert state: every value stria-tune changed, with what was there.

An entry is recorded (and the file written) *before* the value is changed,
so an apply that is interrupted at any point leaves a state that revert can
use. Writes are atomic (temporary file, fsync, rename, fsync of the
directory). When a value is changed again by a later apply, the first
saved value is kept: revert always returns to what was there before
stria-tune touched the system.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_DIR = Path("/var/lib/stria-tune")
STATE_FILE = "state.json"
FORMAT = 1


class StateError(Exception):
    """The state file cannot be read or written."""


@dataclass
class Entry:
    """One changed value. ``kind`` is "sysfs" (target: attribute path),
    "feature" (target: "nvme0/0x08"), or "file" (target: file path; old is
    None when the file did not exist). ``new`` is None for values that were
    not written but change as a side effect (nr_requests when the scheduler
    switches) and must be restored too."""

    kind: str
    target: str
    device: str
    setting: str
    old: str | None
    new: str | None


def atomic_write(path: Path, text: str, mode: int = 0o644) -> None:
    """Replace ``path`` with ``text`` so readers see old or new, never half."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


class State:
    """Saved previous values, keyed by target, in the order recorded."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / STATE_FILE
        self.profile: str | None = None
        self.entries: dict[str, Entry] = {}

    @classmethod
    def load(cls, directory: Path) -> "State":
        state = cls(directory)
        try:
            data = json.loads(state.path.read_text())
        except FileNotFoundError:
            return state
        except (OSError, ValueError) as e:
            raise StateError(f"cannot read {state.path}: {e}") from e
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StateError(f"{state.path}: unknown format; move it away to start over")
        state.profile = data.get("profile")
        for item in data.get("entries", []):
            entry = Entry(**item)
            state.entries[entry.target] = entry
        return state

    def save(self) -> None:
        if not self.entries:
            self.clear()
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            data = {"format": FORMAT, "profile": self.profile,
                    "entries": [asdict(e) for e in self.entries.values()]}
            atomic_write(self.path, json.dumps(data, indent=2) + "\n", 0o600)
        except OSError as e:
            raise StateError(f"cannot write {self.path}: {e.strerror}") from e

    def clear(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def record(self, entry: Entry) -> bool:
        """Remember ``entry`` unless its target is already saved (the older
        saved value wins). Returns True when it was added."""
        if entry.target in self.entries:
            return False
        self.entries[entry.target] = entry
        return True

    def drop(self, target: str) -> None:
        self.entries.pop(target, None)
