/*
 * hashmap.h: a string-keyed map (chained, growing), for the graph's vertices and the
 * restarter's instances, which are looked up by FMRI on every event.  Not thread-safe: each
 * map belongs to one thread or is used under its owner's lock.  Keys are copied; values are
 * the caller's.
 */
#ifndef STARTD_HASHMAP_H
#define STARTD_HASHMAP_H

#include <stddef.h>

typedef struct Hashmap Hashmap;

Hashmap *hashmap_new(void);
/* Frees the map (not the values). */
void hashmap_free(Hashmap *h);
void *hashmap_get(Hashmap *h, const char *key);
/* Inserts or replaces; 0 or -ENOMEM. */
int hashmap_put(Hashmap *h, const char *key, void *value);
/* Removes and returns the value (NULL if absent). */
void *hashmap_remove(Hashmap *h, const char *key);
size_t hashmap_size(Hashmap *h);

/* Iteration: *state starts at 0; returns the next value (and its key), NULL at the end. */
void *hashmap_next(Hashmap *h, size_t *state, const char **key);

#endif
