/*
 * methods-pg.c: property groups and transactions over D-Bus.
 *
 * Reads (GetPg, ReadPgs) send the properties as the backend holds them (backend-read.h), with
 * no copy in between.  ReadPgs answers with one byte array of records per page rather than
 * nested D-Bus structures: building and parsing a(ssas) for 10,000 pgs costs tens of
 * milliseconds on each side, the records a memcpy (docs/decisions.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend-read.h"
#include "bus-strv.h"
#include "delay.h"
#include "macro.h"
#include "methods.h"
#include "probes.h"
#include "strv.h"

int method_list_pgs(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	connection_t *c = userdata;
	scf_pg_info_t *l = NULL;
	const char *entity, *snapshot;
	int composed, r;
	size_t n = 0;

	r = sd_bus_message_read(m, smf_method_list_pgs.in, &entity, &snapshot, &composed);
	if (r < 0)
		return r;
	r = backend_list_pgs(connection_backend(c), entity, snapshot, composed, &l, &n);
	if (r < 0)
		return configd_backend_error(c, error, r);
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(" SMF_BUS_PG_INFO ")");
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = sd_bus_message_append(reply, "(" SMF_BUS_PG_INFO ")", l[i].name, l[i].type,
		        l[i].flags, l[i].generation);
	backend_pg_infos_free(l, n);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = connection_send_reply(reply); /* counted: it may be large */
	return r;
}

