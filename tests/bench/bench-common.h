/*
 * bench-common.h: small helpers shared by the benchmark programs (tests/bench/ only).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "libscf.h"

/* Prints what failed with libscf's message and exits 1: a benchmark has no recovery path. */
#define bench_check(h, r, what)                                                                    \
	do {                                                                                       \
		int _r = (r);                                                                      \
		if (_r < 0) {                                                                      \
			fprintf(stderr, "%s: %s (%s)\n", (what), scf_strerror(_r),                 \
			        (h) ? scf_handle_errmsg(h) : "");                                  \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* An add that may find the entity already there (a re-run on the same sandbox). */
static inline int bench_exists_ok(int r)
{
	return r == -SCF_ERROR_EXISTS ? 0 : r;
}

#endif
