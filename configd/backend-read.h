/*
 * backend-read.h: reading property groups without copying them (GetPg and ReadPgs).
 *
 * A read answers with the pg's properties as the backend holds them (pgrows_t blocks from the
 * cache, cache.h), not decoded: the server sends them from there.  A composed read holds two
 * blocks, the answering pg's and the service's merged under it, and pg_read_next() walks the
 * merge.  backend_get_pg() (backend.h) is the same read decoded into an scf_pg_t.
 */
#ifndef CONFIGD_BACKEND_READ_H
#define CONFIGD_BACKEND_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "protocol.h"

/* One property as stored. */
typedef struct pgprop {
	const char *name;
	const char *type;
	const char *vals; /* each value followed by a NUL (backend-values.c) */
	uint32_t vals_len;
	uint32_t n_values;
} pgprop_t;

typedef struct pgrows pgrows_t; /* cache.h */

/* A pg read: what GetPg answers. */
typedef struct pg_read {
	char *type; /* of the answering pg: the instance's, or the service's when it has none */
	uint32_t flags;
	uint64_t gen;
	pgrows_t *rows; /* the answering pg's properties */
	pgrows_t *
	        under; /* composed: the service's pg of the same type, merged under rows; or NULL */
	uint64_t wire; /* what the properties take in GetPg's a(ssas), at most */
} pg_read_t;

void pg_read_clear(pg_read_t *r);

/* Walks the properties in name order (rows' wins over under's of the same name). */
typedef struct pg_read_iter {
	size_t i, j;
} pg_read_iter_t;
const pgprop_t *pg_read_next(const pg_read_t *r, pg_read_iter_t *it);

/* GetPg: the read of backend_get_pg() (same arguments, same errors), not decoded. */
int backend_read_pg(backend_t *b, const char *entity, const char *pg, const char *snapshot,
        bool composed, pg_read_t *ret);

/*
 * ReadPgs (docs/protocol.md, "Bulk reads").  A query names a pg (name) or every pg of a type
 * (name NULL or "", type), in a snapshot ("" or NULL: the current view), with SMF_BULK_* flags.
 */
typedef struct bulk_query {
	const char *name;
	const char *type;
	const char *snapshot;
	uint32_t flags;
} bulk_query_t;

typedef struct bulk_request {
	const char *const *entities; /* listed, when n_entities > 0 */
	size_t n_entities;
	const char *pattern; /* else every instance matching it (NULL or "": all) ... */
	const char *after;   /* ... whose FMRI sorts after this one (NULL or "": from the first) */
	const bulk_query_t *queries;
	size_t n_queries;
} bulk_request_t;

/*
 * What a bulk read answers, in order.  entity() comes first for each entity: it returns 0 to
 * go on, 1 to stop before this entity (the page is full: it is not answered), or < 0 to fail
 * the read with that error.  pg() follows for each pg found (query: its index), then
 * entity_end().  pg_read_t is valid only during the call.
 */
typedef struct bulk_visitor {
	int (*entity)(void *userdata, const char *fmri, smf_bulk_status_t status);
	int (*pg)(void *userdata, unsigned query, const char *name, const pg_read_t *pg);
	int (*entity_end)(void *userdata);
	void *userdata;
} bulk_visitor_t;

/*
 * Checks the request (InvalidArgument or ConstraintViolated naming the bad part), then visits.
 * Returns 1 when the visitor stopped with entities left, 0 when all were answered, or < 0.
 */
int backend_read_bulk(backend_t *b, const bulk_request_t *req, const bulk_visitor_t *v);

#endif
