# SPDX-License-Identifier: GPL-2.0
"""stria-bench: the field's NVMe array benchmark method as one command.

Per-drive baselines, 1..N drive scaling with NUMA-placed fio jobs, stria vs
md vs dm-stripe arrays over the same drives, libaio vs io_uring vs polled
I/O, and the derived figures (array efficiency, weakest-link bound, RAID5/6
write bound).  One module per concern:

========== ===============================================================
jobs       fio workloads, engines and job files (written to the output)
fio        running fio and parsing its JSON output (never its text)
devices    per-device facts from sysfs (size, NUMA node, io_poll, model)
safety     refusing devices that hold data unless --force
arrays     md, dm-stripe and stria array setup and teardown
env        the environment record (kernel, CPUs, NUMA, fio, stria-tune)
suites     what quick, standard and full run
steps      baseline, scaling, arrays and engines
analysis   efficiency, weakest link, RAID write bounds, scaling departure
results    the results.json document
report     report.md
plots      PNG plots (matplotlib)
compare    differences between two result folders
progress   step and ETA on a terminal, quiet otherwise
cli        the command line
========== ===============================================================
"""

from .. import __version__ as __version__  # the package's one version
