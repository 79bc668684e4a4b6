# SPDX-License-Identifier: GPL-2.0
"""The ``show`` report: what is set now, what the profile recommends, and
what looks wrong (degraded or weakest PCIe link, multipath blocking
polling, ...). Built once as plain data; printed as tables or JSON."""

from __future__ import annotations

from typing import Any

from ..discovery import QUEUE_ATTRS, BlockDevice, Controller, System, active_scheduler
from ..sysfs import Sysfs, format_cpulist
from .nvme import FEAT_IRQ_COALESCE, NvmeAdmin, NvmeError
from .plan import module_values
from ..textout import Table, emit
from .profiles import Coalescing, Profile

Report = dict[str, Any]


def _gbs(mbps: float | None) -> str:
    return "?" if mbps is None else f"{mbps / 1000:.2f} GB/s"


def _norm(attr: str, value: str | None) -> str | None:
    if value is None:
        return None
    return active_scheduler(value) if attr == "scheduler" else value.strip()


def _device(dev: BlockDevice, profile: Profile) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for attr in QUEUE_ATTRS:
        raw = dev.queue.get(attr)
        want = profile.recommended(attr)
        cur = _norm(attr, raw)
        settings[attr] = {
            "current": cur,
            "raw": raw,
            "recommended": want,
            "differs": want is not None and cur is not None and cur != want,
        }
    return {
        "name": dev.name, "kind": dev.kind, "controllers": dev.controllers,
        "paths": dev.paths, "numa_node": dev.numa_node,
        "cpus": format_cpulist(dev.cpus), "hw_queues": dev.hw_queues,
        "wwid": dev.wwid, "settings": settings,
    }


def _coalescing(ctrl: Controller, profile: Profile, nvme: NvmeAdmin | None) -> dict[str, Any]:
    want = profile.coalescing()
    out: dict[str, Any] = {
        "current": None, "decoded": None,
        "recommended": None if want is None else f"0x{want.register:04x}",
        "recommended_decoded": None if want is None else want.describe(),
        "differs": False, "error": None,
    }
    if nvme is None:
        out["error"] = "not queried"
        return out
    try:
        value = nvme.get_feature(ctrl.name, FEAT_IRQ_COALESCE) & 0xFFFF
    except NvmeError as e:
        out["error"] = e.message
        return out
    out["current"] = f"0x{value:04x}"
    out["decoded"] = Coalescing.from_register(value).describe()
    out["differs"] = want is not None and value != want.register
    return out


def _links(system: System, findings: list[dict[str, str]]) -> tuple[dict[str, dict[str, Any]], Any]:
    caps = {c.name: c.link.current_mbps for c in system.controllers
            if c.link is not None and c.link.current_mbps is not None}
    best = max(caps.values()) if caps else None
    low = min(caps.values()) if caps else None
    links: dict[str, dict[str, Any]] = {}
    for c in system.controllers:
        if c.link is None:
            links[c.name] = {"known": False}
            continue
        cap = c.link.current_mbps
        below = best is not None and cap is not None and cap < best
        weakest = below and cap == low
        links[c.name] = {
            "known": c.link.known,
            "current_speed": c.link.current_speed, "current_width": c.link.current_width,
            "max_speed": c.link.max_speed, "max_width": c.link.max_width,
            "current": c.link.describe(True), "max": c.link.describe(False),
            "current_mbps": cap, "max_mbps": c.link.max_mbps,
            "degraded": c.link.degraded, "below_peers": below, "weakest": weakest,
        }
        if c.link.degraded:
            findings.append({"severity": "warning", "device": c.name, "message": (
                f"PCIe link trained at {c.link.describe(True)} ({_gbs(cap)}) but the drive "
                f"can do {c.link.describe(False)} ({_gbs(c.link.max_mbps)}): reseat it, move it "
                f"to a full-width slot, or check the slot's BIOS link settings")})
        if below:
            what = "weakest link" if weakest else "below its peers"
            findings.append({"severity": "warning", "device": c.name, "message": (
                f"{what}: {c.link.describe(True)} = {_gbs(cap)} against {_gbs(best)} for "
                f"the fastest drive; a stripe over all {len(caps)} drives runs at the pace "
                f"of its slowest member, {len(caps)} x {_gbs(low)} = "
                f"{_gbs(None if low is None else low * len(caps))}")})
    array = None
    if caps and best is not None and low is not None:
        array = {"drives": len(caps), "weakest_mbps": low, "cap_mbps": low * len(caps),
                 "possible_mbps": best * len(caps)}
    return links, array


