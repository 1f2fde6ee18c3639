/*
 * bulk.c: scf_bulk_read(), many entities' pgs per round trip (ReadPgs, docs/protocol.md).
 *
 * THE MODEL.  One request per page: configd answers as many whole entities as fit in the page
 * and says whether more are left; the library asks again (the listed entities not answered
 * yet, or the instances after the last one answered) until none are.  A long list is sent in
 * parts of at most SMF_BULK_REQUEST_BYTES, so no request comes near configd's request bound.
 *
 * A page is one byte array of records, every field a NUL-terminated string.  Nothing is
 * copied out of it: the scf_pg_t handed to fn point into the reply (names, types, values: the
 * fields are NUL-terminated already), with the arrays of pgs, properties and value pointers
 * kept in arenas reused from entity to entity.  That is what makes a bulk read of 10,000 pgs
 * cost about as much as sending them (docs/performance.md).
 *
 * INVARIANTS.  Every field, count and index is checked against the page before it is used: a
 * malformed page ends the read with SCF_ERROR_INTERNAL ("malformed reply"), never reads outside
 * it; counts cannot ask for more memory than the page could describe.  Every pg read is traced
 * (scf.read, as scf_pg_get() traces it), so the trace still holds every read of the client.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-internal.h"
#include "trace.h"

_Static_assert(SCF_READ_COMPOSED == SMF_BULK_COMPOSED &&
                SCF_READ_SNAPSHOT_FALLBACK == SMF_BULK_SNAPSHOT_FALLBACK &&
                SCF_BULK_MAX_PGS == SMF_BULK_MAX_QUERIES,
        "libscf's bulk flags and bounds are the protocol's");

typedef client_cursor_t cursor_t;

/* What one page is parsed into, reused from entity to entity (and page to page). */
typedef struct arenas {
	scf_pg_t *pgs;
	unsigned *which;
	size_t n_pgs, cap_pgs, cap_which;
	scf_property_t *props;
	size_t n_props, cap_props;
	char **vals; /* each property's values, then a NULL */
	size_t n_vals, cap_vals;
	/* Offsets into props (per pg) and vals (per property), made pointers once complete. */
	size_t *pg_props;
	size_t cap_pg_props;
	size_t *prop_vals;
	size_t cap_prop_vals;
} arenas_t;

static void arenas_done(arenas_t *a)
{
	free(a->pgs);
	free(a->which);
	free(a->props);
	free(a->vals);
	free(a->pg_props);
	free(a->prop_vals);
}

const char *client_field(cursor_t *c)
{
	const char *f = c->p, *z;

	if (c->p >= c->end || !(z = memchr(c->p, 0, (size_t)(c->end - c->p))))
		return NULL;
	c->p = z + 1;
	return f;
}

static bool next_is(const cursor_t *c, const char *tag)
{
	size_t n = strlen(tag) + 1;

	return (size_t)(c->end - c->p) >= n && memcmp(c->p, tag, n) == 0;
}

int client_number(cursor_t *c, uint64_t *ret)
{
	const char *f = client_field(c);
	uint64_t v = 0;

	if (!f || !*f)
		return -EBADMSG;
	for (; *f; f++) {
		if (*f < '0' || *f > '9' || v > (UINT64_MAX - 9) / 10)
			return -EBADMSG;
		v = v * 10 + (uint64_t)(*f - '0');
	}
	*ret = v;
	return 0;
}

int client_count(cursor_t *c, size_t min_bytes, size_t *ret)
{
	uint64_t v;
	int r = client_number(c, &v);

	if (r < 0)
		return r;
	if (v > (uint64_t)(c->end - c->p) / min_bytes)
		return -EBADMSG;
	*ret = (size_t)v;
	return 0;
}

/* One property: name, type, count, values (their pointers pushed, then a NULL). */
static int parse_property(cursor_t *c, arenas_t *a)
{
	const char *name = client_field(c), *type = client_field(c);
	size_t n;
	int r;

	if (!name || !type)
		return -EBADMSG;
	r = client_count(c, 1, &n);
	if (r < 0)
		return r;
	if (GREEDY_REALLOC(a->props, a->cap_props, a->n_props + 1) < 0 ||
	        GREEDY_REALLOC(a->prop_vals, a->cap_prop_vals, a->n_props + 1) < 0 ||
	        GREEDY_REALLOC(a->vals, a->cap_vals, a->n_vals + n + 1) < 0)
		return -ENOMEM;
	a->props[a->n_props] = (scf_property_t){
	        .name = (char *)name, .type = scf_string_to_type(type), .n_values = n};
	a->prop_vals[a->n_props++] = a->n_vals;
	for (size_t k = 0; k < n; k++)
		if (!(a->vals[a->n_vals++] = (char *)client_field(c)))
			return -EBADMSG;
	a->vals[a->n_vals++] = NULL;
	return 0;
}

