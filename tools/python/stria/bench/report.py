# SPDX-License-Identifier: GPL-2.0
"""report.md: the method's tables from a results document.

Rendering is a pure function of results.json, so ``stria-bench report DIR``
re-renders any old run. Strings a device or the machine chooses (drive
models and firmware, the CPU's model, the maker's name) are written through
:func:`stria.safetext.printable`, and a table cell's ``|`` as ``\\|``: read
in a terminal or rendered, the report shows them, and they add no cell,
line or escape sequence.
"""

from __future__ import annotations

from typing import Any

from ..safetext import printable
from .jobs import WORKLOADS


def fmt_value(v: float | None, unit: str) -> str:
    """54600 iops -> "54.6k IOPS"; 1.5e9 bw_bytes -> "1500 MB/s"."""
    if v is None:
        return "-"
    if unit == "iops":
        if v >= 1e6:
            return f"{v / 1e6:.2f}M IOPS"
        if v >= 1e3:
            return f"{v / 1e3:.1f}k IOPS"
        return f"{v:.0f} IOPS"
    return f"{v / 1e6:.0f} MB/s" if v >= 1e7 else f"{v / 1e6:.1f} MB/s"


def fmt_pct(r: float | None) -> str:
    return "-" if r is None else f"{r * 100:.0f} %"


def fmt_lat(ns: float | None) -> str:
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.0f} µs"


def cell(text: str) -> str:
    """A Markdown table cell holding ``text``: escaped, and ``|`` as ``\\|``."""
    return printable(text).replace("|", "\\|")


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return out + [""]


def _run(doc: dict[str, Any], run_id: str) -> dict[str, Any] | None:
    return next((r for r in doc.get("runs", []) if r.get("id") == run_id), None)


def _p99(run: dict[str, Any] | None, write: bool) -> float | None:
    if not run or run.get("status") != "ok":
        return None
    v = run.get("write" if write else "read", {}).get("clat_ns", {}).get("99")
    return float(v) if isinstance(v, (int, float)) else None


def header(doc: dict[str, Any]) -> list[str]:
    s = doc.get("settings", {})
    env = doc.get("environment", {})
    tools = env.get("tools", {})
    tune = env.get("stria_tune", {})
    t = s.get("timing", {})
    cpu_model = printable(env.get("cpu", {}).get("model"))
    lines = [
        "# stria-bench report", "",
        f"- started {doc.get('started')}, finished {doc.get('finished') or 'not finished'}",
        f"- suite **{s.get('suite')}**: {t.get('runtime')} s per job after "
        f"{t.get('ramp_time')} s ramp; levels {', '.join(f'RAID{x}' for x in s.get('levels', []))}; "
        f"chunk {s.get('chunk_kib')} KiB",
        f"- devices: {', '.join(s.get('devices', []))}",
        f"- kernel {env.get('kernel', {}).get('release')}, {env.get('cpu', {}).get('count')} CPUs"
        f"{' (' + str(cpu_model) + ')' if cpu_model else ''}, NUMA nodes "
        f"{', '.join(f'{k}: {v}' for k, v in env.get('numa', {}).items())}",
        f"- {tools.get('fio')}; NUMA placement "
        f"{'on' if s.get('numa_placement') else 'off'}; extra fio options: "
        f"{' '.join(s.get('fio_args', [])) or 'none'}",
        "- stria-tune state: " + ("recorded in results.json" if tune.get("available")
                                  else f"not recorded ({tune.get('reason', 'unknown')})"),
    ]
    orders = doc.get("orders") or []
    if s.get("seed") is not None and orders:
        lines.append(f"- arrays step: {s.get('repeat', 1)} round(s), the contenders of each "
                     f"in an order shuffled with seed {s['seed']} (`--seed {s['seed']}` "
                     "repeats it): " + "; ".join(
                         f"RAID{o['level']} round {o['round']}: {', '.join(o['order'])}"
                         for o in orders))
    why = emulated(doc)
    if why:
        lines.append("- **emulated hardware** (" + "; ".join(why) + "): every figure "
                     "below is emulated time, for comparing rows of one run, not hardware")
    return lines + [""]


