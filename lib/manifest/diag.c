/*
 * diag.c: the reader's diagnostics list (diag.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cut.h"
#include "diag.h"

int mf_diags_add(mf_diags_t *d, const char *file, unsigned line, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL, *f = NULL;
	va_list ap;

	/* A diagnostic may quote a 5 MB attribute: cut (cut.h). */
	va_start(ap, fmt);
	msg = smf_cut_vformat(fmt, ap);
	va_end(ap);
	f = strdup(file ? file : "(memory)");
	if (!f || !msg)
		return -ENOMEM;
	if (GREEDY_REALLOC(d->v, d->n_allocated, d->n + 1) < 0)
		return -ENOMEM;
	d->v[d->n++] = (mf_diag_t){.file = TAKE_PTR(f), .line = line, .message = TAKE_PTR(msg)};
	return 0;
}

void mf_diags_clear(mf_diags_t *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].message);
	}
	free(d->v);
	*d = (mf_diags_t){0};
}

char *mf_diag_format(const mf_diag_t *d)
{
	char *s;
	int r;

	if (d->line > 0)
		r = asprintf(&s, "%s:%u: %s", d->file, d->line, d->message);
	else
		r = asprintf(&s, "%s: %s", d->file, d->message);
	return r < 0 ? NULL : s;
}

void mf_diags_print(const mf_diags_t *d, FILE *f)
{
	for (size_t i = 0; i < d->n; i++) {
		_cleanup_free_ char *s = mf_diag_format(&d->v[i]);

		fprintf(f, "%s\n", s ? s : d->v[i].message);
	}
}
