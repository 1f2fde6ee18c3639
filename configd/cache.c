/*
 * cache.c: configd's cache of property groups' rows, keyed by generation.
 *
 * THE MODEL.  A read locates its pg first, with the index lookup it always made (backend-pg.c):
 * that gives the database it lives in, its row id and its generation.  The cache maps
 * (database, row id) to the properties read at some generation, and answers only when that is
 * the generation just located; otherwise the pg is read again from SQLite and the entry
 * replaced.  So the cache saves reading (and measuring) the properties, never the lookup, and
 * cannot serve a stale pg:
 *
 * - every write that changes a pg's properties moves its generation in the same transaction
 *   (Commit: generation + 1; Batch: + 1 at the first change of a pg that existed before it; a
 *   pg the batch creates is new, below), and type and flags never change while the row lives;
 * - a created pg is a new row: ids come from AUTOINCREMENT, never reused in a database's life
 *   (a rolled-back insert may give its id again, but nothing read it: configd reads nothing
 *   inside a write, which pg_cache_rows() asserts); a deleted pg's entry is never asked for
 *   again, and ages out;
 * - a snapshot's pgs are copies that never change; retaking a snapshot makes new rows (a
 *   refresh renames snapshots, which changes no row), so their generation check is moot but
 *   harmless;
 * - the non-persistent database is as old as the backend at most, and the cache belongs to the
 *   backend (b->cache), so ids of one database are never looked up in another's.
 *
 * A composed read depends on two pgs: it takes both blocks, each checked against its own
 * generation, and merges them as it sends (backend-pg.c).
 *
 * BOUND.  The blocks held take at most max_bytes (PG_CACHE_MAX_BYTES, 8 MiB) of memory, counted
 * as their malloc'd size; the least recently used goes first.  A single read keeps what it read
 * (evicting); a bulk read (ReadPgs over thousands of instances) uses what is there but keeps a
 * new block only when nothing has to go, so that a scan does not flush what single reads use.
 * A block is reference-counted: an evicted block in use by a read is freed when that read is
 * done with it.
 *
 * LOCATIONS.  Locating costs more than the properties once they are cached (two index lookups,
 * the entity's and the pg's, a few thousand instructions each in SQLite), so single reads of
 * the current view also remember where they found their pg, keyed by the entity and pg as the
 * request named them (valid names only: nothing else is ever remembered).  A location is
 * valid only as long as nothing in the repository changed: SQLite calls an update hook for
 * every row inserted, updated or deleted in a rowid table, and every change to an entity, a pg
 * (its generation included) or a snapshot is one (only properties live in WITHOUT ROWID
 * tables, and a pg's properties never change without its row: backend.c's invariants); the
 * hook moves an epoch, and the remembered locations are all forgotten at the next read.  So a
 * write costs the next reads one lookup each, and nothing stale can be located.  At most
 * PG_CACHE_MAX_WHERES are kept (all forgotten past that).
 *
 * Only configd's thread uses the cache (as the backend).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "hashmap.h"
#include "macro.h"

/* Scratch text kept between reads, at most (a larger pg's is freed after its read). */
#define SCRATCH_KEEP_BYTES (256u * 1024u)

struct pg_cache {
	hashmap_t *wheres;     /* "entity\x1fpg\x1f0|1" -> pg_where_t */
	uint64_t epoch;        /* moved by every row change (on_row_change()) */
	uint64_t wheres_epoch; /* the epoch the locations were found in */
	uint64_t where_hits;
	hashmap_t *map; /* "where:id" -> pgrows_t */
	pgrows_t *head, *tail;
	size_t bytes, max_bytes;
	uint64_t hits, misses;
	/* Scratch space for reading rows, kept between reads. */
	struct scratch_prop {
		size_t name, type, vals; /* offsets into text */
		uint32_t vals_len, n_values;
	} * scratch;
	size_t scratch_cap;
	char *text;
	size_t text_cap;
};

