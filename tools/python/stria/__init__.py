# SPDX-License-Identifier: GPL-2.0
"""stria operator tools: device discovery (stria.discovery), stria-tune."""

__version__ = "0.1.0"
