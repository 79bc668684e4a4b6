#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dracut pre-trigger hook: load stria before udev announces the block
# devices, so that its rules (64-stria-assembly.rules) start each array
# once all its members are there, now or as more appear.
modprobe stria || warn "stria: cannot load the stria module"
