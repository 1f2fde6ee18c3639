/*
 * strpool.h: one copy of each distinct string.  Every trace file has its own string table
 * and ids, and its mapping is gone once read, so the merged trace keeps the strings here:
 * the same FMRI from four processes is stored once and compared by pointer.
 */
#ifndef SVCTRACE_STRPOOL_H
#define SVCTRACE_STRPOOL_H

#include <stddef.h>

struct strpool_entry;

struct strpool {
	struct strpool_entry **buckets;
	size_t n_buckets, n;
};

/* Stores s once; *ret points at the pooled copy until strpool_done().  0 or -ENOMEM. */
int strpool_add(struct strpool *p, const char *s, const char **ret);
void strpool_done(struct strpool *p);

#endif