def steady_section(doc: dict[str, Any]) -> list[str]:
    """Preconditioning, and for each write run measured until steady
    state whether it got there."""
    pre = doc.get("precondition")
    ss = doc.get("settings", {}).get("steady_state")
    if not pre and not ss:
        return []
    out = ["## Preconditioning and steady state", ""]
    if pre:
        status = pre.get("status")
        if status == "ok":
            bws = pre.get("bandwidth_mbps", {})
            out.append(f"- preconditioned: {', '.join(pre.get('drives', []))} each written "
                       f"{pre.get('passes')} times over with sequential "
                       f"{pre.get('block_size')} writes in {pre.get('seconds')} s "
                       f"(estimated {pre.get('estimate_s')} s from "
                       f"{pre.get('bandwidth_source')} bandwidth: "
                       + ", ".join(f"{cell(k)} {v} MB/s" for k, v in bws.items()) + ")")
        else:
            out.append(f"- not preconditioned ({status}): {printable(str(pre.get('reason')))}")
    runs = [r for r in doc.get("runs", []) if "steady_state" in r]
    if ss and runs:
        out.append(f"- write runs on real drives measured until fio's steady state "
                   f"`{ss.get('criterion')}` held over {ss.get('window_s')} s (after "
                   f"{ss.get('ramp_s')} s), at most {ss.get('max_s')} s each")
    out.append("")
    if runs:
        out += table(["run", "criterion", "steady state reached"],
                     [[f"`{r['id']}`", r["steady_state"]["criterion"],
                       {True: "yes", False: "**no** (stopped at the limit)",
                        None: "unknown (no fio result)"}[r["steady_state"]["attained"]]]
                      for r in runs])
    return out


def devices_section(doc: dict[str, Any]) -> list[str]:
    rows = []
    for d in doc.get("devices", []):
        size = d.get("size_bytes")
        rows.append([d.get("path", ""), d.get("model") or "-", d.get("firmware") or "-",
                     "-" if d.get("numa_node") is None else str(d["numa_node"]),
                     d.get("pcie_link") or "-",
                     {True: "1", False: "0", None: "-"}[d.get("io_poll")],
                     "-" if not size else f"{size / 2**30:.1f} GiB"])
    return ["## Devices", ""] + table(
        ["device", "model", "firmware", "NUMA", "PCIe link", "io_poll", "size"], rows)


def baseline_section(doc: dict[str, Any]) -> list[str]:
    an = doc.get("analysis", {}).get("baseline", {})
    if not an:
        return []
    names = [w for w in WORKLOADS if w in an]
    rows = []
    for d in doc.get("devices", []):
        row = [d["path"]]
        for w in names:
            row.append(fmt_value(an[w]["per_drive"].get(d["path"]), an[w]["unit"]))
        name = d.get("name", "")
        row.append(fmt_lat(_p99(_run(doc, f"baseline/{name}/randread-4k/libaio"), False)))
        rows.append(row)
    rows.append(["**sum**"] + [fmt_value(an[w]["aggregate"], an[w]["unit"]) for w in names]
                + [""])
    out = ["## Per-drive baseline", ""] + table(["drive"] + names + ["randread p99"], rows)
    for w in names:
        for dev, frac in an[w].get("link_bound", {}).items():
            out.append(f"- {w}: **{dev}** reaches {fmt_pct(frac)} of its PCIe link's capacity: "
                       "the link, not the drive, sets its speed")
        wl = an[w].get("weakest_link")
        if wl:
            out.append(f"- {w}: weakest link **{wl['member']}** at "
                       f"{fmt_value(wl['slowest'], an[w]['unit'])} -> striping bound "
                       f"{fmt_value(wl['bound'], an[w]['unit'])} "
                       f"(slowest x {wl['members']}; fastest drive "
                       f"{fmt_value(wl['fastest'], an[w]['unit'])})"
                       + (f"; its PCIe link: {wl['pcie_link']}" if wl.get("pcie_link") else ""))
    return out + [""]


def placement(doc: dict[str, Any]) -> str:
    """Where the jobs ran: each drive's NUMA node, or why they were not placed."""
    if not doc.get("settings", {}).get("numa_placement"):
        return "Jobs were not bound to NUMA nodes (--no-numa, or fio without libnuma)."
    nodes = [f"{d['path']} -> node {d['numa_node']}" for d in doc.get("devices", [])
             if d.get("numa_node") is not None]
    unknown = [d["path"] for d in doc.get("devices", []) if d.get("numa_node") is None]
    text = "Jobs bound to each drive's NUMA node: " + (", ".join(nodes) or "none known")
    return text + (f"; node unknown, not bound: {', '.join(unknown)}." if unknown else ".")


