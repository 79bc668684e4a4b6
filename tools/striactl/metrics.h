/* SPDX-License-Identifier: GPL-2.0 */
/*
 * striactl status -o prometheus (metrics.c): the Prometheus text format
 * of node_exporter's textfile collector.
 */
#ifndef STRIACTL_METRICS_H
#define STRIACTL_METRICS_H

#include <stdio.h>

#include "snapshot.h"

/* Every metric family for the @n arrays @a; nothing when there are none. */
void metrics_print(FILE *f, const struct array_snap *a, size_t n);

#endif
