# SPDX-License-Identifier: GPL-2.0
"""NVMe Get/Set Features through the admin passthrough ioctl.

The kernel's NVME_IOCTL_ADMIN_CMD takes a struct nvme_passthru_cmd
(include/uapi/linux/nvme_ioctl.h, 72 bytes) and returns the NVMe status
(> 0) when the controller completed the command with an error, or fails
with errno. Opening the controller's character device needs no special
rights, the ioctl needs CAP_SYS_ADMIN. This is what ``nvme get-feature``
and ``nvme set-feature`` do, without needing nvme-cli at run time.
"""

from __future__ import annotations

import errno
import fcntl
import os
import struct
from pathlib import Path
from typing import Protocol

FEAT_IRQ_COALESCE = 0x08

_CMD = struct.Struct("<BBHIIIQQIIIIIIIIII")
assert _CMD.size == 72
# _IOWR('N', 0x41, struct nvme_admin_cmd)
NVME_IOCTL_ADMIN_CMD = (3 << 30) | (_CMD.size << 16) | (ord("N") << 8) | 0x41
OPC_SET_FEATURES = 0x09
OPC_GET_FEATURES = 0x0A

#: Status codes (SCT << 8 | SC) worth a name in messages.
STATUS_NAMES = {
    0x001: "Invalid Command Opcode",
    0x002: "Invalid Field in Command",
    0x10D: "Feature Identifier Not Saveable",
    0x10E: "Feature Not Changeable",
    0x10F: "Feature Not Namespace Specific",
}
FEATURE_NOT_CHANGEABLE = 0x10E


class NvmeError(Exception):
    """A feature command failed: ``status`` is the NVMe status (SCT/SC) when
    the controller answered, ``errno`` when the kernel refused."""

    def __init__(self, ctrl: str, message: str, status: int | None = None,
                 err: int | None = None) -> None:
        super().__init__(f"{ctrl}: {message}")
        self.ctrl = ctrl
        self.message = message
        self.status = status
        self.errno = err

    @property
    def refused(self) -> bool:
        """The controller answered and said no (vs. the device is gone)."""
        return self.status is not None

    @property
    def gone(self) -> bool:
        return self.errno in (errno.ENOENT, errno.ENODEV, errno.ENXIO)


def status_text(status: int) -> str:
    code = status & 0x7FF
    name = STATUS_NAMES.get(code, "NVMe error")
    return f"{name} (status 0x{code:03x})"


class NvmeAdmin(Protocol):
    """What stria-tune needs from an NVMe controller."""

    def get_feature(self, ctrl: str, fid: int) -> int: ...

    def set_feature(self, ctrl: str, fid: int, value: int) -> None: ...


class IoctlAdmin:
    """Feature commands on /dev/<ctrl> via NVME_IOCTL_ADMIN_CMD."""

    def __init__(self, dev_dir: Path = Path("/dev")) -> None:
        self.dev_dir = dev_dir

    def _submit(self, ctrl: str, opcode: int, cdw10: int, cdw11: int) -> int:
        buf = bytearray(_CMD.pack(opcode, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  cdw10, cdw11, 0, 0, 0, 0, 0, 0))
        path = self.dev_dir / ctrl
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            raise NvmeError(ctrl, f"cannot open {path}: {e.strerror}", err=e.errno) from e
        try:
            rc = fcntl.ioctl(fd, NVME_IOCTL_ADMIN_CMD, buf, True)
        except OSError as e:
            hint = " (needs root)" if e.errno in (errno.EACCES, errno.EPERM) else ""
            raise NvmeError(ctrl, f"admin command failed: {e.strerror}{hint}",
                            err=e.errno) from e
        finally:
            os.close(fd)
        if rc > 0:
            raise NvmeError(ctrl, status_text(rc), status=rc & 0x7FF)
        result: int = _CMD.unpack(bytes(buf))[-1]
        return result

    def get_feature(self, ctrl: str, fid: int) -> int:
        return self._submit(ctrl, OPC_GET_FEATURES, fid & 0xFF, 0)

    def set_feature(self, ctrl: str, fid: int, value: int) -> None:
        self._submit(ctrl, OPC_SET_FEATURES, fid & 0xFF, value)