/* "where:id" in hex, by hand (snprintf() cost as much as the lookup). */
static void key_of(int where, int64_t id, char buf[static 32])
{
	uint64_t v = (uint64_t)id;
	char *p = buf + 31;

	*p = 0;
	do
		*--p = "0123456789abcdef"[v & 0xf];
	while ((v >>= 4) > 0);
	*--p = ':';
	*--p = (char)('0' + where);
	memmove(buf, p, (size_t)(buf + 32 - p));
}

void pg_cache_row_changed(pg_cache_t *c)
{
	if (c)
		c->epoch++;
}

static void where_free(pg_where_t *w)
{
	entity_clear(&w->entity);
	pg_loc_clear(&w->own);
	pg_loc_clear(&w->svc);
	free(w);
}

static void wheres_clear(pg_cache_t *c)
{
	size_t state = 0;
	pg_where_t *w;

	while ((w = hashmap_next(c->wheres, &state, NULL)))
		where_free(w);
	hashmap_free(c->wheres);
	c->wheres = hashmap_new(); /* NULL when out of memory: nothing is remembered */
}

static pg_cache_t *cache_get(backend_t *b)
{
	pg_cache_t *c = b->cache;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->map = hashmap_new();
	c->wheres = hashmap_new();
	if (!c->map || !c->wheres) {
		hashmap_free(c->map);
		hashmap_free(c->wheres);
		free(c);
		return NULL;
	}
	c->max_bytes = PG_CACHE_MAX_BYTES;
	b->cache = c;
	return c;
}

/* "entity\x1fpg\x1fc" into buf; false when too long to be valid. */
static bool where_key(const char *entity, const char *pg, bool composed,
        char buf[static SCF_LIMIT_MAX_FMRI_LENGTH + SCF_LIMIT_MAX_NAME_LENGTH + 8])
{
	size_t el = strlen(entity), pl = strlen(pg);

	if (el > SCF_LIMIT_MAX_FMRI_LENGTH || pl > SCF_LIMIT_MAX_NAME_LENGTH)
		return false;
	memcpy(buf, entity, el);
	buf[el] = 0x1f;
	memcpy(buf + el + 1, pg, pl);
	buf[el + 1 + pl] = 0x1f;
	buf[el + 2 + pl] = composed ? '1' : '0';
	buf[el + 3 + pl] = 0;
	return true;
}

const pg_where_t *pg_cache_where(backend_t *b, const char *entity, const char *pg, bool composed)
{
	char key[SCF_LIMIT_MAX_FMRI_LENGTH + SCF_LIMIT_MAX_NAME_LENGTH + 8];
	pg_cache_t *c = cache_get(b);
	pg_where_t *w;

	if (!c || !c->wheres || !where_key(entity, pg, composed, key))
		return NULL;
	if (c->wheres_epoch != c->epoch) {
		if (hashmap_size(c->wheres) > 0)
			wheres_clear(c);
		c->wheres_epoch = c->epoch;
		return NULL;
	}
	w = hashmap_get(c->wheres, key);
	if (w)
		c->where_hits++;
	return w;
}

static int loc_copy(const pg_loc_t *from, pg_loc_t *to)
{
	*to = *from;
	to->type = from->type ? strdup(from->type) : NULL;
	return !from->type || to->type ? 0 : -ENOMEM;
}

void pg_cache_remember(backend_t *b, const char *entity, const char *pg, bool composed,
        const entity_t *e, const pg_loc_t *own, const pg_loc_t *svc)
{
	char key[SCF_LIMIT_MAX_FMRI_LENGTH + SCF_LIMIT_MAX_NAME_LENGTH + 8];
	pg_cache_t *c = cache_get(b);
	pg_where_t *w;

	if (!c || !where_key(entity, pg, composed, key))
		return;
	if (c->wheres_epoch != c->epoch || hashmap_size(c->wheres) >= PG_CACHE_MAX_WHERES) {
		wheres_clear(c);
		c->wheres_epoch = c->epoch;
	}
	if (!c->wheres || hashmap_get(c->wheres, key))
		return;
	w = calloc(1, sizeof(*w));
	if (!w)
		return;
	w->entity = (entity_t){.id = e->id, .parent = e->parent, .fmri = strdup(e->fmri)};
	w->have_own = own != NULL;
	w->have_svc = svc != NULL;
	if (!w->entity.fmri || (own && loc_copy(own, &w->own) < 0) ||
	        (svc && loc_copy(svc, &w->svc) < 0) || hashmap_put(c->wheres, key, w) < 0)
		where_free(w);
}