def scaling_section(doc: dict[str, Any]) -> list[str]:
    an = doc.get("analysis", {}).get("scaling", {})
    out: list[str] = []
    for key, data in an.items():
        w = data.get("workload", key)
        engine = data.get("engine", "libaio")
        unit = WORKLOADS[w].metric
        basis = "sum of baselines" if engine == "libaio" else "1-drive point x drives"
        rows = [[str(p["drives"]), fmt_value(p["measured"], unit), fmt_value(p["linear"], unit),
                 fmt_pct(p["ratio"])] for p in data["points"]]
        out += [f"## Scaling: {w}, {engine}, drives 1..N together", ""]
        out += [placement(doc), ""]
        out += table(["drives", "measured", f"linear ({basis})", "of linear"], rows)
        skipped = [r for r in doc.get("runs", []) if r.get("step") == "scaling"
                   and r.get("engine") == engine and r.get("workload") == w
                   and r.get("status") == "skipped"]
        if skipped:
            out += [f"Not run with {len(skipped)} drive count(s): {skipped[0].get('reason')}", ""]
        at = data.get("departs_at")
        thr = fmt_pct(data.get("threshold"))
        out.append(f"Scaling departs from linear at **{at} drives** (below {thr})." if at
                   else f"Scaling stays within {thr} of linear.")
        out.append("")
    shown = {(d.get("workload", k), d.get("engine", "libaio")) for k, d in an.items()}
    missing: dict[tuple[str, str], str] = {}
    for r in doc.get("runs", []):
        key = (str(r.get("workload")), str(r.get("engine")))
        if r.get("step") == "scaling" and key not in shown and r.get("status") != "ok":
            missing.setdefault(key, str(r.get("reason")))
    for (w, engine), why in missing.items():
        out += [f"Scaling of {w} with {engine}: no result ({why}).", ""]
    return out


def engines_section(doc: dict[str, Any]) -> list[str]:
    an = doc.get("analysis", {}).get("engines", [])
    if not an:
        return []
    rows = []
    for e in an:
        unit = WORKLOADS[e["workload"]].metric if e.get("workload") in WORKLOADS else "iops"
        rows.append([str(e.get("target")), str(e.get("engine")), fmt_value(e.get("value"), unit),
                     fmt_lat(e.get("lat_p99_ns")),
                     "ok" if e.get("status") == "ok" else f"{e.get('status')}: {e.get('reason')}"])
    return ["## Engines: libaio, io_uring, io_uring + hipri (polled)", ""] + table(
        ["target", "engine", "result", "p99", "note"], rows)


def emulated(doc: dict[str, Any]) -> list[str]:
    """What says this run measured emulated hardware (QEMU drives, a QEMU
    CPU or machine); empty when nothing does."""
    env = doc.get("environment", {})
    models: dict[str, list[str]] = {}
    for d in doc.get("devices", []):
        if "QEMU" in str(d.get("model") or ""):
            models.setdefault(printable(str(d["model"])), []).append(printable(str(d.get("path"))))
    out = [f"{paths[0]} is a {m}" if len(paths) == 1 else f"{', '.join(sorted(paths))} are {m}"
           for m, paths in sorted(models.items())]
    cpu = printable(str(env.get("cpu", {}).get("model") or ""))
    if "QEMU" in cpu:
        out.append(f"the CPU is a {cpu}")
    vendor = printable(str(env.get("dmi", {}).get("sys_vendor") or ""))
    if "QEMU" in vendor:
        out.append(f"the machine is made by {vendor}")
    return out


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def latency_section(doc: dict[str, Any]) -> list[str]:
    an = doc.get("analysis", {}).get("latency", [])
    if not an:
        return []
    out = ["## Latency: polled (io_uring hipri) against interrupt-driven (io_uring)", "",
           "4K random reads at each queue depth: on the raw drives one job per drive, "
           "on a stria array one job per member (the same I/Os in flight). p50/p99/p99.9 "
           "are fio's completion latency (clat); IOPS is the sum over the drives. "
           "\"p50 vs interrupt\" is a polled row's p50 over the same target's interrupt-"
           "driven p50; \"p50 vs raw\" an array row's p50 over the raw drives' with the "
           "same queue depth and completion.", ""]
    why = emulated(doc)
    if why:
        out += ["**Emulated time.** " + "; ".join(why) + ": these figures are the "
                "emulator's time, not a drive's or a CPU's. They show that polled I/O "
                "runs through each target, and compare its rows with each other; they "
                "say nothing of real hardware, and no verdict on speed is drawn from "
                "them.", ""]
    rows = []
    for e in an:
        c = e.get("clat_ns", {})
        note = "" if e.get("status") == "ok" else f"{e.get('status')}: {e.get('reason')}"
        target = ("raw drives" if e.get("kind") == "raw"
                  else f"{e.get('kind')} RAID{e.get('level')}")
        rows.append([target, str(e.get("iodepth")),
                     "polled" if e.get("polled") else "interrupt",
                     fmt_value(e.get("iops"), "iops"), fmt_lat(c.get("50")),
                     fmt_lat(c.get("99")), fmt_lat(c.get("99.9")),
                     fmt_ratio(e.get("p50_vs_interrupt")), fmt_ratio(e.get("p50_vs_raw")),
                     note])
    return out + table(["target", "QD", "completion", "IOPS", "p50", "p99", "p99.9",
                        "p50 vs interrupt", "p50 vs raw", "note"], rows)


