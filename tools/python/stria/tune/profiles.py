# SPDX-License-Identifier: GPL-2.0
"""Tuning profiles: TOML data files, loaded and validated into a Profile.

A profile file (see stria/profiles/*.toml) has a description and up to three
kinds of settings, each with the value and the reason it is there:

    description = "..."
    cpu_cost = "..."                    # optional warning shown with it

    [queue.nomerges]                    # /sys/block/<ns>/queue/<attr>
    value = 2
    why = "..."

    [nvme.coalescing]                   # NVMe Set Features 0x08
    time_100us = 50                     # aggregation time, 100 us units
    threshold = 10                      # aggregation threshold, 0's based
    why = "..."

    [module.nvme.poll_queues]           # /etc/modprobe.d (reload/reboot)
    value = 4
    why = "..."

Shipped profiles live next to this package; users add their own (or
override a shipped one by name) in /etc/stria-tune/profiles/ or any
directory given with --profile-dir.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, from PyPI (Debian: python3-tomli)
    import tomli as tomllib

from ..safetext import UnsafeText, one_line

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "profiles"
DEFAULT_USER_DIRS = (Path("/etc/stria-tune/profiles"),)

#: Queue attributes a profile may write, and how values are checked.
QUEUE_WRITABLE: dict[str, str] = {
    "scheduler": "word",
    "nomerges": "0-2",
    "rq_affinity": "0-2",
    "nr_requests": "int>0",
    "read_ahead_kb": "int>=0",
    "add_random": "0-1",
    "iostats": "0-1",
    "io_poll_delay": "int>=-1",
    "max_sectors_kb": "int>0",
    "write_cache": "cache",
    "io_timeout": "int>0",
}

#: Queue attributes a profile may only *expect*: the kernel derives them
#: (io_poll is 1 when the driver has poll queues; writes are ignored
#: since Linux 5.16), so show flags a difference and names the real knob.
QUEUE_EXPECT: dict[str, str] = {"io_poll": "0-1"}

#: Module parameters a profile may set (written to modprobe.d).
MODULE_PARAMS: dict[str, dict[str, str]] = {
    "nvme": {"poll_queues": "int>=0", "write_queues": "int>=0",
             "io_queue_depth": "int>=2"},
    "nvme_core": {"multipath": "bool", "io_timeout": "int>0"},
}

#: Ordering for apply: the scheduler first (switching it resets
#: nr_requests), then the rest in the order listed here.
QUEUE_ORDER = ("scheduler", "nr_requests", "nomerges", "rq_affinity",
               "io_poll_delay", "read_ahead_kb", "max_sectors_kb",
               "add_random", "iostats", "write_cache", "io_timeout", "io_poll")


#: A profile's name (its file name without .toml) and a scheduler's name:
#: both end up in generated files, so neither may hold anything else.
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
SCHEDULER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


class ProfileError(Exception):
    """A profile cannot be found or is malformed."""


def _text(value: object, where: str) -> str:
    """A description or reason: it is printed, and written as a comment
    into modprobe.d, so it must stay one line."""
    try:
        return one_line(str(value), where)
    except UnsafeText as e:
        raise ProfileError(str(e)) from e


@dataclass(frozen=True)
class Coalescing:
    """NVMe Interrupt Coalescing (Feature 0x08), as the register holds it."""

    time_100us: int
    threshold: int

    @classmethod
    def from_register(cls, value: int) -> "Coalescing":
        return cls(time_100us=(value >> 8) & 0xFF, threshold=value & 0xFF)

    @property
    def register(self) -> int:
        return (self.time_100us << 8) | self.threshold

    @property
    def off(self) -> bool:
        return self.register == 0

    def describe(self) -> str:
        if self.off:
            return "off (0x0000)"
        return (f"{self.time_100us * 100} us / {self.threshold + 1} completions "
                f"(0x{self.register:04x})")


@dataclass(frozen=True)
class Setting:
    """One value a profile sets, with its reason."""

    scope: str  # "queue", "expect", "coalescing" or "module"
    key: str    # attribute, "coalescing", or "module.param"
    value: str
    why: str


@dataclass
class Profile:
    name: str
    description: str
    source: str
    cpu_cost: str = ""
    settings: list[Setting] = field(default_factory=list)

    def queue(self) -> list[Setting]:
        """Queue settings to write, in apply order."""
        items = [s for s in self.settings if s.scope == "queue"]
        return sorted(items, key=lambda s: QUEUE_ORDER.index(s.key))

    def expect(self) -> list[Setting]:
        return [s for s in self.settings if s.scope == "expect"]

    def coalescing(self) -> Coalescing | None:
        for s in self.settings:
            if s.scope == "coalescing":
                return Coalescing.from_register(int(s.value, 0))
        return None

    def modules(self) -> list[Setting]:
        return [s for s in self.settings if s.scope == "module"]

    @property
    def has_nvme(self) -> bool:
        """Whether the profile sets anything only NVMe devices have."""
        return self.coalescing() is not None

    def recommended(self, attr: str) -> str | None:
        for s in self.settings:
            if s.scope in ("queue", "expect") and s.key == attr:
                return s.value
        return None

    def module_value(self, module: str, param: str) -> str | None:
        for s in self.modules():
            if s.key == f"{module}.{param}":
                return s.value
        return None


def _check(kind: str, value: object, where: str) -> str:
    """Validate one value against its kind; return its sysfs text."""
    if kind == "word":
        if not isinstance(value, str) or not SCHEDULER_NAME.fullmatch(value):
            raise ProfileError(f"{where}: expected a scheduler name (lower-case letters, "
                               f"digits, - and _), got {value!r}")
        return value
    if kind == "cache":
        if value not in ("write back", "write through"):
            raise ProfileError(f"{where}: expected \"write back\" or \"write through\", "
                               f"got {value!r}")
        return str(value)
    if kind == "bool":
        if isinstance(value, bool):
            return "Y" if value else "N"
        if value in ("Y", "N"):
            return str(value)
        raise ProfileError(f"{where}: expected true/false or \"Y\"/\"N\", got {value!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(f"{where}: expected an integer, got {value!r}")
    ranges = {"0-1": (0, 1), "0-2": (0, 2), "int>0": (1, None),
              "int>=0": (0, None), "int>=-1": (-1, None), "int>=2": (2, None)}
    lo, hi = ranges[kind]
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ProfileError(f"{where}: {value} is out of range ({bound})")
    return str(value)


def _entry(table: object, where: str) -> tuple[object, str]:
    if not isinstance(table, dict) or "value" not in table:
        raise ProfileError(f"{where}: expected a table with 'value' and 'why'")
    unknown = set(table) - {"value", "why"}
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    return table["value"], _text(table.get("why", ""), f"{where}.why")


def parse(name: str, source: str, data: dict[str, object]) -> Profile:
    """Build a Profile from parsed TOML, rejecting anything unknown."""
    unknown = set(data) - {"description", "cpu_cost", "queue", "nvme", "module"}
    if unknown:
        raise ProfileError(f"{source}: unknown section(s) {', '.join(sorted(unknown))}")
    if not PROFILE_NAME.fullmatch(name):
        raise ProfileError(f"{source}: the profile name {name!r} may only hold letters, "
                           f"digits and . _ + - (rename the file)")
    prof = Profile(name=name, description=_text(data.get("description", ""),
                                                f"{source}: description"),
                   source=source, cpu_cost=_text(data.get("cpu_cost", ""), f"{source}: cpu_cost"))
    queue = data.get("queue", {})
    if not isinstance(queue, dict):
        raise ProfileError(f"{source}: [queue] must be a table")
    for attr, table in queue.items():
        where = f"{source}: queue.{attr}"
        value, why = _entry(table, where)
        if attr in QUEUE_WRITABLE:
            prof.settings.append(Setting("queue", attr, _check(QUEUE_WRITABLE[attr], value, where), why))
        elif attr in QUEUE_EXPECT:
            prof.settings.append(Setting("expect", attr, _check(QUEUE_EXPECT[attr], value, where), why))
        else:
            known = ", ".join(sorted(QUEUE_WRITABLE) + sorted(QUEUE_EXPECT))
            raise ProfileError(f"{where}: unknown queue attribute (known: {known})")
    nvme = data.get("nvme", {})
    if not isinstance(nvme, dict) or set(nvme) - {"coalescing"}:
        raise ProfileError(f"{source}: [nvme] may only hold [nvme.coalescing]")
    if "coalescing" in nvme:
        prof.settings.append(_coalescing(nvme["coalescing"], f"{source}: nvme.coalescing"))
    modules = data.get("module", {})
    if not isinstance(modules, dict):
        raise ProfileError(f"{source}: [module] must be a table")
    for module, params in modules.items():
        if module not in MODULE_PARAMS or not isinstance(params, dict):
            raise ProfileError(f"{source}: module.{module}: unknown module "
                               f"(known: {', '.join(MODULE_PARAMS)})")
        for param, table in params.items():
            where = f"{source}: module.{module}.{param}"
            if param not in MODULE_PARAMS[module]:
                raise ProfileError(f"{where}: unknown parameter (known: "
                                   f"{', '.join(MODULE_PARAMS[module])})")
            value, why = _entry(table, where)
            text = _check(MODULE_PARAMS[module][param], value, where)
            prof.settings.append(Setting("module", f"{module}.{param}", text, why))
    return prof


def _coalescing(table: object, where: str) -> Setting:
    if not isinstance(table, dict):
        raise ProfileError(f"{where}: expected a table")
    unknown = set(table) - {"time_100us", "threshold", "why"}
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    fields = []
    for key in ("time_100us", "threshold"):
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
            raise ProfileError(f"{where}: {key} must be an integer 0..255, got {value!r}")
        fields.append(value)
    reg = Coalescing(fields[0], fields[1]).register
    return Setting("coalescing", "coalescing", f"0x{reg:04x}",
                   _text(table.get("why", ""), f"{where}.why"))


def search_path(extra: list[Path] | None = None) -> list[Path]:
    """Directories searched for profiles, first match wins."""
    return list(extra or []) + list(DEFAULT_USER_DIRS) + [SHIPPED_DIR]


def load_file(path: Path, name: str | None = None) -> Profile:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ProfileError(f"cannot read profile {path}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: not valid TOML: {e}") from e
    return parse(name or path.stem, str(path), data)


def available(dirs: list[Path]) -> dict[str, Path]:
    """Profile name -> file, earlier directories overriding later ones."""
    found: dict[str, Path] = {}
    for d in reversed(dirs):
        if d.is_dir():
            for f in sorted(d.glob("*.toml")):
                found[f.stem] = f
    return dict(sorted(found.items()))


def load(name: str, dirs: list[Path]) -> Profile:
    """Load a profile by name, or by path when ``name`` names a file."""
    if name.endswith(".toml") or "/" in name:
        return load_file(Path(name))
    profiles = available(dirs)
    if name not in profiles:
        names = ", ".join(profiles) or "none"
        raise ProfileError(f"unknown profile '{name}' (available: {names}; "
                           f"'stria-tune profiles' describes them)")
    return load_file(profiles[name], name)
