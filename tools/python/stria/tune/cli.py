# SPDX-License-Identifier: GPL-2.0
"""stria-tune command line: parse, run one subcommand, print, exit code.

Exit codes: 0 done; 1 error, nothing changed; 2 bad usage; 3 partial
(some settings were refused or their device disappeared; the rest was
applied and everything applied is in the revert state); 130 interrupted;
141 the output was closed (a pipe to head).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any, Sequence

from .. import __version__, textout
from ..cliutil import run_main
from ..textout import Table, emit
from ..safetext import UnsafeText
from ..discovery import BlockDevice, System, block_device, device_name, discover
from ..sysfs import Sysfs
from . import apply as applymod
from . import persist, profiles, show
from .apply import EXIT_ERROR, EXIT_OK, EXIT_PARTIAL, Runner
from .nvme import FEAT_IRQ_COALESCE, IoctlAdmin, NvmeAdmin, NvmeError
from .plan import Change, PlanError, make_plan, module_values, select
from .profiles import Coalescing
from .state import DEFAULT_DIR as STATE_DIR
from .state import State, StateError

PROG = "stria-tune"
DEFAULT_PROFILE = "balanced"


class CliError(Exception):
    """A user-facing error: printed as 'stria-tune: error: ...', exit 1."""


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (shtab generates shell completion from it)."""
    return _parser()


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-o", "--output", choices=("normal", "json"), default="normal",
                        help="output format (default: normal)")
    # Where it reads and writes comes from the command line only, never
    # from the environment: stria-tune runs as root, and sudo or a unit
    # may pass the caller's environment on.
    common.add_argument("--root", default="/",
                        help="root of the /sys and /proc trees to use (default /)")
    common.add_argument("--state-dir", type=Path, default=STATE_DIR,
                        help="where the revert state lives (default %(default)s)")
    common.add_argument("--modprobe-dir", type=Path, default=Path("/etc/modprobe.d"),
                        help="where module options go (default %(default)s)")
    common.add_argument("--udev-dir", type=Path, default=persist.DEFAULT_DIR,
                        help="where persist writes its rules (default %(default)s)")
    textout.add_output_arguments(common)
    common.add_argument("--profile-dir", type=Path, action="append", default=[],
                        help="extra directory of *.toml profiles, searched first "
                             "(repeatable)")

    parser = argparse.ArgumentParser(
        prog=PROG, description="Inspect, apply, revert and persist the NVMe and "
        "block-layer settings that decide stria array performance.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("show", parents=[common],
                       help="current vs recommended settings, PCIe links, NUMA, IRQs")
    p.add_argument("devices", nargs="*", metavar="DEV")
    p.add_argument("-p", "--profile", default=DEFAULT_PROFILE,
                   help="profile to compare with (default: %(default)s)")

    sub.add_parser("profiles", parents=[common],
                   help="list the profiles, what each sets and why")

    p = sub.add_parser("apply", parents=[common], help="apply a profile now")
    p.add_argument("devices", nargs="*", metavar="DEV",
                   help="namespaces or controllers (default: every NVMe namespace)")
    p.add_argument("-p", "--profile", required=True)
    p.add_argument("-n", "--dry-run", action="store_true",
                   help="print what would change, change nothing")
    p.add_argument("--queue-only", action="store_true",
                   help="only block-queue settings (for non-NVMe devices)")
    p.add_argument("--reload-nvme", action="store_true",
                   help="reload the nvme driver so module parameters take effect "
                        "(refused while an NVMe device is mounted or in use)")

    p = sub.add_parser("revert", parents=[common],
                       help="restore every value apply changed")
    p.add_argument("--reload-nvme", action="store_true",
                   help="when module options were restored, reload the nvme driver so "
                        "the previous ones take effect (refused while an NVMe device is "
                        "mounted or in use)")

    p = sub.add_parser("persist", parents=[common],
                       help="write udev rules that apply a profile at boot and hotplug")
    p.add_argument("devices", nargs="*", metavar="DEV")
    p.add_argument("-p", "--profile", required=True)
    p.add_argument("-n", "--dry-run", action="store_true", help="print the rules only")

    sub.add_parser("unpersist", parents=[common], help="remove the udev rules")

    p = sub.add_parser("coalesce", parents=[common],
                       help="set one NVMe controller's interrupt coalescing now "
                            "(what the rules of persist run)")
    p.add_argument("controller", metavar="CTRL", help="the controller, e.g. nvme0")
    p.add_argument("register", metavar="VALUE",
                   help="Feature 0x08's value: time in 100 us units << 8 | threshold "
                        "(0 based), e.g. 0x320a; 0 turns coalescing off")
    return parser


