/*
 * pg.c: reading, listing, adding and deleting property groups, and typed property reads.
 *
 * A pg is always read whole in one call (ReadPg, or GetPg from a configd of protocol 1.0), with
 * its generation; the properties come back sorted by name and their values already canonical
 * (configd normalizes what it stores), so the typed getters below only parse canonical forms.
 */
#include <inttypes.h>

#include "bus-strv.h"
#include "client-internal.h"
#include "model.h"
#include "strv.h"
#include "trace.h"

void client_property_done(scf_property_t *p)
{
	free(p->name);
	strv_free(p->values);
	*p = (scf_property_t){};
}

int client_property_copy(const scf_property_t *src, scf_property_t *dst)
{
	scf_property_t p = {.type = src->type, .n_values = src->n_values};

	p.name = strdup(src->name);
	p.values = strv_copy(src->values);
	if (!p.name || !p.values) {
		client_property_done(&p);
		return -SCF_ERROR_NO_MEMORY;
	}
	*dst = p;
	return 0;
}

void scf_pg_free(scf_pg_t *pg)
{
	if (!pg)
		return;
	for (size_t i = 0; i < pg->n_props; i++)
		client_property_done(&pg->props[i]);
	free(pg->props);
	free(pg->entity);
	free(pg->name);
	free(pg->type);
	free(pg);
}

const scf_property_t *scf_pg_property(const scf_pg_t *pg, const char *name)
{
	if (!pg || !name)
		return NULL;
	for (size_t i = 0; i < pg->n_props; i++)
		if (streq(pg->props[i].name, name))
			return &pg->props[i];
	return NULL;
}

/* Reads one "(" SMF_BUS_PROPERTY ")" into p. */
static int read_property(sd_bus_message *reply, scf_property_t *p)
{
	const char *name, *type;
	char **values = NULL;
	int r;

	r = sd_bus_message_enter_container(reply, 'r', SMF_BUS_PROPERTY);
	if (r <= 0)
		return r;
	r = sd_bus_message_read(reply, "ss", &name, &type);
	if (r < 0)
		return r;
	r = smf_bus_read_strv(reply, SIZE_MAX, &values, &p->n_values);
	if (r < 0)
		return r;
	p->values = values;
	p->type = scf_string_to_type(type);
	p->name = strdup(name);
	if (!p->name)
		return -ENOMEM;
	r = sd_bus_message_exit_container(reply);
	return r < 0 ? r : 1;
}

static int read_properties(sd_bus_message *reply, scf_pg_t *pg)
{
	size_t allocated = 0;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "(" SMF_BUS_PROPERTY ")");
	if (r < 0)
		return r;
	for (;;) {
		if (GREEDY_REALLOC(pg->props, allocated, pg->n_props + 1) < 0)
			return -ENOMEM;
		pg->props[pg->n_props] = (scf_property_t){};
		r = read_property(reply, &pg->props[pg->n_props]);
		if (r <= 0) {
			client_property_done(&pg->props[pg->n_props]);
			if (r < 0)
				return r;
			break;
		}
		pg->n_props++;
	}
	return sd_bus_message_exit_container(reply);
}

/*
 * The entity as the caller named it, canonical when we can parse it.  For a composed read that
 * fell back on the service's pg this is still the instance: GetPg does not say which level
 * answered.
 */
static char *entity_name(const char *entity)
{
	char *canon = NULL;

	if (!smf_fmri_canonical_form(entity) && scf_fmri_canonicalize(entity, &canon) >= 0 && canon)
		return canon;
	return strdup(entity);
}

/*
 * scf.read: what a read of entity/pg returned, generation or absence (r: the read's result),
 * recorded when the answer came, with the time the request left (sent_ns): configd answered
 * in between, so a write it committed before sent_ns is in the answer and one committed after
 * the answer is not.  Every read of a pg or of its properties comes through scf_pg_get(),
 * whole, or through scf_bulk_read(), which records each pg it read here too, so this is every
 * read of the client (docs/trace-format.md).
 */
