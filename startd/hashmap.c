/*
 * hashmap.c: FNV-1a over the key, chains per bucket, the table doubles past a load of 1.
 * Iteration walks buckets by index, so a state is (bucket << 16 | position in chain); maps
 * here stay far below 2^16 entries per chain.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

typedef struct Entry {
	struct Entry *next;
	char *key;
	void *value;
} Entry;

struct Hashmap {
	Entry **buckets;
	size_t n_buckets;
	size_t n;
};

static uint64_t hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

Hashmap *hashmap_new(void)
{
	Hashmap *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->n_buckets = 64;
	h->buckets = calloc(h->n_buckets, sizeof(Entry *));
	if (!h->buckets) {
		free(h);
		return NULL;
	}
	return h;
}

void hashmap_free(Hashmap *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_buckets; i++)
		while (h->buckets[i]) {
			Entry *e = h->buckets[i];
			h->buckets[i] = e->next;
			free(e->key);
			free(e);
		}
	free(h->buckets);
	free(h);
}

static Entry **find(Hashmap *h, const char *key)
{
	Entry **p = &h->buckets[hash(key) % h->n_buckets];

	while (*p && strcmp((*p)->key, key) != 0)
		p = &(*p)->next;
	return p;
}

void *hashmap_get(Hashmap *h, const char *key)
{
	Entry *e = *find(h, key);

	return e ? e->value : NULL;
}

static void grow(Hashmap *h)
{
	size_t n = h->n_buckets * 2;
	Entry **b = calloc(n, sizeof(Entry *));

	if (!b)
		return; /* a fuller table is slower, not wrong */
	for (size_t i = 0; i < h->n_buckets; i++)
		while (h->buckets[i]) {
			Entry *e = h->buckets[i];
			h->buckets[i] = e->next;
			e->next = b[hash(e->key) % n];
			b[hash(e->key) % n] = e;
		}
	free(h->buckets);
	h->buckets = b;
	h->n_buckets = n;
}

int hashmap_put(Hashmap *h, const char *key, void *value)
{
	Entry **p = find(h, key), *e;

	if (*p) {
		(*p)->value = value;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->key = strdup(key))) {
		free(e);
		return -ENOMEM;
	}
	e->value = value;
	*p = e;
	if (++h->n > h->n_buckets)
		grow(h);
	return 0;
}

void *hashmap_remove(Hashmap *h, const char *key)
{
	Entry **p = find(h, key), *e = *p;
	void *v;

	if (!e)
		return NULL;
	*p = e->next;
	v = e->value;
	free(e->key);
	free(e);
	h->n--;
	return v;
}

size_t hashmap_size(Hashmap *h)
{
	return h->n;
}

void *hashmap_next(Hashmap *h, size_t *state, const char **key)
{
	for (size_t b = *state >> 16; b < h->n_buckets; b++) {
		size_t pos = b == (*state >> 16) ? (*state & 0xffff) : 0;
		Entry *e = h->buckets[b];

		for (size_t i = 0; e && i < pos; i++)
			e = e->next;
		if (e) {
			*state = (b << 16) | (pos + 1);
			if (key)
				*key = e->key;
			return e->value;
		}
	}
	*state = h->n_buckets << 16;
	return NULL;
}
