/*
 * backend-view.h: what a read looks at, shared by the single reads (backend-pg.c) and the bulk
 * reads (backend-bulk.c).
 *
 * A view is an entity, in its current state or in one of its snapshots.  Level 0 is the entity
 * itself (or the snapshot's copy of the instance), level 1 an instance's service (or the
 * snapshot's copy of it), which only a composed read consults.
 */
#ifndef CONFIGD_BACKEND_VIEW_H
#define CONFIGD_BACKEND_VIEW_H

#include "backend-internal.h"
#include "backend-read.h"
#include "cache.h"

typedef struct view {
	entity_t entity;
	int64_t snap; /* 0: the current view */
	const char *snap_name;
} view_t;

void view_clear(view_t *v);
/* Resolves entity and snapshot ("" or NULL: current) into a view; NOT_FOUND names what is missing. */
int view_open(backend_t *b, const char *entity, const char *snapshot, view_t *v);
/* Finds pg name at level; 1 found, 0 not, < 0 error. */
int view_find(backend_t *b, const view_t *v, int level, const char *name, pg_loc_t *ret);
/* Reads pg name (composed: with the service's); 1 and *ret filled, 0 no such pg, < 0 error. */
int view_read_pg(backend_t *b, const view_t *v, const char *name, bool composed,
        pg_cache_mode_t mode, pg_read_t *ret);
/*
 * view_read_pg() of a pg already located: own (the entity's, or NULL) and svc (composed: the
 * service's, or NULL).  Their types may be taken.  1 read, 0 when both are NULL, < 0 error.
 */
int view_read_located(backend_t *b, const view_t *v, const char *name, pg_loc_t *own,
        pg_loc_t *svc, pg_cache_mode_t mode, pg_read_t *ret);
/* The pgs of the view sorted by name (composed: with the service's the instance lacks). */
int view_list_pgs(backend_t *b, const view_t *v, bool composed, scf_pg_info_t **ret, size_t *ret_n);

#endif
