/*
 * strpool.c: a chained hash set of strings (FNV-1a), doubled when it gets as full as it is
 * wide.  Entries never move, so pointers handed out stay valid while the table grows.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strpool.h"

struct strpool_entry {
	struct strpool_entry *next;
	uint64_t hash;
	char s[];
};

static uint64_t hash_string(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static int strpool_grow(struct strpool *p)
{
	size_t n = p->n_buckets ? p->n_buckets * 2 : 256;
	struct strpool_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_buckets; i++)
		for (struct strpool_entry *e = p->buckets[i], *next; e; e = next) {
			next = e->next;
			e->next = b[e->hash % n];
			b[e->hash % n] = e;
		}
	free(p->buckets);
	p->buckets = b;
	p->n_buckets = n;
	return 0;
}

int strpool_add(struct strpool *p, const char *s, const char **ret)
{
	uint64_t h = hash_string(s);
	struct strpool_entry *e;
	size_t len;

	if (p->n_buckets) {
		for (e = p->buckets[h % p->n_buckets]; e; e = e->next)
			if (e->hash == h && streq(e->s, s)) {
				*ret = e->s;
				return 0;
			}
	}
	if (p->n >= p->n_buckets) {
		int r = strpool_grow(p);

		if (r < 0)
			return r;
	}
	len = strlen(s);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	e->hash = h;
	memcpy(e->s, s, len + 1);
	e->next = p->buckets[h % p->n_buckets];
	p->buckets[h % p->n_buckets] = e;
	p->n++;
	*ret = e->s;
	return 0;
}

void strpool_done(struct strpool *p)
{
	for (size_t i = 0; i < p->n_buckets; i++)
		for (struct strpool_entry *e = p->buckets[i], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	free(p->buckets);
	*p = (struct strpool){};
}
