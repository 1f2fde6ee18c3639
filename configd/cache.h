/*
 * cache.h: a property group's rows as read from SQLite, and configd's bounded cache of them.
 *
 * A read of a pg (GetPg, ReadPgs) first locates it (one index lookup that gives where it lives,
 * its row id and its generation), then needs its properties.  pgrows_t holds those properties
 * in one block, sorted by name, each value list as stored (values followed by NULs), so it can
 * be sent as it is, composed with another on the fly, or decoded.  The cache (cache.c) keeps
 * recently read blocks keyed by (database, pg row id) and hands one out only when its
 * generation is the one just located: see cache.c for why that is never stale.
 */
#ifndef CONFIGD_CACHE_H
#define CONFIGD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend-internal.h"
#include "backend-read.h"

/*
 * The cache's bound: the bytes of the blocks it holds (their malloc'd size), 8 MiB.  A block
 * larger than an eighth of it is never kept.
 */
#define PG_CACHE_MAX_BYTES (8u * 1024u * 1024u)

struct pgrows {
	int where; /* DB_MAIN, DB_NP, DB_SNAPSHOT */
	int64_t id;
	uint64_t gen;
	uint64_t wire; /* what GetPg's a(ssas) of these properties takes (values_wire_size()) */
	size_t bytes;  /* the block's size */
	unsigned refs;
	bool cached;           /* in the cache (and on its LRU list) */
	pgrows_t *prev, *next; /* the LRU list, most recently used first */
	size_t n;
	pgprop_t props[]; /* sorted by name; the strings follow */
};

/* How a read uses the cache. */
typedef enum pg_cache_mode {
	PG_CACHE_KEEP,    /* a single read: keep what is read, evicting the least recently used */
	PG_CACHE_IF_ROOM, /* a bulk read: keep it only where nothing has to be evicted */
} pg_cache_mode_t;

typedef struct pg_cache_stats {
	uint64_t hits, misses;
	size_t entries, bytes, max_bytes;
	uint64_t where_hits; /* single reads located without a lookup */
	size_t wheres;       /* locations remembered */
} pg_cache_stats_t;

/* Locations remembered at most (about 300 bytes each). */
#define PG_CACHE_MAX_WHERES 4096u

/*
 * The properties of the located pg (pg of entity, for messages), from the cache when it holds
 * (loc->where, loc->id) at loc->gen, else read (and kept, as mode says).  A pg whose properties
 * would take more than BACKEND_MAX_READ_BYTES on the wire is refused with CONSTRAINT_VIOLATED
 * without being read whole.  Release with pgrows_unref().
 */
int pg_cache_rows(backend_t *b, const pg_loc_t *loc, pg_cache_mode_t mode, const char *entity,
        const char *pg, pgrows_t **ret);
void pgrows_unref(pgrows_t *r);
static inline void pgrows_unrefp(pgrows_t **r)
{
	if (*r)
		pgrows_unref(*r);
}

/*
 * Where a single read of the current view found its pg: the entity and the pg's location (and
 * the service's, for a composed read), as the request named them.  Valid only while nothing in
 * the repository changed since (cache.c, "LOCATIONS").
 */
typedef struct pg_where {
	entity_t entity;
	bool have_own, have_svc;
	pg_loc_t own, svc;
} pg_where_t;

/* The location remembered for (entity, pg, composed) as named, or NULL. */
const pg_where_t *pg_cache_where(backend_t *b, const char *entity, const char *pg, bool composed);
/* Remembers a location found (copies it); nothing happens when it cannot be kept. */
void pg_cache_remember(backend_t *b, const char *entity, const char *pg, bool composed,
        const entity_t *e, const pg_loc_t *own, const pg_loc_t *svc);

/* A row of a rowid table changed (the backend's SQLite update hook); NULL is fine. */
void pg_cache_row_changed(pg_cache_t *c);
/* Forgets everything and frees the cache (backend_close()); NULL is fine. */
void pg_cache_free(pg_cache_t *c);
/* Sets the bound (tests), evicting down to it; 0: PG_CACHE_MAX_BYTES. */
void pg_cache_set_max(backend_t *b, size_t max_bytes);
pg_cache_stats_t pg_cache_stats(backend_t *b);

#endif
