/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the lifecycle's start (array.c) and its checks (start.c) share: the
 * members a start has opened, its reservation of a name and UUID, and the
 * checks of create and assemble. Private to the lifecycle layer
 * (Documentation/stria/layers.rst): nothing below it includes this.
 */
#ifndef STRIA_START_H
#define STRIA_START_H

#include "stria.h"

struct stria_opened;
struct stria_starting;

void stria_close_all(struct stria_opened *o, u32 n);
int stria_open_all(struct stria_spec *spec, struct stria_opened *o);
int stria_zero_parity_data(struct stria_spec *spec, struct stria_opened *o,
			   const struct stria_geom *g);
int stria_check_create(struct stria_spec *spec, struct stria_opened *o,
		       struct stria_geom *g);
int stria_reserve(struct stria_spec *spec, struct stria_starting *s);
void stria_release(struct stria_starting *s);
int stria_interrupted(struct stria_spec *spec);
int stria_check_assemble(struct stria_spec *spec, struct stria_opened *o,
			 struct stria_geom *g, u32 *roles);
int stria_majority_node(struct stria_opened *o, u32 n);

#endif