/* Appends the values of a property, as stored (each followed by a NUL), as an "as". */
static int append_values(sd_bus_message *reply, const pgprop_t *p)
{
	int r = sd_bus_message_open_container(reply, 'a', "s");

	for (const char *v = p->vals, *end = p->vals + p->vals_len; r >= 0 && v < end;
	        v += strlen(v) + 1)
		r = sd_bus_message_append_basic(reply, 's', v);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

static int append_props(sd_bus_message *reply, const pg_read_t *pg)
{
	pg_read_iter_t it = {};
	const pgprop_t *p;
	int r = sd_bus_message_open_container(reply, 'a', "(" SMF_BUS_PROPERTY ")");

	while (r >= 0 && (p = pg_read_next(pg, &it))) {
		r = sd_bus_message_open_container(reply, 'r', SMF_BUS_PROPERTY);
		if (r >= 0)
			r = sd_bus_message_append(reply, "ss", p->name, p->type);
		if (r >= 0)
			r = append_values(reply, p);
		if (r >= 0)
			r = sd_bus_message_close_container(reply);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

int method_get_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(pg_read_clear) pg_read_t pg = {};
	connection_t *c = userdata;
	const char *entity, *name, *snapshot;
	int composed, r;

	r = sd_bus_message_read(m, smf_method_get_pg.in, &entity, &name, &snapshot, &composed);
	if (r < 0)
		return r;
	r = backend_read_pg(connection_backend(c), entity, name, snapshot, composed, &pg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append(reply, "sut", pg.type, pg.flags, pg.gen);
	if (r >= 0)
		r = append_props(reply, &pg);
	if (r >= 0)
		r = connection_send_reply(reply); /* counted: it may be large */
	return r;
}

/*
 * ReadPgs' page: the records (docs/protocol.md, "Bulk reads") as they are built, every field
 * followed by a NUL.  An entity is begun only while the page is under its budget, so a page
 * holds whole entities and at least one.
 */
typedef struct page {
	backend_t *b;
	char *buf;
	size_t len, cap, budget;
	size_t entity_start;
	size_t n_entities;
	const char *entity; /* the current one, for a message */
	char *errmsg;       /* why the page was refused, when it was */
} page_t;

static void page_done(page_t *p)
{
	free(p->buf);
	free(p->errmsg);
}

static int page_put(page_t *p, const char *s, size_t len)
{
	if (GREEDY_REALLOC(p->buf, p->cap, p->len + len + 1) < 0)
		return -SCF_ERROR_NO_RESOURCES;
	memcpy(p->buf + p->len, s, len);
	p->len += len;
	p->buf[p->len++] = 0;
	return 0;
}

static int page_str(page_t *p, const char *s)
{
	return page_put(p, s, strlen(s));
}

static int page_num(page_t *p, uint64_t v)
{
	char buf[24], *e = buf + sizeof(buf), *d = e;

	/* By hand: snprintf() was a tenth of a read's instructions. */
	do
		*--d = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	return page_put(p, d, (size_t)(e - d));
}

static int page_entity(void *userdata, const char *fmri, smf_bulk_status_t status)
{
	page_t *p = userdata;
	int r;

	if (p->n_entities > 0 && p->len >= p->budget)
		return 1;
	p->entity_start = p->len;
	p->entity = fmri;
	r = page_str(p, SMF_BULK_RECORD_ENTITY);
	if (r >= 0)
		r = page_str(p, fmri);
	if (r >= 0)
		r = page_num(p, status);
	return r;
}

/* A pg's properties as records: their number, then each (name, type, n values, values). */
static int page_props(page_t *p, const pg_read_t *pg)
{
	pg_read_iter_t it = {};
	const pgprop_t *q;
	size_t n = 0;
	int r;

	while (pg_read_next(pg, &it))
		n++;
	r = page_num(p, n);
	it = (pg_read_iter_t){};
	while (r >= 0 && (q = pg_read_next(pg, &it))) {
		r = page_str(p, q->name);
		if (r >= 0)
			r = page_str(p, q->type);
		if (r >= 0)
			r = page_num(p, q->n_values);
		/* The values as stored: each followed by its NUL already. */
		if (r >= 0 && GREEDY_REALLOC(p->buf, p->cap, p->len + q->vals_len) < 0)
			r = -SCF_ERROR_NO_RESOURCES;
		if (r >= 0 && q->vals_len) {
			memcpy(p->buf + p->len, q->vals, q->vals_len);
			p->len += q->vals_len;
		}
	}
	return r;
}

static int page_pg(void *userdata, unsigned query, const char *name, const pg_read_t *pg)
{
	page_t *p = userdata;
	int r;

	r = page_str(p, SMF_BULK_RECORD_PG);
	if (r >= 0)
		r = page_num(p, query);
	if (r >= 0)
		r = page_str(p, name);
	if (r >= 0)
		r = page_str(p, pg->type);
	if (r >= 0)
		r = page_num(p, pg->flags);
	if (r >= 0)
		r = page_num(p, pg->gen);
	if (r >= 0)
		r = page_props(p, pg);
	return r;
}

static int page_entity_end(void *userdata)
{
	page_t *p = userdata;

	p->n_entities++;
	if (p->len - p->entity_start <= BACKEND_MAX_READ_BYTES)
		return 0;
	if (asprintf(&p->errmsg,
	            "%s: %zu bytes of property groups, more than one reply can carry (%u)",
	            p->entity, p->len - p->entity_start, BACKEND_MAX_READ_BYTES) < 0)
		p->errmsg = NULL;
	return -SCF_ERROR_CONSTRAINT_VIOLATED;
}

/*
 * ReadPg: GetPg (same arguments, same errors) answering the properties as records, which cost
 * a memcpy to send and to read where a(ssas) costs tens of sd-bus calls per property.
 */
int method_read_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(pg_read_clear) pg_read_t pg = {};
	_cleanup_(page_done) page_t props = {};
	connection_t *c = userdata;
	const char *entity, *name, *snapshot;
	int composed, r;

	/* Basic reads and appends: the signature walk of readv/appendv costs more than the SQL. */
	r = sd_bus_message_read_basic(m, 's', &entity);
	if (r > 0)
		r = sd_bus_message_read_basic(m, 's', &name);
	if (r > 0)
		r = sd_bus_message_read_basic(m, 's', &snapshot);
	if (r > 0)
		r = sd_bus_message_read_basic(m, 'b', &composed);
	if (r <= 0)
		return r < 0 ? r : -EBADMSG;
	r = backend_read_pg(connection_backend(c), entity, name, snapshot, composed, &pg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	r = page_props(&props, &pg);
	if (r >= 0)
		r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append_basic(reply, 's', pg.type);
	if (r >= 0)
		r = sd_bus_message_append_basic(reply, 'u', &pg.flags);
	if (r >= 0)
		r = sd_bus_message_append_basic(reply, 't', &pg.gen);
	if (r >= 0)
		r = sd_bus_message_append_array(reply, 'y', props.buf, props.len);
	if (r >= 0)
		r = connection_send_reply(reply); /* counted: it may be large */
	return r;
}

/*
 * Reads the a(sssu) of queries; the strings point into m.  One past SMF_BULK_MAX_QUERIES stops
 * the read: -E2BIG.
 */
static int read_queries(sd_bus_message *m, bulk_query_t **ret, size_t *ret_n)
{
	_cleanup_free_ bulk_query_t *q = NULL;
	size_t n = 0, cap = 0;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "(" SMF_BUS_BULK_QUERY ")");
	while (r >= 0) {
		bulk_query_t x = {};

		r = sd_bus_message_read(
		        m, "(" SMF_BUS_BULK_QUERY ")", &x.name, &x.type, &x.snapshot, &x.flags);
		if (r <= 0)
			break;
		if (n == SMF_BULK_MAX_QUERIES)
			return -E2BIG;
		if (GREEDY_REALLOC(q, cap, n + 1) < 0)
			return -ENOMEM;
		q[n++] = x;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(q);
	*ret_n = n;
	return 0;
}

int method_read_pgs(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ const char **entities = NULL;
	_cleanup_free_ bulk_query_t *queries = NULL;
	connection_t *c = userdata;
	_cleanup_(page_done) page_t page = {.b = connection_backend(c)};
	bulk_visitor_t vis = {page_entity, page_pg, page_entity_end, &page};
	bulk_request_t req = {};
	uint32_t budget;
	int r, more;

	/* Any peer may read: its lists are bounded as they are read, never read past the bound. */
	r = smf_bus_read_strings(m, SMF_BULK_MAX_ENTITIES, &entities, &req.n_entities);
	if (r == -E2BIG)
		return configd_errorf(error, SMF_BUS_ERROR_CONSTRAINT_VIOLATED,
		        "more than %u entities in one bulk read", SMF_BULK_MAX_ENTITIES);
	if (r >= 0)
		r = sd_bus_message_read(m, "ss", &req.pattern, &req.after);
	if (r >= 0)
		r = read_queries(m, &queries, &req.n_queries);
	if (r == -E2BIG)
		return configd_errorf(error, SMF_BUS_ERROR_CONSTRAINT_VIOLATED,
		        "more than %u queries in one bulk read", SMF_BULK_MAX_QUERIES);
	if (r >= 0)
		r = sd_bus_message_read(m, "u", &budget);
	if (r < 0)
		return r;
	req.entities = entities;
	req.queries = queries;
	page.budget = budget == 0 || budget > SMF_BULK_PAGE_BYTES ? SMF_BULK_PAGE_BYTES : budget;
	more = backend_read_bulk(page.b, &req, &vis);
	if (more < 0 && page.errmsg)
		return configd_reply_error(error, more, page.errmsg);
	if (more < 0)
		return configd_backend_error(c, error, more);
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append_array(reply, 'y', page.buf, page.len);
	if (r >= 0)
		r = sd_bus_message_append(reply, "b", more > 0);
	if (r >= 0)
		r = connection_send_reply(reply); /* counted: it may be large */
	return r;
}

int method_add_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	connection_t *c = userdata;
	const char *entity, *name, *type;
	uint32_t flags;
	int r;

	r = sd_bus_message_read(m, smf_method_add_pg.in, &entity, &name, &type, &flags);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, smf_method_add_pg.name, entity);
	if (r < 0)
		return r;
	r = backend_add_pg(connection_backend(c), entity, name, type, flags, &pg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_write(c, smf_method_add_pg.name, entity);
	probe_pg_created(pg);
	probe_pg_committed(pg);
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	r = sd_bus_reply_method_return(m, smf_method_add_pg.out, pg->generation);
	notify_pg_changed(c->configd, pg);
	return r;
}

int method_delete_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	connection_t *c = userdata;
	const char *entity, *name;
	int r;

	r = sd_bus_message_read(m, smf_method_delete_pg.in, &entity, &name);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, smf_method_delete_pg.name, entity);
	if (r < 0)
		return r;
	r = backend_delete_pg(connection_backend(c), entity, name, &pg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_write(c, smf_method_delete_pg.name, entity);
	probe_pg_deleted(pg);
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	r = sd_bus_reply_method_return(m, NULL);
	notify_pg_deleted(c->configd, pg);
	return r;
}

void command_list_clear(command_list_t *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((void *)l->cmds[i].values);
	free(l->cmds);
	*l = (command_list_t){};
}

/* Reads one "(" SMF_BUS_COMMAND ")"; 0 at the end of the array. */
static int read_command(sd_bus_message *m, command_list_t *l)
{
	const char **values = NULL;
	const char *prop, *type;
	size_t n_values = 0;
	uint32_t op;
	int r;

	r = sd_bus_message_enter_container(m, 'r', SMF_BUS_COMMAND);
	if (r <= 0)
		return r;
	r = sd_bus_message_read(m, "uss", &op, &prop, &type);
	if (r < 0)
		return r;
	/* The limit the backend keeps, checked as the values come: a bigger list is never read. */
	r = smf_bus_read_strings(m, SCF_LIMIT_MAX_VALUES, &values, &n_values);
	if (r == -E2BIG)
		l->over_prop = prop;
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r >= 0)
		r = GREEDY_REALLOC(l->cmds, l->cap_cmds, l->n + 1);
	if (r < 0) {
		free(values);
		return r;
	}
	l->cmds[l->n++] = (backend_cmd_t){
	        .op = op, .prop = prop, .type = type, .values = values, .n_values = n_values};
	return 1;
}