void pgrows_unref(pgrows_t *r)
{
	assert(r->refs > 0);
	if (--r->refs == 0)
		free(r);
}

static void lru_unlink(pg_cache_t *c, pgrows_t *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		c->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		c->tail = r->prev;
	r->prev = r->next = NULL;
}

static void lru_push_front(pg_cache_t *c, pgrows_t *r)
{
	r->prev = NULL;
	r->next = c->head;
	if (c->head)
		c->head->prev = r;
	c->head = r;
	if (!c->tail)
		c->tail = r;
}

/* Drops r from the cache (its block lives on while a read holds it). */
static void evict(pg_cache_t *c, pgrows_t *r)
{
	char key[32];

	assert(r->cached);
	key_of(r->where, r->id, key);
	(void)hashmap_remove(c->map, key);
	lru_unlink(c, r);
	r->cached = false;
	assert(c->bytes >= r->bytes);
	c->bytes -= r->bytes;
	pgrows_unref(r);
}

static void shrink_to(pg_cache_t *c, size_t max)
{
	while (c->bytes > max && c->tail)
		evict(c, c->tail);
}

/* Keeps r (one more reference), as mode allows. */
static void keep(pg_cache_t *c, pgrows_t *r, pg_cache_mode_t mode)
{
	char key[32];

	if (r->bytes > c->max_bytes / 8)
		return;
	if (mode == PG_CACHE_IF_ROOM && c->bytes + r->bytes > c->max_bytes)
		return;
	shrink_to(c, c->max_bytes - r->bytes);
	key_of(r->where, r->id, key);
	if (hashmap_put(c->map, key, r) < 0)
		return; /* out of memory: just not kept */
	r->refs++;
	r->cached = true;
	lru_push_front(c, r);
	c->bytes += r->bytes;
}

static int grow_scratch(pg_cache_t *c, size_t n)
{
	return GREEDY_REALLOC(c->scratch, c->scratch_cap, n);
}

/* Appends s (len bytes, then a NUL) to the scratch text at *used. */
static int add_text(pg_cache_t *c, size_t *used, const void *s, size_t len, size_t *ret_off)
{
	if (GREEDY_REALLOC(c->text, c->text_cap, *used + len + 1) < 0)
		return -ENOMEM;
	if (len)
		memcpy(c->text + *used, s, len);
	c->text[*used + len] = 0;
	*ret_off = *used;
	*used += len + 1;
	return 0;
}

static uint32_t count_values(const char *vals, size_t len)
{
	uint32_t n = 0;

	for (const char *p = vals, *end = vals + len; p < end;) {
		const char *z = memchr(p, 0, (size_t)(end - p));

		n++;
		p = z ? z + 1 : end;
	}
	return n;
}

