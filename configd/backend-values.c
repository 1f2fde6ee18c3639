/*
 * backend-values.c: a property's ordered values as one blob.
 *
 * Each value is stored followed by a NUL, so the blob of n values has n NULs and an empty
 * list is an empty blob.  Values come from D-Bus strings, which cannot hold NUL, so the
 * separator is unambiguous.
 */
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "macro.h"
#include "strv.h"

int values_encode(const char *const *values, size_t n, char **ret, size_t *ret_len)
{
	size_t len = 0;
	char *blob, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(values[i]) + 1;
	blob = malloc(len + 1); /* + 1: never malloc(0) */
	if (!blob)
		return -SCF_ERROR_NO_RESOURCES;
	p = blob;
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, values[i]) + 1;
	*ret = blob;
	*ret_len = len;
	return 0;
}

int values_decode(const void *blob, size_t len, char ***ret, size_t *ret_n)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	const char *p = blob, *end = p + len;
	size_t n = 0;

	if (!l)
		return -SCF_ERROR_NO_RESOURCES;
	while (p && p < end) {
		const char *z = memchr(p, 0, (size_t)(end - p));

		if (!z) /* a truncated blob: keep what is whole */
			break;
		if (strv_extend_counted(&l, &n, p) < 0)
			return -SCF_ERROR_NO_RESOURCES;
		p = z + 1;
	}
	*ret = TAKE_PTR(l);
	*ret_n = n;
	return 0;
}
