/* SPDX-License-Identifier: GPL-2.0 */
/*
 * striactl status -o prometheus (metrics.c): the Prometheus text format
 * of node_exporter's textfile collector.
 */
#ifndef STRIACTL_METRICS_H
#define STRIACTL_METRICS_H

#include <stdio.h>

#include "snapshot.h"

/*
 * stria_up (@up: the module is loaded), then every metric family for the
 * @n arrays @a; only stria_up when there are none.
 */
void metrics_print(FILE *f, int up, const struct array_snap *a, size_t n);

#endif