/* Reads the properties of loc into a new block (one reference). */
static int read_rows(backend_t *b, pg_cache_t *c, const pg_loc_t *loc, const char *entity,
        const char *pg, pgrows_t **ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_PROPS_READ, loc->where);
	size_t n = 0, used = 0, head;
	uint64_t wire = 0;
	pgrows_t *r;
	char *text;
	int k;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, loc->id);
	while ((k = backend_step_row(b, s, "reading properties")) > 0) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		const char *type = (const char *)sqlite3_column_text(s, 1);
		const void *vals = sqlite3_column_blob(s, 2);
		size_t name_len = (size_t)sqlite3_column_bytes(s, 0);
		size_t type_len = (size_t)sqlite3_column_bytes(s, 1);
		size_t vals_len = (size_t)sqlite3_column_bytes(s, 2);
		struct scratch_prop *p;

		wire += values_wire_size(name_len, type_len, vals, vals_len);
		if (wire > BACKEND_MAX_READ_BYTES)
			return backend_fail(b, -SCF_ERROR_CONSTRAINT_VIOLATED,
			        "%s/:properties/%s: more than %u bytes of properties, more than "
			        "one "
			        "reply can carry; delete properties or the property group",
			        entity, pg, BACKEND_MAX_READ_BYTES);
		if (!name || !type || vals_len > UINT32_MAX || grow_scratch(c, n + 1) < 0)
			return backend_oom(b);
		p = &c->scratch[n++];
		p->vals_len = (uint32_t)vals_len;
		p->n_values = count_values(vals, vals_len);
		if (add_text(c, &used, name, name_len, &p->name) < 0 ||
		        add_text(c, &used, type, type_len, &p->type) < 0 ||
		        add_text(c, &used, vals, vals_len, &p->vals) < 0)
			return backend_oom(b);
	}
	if (k < 0)
		return k;
	head = sizeof(pgrows_t) + n * sizeof(pgprop_t);
	r = malloc(head + used + 1);
	if (!r)
		return backend_oom(b);
	*r = (pgrows_t){.where = loc->where,
	        .id = loc->id,
	        .gen = loc->gen,
	        .wire = wire,
	        .bytes = head + used + 1,
	        .refs = 1,
	        .n = n};
	text = (char *)r + head;
	if (used)
		memcpy(text, c->text, used);
	for (size_t i = 0; i < n; i++)
		r->props[i] = (pgprop_t){.name = text + c->scratch[i].name,
		        .type = text + c->scratch[i].type,
		        .vals = text + c->scratch[i].vals,
		        .vals_len = c->scratch[i].vals_len,
		        .n_values = c->scratch[i].n_values};
	*ret = r;
	return 0;
}

int pg_cache_rows(backend_t *b, const pg_loc_t *loc, pg_cache_mode_t mode, const char *entity,
        const char *pg, pgrows_t **ret)
{
	pg_cache_t *c = cache_get(b);
	pgrows_t *r;
	char key[32];
	int k;

	/* Never inside a write: what a transaction wrote may still be rolled back. */
	assert(backend_tx_depth(b) == 0);
	if (!c)
		return backend_oom(b);
	key_of(loc->where, loc->id, key);
	r = hashmap_get(c->map, key);
	if (r && r->gen == loc->gen) {
		c->hits++;
		lru_unlink(c, r);
		lru_push_front(c, r);
		r->refs++;
		*ret = r;
		return 0;
	}
	c->misses++;
	if (r)
		evict(c, r); /* an older generation: never to be served again */
	k = read_rows(b, c, loc, entity, pg, &r);
	/* The scratch space of a large pg is not kept for the next read. */
	if (c->text_cap > SCRATCH_KEEP_BYTES) {
		free(c->text);
		c->text = NULL;
		c->text_cap = 0;
	}
	if (k < 0)
		return k;
	keep(c, r, mode);
	*ret = r;
	return 0;
}

void pg_cache_free(pg_cache_t *c)
{
	if (!c)
		return;
	shrink_to(c, 0);
	assert(!c->head && c->bytes == 0);
	wheres_clear(c);
	hashmap_free(c->wheres);
	hashmap_free(c->map);
	free(c->scratch);
	free(c->text);
	free(c);
}

void pg_cache_set_max(backend_t *b, size_t max_bytes)
{
	pg_cache_t *c = cache_get(b);

	if (!c)
		return;
	c->max_bytes = max_bytes ? max_bytes : PG_CACHE_MAX_BYTES;
	shrink_to(c, c->max_bytes);
}

pg_cache_stats_t pg_cache_stats(backend_t *b)
{
	pg_cache_t *c = cache_get(b);

	if (!c)
		return (pg_cache_stats_t){};
	return (pg_cache_stats_t){.hits = c->hits,
	        .misses = c->misses,
	        .entries = hashmap_size(c->map),
	        .bytes = c->bytes,
	        .max_bytes = c->max_bytes,
	        .where_hits = c->where_hits,
	        .wheres = c->wheres ? hashmap_size(c->wheres) : 0};
}