void client_trace_read(const char *entity, const char *pg, const char *snapshot,
        unsigned read_flags, int r, uint64_t generation, uint64_t sent_ns)
{
	_cleanup_free_ char *canon = NULL, *fmri = NULL;
	unsigned how = 0;

	if (!smf_trace_enabled())
		return;
	canon = entity_name(entity);
	if (!canon || asprintf(&fmri, "%s/:properties/%s", canon, pg) < 0)
		return;
	if (read_flags & SCF_READ_COMPOSED)
		how |= SMF_TRACE_READ_COMPOSED;
	if (snapshot && *snapshot)
		how |= SMF_TRACE_READ_SNAPSHOT;
	if (r < 0 && r != -SCF_ERROR_NOT_FOUND)
		how |= SMF_TRACE_READ_ERROR;
	smf_trace_str_args(SMF_TRACE_SCF_READ, smf_trace_instance_flow(canon), fmri,
	        SMF_TRACE_READ_ARG0(r < 0 ? 0 : generation, how), sent_ns);
}

/* ReadPg's properties (records: their number, then name, type, n values, values each). */
static int parse_properties(const void *buf, size_t len, scf_pg_t *pg)
{
	client_cursor_t c = {buf, (const char *)buf + len};
	size_t n;
	int r;

	r = client_count(&c, 3, &n);
	if (r < 0)
		return r;
	pg->props = calloc(n + 1, sizeof(scf_property_t));
	if (!pg->props)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		scf_property_t *p = &pg->props[k];
		const char *name = client_field(&c), *type = client_field(&c);
		size_t nv;

		if (!name || !type || client_count(&c, 1, &nv) < 0)
			return -EBADMSG;
		pg->n_props = k + 1;
		p->name = strdup(name);
		p->type = scf_string_to_type(type);
		p->values = calloc(nv + 1, sizeof(char *));
		if (!p->name || !p->values)
			return -ENOMEM;
		for (size_t v = 0; v < nv; v++) {
			const char *f = client_field(&c);

			if (!f)
				return -EBADMSG;
			if (!(p->values[v] = strdup(f)))
				return -ENOMEM;
			p->n_values = v + 1;
		}
	}
	return c.p == c.end ? 0 : -EBADMSG;
}

/*
 * One read: ReadPg (protocol 1.1, its properties as records: cheap to parse), or GetPg from a
 * configd that has no ReadPg (1.0), which the handle then remembers.
 */
static int call_read(scf_handle_t *h, const char *entity, const char *pg, const char *snapshot,
        int composed, scf_pg_t *p)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	const smf_bus_method_t *method = h->no_read_pg ? &smf_method_get_pg : &smf_method_read_pg;
	const char *type;
	const void *buf;
	size_t len;
	int r;

	/* Basic appends and reads: the signature walk of appendv/readv costs more than the call. */
	r = client_new_call(h, method, &m);
	if (r < 0)
		return r;
	/* Both methods' arguments: "sssb". */
	r = sd_bus_message_append_basic(m, 's', entity);
	if (r >= 0)
		r = sd_bus_message_append_basic(m, 's', pg);
	if (r >= 0)
		r = sd_bus_message_append_basic(m, 's', snapshot);
	if (r >= 0)
		r = sd_bus_message_append_basic(m, 'b', &composed);
	if (r < 0)
		return client_error_from_bus(h, method->name, r, NULL);
	r = client_call_message(h, method, m, &reply);
	if (r == -SCF_ERROR_VERSION_MISMATCH && !h->no_read_pg) {
		h->no_read_pg = true;
		return call_read(h, entity, pg, snapshot, composed, p);
	}
	if (r < 0)
		return r;
	r = sd_bus_message_read_basic(reply, 's', &type);
	if (r > 0)
		r = sd_bus_message_read_basic(reply, 'u', &p->flags);
	if (r > 0)
		r = sd_bus_message_read_basic(reply, 't', &p->generation);
	if (r == 0)
		r = -EBADMSG;
	if (r >= 0 && h->no_read_pg)
		r = read_properties(reply, p);
	else if (r >= 0)
		r = sd_bus_message_read_array(reply, 'y', &buf, &len);
	if (r >= 0 && !h->no_read_pg)
		r = parse_properties(buf, len, p);
	if (r < 0)
		return client_bad_reply(h, method->name, r);
	p->type = strdup(type);
	if (!p->type)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "%s: out of memory", method->name);
	return 0;
}