def build(system: System, fs: Sysfs, profile: Profile, nvme: NvmeAdmin | None,
          extra: list[BlockDevice] | None = None,
          only: list[str] | None = None) -> Report:
    """The whole report as JSON-ready data. ``only`` limits it to the named
    devices and controllers (and the controllers behind the devices)."""
    findings: list[dict[str, str]] = []
    needs_root: list[str] = []
    namespaces = system.namespaces
    paths = system.paths
    controllers = system.controllers
    if only:
        namespaces = [d for d in namespaces if d.name in only]
        paths = [d for d in paths if d.name in only or
                 any(d.name in n.paths for n in namespaces)]
        wanted = set(only) | {c for d in namespaces + paths for c in d.controllers}
        controllers = [c for c in controllers if c.name in wanted]
    links, array = _links(system, findings)
    ctrls = []
    for c in controllers:
        coal = _coalescing(c, profile, nvme)
        if coal["error"] and ("root" in coal["error"] or "ermission" in coal["error"]):
            if "Get Features 0x08 (interrupt coalescing) needs root" not in needs_root:
                needs_root.append("Get Features 0x08 (interrupt coalescing) needs root")
        ctrls.append({
            "name": c.name, "model": c.model, "serial": c.serial,
            "firmware": c.firmware, "address": c.address, "transport": c.transport,
            "state": c.state, "subsystem": c.subsystem,
            "numa_node": c.numa_node, "cpus": format_cpulist(c.cpus),
            "io_queues": c.io_queues, "sqsize": c.sqsize,
            "link": links[c.name], "coalescing": coal,
            "irqs": [{"irq": i.number, "name": i.name,
                      "affinity": format_cpulist(i.affinity),
                      "effective": format_cpulist(i.effective)} for i in c.irqs],
            "namespaces": c.namespaces, "paths": c.paths,
        })
    modules: dict[str, Any] = {}
    target = {s.key: (value, note) for s, value, note in module_values(fs, profile)}
    for module, params in (("nvme", ("poll_queues", "write_queues", "io_queue_depth")),
                           ("nvme_core", ("multipath", "io_timeout"))):
        for param in params:
            cur = system.module_param(module, param)
            want, note = target.get(f"{module}.{param}", (None, ""))
            modules[f"{module}.{param}"] = {
                "current": cur, "recommended": want,
                "differs": want is not None and cur != want,
                "applies": "module reload or reboot (modprobe.d)",
                "note": note,
            }
    blocked = [d.name for d in system.namespaces
               if d.paths and d.queue.get("io_poll", "0").strip() == "0"
               and any((p := system.namespace(n)) is not None
                       and p.queue.get("io_poll", "0").strip() == "1" for n in d.paths)]
    if system.multipath:
        findings.append({"severity": "warning" if blocked else "info", "device": "nvme_core",
                         "message": "native NVMe multipath is on (nvme_core.multipath=Y)"
                         + (f": io_poll is 0 on {', '.join(blocked)} while its hidden paths "
                            f"poll: polled I/O goes through the multipath device, which "
                            f"cannot poll, and fails with 'Operation not supported'; set "
                            f"nvme_core.multipath=N if no drive is dual-ported"
                            if blocked else "")})
    poll_q = system.module_param("nvme", "poll_queues")
    if profile.recommended("io_poll") == "1" and poll_q in ("0", None):
        findings.append({"severity": "warning", "device": "nvme",
                         "message": "no poll queues (nvme.poll_queues=0): polled I/O "
                         "falls back to interrupts; the profile's modprobe.d setting "
                         "adds them at the next load of nvme"})
    by_node: dict[int, list[str]] = {}
    for c in system.controllers:
        if c.numa_node is not None:
            by_node.setdefault(c.numa_node, []).append(c.name)
    if len(by_node) > 1:
        spread = "; ".join(f"node {n}: {', '.join(v)}" for n, v in sorted(by_node.items()))
        findings.append({"severity": "info", "device": "numa", "message": (
            f"drives sit on {len(by_node)} NUMA nodes ({spread}); keep an array's "
            f"members and the threads that drive it on one node")})
    if system.irqbalance:
        findings.append({"severity": "info", "device": "irqbalance", "message": (
            "irqbalance is running: NVMe queue interrupts are kernel-managed and stay "
            "put, but it may move other interrupts onto the CPUs serving NVMe queues")})
    named = [_device(d, profile) for d in (extra or [])
             if d.name not in {n.name for n in system.namespaces + system.paths}]
    return {
        "profile": profile.name,
        "profile_description": profile.description,
        "root": system.root,
        "numa_nodes": {str(n): format_cpulist(c) for n, c in sorted(system.numa_nodes.items())},
        "controllers": ctrls,
        "namespaces": [_device(d, profile) for d in namespaces],
        "paths": [_device(d, profile) for d in paths],
        "devices": named,
        "modules": modules,
        "multipath": {"enabled": system.multipath,
                      "hidden_paths": [p.name for p in system.paths],
                      "io_poll_blocked": blocked},
        "irqbalance": system.irqbalance,
        "array": array,
        "findings": findings,
        "needs_root": needs_root,
    }