/* One P record (its tag consumed) of the entity fmri. */
static int parse_pg(cursor_t *c, arenas_t *a, const char *fmri, size_t n_queries)
{
	const char *name, *type;
	uint64_t query, flags, gen;
	size_t n;
	scf_pg_t *pg;
	int r;

	r = client_number(c, &query);
	if (r < 0 || query >= n_queries)
		return -EBADMSG;
	name = client_field(c);
	type = client_field(c);
	if (!name || !type || client_number(c, &flags) < 0 || flags > UINT32_MAX ||
	        client_number(c, &gen) < 0 || client_count(c, 3, &n) < 0)
		return -EBADMSG;
	if (GREEDY_REALLOC(a->pgs, a->cap_pgs, a->n_pgs + 1) < 0 ||
	        GREEDY_REALLOC(a->which, a->cap_which, a->n_pgs + 1) < 0 ||
	        GREEDY_REALLOC(a->pg_props, a->cap_pg_props, a->n_pgs + 1) < 0)
		return -ENOMEM;
	pg = &a->pgs[a->n_pgs];
	*pg = (scf_pg_t){.entity = (char *)fmri,
	        .name = (char *)name,
	        .type = (char *)type,
	        .flags = (uint32_t)flags,
	        .generation = gen,
	        .n_props = n};
	a->which[a->n_pgs] = (unsigned)query;
	a->pg_props[a->n_pgs++] = a->n_props;
	for (size_t k = 0; k < n; k++) {
		r = parse_property(c, a);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The arrays are complete: offsets become pointers. */
static void fix_pointers(arenas_t *a)
{
	for (size_t k = 0; k < a->n_pgs; k++)
		a->pgs[k].props = a->props + a->pg_props[k];
	for (size_t k = 0; k < a->n_props; k++)
		a->props[k].values = a->vals + a->prop_vals[k];
}

static int entity_error(uint64_t status)
{
	switch (status) {
	case SMF_BULK_FOUND:
		return 0;
	case SMF_BULK_NO_ENTITY:
		return -SCF_ERROR_NOT_FOUND;
	default:
		return -SCF_ERROR_INVALID_ARGUMENT;
	}
}

/* scf.read for each query by name (found or absent) and each pg of a type query. */
static void trace_entity(const scf_bulk_query_t *q, const scf_bulk_entity_t *e, uint64_t sent)
{
	if (!smf_trace_enabled() || e->error == -SCF_ERROR_INVALID_ARGUMENT)
		return;
	for (unsigned k = 0; k < q->n_pgs; k++) {
		const scf_bulk_pg_t *x = &q->pgs[k];
		bool any = false;

		for (size_t i = 0; i < e->n_pgs; i++) {
			if (e->which[i] != k)
				continue;
			any = true;
			client_trace_read(e->fmri, e->pgs[i].name, x->snapshot, x->read_flags, 0,
			        e->pgs[i].generation, sent);
		}
		if (!any && x->name)
			client_trace_read(e->fmri, x->name, x->snapshot, x->read_flags,
			        -SCF_ERROR_NOT_FOUND, 0, sent);
	}
}

typedef struct reader {
	scf_handle_t *h;
	const scf_bulk_query_t *q;
	scf_bulk_fn fn;
	void *userdata;
	arenas_t a;
	char *last; /* pattern mode: the last FMRI answered */
} reader_t;

/* Parses one page, calling fn per entity; *ret_n gets the number of entities. */
static int parse_page(reader_t *x, const void *page, size_t len, uint64_t sent, size_t *ret_n)
{
	cursor_t c = {page, (const char *)page + len};
	size_t n = 0;
	int r;

	while (c.p < c.end) {
		scf_bulk_entity_t e = {};
		const char *fmri;
		uint64_t status;

		if (!next_is(&c, SMF_BULK_RECORD_ENTITY))
			return client_bad_reply(x->h, smf_method_read_pgs.name, -EBADMSG);
		(void)client_field(&c);
		fmri = client_field(&c);
		if (!fmri || client_number(&c, &status) < 0 || status >= _SMF_BULK_STATUS_MAX)
			return client_bad_reply(x->h, smf_method_read_pgs.name, -EBADMSG);
		x->a.n_pgs = x->a.n_props = x->a.n_vals = 0;
		while (next_is(&c, SMF_BULK_RECORD_PG)) {
			(void)client_field(&c);
			r = parse_pg(&c, &x->a, fmri, x->q->n_pgs);
			if (r < 0)
				return client_bad_reply(x->h, smf_method_read_pgs.name, r);
		}
		fix_pointers(&x->a);
		e = (scf_bulk_entity_t){.fmri = fmri,
		        .error = entity_error(status),
		        .pgs = x->a.pgs,
		        .which = x->a.which,
		        .n_pgs = x->a.n_pgs};
		trace_entity(x->q, &e, sent);
		n++;
		r = x->fn(&e, x->userdata);
		if (r < 0)
			return r;
		if (!x->q->n_fmris && c.p >= c.end) {
			free(x->last);
			x->last = strdup(fmri);
			if (!x->last)
				return client_set_error(
				        x->h, -SCF_ERROR_NO_MEMORY, "out of memory");
		}
	}
	*ret_n = n;
	return 0;
}

/* One request: fmris[0..n) (listed) or the instances after x->last; *ret_more, *ret_n. */
static int one_page(reader_t *x, const char *const *fmris, size_t n, bool *ret_more, size_t *ret_n)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	const scf_bulk_query_t *q = x->q;
	uint64_t sent;
	const void *page;
	size_t len;
	int more, r;

	r = client_new_call(x->h, &smf_method_read_pgs, &m);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(m, 'a', "s");
	for (size_t k = 0; r >= 0 && k < n; k++)
		r = sd_bus_message_append_basic(m, 's', fmris[k]);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_append(
		        m, "ss", n ? "" : strempty(q->pattern), n ? "" : strempty(x->last));
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(" SMF_BUS_BULK_QUERY ")");
	for (size_t k = 0; r >= 0 && k < q->n_pgs; k++) {
		const scf_bulk_pg_t *p = &q->pgs[k];

		/* Both or neither of name and type: configd refuses it, naming the query. */
		r = sd_bus_message_append(m, "(" SMF_BUS_BULK_QUERY ")", strempty(p->name),
		        strempty(p->type), strempty(p->snapshot), p->read_flags);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_append(m, "u",
		        (uint32_t)(q->page_bytes < SMF_BULK_PAGE_BYTES ? q->page_bytes : 0));
	if (r < 0)
		return client_error_from_bus(x->h, smf_method_read_pgs.name, r, NULL);
	sent = smf_trace_enabled() ? now_monotonic_nsec() : 0;
	r = client_call_message(x->h, &smf_method_read_pgs, m, &reply);
	if (r < 0)
		return r;
	r = sd_bus_message_read_array(reply, 'y', &page, &len);
	if (r >= 0)
		r = sd_bus_message_read(reply, "b", &more);
	if (r < 0)
		return client_bad_reply(x->h, smf_method_read_pgs.name, r);
	r = parse_page(x, page, len, sent, ret_n);
	if (r < 0)
		return r;
	/* A page that answers nothing but promises more would loop forever. */
	if ((more && *ret_n == 0) || *ret_n > (n ? n : SIZE_MAX) || (n && !more && *ret_n != n))
		return client_bad_reply(x->h, smf_method_read_pgs.name, -EBADMSG);
	*ret_more = more;
	return 0;
}

/* How many of fmris[0..n) (at least one) fit in one request. */
static size_t request_part(const char *const *fmris, size_t n)
{
	size_t bytes = 0, k = 0;

	for (; k < n; k++) {
		bytes += strlen(fmris[k]) + 8; /* length word, NUL, padding */
		if (k > 0 && bytes > SMF_BULK_REQUEST_BYTES)
			break;
	}
	return k;
}

int scf_bulk_read(scf_handle_t *h, const scf_bulk_query_t *q, scf_bulk_fn fn, void *userdata)
{
	reader_t x = {.h = h, .q = q, .fn = fn, .userdata = userdata};
	bool more = true;
	size_t done = 0, n;
	int r = 0;

	client_clear_error(h);
	if (!q || !fn || (q->n_fmris > 0 && !q->fmris) || (q->n_pgs > 0 && !q->pgs))
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s: a query and a function are required", smf_method_read_pgs.name);
	for (size_t k = 0; k < q->n_fmris; k++)
		if (!q->fmris[k])
			return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
			        "%s: entity %zu of the list is NULL", smf_method_read_pgs.name,
			        k + 1);
	if (q->n_fmris > 0)
		while (r >= 0 && done < q->n_fmris) {
			r = one_page(&x, q->fmris + done,
			        request_part(q->fmris + done, q->n_fmris - done), &more, &n);
			done += n;
		}
	else
		while (r >= 0 && more)
			r = one_page(&x, NULL, 0, &more, &n);
	arenas_done(&x.a);
	free(x.last);
	if (r >= 0)
		client_clear_error(h);
	return r < 0 ? r : 0;
}

const scf_pg_t *scf_bulk_entity_pg(const scf_bulk_entity_t *e, unsigned which)
{
	for (size_t k = 0; e && k < e->n_pgs; k++)
		if (e->which[k] == which)
			return &e->pgs[k];
	return NULL;
}