int read_commands(sd_bus_message *m, command_list_t *l)
{
	int r = sd_bus_message_enter_container(m, 'a', "(" SMF_BUS_COMMAND ")");

	while (r >= 0 && (r = read_command(m, l)) > 0)
		;
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	return r;
}

int refuse_too_many_values(
        sd_bus_error *error, const char *where, const char *pg, const command_list_t *l)
{
	return configd_errorf(error, SMF_BUS_ERROR_CONSTRAINT_VIOLATED,
	        "%s/:properties/%s/%s: more than %d values", strempty(where), strempty(pg),
	        strempty(l->over_prop), SCF_LIMIT_MAX_VALUES);
}

int method_commit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(command_list_clear) command_list_t l = {};
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	connection_t *c = userdata;
	const char *entity, *name;
	uint64_t gen;
	int r, committed;

	r = sd_bus_message_read(m, "sst", &entity, &name, &gen);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, smf_method_commit.name, entity);
	if (r < 0)
		return r;
	/* Refused before the repository is touched, the limit as the values are read. */
	r = read_commands(m, &l);
	if (r == -E2BIG)
		return refuse_too_many_values(error, entity, name, &l);
	if (r < 0)
		return r;
	committed = backend_commit(connection_backend(c), entity, name, gen, l.cmds, l.n, &pg);
	if (committed < 0)
		return configd_backend_error(c, error, committed);
	if (committed == BACKEND_NOT_LATEST)
		return sd_bus_error_set(
		        error, SMF_BUS_ERROR_NOT_LATEST, backend_errmsg(connection_backend(c)));
	/*
	 * Traced first (the instant the pg is there for everyone), then the reply, then the
	 * watchers (even if the writer is gone): all after the commit.
	 */
	if (committed == BACKEND_COMMITTED) {
		probe_write(c, smf_method_commit.name, entity);
		probe_pg_committed(pg);
		smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	}
	r = sd_bus_reply_method_return(m, smf_method_commit.out, pg->generation);
	if (committed == BACKEND_COMMITTED)
		notify_pg_changed(c->configd, pg);
	return r;
}
