"""Reading a test file's header: its description and VM shape."""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from striatest.kernels import TIERS

KEYS = ("DESCRIPTION", "VM_NVME", "VM_NVME_SIZE", "VM_NUMA", "VM_NVME_NODES", "VM_NULLB",
        "VM_NULLB_SIZE_MB", "VM_MEM", "VM_CPUS", "VM_APPEND", "HOST", "TIMEOUT", "KERNELS",
        "KERNELS_LONG", "VM_MACHINE", "SERIAL", "VM_PROFILE", "VM_PREALLOC", "VM_HOTPLUG",
        "KEEP_OUT", "VM_TCG_THREADS", "MAY_SKIP")


@dataclass
class TestSpec:
    """What a test file declares about itself."""

    path: Path
    name: str
    description: str = ""
    nvme: int = 0
    nvme_size: str = "256M"
    numa: bool = False
    nvme_nodes: list[int] = field(default_factory=list)
    nvme_opts: dict[int, str] = field(default_factory=dict)
    # drive index -> properties of its namespace (QEMU nvme-ns): the drive
    # is then a controller with one explicit namespace
    nvme_ns_opts: dict[int, str] = field(default_factory=dict)
    nullb: int = 0
    nullb_size_mb: int = 256
    mem: int = 2048
    cpus: int = 2
    append: str = ""
    host: bool = False
    timeout: int = 300
    # runs with no other test at once (selftests/run -j): its assertions
    # measure speed or time
    serial: bool = False
    kernels: list[str] = field(default_factory=lambda: ["stock", "debug"])
    # tiers the test runs on in make check-long only (selftests/run --long)
    kernels_long: list[str] = field(default_factory=list)
    # counts the guest's instructions for host_profile (a TCG plugin)
    profile: bool = False
    # all guest memory is touched before the guest starts (benchmarks)
    prealloc: bool = False
    # empty PCIe slots (hp0, hp1, ...) for drives plugged in later
    hotplug: int = 0
    # the file defines host_prepare(): run on the host before the first boot
    host_prepare: bool = False
    # its $STRIA_OUT is copied to the results even when it passes (the raw
    # output of a benchmark)
    keep_out: bool = False
    # one host thread per vCPU (QEMU's thread=multi) instead of one for all:
    # for a test of tasks on different CPUs meeting in stria's code, or a
    # benchmark of work spread over the guest's CPUs
    tcg_multi: bool = False
    # tier -> why the test may skip there (MAY_SKIP); a skip on a tier not
    # named is a failure: make check must not pass what it did not run
    may_skip: dict[str, str] = field(default_factory=dict)


def parse_may_skip(value: str, path: Path) -> dict[str, str]:
    """MAY_SKIP: one declaration a line, 'TIER [TIER...]: why', the tiers
    where the test's requires() may legitimately fail and the reason; a
    tier with no reason, or an unknown one, is an error of the file."""
    out: dict[str, str] = {}
    for line in value.splitlines():
        line = line.strip()
        if not line:
            continue
        tiers, sep, why = line.partition(":")
        why = why.strip()
        if not sep or not tiers.split() or not why:
            raise ValueError(f"{path}: MAY_SKIP line {line!r}: write 'TIER [TIER...]: why'")
        unknown = set(tiers.split()) - set(TIERS)
        if unknown:
            raise ValueError(f"{path}: unknown kernel tier {' '.join(sorted(unknown))} in "
                             f"MAY_SKIP (tiers: {' '.join(TIERS)})")
        for tier in tiers.split():
            if tier in out:
                raise ValueError(f"{path}: MAY_SKIP names {tier} twice")
            out[tier] = why
    return out


