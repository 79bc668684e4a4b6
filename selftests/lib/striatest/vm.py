"""One QEMU guest: q35 under TCG, emulated NVMe drives each behind its own
PCIe root port (so QMP device_del can pull them), optionally two NUMA nodes
with a pxb-pcie expander per node, the host root over 9p, two serial ports
(kernel console, test TAP) and a QMP socket."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from .kernels import TOP, Kernel
from .testfile import TestSpec

QEMU = "qemu-system-x86_64"
# -erms -fsrm: TCG runs each iteration of a "rep movsb/stosb" as a
# translated block of its own, so with ERMS the kernel's memcpy, memset,
# clear_page and user copies cost one dispatch per byte (a third of the
# instructions of a RAID5 write on null_blk). Without ERMS the kernel
# copies with 8-byte moves, which TCG runs at about the cost a real CPU's
# copy has relative to the rest of the I/O path (and the data tests take
# half as long: raid0/003 69 s instead of 136 s).
# -la57: 4-level paging, as most servers run. With 5-level paging, the
# debug kernel (6.1) reported a bogus "KASAN: wild-memory-access" when an
# interrupt came while identify_cpu() had cleared the boot CPU's feature
# bits: before the alternatives are patched, pgtable_l5_enabled() reads
# X86_FEATURE_LA57 from them, and KASAN then takes the direct map
# (0xff11...) for an address without shadow.
CPU = "max,-erms,-fsrm,-la57"
# The TCG plugin of VM_PROFILE=1 guests (selftests/tools/stria-insn-profile.c)
PROFILE_PLUGIN = TOP / "build" / "tools" / "stria-insn-profile.so"


def image_paths(workdir: Path, spec: TestSpec) -> list[Path]:
    return [workdir / f"nvme{i}.img" for i in range(spec.nvme)]


def create_images(workdir: Path, spec: TestSpec) -> None:
    """Fresh, zeroed (sparse) drive images: stale superblocks from an earlier
    test must never reach the next one."""
    for p in image_paths(workdir, spec):
        if p.exists():
            p.unlink()
        subprocess.run(["truncate", "-s", spec.nvme_size, str(p)], check=True)


def _node_of(spec: TestSpec, i: int) -> int:
    if spec.nvme_nodes:
        return spec.nvme_nodes[i]
    return i % 2


def qemu_argv(k: Kernel, initrd: Path, spec: TestSpec, workdir: Path,
              append: str = "", without: frozenset[int] = frozenset()) -> list[str]:
    """The QEMU command line for `spec`; `append` adds to the kernel command
    line, and the drives numbered in `without` are left out (a custom boot,
    runner.CustomBoot)."""
    # no_timer_check: under TCG on a loaded host the IO-APIC timer check
    # can fail and panic the boot ("IO-APIC + timer doesn't work!").
    # rcu_cpu_stall_timeout=60: an RCU stall fails the test (and ends the
    # guest), but a vCPU thread the host holds up for Debian's default 21 s
    # is not one; a real stall lasts until the guest dies.
    cmdline = ("console=ttyS0,115200 loglevel=5 panic=-1 oops=panic no_timer_check "
               "rcupdate.rcu_cpu_stall_timeout=60 " + spec.append
               + (" " + append if append else ""))
    # thread=single: one host thread runs every vCPU in turn. Tests run two
    # at a time on the 2-core CI machine, and with one thread per vCPU
    # (thread=multi) two 2-vCPU guests are four busy threads on two cores:
    # a vCPU spinning on a lock whose holder's thread is descheduled burns
    # its whole slice, and multi-threaded TCG pays for atomics and
    # cross-vCPU TLB flushes besides. In one thread a spinning vCPU's PAUSE
    # hands over to the other vCPU at once. raid56/001 and raid0/003 side
    # by side: 172 s with thread=multi, 64 s with thread=single (and 101 s
    # with thread=multi and one vCPU each, which also stalled an emulated
    # NVMe queue in 2 of 45 boots).
    # A test of tasks on different CPUs meeting in stria's code, or a
    # benchmark of work spread over the guest's CPUs, asks for thread=multi
    # (VM_TCG_THREADS): in one thread, the vCPUs never run at once
    # (Documentation/stria/testing.rst, "Vcpus that run at once").
    threads = "multi" if spec.tcg_multi else "single"
    argv = [QEMU, "-machine", "q35", "-accel", f"tcg,thread={threads}", "-cpu", CPU,
            "-smp", f"{spec.cpus},sockets={2 if spec.numa else 1}", "-m", str(spec.mem), "-nodefaults", "-no-reboot",
            "-display", "none", "-vga", "none",
            "-kernel", str(k.image), "-initrd", str(initrd), "-append", cmdline,
            "-chardev", f"file,id=con,path={workdir / 'console.log'}",
            "-serial", "chardev:con",
            "-chardev", f"file,id=tap,path={workdir / 'tap.log'}",
            "-serial", "chardev:tap",
            "-qmp", f"unix:{workdir / 'qmp.sock'},server=on,wait=off",
            "-fsdev", "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap",
            "-device", "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot",
            # the checkout again, mounted at its own path in the guest: it
            # may live where the guest has tmpfs (a CI clone under /tmp)
            "-fsdev", f"local,id=striatop,path={TOP},security_model=none,readonly=on,"
            "multidevs=remap",
            "-device", "virtio-9p-pci,fsdev=striatop,mount_tag=striatop",
            "-fsdev", f"local,id=strout,path={workdir / 'out'},security_model=none",
            "-device", "virtio-9p-pci,fsdev=strout,mount_tag=strout"]
    if spec.numa:
        half = spec.mem // 2
        cpus0 = f"0-{spec.cpus // 2 - 1}" if spec.cpus > 2 else "0"
        cpus1 = f"{spec.cpus // 2}-{spec.cpus - 1}" if spec.cpus > 2 else "1"
        argv += ["-object", f"memory-backend-ram,id=m0,size={half}M",
                 "-object", f"memory-backend-ram,id=m1,size={spec.mem - half}M",
                 "-numa", f"node,nodeid=0,cpus={cpus0},memdev=m0",
                 "-numa", f"node,nodeid=1,cpus={cpus1},memdev=m1",
                 "-device", "pxb-pcie,id=pxb0,bus_nr=64,numa_node=0,bus=pcie.0",
                 "-device", "pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0"]
    if spec.prealloc:
        # The host backs guest memory on first touch, with transparent
        # huge pages: the first store to each 2 MiB costs a fault and
        # zeroing it. Guests keep reaching memory they never touched for
        # minutes, and a benchmark then charges 13 to 16 % of its host
        # time to whichever contender does (host perf: clear_page_erms
        # under the TCG store helper). Touch it all before the guest runs.
        argv += ["-mem-prealloc"]
    if spec.profile:
        (workdir / "profile").mkdir(exist_ok=True)
        argv += ["-plugin", f"{PROFILE_PLUGIN},ctl={workdir / 'profile'}"]
    for i, img in enumerate(image_paths(workdir, spec)):
        if i in without:
            continue
        bus = f"pxb{_node_of(spec, i)}" if spec.numa else "pcie.0"
        extra = spec.nvme_opts.get(i)
        if extra:
            drive = f"if=none,id=d{i},format=raw,cache=unsafe,{extra.replace('@IMG@', str(img))}"
        else:
            drive = f"if=none,id=d{i},format=raw,cache=unsafe,file={img}"
        argv += ["-device", f"pcie-root-port,id=rp{i},bus={bus},chassis={i + 1},slot={i + 1}",
                 "-drive", drive]
        ns = spec.nvme_ns_opts.get(i)
        if ns is None:
            argv += ["-device", f"nvme,id=nvme{i},serial=stria{i:04d},drive=d{i},bus=rp{i}"]
        else:
            argv += ["-device", f"nvme,id=nvme{i},serial=stria{i:04d},bus=rp{i}",
                     "-device", f"nvme-ns,drive=d{i},bus=nvme{i},nsid=1,{ns}"]
    for i in range(spec.hotplug):
        # empty slots: host_plug puts a drive in one, as a disk inserted
        n = spec.nvme + i + 1
        argv += ["-device", f"pcie-root-port,id=hp{i},bus=pcie.0,chassis={n},slot={n}"]
    return argv


class VM:
    """A running guest."""

    def __init__(self, argv: list[str], workdir: Path) -> None:
        self.workdir = workdir
        self.log = open(workdir / "qemu.log", "ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self._qmp: socket.socket | None = None
        self._buf = b""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def cpu_seconds(self) -> float | None:
        """CPU time QEMU has used so far (user and system), or None once it
        is gone: what a test costs whatever else the machine runs."""
        try:
            fields = (Path("/proc") / str(self.proc.pid) / "stat").read_text().rsplit(")", 1)[1]
            utime, stime = fields.split()[11:13]
        except (OSError, IndexError, ValueError):
            return None
        return (int(utime) + int(stime)) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        """Power loss: SIGKILL, nothing flushed by the guest."""
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.log.close()
        if self._qmp:
            self._qmp.close()
            self._qmp = None

    def _qmp_connect(self) -> socket.socket:
        if self._qmp:
            return self._qmp
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(str(self.workdir / "qmp.sock"))
        self._qmp = s
        self._read_msg()  # greeting
        self.qmp({"execute": "qmp_capabilities"})
        return s

    def _read_msg(self) -> dict[str, Any]:
        assert self._qmp is not None
        while b"\n" not in self._buf:
            chunk = self._qmp.recv(65536)
            if not chunk:
                raise ConnectionError("QMP socket closed")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        msg: dict[str, Any] = json.loads(line)
        return msg

    def qmp(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Run one QMP command; return its reply (events are skipped)."""
        s = self._qmp_connect()
        s.sendall(json.dumps(cmd).encode() + b"\n")
        while True:
            msg = self._read_msg()
            if "return" in msg or "error" in msg:
                return msg


def insn_snapshot(workdir: Path, name: str, timeout: float = 60) -> Path:
    """Ask the guest's instruction-count plugin for a snapshot of its
    counters (VM_PROFILE=1) and return the file once it is written."""
    ctl = workdir / "profile"
    snap = ctl / f"snap-{name}"
    snap.unlink(missing_ok=True)
    (ctl / f"req-{name}").touch()
    end = time.time() + timeout
    while not snap.exists():
        if time.time() > end:
            raise OSError(f"no instruction-count snapshot {name} in {timeout} s")
        time.sleep(0.05)
    return snap


def wait_qmp_socket(workdir: Path, timeout: float = 10) -> None:
    end = time.time() + timeout
    while time.time() < end and not (workdir / "qmp.sock").exists():
        time.sleep(0.05)
