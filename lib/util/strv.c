#include <stdlib.h>
#include <string.h>

#include "strv.h"

char **strv_new_empty(void)
{
	return calloc(1, sizeof(char *));
}

void strv_free(char **l)
{
	if (!l)
		return;
	for (char **s = l; *s; s++)
		free(*s);
	free(l);
}

size_t strv_length(char *const *l)
{
	size_t n = 0;

	while (l && l[n])
		n++;
	return n;
}

int strv_consume(char ***l, char *s)
{
	size_t n = strv_length(*l);
	char **m = realloc(*l, (n + 2) * sizeof(char *));

	if (!m)
		return -ENOMEM;
	m[n] = s;
	m[n + 1] = NULL;
	*l = m;
	return 0;
}

int strv_extend(char ***l, const char *s)
{
	char *c = strdup(s);
	int r;

	if (!c)
		return -ENOMEM;
	r = strv_consume(l, c);
	if (r < 0)
		free(c);
	return r;
}

/* The slots a counted list of n strings has: n + 1, rounded up to a power of two. */
static size_t counted_slots(size_t n)
{
	size_t slots = 1;

	while (slots < n + 1)
		slots *= 2;
	return slots;
}

int strv_extend_counted(char ***l, size_t *n, const char *s)
{
	char *c = strdup(s);
	char **m = *l;

	if (!c)
		return -ENOMEM;
	/* A NULL list has no slot at all; otherwise the slots are what the doubling left. */
	if (!m || *n + 2 > counted_slots(*n)) {
		m = realloc(*l, counted_slots(*n + 1) * sizeof(char *));
		if (!m) {
			free(c);
			return -ENOMEM;
		}
	}
	m[*n] = c;
	m[++*n] = NULL;
	*l = m;
	return 0;
}

bool strv_contains(char *const *l, const char *s)
{
	STRV_FOREACH (i, l)
		if (streq(*i, s))
			return true;
	return false;
}

char **strv_copy(char *const *l)
{
	_cleanup_strv_free_ char **c = strv_new_empty();

	if (!c)
		return NULL;
	STRV_FOREACH (i, l)
		if (strv_extend(&c, *i) < 0)
			return NULL;
	return TAKE_PTR(c);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(char **l)
{
	qsort(l, strv_length(l), sizeof(char *), cmp_str);
}