class Context:
    """Everything a subcommand needs; tests build it with fakes."""

    def __init__(self, args: argparse.Namespace, nvme: NvmeAdmin | None,
                 euid: int, runner: Runner | None, out: IO[str]) -> None:
        self.args = args
        self.root = str(args.root)
        self.fs = Sysfs.at(self.root)
        self.nvme: NvmeAdmin = nvme or IoctlAdmin(Path(self.root) / "dev")
        self.euid = euid
        self.runner = runner
        self.out = out
        self.json = args.output == "json"
        self.quiet = int(args.quiet)
        self.verbose = int(args.verbose)

    def console(self) -> Any:
        return textout.console(self.out, self.args.color)

    def emit(self, data: dict[str, Any]) -> None:
        self.out.write(json.dumps(data, indent=2, sort_keys=False) + "\n")

    def profile_dirs(self) -> list[Path]:
        return profiles.search_path(list(self.args.profile_dir))

    def profile(self, name: str) -> profiles.Profile:
        try:
            return profiles.load(name, self.profile_dirs())
        except profiles.ProfileError as e:
            raise CliError(str(e)) from e

    def system(self) -> System:
        if not self.fs.exists("/sys/block"):
            raise CliError(f"{self.fs.path('/sys/block')} does not exist: "
                           f"is --root ({self.root}) a sysfs tree?")
        return discover(self.root)

    def need_root(self, what: str) -> None:
        if self.euid != 0:
            raise CliError(f"{what} needs root: it writes kernel settings "
                           f"(run it with sudo; 'apply --dry-run' shows the changes "
                           f"without root)")


def _named(ctx: Context, system: System, names: list[str]) -> tuple[list[BlockDevice], list[str]]:
    extra: list[BlockDevice] = []
    only: list[str] = []
    for arg in names:
        name = device_name(arg)
        if system.namespace(name) or system.controller(name):
            only.append(name)
            ctrl = system.controller(name)
            if ctrl:
                only.extend(ctrl.namespaces)
            continue
        dev = block_device(name, ctx.root, system.numa_nodes)
        if dev is None:
            raise CliError(f"{arg}: no such block device or NVMe controller")
        extra.append(dev)
        only.append(name)
    return extra, only


def cmd_show(ctx: Context) -> int:
    prof = ctx.profile(ctx.args.profile)
    system = ctx.system()
    extra, only = _named(ctx, system, ctx.args.devices)
    report = show.build(system, ctx.fs, prof, ctx.nvme, extra, only or None)
    if ctx.json:
        ctx.emit(report)
    else:
        show.render(report, ctx.console(), ctx.verbose, ctx.quiet)
    return EXIT_OK


def cmd_profiles(ctx: Context) -> int:
    found = profiles.available(ctx.profile_dirs())
    items: list[dict[str, Any]] = []
    for name, path in found.items():
        try:
            prof = profiles.load_file(path, name)
        except profiles.ProfileError as e:
            items.append({"name": name, "source": str(path), "error": str(e)})
            continue
        items.append({"name": name, "source": prof.source, "description": prof.description,
                      "cpu_cost": prof.cpu_cost,
                      "settings": [asdict(s) for s in prof.settings]})
    if ctx.json:
        ctx.emit({"profiles": items})
        return EXIT_OK
    con = ctx.console()
    out: list[Any] = []
    for item in items:
        if "error" in item:
            out += [f"{item['name']} ({item['source']}): error: {item['error']}", ""]
            continue
        if ctx.quiet:
            out.append(f"{item['name']}: {item['description']}")
            continue
        out.append(f"{item['name']}: {item['description']} ({item['source']})")
        if item["cpu_cost"]:
            out.append(f"  cost: {item['cpu_cost']}")
        t = Table(("sets", "to", "why"))
        for s in item["settings"]:
            what = {"queue": f"queue/{s['key']}", "expect": f"queue/{s['key']} (expected)",
                    "coalescing": "NVMe coalescing (0x08)",
                    "module": f"{s['key']} (modprobe.d)"}[s["scope"]]
            value = s["value"]
            if s["scope"] == "coalescing":
                value = profiles.Coalescing.from_register(int(value, 0)).describe()
            t.add_row(what, value, s["why"])
        out += [t, ""]
    emit(con, *out)
    return EXIT_OK