def _controller_flags(c: dict[str, Any]) -> str:
    link = c["link"]
    flags = []
    if link.get("degraded"):
        flags.append("DEGRADED")
    if link.get("weakest"):
        flags.append("WEAKEST")
    elif link.get("below_peers"):
        flags.append("SLOWER")
    return " ".join(flags)


def render(report: Report, console: Any, verbose: int = 0, quiet: int = 0) -> None:
    """Print the report on ``console`` as tables that fit its width
    (textout). ``quiet``: the findings only; ``verbose``: every interrupt
    line and the controllers' identity too."""
    findings = [f"{f['severity']}: {f['device']}: {f['message']}" for f in report["findings"]
                if not quiet or f["severity"] == "warning"]
    notes = [f"note: {n}; run as root to see it" for n in report["needs_root"]]
    if quiet:
        emit(console, *findings)
        return
    out: list[Any] = [f"Profile {report['profile']}: {report['profile_description']}", ""]
    ct = Table(["ctrl", "PCI", "node", "CPUs", "link", "capable", "GB/s", "queues", "!"],
               title="NVMe controllers (link: trained now; capable: the drive's best)")
    for c in report["controllers"]:
        link = c["link"]
        ct.add_row(c["name"], c["address"] or "-", c["numa_node"], c["cpus"],
                   link.get("current", "n/a"), link.get("max", "n/a"),
                   _gbs(link.get("current_mbps")).replace(" GB/s", ""), c["io_queues"],
                   _controller_flags(c))
    out += [ct, ""]
    if report["array"] and report["array"]["cap_mbps"] < report["array"]["possible_mbps"]:
        a = report["array"]
        out += [f"Stripe over {a['drives']} drives: capped at {_gbs(a['cap_mbps'])} "
                f"by the weakest link (would be {_gbs(a['possible_mbps'])}).", ""]
    if verbose:
        it = Table(["ctrl", "model", "serial", "firmware", "transport", "state"],
                   title="Controllers")
        for c in report["controllers"]:
            it.add_row(c["name"], c["model"], c["serial"], c["firmware"], c["transport"],
                       c["state"])
        out += [it, ""]
    co = Table(["ctrl", "now", "recommended", "!"],
               title="Interrupt coalescing (NVMe feature 0x08; * = differs)")
    for c in report["controllers"]:
        coal = c["coalescing"]
        co.add_row(c["name"], coal["decoded"] or "unknown",
                   coal["recommended_decoded"] or "-", "*" if coal["differs"] else "")
    out += [co, ""]
    devs = report["namespaces"] + report["paths"] + report["devices"]
    if devs:
        qt = Table(["setting", "recommended"] +
                   [d["name"] + (" (path)" if d["kind"] == "nvme-path" else "") for d in devs],
                   title="Block queue settings (* = differs from the profile)")
        qt.add_row("NUMA node", "", *[d["numa_node"] for d in devs])
        qt.add_row("hw queues", "", *[d["hw_queues"] for d in devs])
        for attr in QUEUE_ATTRS:
            cells = []
            for d in devs:
                s = d["settings"][attr]
                cell = "-" if s["current"] is None else s["current"]
                cells.append(cell + ("*" if s["differs"] else ""))
            want = devs[0]["settings"][attr]["recommended"]
            qt.add_row(attr, want or "", *cells)
        out += [qt, ""]
    mt = Table(["parameter", "now", "recommended", "!"],
               title="Module parameters (change with a reload or reboot; * = differs)")
    for name, m in report["modules"].items():
        mt.add_row(name, m["current"] or "(not loaded)", m["recommended"] or "",
                   "*" if m["differs"] else "")
    out += [mt, ""]
    irqbalance = {True: "running", False: "not running", None: "unknown"}[report["irqbalance"]]
    if verbose:
        irq = Table(["ctrl", "irq", "name", "affinity", "effective"],
                    title=f"Interrupts (irqbalance: {irqbalance})")
        for c in report["controllers"]:
            for i in c["irqs"]:
                irq.add_row(c["name"], i["irq"], i["name"], i["affinity"], i["effective"])
        out += [irq, ""]
    else:
        lines = ", ".join(f"{c['name']} {len(c['irqs'])}" for c in report["controllers"])
        out += [f"Interrupts (irqbalance: {irqbalance}): {lines or 'none'} lines "
                "(-v lists them)", ""]
    errors = sorted({f"{c['name']}: {c['coalescing']['error']}" for c in report["controllers"]
                     if c["coalescing"]["error"]})
    if errors:
        out.append("coalescing unknown: " + "; ".join(errors))
    mp = report["multipath"]
    if mp["hidden_paths"]:
        out.append(f"Native multipath paths: {', '.join(mp['hidden_paths'])}")
    emit(console, *out, *findings, *notes)
