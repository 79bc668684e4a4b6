# SPDX-License-Identifier: GPL-2.0
"""stria-tune: inspect, apply, revert and persist NVMe and block-layer
settings. One module per concern:

  profiles  profile files (TOML) -> validated Profile
  nvme      NVMe Get/Set Features through the admin ioctl
  plan      compare the system with a profile -> list of changes
  state     the saved previous values that revert restores
  apply     perform / revert changes, modprobe.d and module reload
  persist   the udev rules file
  show      the report: build it, print it as text or JSON
  cli       argument parsing and exit codes
"""