def load(path: Path, top: Path) -> TestSpec:
    """Source the test file in bash (it only defines things) and read its header."""
    script = (f"set -e; source {shlex.quote(str(path))} >/dev/null; "
              "for v in " + " ".join(KEYS) + " ${!VM_NVME_OPTS_*} ${!VM_NVME_NS_OPTS_*}; do "
              "[ -n \"${!v+x}\" ] && printf '%s=%s\\0' \"$v\" \"${!v}\"; done; "
              "declare -F host_prepare >/dev/null && printf 'HOST_PREPARE=1\\0'; true")
    proc = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValueError(f"{path}: cannot read the test header: {proc.stderr.strip()}")
    out = proc.stdout
    vals = dict(item.split("=", 1) for item in out.split("\0") if item)
    try:
        name = str(path.relative_to(top / "selftests"))
    except ValueError:
        name = str(path)
    spec = TestSpec(path=path, name=name)
    spec.description = vals.get("DESCRIPTION", "")
    spec.nvme = int(vals.get("VM_NVME", "0"))
    spec.nvme_size = vals.get("VM_NVME_SIZE", spec.nvme_size)
    spec.numa = vals.get("VM_NUMA", "0") == "1"
    spec.nvme_nodes = [int(x) for x in vals.get("VM_NVME_NODES", "").split()]
    spec.nullb = int(vals.get("VM_NULLB", "0"))
    spec.nullb_size_mb = int(vals.get("VM_NULLB_SIZE_MB", "256"))
    spec.mem = int(vals.get("VM_MEM", "2048"))
    spec.cpus = int(vals.get("VM_CPUS", "2"))
    spec.append = vals.get("VM_APPEND", "")
    spec.host = vals.get("HOST", "0") == "1"
    spec.timeout = int(vals.get("TIMEOUT", "300"))
    spec.serial = vals.get("SERIAL", "0") == "1"
    spec.profile = vals.get("VM_PROFILE", "0") == "1"
    spec.prealloc = vals.get("VM_PREALLOC", "0") == "1"
    spec.hotplug = int(vals.get("VM_HOTPLUG", "0"))
    spec.host_prepare = vals.get("HOST_PREPARE") == "1"
    spec.keep_out = vals.get("KEEP_OUT", "0") == "1"
    threads = vals.get("VM_TCG_THREADS", "single")
    if threads not in ("single", "multi"):
        raise ValueError(f"{path}: VM_TCG_THREADS is single or multi, not {threads!r}")
    spec.tcg_multi = threads == "multi"
    if "KERNELS" in vals:
        spec.kernels = vals["KERNELS"].split()
    spec.kernels_long = vals.get("KERNELS_LONG", "").split()
    spec.may_skip = parse_may_skip(vals.get("MAY_SKIP", ""), path)
    unknown = set(spec.kernels + spec.kernels_long) - set(TIERS)
    if unknown:
        raise ValueError(f"{path}: unknown kernel tier {' '.join(sorted(unknown))} in KERNELS "
                         f"or KERNELS_LONG (tiers: {' '.join(TIERS)})")
    both = set(spec.kernels) & set(spec.kernels_long)
    if both:
        raise ValueError(f"{path}: {' '.join(sorted(both))} in both KERNELS and KERNELS_LONG")
    for k, v in vals.items():
        if k.startswith("VM_NVME_OPTS_"):
            spec.nvme_opts[int(k[len("VM_NVME_OPTS_"):])] = v
        elif k.startswith("VM_NVME_NS_OPTS_"):
            spec.nvme_ns_opts[int(k[len("VM_NVME_NS_OPTS_"):])] = v
    if not spec.description:
        raise ValueError(f"{path}: DESCRIPTION is missing")
    if not 0 <= spec.nvme <= 12:
        raise ValueError(f"{path}: VM_NVME must be 0..12")
    if not 0 <= spec.hotplug <= 4:
        raise ValueError(f"{path}: VM_HOTPLUG must be 0..4")
    if spec.nvme_nodes and len(spec.nvme_nodes) != spec.nvme:
        raise ValueError(f"{path}: VM_NVME_NODES needs one node per drive")
    return spec
