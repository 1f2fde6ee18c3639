/*
 * hashmap.h: the string-keyed hash table of minismf.
 *
 * One table for every lookup by name: startd's vertices and instances (by FMRI), configd's
 * batch records (by pg FMRI), svctrace's string pool and the trace recorder's string table.
 *
 * INVARIANTS.  Keys are copied into the table and compared as C strings; a stored key's
 * address does not change while its entry lives (chained entries never move when the table
 * grows), which is what lets a string pool hand out hashmap_key() pointers.  Values are the
 * caller's: the table never frees them.  Not thread-safe: each table belongs to one thread or
 * is used under its owner's lock.
 */
#ifndef SMF_HASHMAP_H
#define SMF_HASHMAP_H

#include <stddef.h>

typedef struct hashmap hashmap_t;

/* NULL when out of memory. */
hashmap_t *hashmap_new(void);
/* Frees the table and its key copies (not the values); NULL is allowed.  Returns NULL. */
hashmap_t *hashmap_free(hashmap_t *h);
static inline void hashmap_freep(hashmap_t **h)
{
	hashmap_free(*h);
}

/* The value stored under key, NULL if absent. */
void *hashmap_get(const hashmap_t *h, const char *key);
/* The table's own copy of key (stable while the entry lives), NULL if absent. */
const char *hashmap_key(const hashmap_t *h, const char *key);
/* Inserts or replaces; 0 or -ENOMEM (the table is then unchanged). */
int hashmap_put(hashmap_t *h, const char *key, void *value);
/* Removes and returns the value (NULL if absent). */
void *hashmap_remove(hashmap_t *h, const char *key);
size_t hashmap_size(const hashmap_t *h);

/*
 * Iteration in no particular order: *state starts at 0; returns the next value (and its key),
 * NULL at the end.  The table must not change during an iteration.
 */
void *hashmap_next(const hashmap_t *h, size_t *state, const char **key);

#endif