def _change_dict(ch: Change) -> dict[str, Any]:
    d = asdict(ch)
    d.pop("implicit")
    if ch.kind == "file":
        # The file's text is long: show it once, not the previous content.
        d["old"] = None if ch.old is None else "(previous file)"
    return d


def _print_changes(ctx: Context, changes: list[Change], title: str, done: bool) -> None:
    cols = ["device", "setting", "current", "new", "status"] + (["result"] if done else [])
    t = Table(cols + ["note"], title=title)
    same = [ch for ch in changes if ch.status == "same"]
    for ch in changes:
        if ch.status == "same" and not ctx.verbose:
            continue
        # -q: only what did not go as asked
        if ctx.quiet and ch.result in ("applied", "") and ch.status in ("change", "same"):
            continue
        new = ch.new or ""
        old = ch.old if ch.old is not None else "-"
        if ch.kind == "file":
            old = "(exists)" if ch.old is not None else "(none)"
            new = ch.target
        row = [ch.device, ch.setting, old, new, ch.status]
        if done:
            row.append(ch.result or "")
        row.append(ch.message or ch.note)
        t.add_row(*row)
    con = ctx.console()
    if t.rows:
        emit(con, t)
    elif not ctx.quiet:
        emit(con, title + ": nothing to change")
    if same and not ctx.quiet and not ctx.verbose:
        emit(con, f"{len(same)} setting(s) already at the profile's value (-v lists them)")


