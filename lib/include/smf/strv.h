/*
 * strv.h: NULL-terminated arrays of malloc'd strings ("string vectors").
 *
 * Every list that crosses an API boundary in minismf (service names, instance FMRIs, property
 * values) is a strv: the array and each string are owned by the holder and freed with
 * strv_free().  An empty list is a one-element array holding NULL, never a NULL pointer, so
 * callers can iterate without a special case.
 */
#ifndef SMF_STRV_H
#define SMF_STRV_H

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

char **strv_new_empty(void);
void strv_free(char **l);
size_t strv_length(char *const *l);
/* Appends a copy of s; returns 0 or -ENOMEM (l is unchanged on failure). */
int strv_extend(char ***l, const char *s);
/* Appends s itself, taking ownership of it on success only. */
int strv_consume(char ***l, char *s);
/*
 * strv_extend() for building a long list: the caller keeps its length in *n, so appending does
 * not walk the list, and the array grows by doubling, so n appends cost O(n), not O(n^2).  The
 * list must start as NULL or strv_new_empty() with *n = 0 and grow only through this function.
 */
int strv_extend_counted(char ***l, size_t *n, const char *s);
bool strv_contains(char *const *l, const char *s);
char **strv_copy(char *const *l);
/* Sorts in strcmp() order, in place. */
void strv_sort(char **l);

DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)

#endif
