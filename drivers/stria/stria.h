/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stria: declarations shared between the module's files.
 */
#ifndef _STRIA_H
#define _STRIA_H

#include <linux/types.h>

#define STRIA_MODULE_VERSION	"0.1.0"

int stria_ctl_init(void);
void stria_ctl_exit(void);

#endif /* _STRIA_H */