def _wait_for_namespaces(ctx: Context, count: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(discover(ctx.root).namespaces) >= count:
            return
        time.sleep(0.5)


def cmd_apply(ctx: Context) -> int:
    args = ctx.args
    prof = ctx.profile(args.profile)
    if not args.dry_run:
        ctx.need_root("apply")
    system = ctx.system()
    try:
        devices = select(system, args.devices, ctx.root)
        if not devices:
            raise CliError("no NVMe namespaces found: name the devices to tune")
        changes = make_plan(ctx.fs, system, prof, devices, ctx.nvme, args.modprobe_dir,
                            args.queue_only)
    except PlanError as e:
        raise CliError(str(e)) from e
    reload: dict[str, Any] | None = None
    code = EXIT_OK
    if not args.dry_run:
        try:
            state = State.load(args.state_dir)
        except StateError as e:
            raise CliError(str(e)) from e
        try:
            if args.reload_nvme and not args.queue_only:
                code, changes, reload = _apply_with_reload(ctx, prof, system, changes, state)
            else:
                code = applymod.apply(changes, ctx.fs, ctx.nvme, state, prof.name)
        except StateError as e:
            raise CliError(f"{e}; nothing more was changed ('stria-tune revert' undoes "
                           f"what was)") from e
    elif args.reload_nvme:
        reload = {"done": False, "message": "dry run: would reload nvme if module "
                  "parameters differ and no NVMe device is in use"}
    if ctx.json:
        ctx.emit({"profile": prof.name, "dry_run": bool(args.dry_run),
                  "changes": [_change_dict(c) for c in changes],
                  "reload": reload, "exit_code": code})
        return code
    title = (f"Profile {prof.name}: " +
             ("would change (dry run)" if args.dry_run else "changes"))
    _print_changes(ctx, changes, title, not args.dry_run)
    con = ctx.console()
    notes: list[str] = []
    if prof.cpu_cost and not ctx.quiet:
        notes.append(f"cost: {prof.cpu_cost}")
    mod = [c for c in changes if c.kind == "file" and c.status == "change"]
    if mod and not reload and not ctx.quiet:
        notes.append(f"Module options written to {mod[0].target}: {mod[0].note}. Rebuild the "
                     f"initramfs if nvme loads from it, then reboot (or use --reload-nvme).")
    if reload:
        notes.append(("reload: " if reload["done"] else "no reload: ") + reload["message"])
    if code == EXIT_PARTIAL:
        notes.append("partial: some settings were not applied (see result); "
                     "everything applied can be undone with 'stria-tune revert'")
    emit(con, *notes)
    return code


def _apply_with_reload(ctx: Context, prof: profiles.Profile, system: System,
                       changes: list[Change], state: State
                       ) -> tuple[int, list[Change], dict[str, Any]]:
    """Write modprobe.d, reload nvme, then plan and apply the runtime
    settings on the freshly probed devices."""
    mods = [c for c in changes if c.kind == "file"]
    code = applymod.apply(mods, ctx.fs, ctx.nvme, state, prof.name)
    differs = [s for s, value, _ in module_values(ctx.fs, prof)
               if system.module_param(*s.key.split(".", 1)) != value]
    if not differs:
        reload = {"done": False, "message": "running modules already match the profile"}
    else:
        core = any(s.key.startswith("nvme_core.") for s in differs)
        before = len(system.namespaces)
        result = applymod.reload_nvme(ctx.fs, ctx.args.modprobe_dir, core,
                                      ctx.runner or applymod._run)
        reload = {"done": result.done, "message": result.message}
        if not result.done:
            code = EXIT_PARTIAL
        if result.unloaded:
            # The drives went away and came back: look again.
            _wait_for_namespaces(ctx, before)
            system = ctx.system()
    try:
        devices = select(system, ctx.args.devices, ctx.root)
        rest = [c for c in make_plan(ctx.fs, system, prof, devices, ctx.nvme,
                                     ctx.args.modprobe_dir) if c.kind != "file"]
    except PlanError as e:
        raise CliError(f"after reload: {e}") from e
    code = max(code, applymod.apply(rest, ctx.fs, ctx.nvme, state, prof.name))
    return code, mods + rest, reload


def cmd_revert(ctx: Context) -> int:
    ctx.need_root("revert")
    try:
        state = State.load(ctx.args.state_dir)
        code, restored = applymod.revert(state, ctx.fs, ctx.nvme)
    except StateError as e:
        raise CliError(str(e)) from e
    reload = _revert_reload(ctx, restored) if ctx.args.reload_nvme else None
    if reload and not reload["done"] and reload["tried"]:
        code = max(code, EXIT_PARTIAL)
    if reload:
        del reload["tried"]
    if ctx.json:
        ctx.emit({"restored": [{"device": r.entry.device, "setting": r.entry.setting,
                                "target": r.entry.target,
                                "value": r.entry.old if r.entry.kind != "file" else None,
                                "result": r.result, "message": r.message}
                               for r in restored],
                  "remaining": len(state.entries), "reload": reload, "exit_code": code})
        return code
    con = ctx.console()
    if not restored:
        if not ctx.quiet:
            emit(con, "nothing to revert (no saved state in "
                 f"{ctx.args.state_dir / 'state.json'})")
        return code
    t = Table(("device", "setting", "restored to", "result", "note"), title="Reverted")
    for r in restored:
        if ctx.quiet and r.result == "restored":
            continue
        value = r.entry.old if r.entry.kind != "file" else (
            "(previous file)" if r.entry.old is not None else "(removed)")
        t.add_row(r.entry.device, r.entry.setting, value or "", r.result, r.message)
    if t.rows:
        emit(con, t)
    if reload:
        emit(con, ("reload: " if reload["done"] else "no reload: ") + reload["message"])
    if code == EXIT_PARTIAL and state.entries:
        emit(con, f"partial: {len(state.entries)} value(s) could not be "
             f"restored and stay in the state; run revert again once fixed")
    return code


def _revert_reload(ctx: Context, restored: list[applymod.Restored]) -> dict[str, Any]:
    """revert --reload-nvme: load nvme again with the module options just
    restored, when a modprobe.d file was restored (nvme_core too when the
    file apply had written set its options)."""
    files = [r.entry for r in restored if r.entry.kind == "file" and r.result == "restored"]
    if not files:
        return {"done": False, "tried": False,
                "message": "no module options were restored: nothing to reload"}
    core = any("options nvme_core " in (e.new or "") for e in files)
    before = len(ctx.system().namespaces)
    result = applymod.reload_nvme(ctx.fs, ctx.args.modprobe_dir, core,
                                  ctx.runner or applymod._run)
    if result.unloaded:
        _wait_for_namespaces(ctx, before)
    return {"done": result.done, "tried": True, "message": result.message}


def cmd_persist(ctx: Context) -> int:
    args = ctx.args
    prof = ctx.profile(args.profile)
    system = ctx.system()
    devices = None
    if args.devices:
        try:
            devices = select(system, args.devices, ctx.root)
        except PlanError as e:
            raise CliError(str(e)) from e
        others = [d.name for d in devices if not d.is_nvme]
        if others:
            raise CliError(f"{', '.join(others)}: not an NVMe device; the rules only "
                           f"match NVMe namespaces")
    try:
        text = persist.rules_text(prof, system, devices)
    except UnsafeText as e:
        raise CliError(f"{e}; nothing was written") from e
    path = args.udev_dir / persist.RULES_FILE
    if not args.dry_run:
        try:
            persist.write_rules(args.udev_dir, text)
        except OSError as e:
            raise CliError(f"cannot write {path}: {e.strerror}"
                           + (" (needs root)" if ctx.euid != 0 else "")) from e
    if ctx.json:
        ctx.emit({"profile": prof.name, "path": str(path), "dry_run": bool(args.dry_run),
                  "rules": text})
    elif args.dry_run or not ctx.quiet:
        ctx.out.write(text if args.dry_run else
                      f"wrote {path}; it applies at the next boot or hotplug "
                      f"('udevadm trigger' applies it now)\n")
    return EXIT_OK


def cmd_unpersist(ctx: Context) -> int:
    try:
        path = persist.remove_rules(ctx.args.udev_dir)
    except OSError as e:
        raise CliError(f"cannot remove rules: {e.strerror}") from e
    if ctx.json:
        ctx.emit({"removed": str(path) if path else None})
    elif not ctx.quiet:
        ctx.out.write(f"removed {path}\n" if path else
                      f"no rules file in {ctx.args.udev_dir}\n")
    return EXIT_OK


_CONTROLLER = re.compile(r"nvme[0-9]+")


def cmd_coalesce(ctx: Context) -> int:
    """Set Features 0x08 on one controller, by the admin ioctl that apply
    uses: the command the udev rules of persist run (no nvme-cli needed)."""
    args = ctx.args
    ctrl = device_name(args.controller)
    if not _CONTROLLER.fullmatch(ctrl):
        raise CliError(f"{args.controller}: not an NVMe controller (nvmeN, e.g. nvme0); "
                       f"nothing was set")
    try:
        value = int(args.register, 0)
    except ValueError:
        value = -1
    if not 0 <= value <= 0xFFFF:
        raise CliError(f"{args.register}: not a coalescing value (0 to 0xffff: time in "
                       f"100 us units << 8 | threshold, e.g. 0x320a); nothing was set")
    coal = Coalescing.from_register(value)
    try:
        ctx.nvme.set_feature(ctrl, FEAT_IRQ_COALESCE, value)
    except NvmeError as e:
        raise CliError(f"{e}; interrupt coalescing {coal.describe()} not set") from e
    if ctx.json:
        ctx.emit({"controller": ctrl, "register": f"0x{value:04x}", "set": True})
    elif not ctx.quiet:
        ctx.out.write(f"{ctrl}: interrupt coalescing {coal.describe()}\n")
    return EXIT_OK


COMMANDS = {"show": cmd_show, "profiles": cmd_profiles, "apply": cmd_apply,
            "revert": cmd_revert, "persist": cmd_persist, "unpersist": cmd_unpersist,
            "coalesce": cmd_coalesce}


def main(argv: Sequence[str] | None = None, *, nvme: NvmeAdmin | None = None,
         euid: int | None = None, runner: Runner | None = None,
         out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Entry point; the keyword arguments let tests swap in fakes."""
    errf: IO[str] = err or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    ctx = Context(args, nvme, os.geteuid() if euid is None else euid, runner,
                  out or sys.stdout)

    def work() -> int:
        try:
            return COMMANDS[args.command](ctx)
        except CliError as e:
            errf.write(f"{PROG}: error: {e}\n")
            return EXIT_ERROR

    return run_main(work, PROG, errf, "interrupted; 'stria-tune revert' undoes what was "
                    "applied")