int scf_pg_get(scf_handle_t *h, const char *entity, const char *pg, const char *snapshot,
        unsigned read_flags, scf_pg_t **ret)
{
	_cleanup_(scf_pg_freep) scf_pg_t *p = NULL;
	uint64_t sent = smf_trace_enabled() ? now_monotonic_nsec() : 0;
	int r;

	client_clear_error(h);
	if (!entity || !pg || !ret)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s: entity and pg name are required", smf_method_get_pg.name);
	p = calloc(1, sizeof(*p));
	if (!p)
		return client_set_error(
		        h, -SCF_ERROR_NO_MEMORY, "%s: out of memory", smf_method_get_pg.name);
	r = call_read(
	        h, entity, pg, strempty(snapshot), (int)!!(read_flags & SCF_READ_COMPOSED), p);
	if (r < 0) {
		client_trace_read(entity, pg, snapshot, read_flags, r, 0, sent);
		return r;
	}
	p->name = strdup(pg);
	p->entity = entity_name(entity);
	if (!p->name || !p->entity)
		return client_set_error(
		        h, -SCF_ERROR_NO_MEMORY, "%s: out of memory", smf_method_get_pg.name);
	client_trace_read(entity, pg, snapshot, read_flags, 0, p->generation, sent);
	*ret = TAKE_PTR(p);
	return 0;
}

void scf_pg_info_free(scf_pg_info_t *infos, size_t n)
{
	if (!infos)
		return;
	for (size_t i = 0; i < n; i++) {
		free(infos[i].name);
		free(infos[i].type);
	}
	free(infos);
}

static int read_pg_infos(sd_bus_message *reply, scf_pg_info_t **ret, size_t *ret_n)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0, allocated = 0;
	const char *name, *type;
	uint32_t flags;
	uint64_t gen;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "(" SMF_BUS_PG_INFO ")");
	while (r >= 0) {
		r = sd_bus_message_read(reply, "(" SMF_BUS_PG_INFO ")", &name, &type, &flags, &gen);
		if (r <= 0)
			break;
		if (GREEDY_REALLOC(infos, allocated, n + 1) < 0) {
			r = -ENOMEM;
			break;
		}
		infos[n] = (scf_pg_info_t){.name = strdup(name),
		        .type = strdup(type),
		        .flags = flags,
		        .generation = gen};
		n++;
		if (!infos[n - 1].name || !infos[n - 1].type)
			r = -ENOMEM;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	if (r < 0) {
		scf_pg_info_free(infos, n);
		return r;
	}
	*ret = infos;
	*ret_n = n;
	return 0;
}

int scf_pg_list(scf_handle_t *h, const char *entity, const char *snapshot, unsigned read_flags,
        scf_pg_info_t **ret, size_t *n)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	client_clear_error(h);
	if (!entity || !ret || !n)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "%s: no entity given",
		        smf_method_list_pgs.name);
	r = client_call(h, &smf_method_list_pgs, &reply, entity, strempty(snapshot),
	        (int)!!(read_flags & SCF_READ_COMPOSED));
	if (r < 0)
		return r;
	r = read_pg_infos(reply, ret, n);
	if (r < 0)
		return client_bad_reply(h, smf_method_list_pgs.name, r);
	return 0;
}

int scf_pg_add(
        scf_handle_t *h, const char *entity, const char *pg, const char *type, uint32_t flags)
{
	int r;

	client_clear_error(h);
	if (!entity || !pg || !type)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s: entity, pg name and type are required", smf_method_add_pg.name);
	r = scf_name_validate(pg);
	if (r < 0)
		return client_set_error(h, r, "\"%s\" is not a valid property group name", pg);
	return client_call(h, &smf_method_add_pg, NULL, entity, pg, type, flags);
}

int scf_pg_delete(scf_handle_t *h, const char *entity, const char *pg)
{
	client_clear_error(h);
	if (!entity || !pg)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s: entity and pg name are required", smf_method_delete_pg.name);
	return client_call(h, &smf_method_delete_pg, NULL, entity, pg);
}

