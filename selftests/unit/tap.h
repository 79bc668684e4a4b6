/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TAP producer for the user-space unit tests: tap(ok, description) prints
 * one "ok N - ..." or "not ok N - ..." line; tap_exit_code(), what main()
 * returns, prints the plan "1..N" last (TAP allows a trailing plan), so no
 * count is kept by hand. selftests/unit/run checks that the plan is there
 * and matches the lines: a test that stopped half-way fails.
 */
#ifndef _STRIA_UNIT_TAP_H
#define _STRIA_UNIT_TAP_H

#include <stdarg.h>
#include <stdio.h>

static unsigned int tap_n, tap_failed;

static void tap(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%sok %u - ", ok ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int tap_exit_code(void)
{
	printf("1..%u\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* _STRIA_UNIT_TAP_H */
