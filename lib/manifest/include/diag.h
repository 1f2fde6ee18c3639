/*
 * diag.h: the problems a read found, as a list the caller prints or inspects.
 *
 * The reader prints nothing: each problem becomes an mf_diag_t naming the file, the line and
 * what is wrong, so that svccfg validate can print them all and svccfg import can refuse the
 * manifest.
 */
#ifndef SMF_MANIFEST_DIAG_H
#define SMF_MANIFEST_DIAG_H

#include <stddef.h>
#include <stdio.h>

#include "macro.h"

typedef struct mf_diag {
	char *file;
	unsigned line; /* 0 when no line applies (the file could not be read) */
	char *message;
} mf_diag_t;

/* Zero-initialized before the first mf_diags_add(). */
typedef struct mf_diags {
	mf_diag_t *v;
	size_t n;
	size_t n_allocated;
} mf_diags_t;

/* Adds one diagnostic; -ENOMEM if it could not be recorded. */
int mf_diags_add(mf_diags_t *d, const char *file, unsigned line, const char *fmt, ...)
        _printf_(4, 5);
void mf_diags_clear(mf_diags_t *d);
/* "FILE:LINE: message" (or "FILE: message" without a line); the caller frees it. */
char *mf_diag_format(const mf_diag_t *d);
/* One formatted diagnostic per line. */
void mf_diags_print(const mf_diags_t *d, FILE *f);

#endif