/* The one value of p, if p has type t (or fits, per fits()). */
static int single_value(const scf_property_t *p, bool type_ok, const char **ret)
{
	if (!p)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (!type_ok)
		return -SCF_ERROR_TYPE_MISMATCH;
	if (p->n_values == 0 || !p->values || !p->values[0])
		return -SCF_ERROR_NOT_FOUND;
	if (p->n_values > 1)
		return -SCF_ERROR_CONSTRAINT_VIOLATED;
	*ret = p->values[0];
	return 0;
}

int scf_property_get_boolean(const scf_property_t *p, bool *ret)
{
	const char *v;
	int r;

	r = single_value(p, p && p->type == SCF_TYPE_BOOLEAN, &v);
	if (r < 0)
		return r;
	if (streq(v, "true") || streq(v, "1"))
		*ret = true;
	else if (streq(v, "false") || streq(v, "0"))
		*ret = false;
	else
		return -SCF_ERROR_INTERNAL;
	return 0;
}

static int parse_u64(const char *v, uint64_t *ret)
{
	char *end;

	if (!*v || *v == '-')
		return -SCF_ERROR_INTERNAL;
	errno = 0;
	*ret = strtoull(v, &end, 10);
	return errno || *end ? -SCF_ERROR_INTERNAL : 0;
}

int scf_property_get_count(const scf_property_t *p, uint64_t *ret)
{
	const char *v;
	int r;

	r = single_value(p, p && p->type == SCF_TYPE_COUNT, &v);
	if (r < 0)
		return r;
	return parse_u64(v, ret);
}

int scf_property_get_integer(const scf_property_t *p, int64_t *ret)
{
	const char *v;
	uint64_t u;
	char *end;
	int r;

	r = single_value(p, p && (p->type == SCF_TYPE_INTEGER || p->type == SCF_TYPE_COUNT), &v);
	if (r < 0)
		return r;
	if (p->type == SCF_TYPE_COUNT) {
		r = parse_u64(v, &u);
		if (r < 0)
			return r;
		if (u > INT64_MAX)
			return -SCF_ERROR_TYPE_MISMATCH;
		*ret = (int64_t)u;
		return 0;
	}
	errno = 0;
	*ret = strtoll(v, &end, 10);
	return errno || !*v || *end ? -SCF_ERROR_INTERNAL : 0;
}

static bool is_string_type(scf_type_t t)
{
	switch (t) {
	case SCF_TYPE_ASTRING:
	case SCF_TYPE_USTRING:
	case SCF_TYPE_URI:
	case SCF_TYPE_FMRI:
	case SCF_TYPE_HOST:
	case SCF_TYPE_HOSTNAME:
	case SCF_TYPE_NET_ADDR:
	case SCF_TYPE_NET_ADDR_V4:
	case SCF_TYPE_NET_ADDR_V6:
		return true;
	default:
		return false;
	}
}

int scf_property_get_string(const scf_property_t *p, const char **ret)
{
	return single_value(p, p && is_string_type(p->type), ret);
}

int scf_property_read(
        scf_handle_t *h, const char *entity, const char *pg, const char *prop, scf_property_t **ret)
{
	_cleanup_(scf_pg_freep) scf_pg_t *p = NULL;
	_cleanup_free_ scf_property_t *copy = NULL;
	const scf_property_t *found;
	int r;

	r = scf_pg_get(h, entity, pg, NULL, 0, &p);
	if (r < 0)
		return r;
	found = scf_pg_property(p, prop);
	if (!found)
		return client_set_error(h, -SCF_ERROR_NOT_FOUND,
		        "%s/:properties/%s/%s: no such property", p->entity, pg, strempty(prop));
	copy = calloc(1, sizeof(*copy));
	if (!copy || client_property_copy(found, copy) < 0)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	*ret = TAKE_PTR(copy);
	return 0;
}

void scf_property_free(scf_property_t *p)
{
	if (!p)
		return;
	client_property_done(p);
	free(p);
}
