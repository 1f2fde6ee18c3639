/*
 * hashmap.c: chains per bucket (so entries, and the keys they hold, never move), the table
 * doubles once it holds as many entries as buckets.  Iteration walks buckets by index, so a
 * state is (bucket << 16 | position in chain); chains stay far below 2^16 at that load.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hashmap.h"

typedef struct hashmap_entry {
	struct hashmap_entry *next;
	void *value;
	char key[];
} hashmap_entry_t;

struct hashmap {
	hashmap_entry_t **buckets;
	size_t n_buckets; /* a power of two */
	size_t n;
};

hashmap_t *hashmap_new(void)
{
	hashmap_t *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->n_buckets = 64;
	h->buckets = calloc(h->n_buckets, sizeof(*h->buckets));
	if (!h->buckets) {
		free(h);
		return NULL;
	}
	return h;
}

hashmap_t *hashmap_free(hashmap_t *h)
{
	if (!h)
		return NULL;
	for (size_t i = 0; i < h->n_buckets; i++)
		while (h->buckets[i]) {
			hashmap_entry_t *e = h->buckets[i];
			h->buckets[i] = e->next;
			free(e);
		}
	free(h->buckets);
	free(h);
	return NULL;
}

static size_t bucket_of(const char *key, size_t n_buckets)
{
	uint64_t x = smf_hash_str(key);

	return (size_t)(x ^ (x >> 32)) & (n_buckets - 1);
}

static hashmap_entry_t **find(const hashmap_t *h, const char *key)
{
	hashmap_entry_t **p = &h->buckets[bucket_of(key, h->n_buckets)];

	while (*p && strcmp((*p)->key, key) != 0)
		p = &(*p)->next;
	return p;
}

void *hashmap_get(const hashmap_t *h, const char *key)
{
	hashmap_entry_t *e = *find(h, key);

	return e ? e->value : NULL;
}

const char *hashmap_key(const hashmap_t *h, const char *key)
{
	hashmap_entry_t *e = *find(h, key);

	return e ? e->key : NULL;
}

static void grow(hashmap_t *h)
{
	size_t n = h->n_buckets * 2;
	hashmap_entry_t **b = calloc(n, sizeof(*b));

	if (!b)
		return; /* a fuller table is slower, not wrong */
	for (size_t i = 0; i < h->n_buckets; i++)
		while (h->buckets[i]) {
			hashmap_entry_t *e = h->buckets[i];
			size_t k = bucket_of(e->key, n);

			h->buckets[i] = e->next;
			e->next = b[k];
			b[k] = e;
		}
	free(h->buckets);
	h->buckets = b;
	h->n_buckets = n;
}

int hashmap_put(hashmap_t *h, const char *key, void *value)
{
	hashmap_entry_t **p = find(h, key), *e;
	size_t len;

	if (*p) {
		(*p)->value = value;
		return 0;
	}
	len = strlen(key);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	memcpy(e->key, key, len + 1);
	e->value = value;
	e->next = NULL;
	*p = e;
	if (++h->n > h->n_buckets)
		grow(h);
	assert(h->n_buckets > 0 && (h->n_buckets & (h->n_buckets - 1)) == 0);
	return 0;
}

void *hashmap_remove(hashmap_t *h, const char *key)
{
	hashmap_entry_t **p = find(h, key), *e = *p;
	void *v;

	if (!e)
		return NULL;
	*p = e->next;
	v = e->value;
	free(e);
	assert(h->n > 0);
	h->n--;
	return v;
}

size_t hashmap_size(const hashmap_t *h)
{
	return h->n;
}

void *hashmap_next(const hashmap_t *h, size_t *state, const char **key)
{
	for (size_t b = *state >> 16; b < h->n_buckets; b++) {
		size_t pos = b == (*state >> 16) ? (*state & 0xffff) : 0;
		hashmap_entry_t *e = h->buckets[b];

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