def arrays_section(doc: dict[str, Any]) -> list[str]:
    an = doc.get("analysis", {}).get("arrays", [])
    tried = [t for t in doc.get("arrays", []) if t.get("step", "arrays") == "arrays"]
    if not an and not tried:
        return []
    out = ["## Arrays vs the raw drives", ""]
    rows = []
    for a in an:
        unit = a.get("unit", "iops")
        note = "" if a.get("status") == "ok" else f"{a.get('status')}: {a.get('reason')}"
        n = len(a.get("samples", []))
        if n > 1:
            note = f"median of {n}, spread {fmt_pct(a.get('spread'))}" + (
                f"; {note}" if note else "")
        rows.append([f"{a['kind']} RAID{a['level']}", a["workload"],
                     fmt_value(a.get("value"), unit), fmt_value(a.get("raw"), unit),
                     fmt_pct(a.get("efficiency")), fmt_value(a.get("bound"), unit),
                     fmt_pct(a.get("of_bound")), note])
    out += table(["array", "workload", "result", "raw aggregate", "efficiency",
                  "bound", "of bound", "note"], rows)
    for t in tried:
        if t.get("note") and t.get("round", 1) == 1:
            out.append(f"- {t.get('kind')} RAID{t.get('level')}: {t['note']}")
        if t.get("status") != "ok" and t.get("round", 1) == 1:
            out.append(f"- {t.get('kind')} RAID{t.get('level')}: {t.get('status')}: "
                       f"{t.get('reason')}")
    out.append("")
    out.append("Efficiency = array / raw aggregate of the same drives, same workload. "
               "Bound = slowest member x members for reads; for RAID5/6 writes, the "
               "member I/Os per write (read-modify-write or reconstruct-write, whichever "
               "is cheaper) or N - parity data members for full stripes.")
    return out + [""]


def problems_section(doc: dict[str, Any]) -> list[str]:
    bad = [r for r in doc.get("runs", []) if r.get("status") == "failed"]
    if not bad:
        return []
    return ["## Failed runs", ""] + [f"- `{r['id']}`: {printable(str(r.get('reason')))}" for r in bad] + [""]


def plots_section(plots: list[str], missing: str | None = None) -> list[str]:
    if not plots:
        return ["## Plots", "", missing[0].upper() + missing[1:] + ".", ""] if missing else []
    return ["## Plots", ""] + [f"![{p}]({p})" for p in plots] + [""]


def summary_lines(doc: dict[str, Any]) -> list[str]:
    """The headline figures for a terminal: weakest link, scaling, efficiency."""
    an = doc.get("analysis", {})
    out = []
    for w, b in an.get("baseline", {}).items():
        wl = b.get("weakest_link")
        if wl and w == "randread-4k":
            out.append(f"weakest link ({w}): {wl['member']} -> bound "
                       f"{fmt_value(wl['bound'], b['unit'])}")
    for w, sc in an.get("scaling", {}).items():
        at = sc.get("departs_at")
        out.append(f"scaling ({w}): " + (f"departs from linear at {at} drives" if at
                                         else "linear"))
    for a in an.get("arrays", []):
        if a.get("engine") == "libaio":
            out.append(f"{a['kind']} RAID{a['level']} {a['workload']}: "
                       + (f"{fmt_pct(a['efficiency'])} of raw" if a.get("efficiency") is not None
                          else f"{a.get('status')}: {a.get('reason')}"))
    return out


def render(doc: dict[str, Any], plots: list[str] | None = None,
           plots_missing: str | None = None) -> str:
    parts = (header(doc) + steady_section(doc) + devices_section(doc) + baseline_section(doc)
             + scaling_section(doc) + engines_section(doc) + arrays_section(doc)
             + latency_section(doc)
             + problems_section(doc) + plots_section(plots or [], plots_missing))
    parts += ["## Repeating a run", "",
              "Every measurement is a fio job file in `jobs/`; its JSON output is in "
              "`fio/`. Repeat one by hand with `fio --output-format=json jobs/FILE.fio`.", ""]
    return "\n".join(parts)
