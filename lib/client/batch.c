/*
 * batch.c: many changes, one atomic repository transaction (docs/protocol.md, "Batches").
 *
 * A batch is a list of steps kept here until commit, then sent in ONE Batch call that configd
 * applies in one SQLite transaction: all of them or none, one new generation and one
 * notification per pg touched.  Each adder checks its arguments at once (FMRI kind, names,
 * every value normalized to its canonical form) so the importer learns of a bad value at the
 * call that added it; configd checks everything again, as it does for Commit.
 *
 * Property sets and deletes that follow one another on the same pg of the same entity go in
 * one PROPS step, one command each, in order: configd locates the entity and the pg and checks
 * the pg's size once per step, not once per property (a method pg's properties, a restarter
 * pg's four to seven, cost one step).  The caller still numbers in adder calls: every step
 * remembers the call that added it (a PROPS step, its first), and a commit that fails gets
 * configd's "step N (...)" renumbered to that call, so "step N" in the message, like
 * scf_batch_size(), counts the caller's adder calls (renumber_error()).
 */
#include "client-internal.h"
#include "strv.h"

/* One command of a PROPS step. */
typedef struct batch_cmd {
	smf_cmd_op_t op;
	char *prop;
	scf_type_t type;
	char **values;
} batch_cmd_t;

typedef struct batch_step {
	smf_step_op_t op;
	char *fmri; /* canonical */
	char *pg;
	char *name;
	char *type;
	uint32_t flags;
	size_t call; /* the adder call that added it (PROPS: its first command's), from 0 */
	/* PROPS: its commands, in order (one at least) */
	batch_cmd_t *cmds;
	size_t n_cmds, cap_cmds;
} batch_step_t;

struct scf_batch {
	scf_handle_t *h;
	batch_step_t *steps;
	size_t n, cap;
	size_t n_calls; /* adder calls that added something: scf_batch_size() */
};

/* What an entity argument must name. */
typedef enum entity_kind { KIND_SERVICE, KIND_INSTANCE, KIND_ANY } entity_kind_t;

static void cmd_done(batch_cmd_t *c)
{
	free(c->prop);
	strv_free(c->values);
	*c = (batch_cmd_t){};
}

static void step_done(batch_step_t *s)
{
	free(s->fmri);
	free(s->pg);
	free(s->name);
	free(s->type);
	for (size_t i = 0; i < s->n_cmds; i++)
		cmd_done(&s->cmds[i]);
	free(s->cmds);
	*s = (batch_step_t){};
}

int scf_batch_new(scf_handle_t *h, scf_batch_t **ret)
{
	scf_batch_t *b;

	client_clear_error(h);
	if (!h || !ret)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no handle given");
	b = calloc(1, sizeof(*b));
	if (!b)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	b->h = h;
	*ret = b;
	return 0;
}

void scf_batch_free(scf_batch_t *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		step_done(&b->steps[i]);
	free(b->steps);
	free(b);
}

size_t scf_batch_size(const scf_batch_t *b)
{
	return b ? b->n_calls : 0;
}

static int oom(scf_batch_t *b)
{
	return client_set_error(b->h, -SCF_ERROR_NO_MEMORY, "out of memory");
}

/* Checks fmri and stores its canonical form in s->fmri. */
static int set_entity(scf_batch_t *b, batch_step_t *s, const char *fmri, entity_kind_t kind)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {};
	scf_fmri_t e;
	int r;

	if (!fmri)
		return client_set_error(b->h, -SCF_ERROR_INVALID_ARGUMENT, "no FMRI given");
	r = scf_fmri_parse(fmri, &f);
	if (r < 0)
		return client_set_error(b->h, r, "\"%s\" is not a valid FMRI", fmri);
	if (f.pg || f.prop)
		return client_set_error(b->h, -SCF_ERROR_INVALID_ARGUMENT,
		        "\"%s\" does not name a service or an instance", fmri);
	if ((kind == KIND_SERVICE && f.instance) || (kind == KIND_INSTANCE && !f.instance))
		return client_set_error(b->h, -SCF_ERROR_INVALID_ARGUMENT, "\"%s\" is not %s", fmri,
		        kind == KIND_SERVICE ? "a service" : "an instance");
	e = (scf_fmri_t){.service = f.service, .instance = f.instance};
	r = scf_fmri_format(&e, &s->fmri);
	if (r < 0)
		return client_set_error(b->h, r, "cannot format \"%s\"", fmri);
	return 0;
}

static int set_name(scf_batch_t *b, char **dst, const char *name, const char *what)
{
	int r = scf_name_validate(name ? name : "");

	if (r < 0)
		return client_set_error(b->h, r, "\"%s\" is not a valid %s name%s", strempty(name),
		        what, r == -SCF_ERROR_CONSTRAINT_VIOLATED ? " (too long)" : "");
	*dst = strdup(name);
	return *dst ? 0 : oom(b);
}

/* Appends *s (taking its contents) when r says the adder's checks passed. */
static int push(scf_batch_t *b, batch_step_t *s, int r)
{
	if (r >= 0 && GREEDY_REALLOC(b->steps, b->cap, b->n + 1) < 0)
		r = oom(b);
	if (r < 0) {
		step_done(s);
		return r;
	}
	s->call = b->n_calls++;
	b->steps[b->n++] = *s;
	return 0;
}

/*
 * A property command for the pg of *s (entity and pg checked), taken when r says the adder's
 * checks passed: appended to the last step when that is a PROPS step on the same pg (*s is
 * then dropped), else *s becomes a new PROPS step holding it.
 */
static int push_cmd(scf_batch_t *b, batch_step_t *s, batch_cmd_t *c, int r)
{
	batch_step_t *last = b->n > 0 ? &b->steps[b->n - 1] : NULL;
	batch_step_t *to = s;

	if (r >= 0 && last && last->op == SMF_STEP_PROPS && streq(last->fmri, s->fmri) &&
	        streq(last->pg, s->pg))
		to = last;
	if (r >= 0 && GREEDY_REALLOC(to->cmds, to->cap_cmds, to->n_cmds + 1) < 0)
		r = oom(b);
	if (r >= 0 && to == s && GREEDY_REALLOC(b->steps, b->cap, b->n + 1) < 0)
		r = oom(b);
	if (r < 0) {
		cmd_done(c);
		step_done(s);
		return r;
	}
	to->cmds[to->n_cmds++] = *c;
	if (to == s) {
		s->call = b->n_calls;
		b->steps[b->n++] = *s;
	} else
		step_done(s);
	b->n_calls++;
	return 0;
}

/*
 * The start of every adder: a batch to add to, the handle's error cleared, and the step's
 * entity checked.  What it returns goes to push(), which drops the step on failure.
 */
static int step_begin(scf_batch_t *b, batch_step_t *s, const char *fmri, entity_kind_t kind)
{
	if (!b)
		return -SCF_ERROR_INVALID_ARGUMENT;
	client_clear_error(b->h);
	return set_entity(b, s, fmri, kind);
}

/* The start of every pg step: entity and pg name. */
static int pg_step_begin(scf_batch_t *b, batch_step_t *s, const char *entity, const char *pg)
{
	int r = step_begin(b, s, entity, KIND_ANY);

	if (r >= 0)
		r = set_name(b, &s->pg, pg, "property group");
	return r;
}

/* The start of a property command: entity, pg and property name. */
static int prop_cmd_begin(scf_batch_t *b, batch_step_t *s, batch_cmd_t *c, const char *entity,
        const char *pg, const char *prop)
{
	int r = pg_step_begin(b, s, entity, pg);

	if (r >= 0)
		r = set_name(b, &c->prop, prop, "property");
	return r;
}

static int add_entity_step(scf_batch_t *b, smf_step_op_t op, const char *fmri, entity_kind_t kind)
{
	batch_step_t s = {.op = op};

	return push(b, &s, step_begin(b, &s, fmri, kind));
}

int scf_batch_service_ensure(scf_batch_t *b, const char *service_fmri)
{
	return add_entity_step(b, SMF_STEP_SERVICE_ENSURE, service_fmri, KIND_SERVICE);
}

int scf_batch_instance_ensure(scf_batch_t *b, const char *instance_fmri)
{
	return add_entity_step(b, SMF_STEP_INSTANCE_ENSURE, instance_fmri, KIND_INSTANCE);
}

int scf_batch_entity_delete(scf_batch_t *b, const char *fmri)
{
	return add_entity_step(b, SMF_STEP_ENTITY_DELETE, fmri, KIND_ANY);
}

int scf_batch_refresh(scf_batch_t *b, const char *instance)
{
	return add_entity_step(b, SMF_STEP_REFRESH, instance, KIND_INSTANCE);
}

int scf_batch_snapshot_take(scf_batch_t *b, const char *instance, const char *name)
{
	batch_step_t s = {.op = SMF_STEP_SNAPSHOT_TAKE};
	int r = step_begin(b, &s, instance, KIND_INSTANCE);

	if (r >= 0)
		r = set_name(b, &s.name, name, "snapshot");
	return push(b, &s, r);
}

int scf_batch_pg_ensure(
        scf_batch_t *b, const char *entity, const char *pg, const char *type, uint32_t flags)
{
	batch_step_t s = {.op = SMF_STEP_PG_ENSURE, .flags = flags};
	int r = pg_step_begin(b, &s, entity, pg);

	if (r >= 0)
		r = set_name(b, &s.type, type, "property group type");
	return push(b, &s, r);
}

int scf_batch_pg_delete(scf_batch_t *b, const char *entity, const char *pg)
{
	batch_step_t s = {.op = SMF_STEP_PG_DELETE};

	return push(b, &s, pg_step_begin(b, &s, entity, pg));
}

int scf_batch_prop_set(scf_batch_t *b, const char *entity, const char *pg, const char *prop,
        scf_type_t type, const char *const *values, size_t n)
{
	batch_step_t s = {.op = SMF_STEP_PROPS};
	batch_cmd_t c = {.op = SMF_CMD_SET, .type = type};
	int r = prop_cmd_begin(b, &s, &c, entity, pg, prop);

	if (r >= 0)
		r = client_normalize_values(b->h, s.fmri, s.pg, c.prop, type, values, n, &c.values);
	return push_cmd(b, &s, &c, r);
}

int scf_batch_prop_delete(scf_batch_t *b, const char *entity, const char *pg, const char *prop)
{
	batch_step_t s = {.op = SMF_STEP_PROPS};
	batch_cmd_t c = {.op = SMF_CMD_REMOVE};

	return push_cmd(b, &s, &c, prop_cmd_begin(b, &s, &c, entity, pg, prop));
}

static int append_step(sd_bus_message *m, const batch_step_t *s)
{
	int r = sd_bus_message_open_container(m, 'r', SMF_BUS_STEP);

	if (r >= 0)
		r = sd_bus_message_append(m, "ussssu", (uint32_t)s->op, s->fmri, strempty(s->pg),
		        strempty(s->name), strempty(s->type), s->flags);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(" SMF_BUS_COMMAND ")");
	for (size_t i = 0; r >= 0 && i < s->n_cmds; i++)
		r = client_append_command(
		        m, s->cmds[i].op, s->cmds[i].prop, s->cmds[i].type, s->cmds[i].values);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

/*
 * configd's message "step N (...): ..." (N counting its steps from 1) in the caller's calls:
 * the call that added step N, for a step of several commands its first.  The commands sent
 * (SET, REMOVE) have no precondition, and their names and values were checked at the call, so
 * what configd refuses in a PROPS step is the step's own: its entity, its pg, the pg's size.
 */
static int renumber_error(scf_batch_t *b, int r)
{
	const char *m = scf_handle_errmsg(b->h);
	_cleanup_free_ char *msg = NULL;
	size_t n;
	int off = 0;

	if (!m || sscanf(m, "step %zu%n", &n, &off) != 1 || off == 0 || n < 1 || n > b->n)
		return r;
	msg = strdup(m);
	if (!msg)
		return r;
	return client_set_error(b->h, r, "step %zu%s", b->steps[n - 1].call + 1, msg + off);
}

int scf_batch_commit(scf_batch_t *b)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	uint32_t applied;
	int r;

	if (!b)
		return -SCF_ERROR_INVALID_ARGUMENT;
	client_clear_error(b->h);
	r = client_new_call(b->h, &smf_method_batch, &m);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(m, 'a', "(" SMF_BUS_STEP ")");
	for (size_t i = 0; r >= 0 && i < b->n; i++)
		r = append_step(m, &b->steps[i]);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r < 0)
		return client_error_from_bus(b->h, smf_method_batch.name, r, NULL);
	r = client_call_message(b->h, &smf_method_batch, m, &reply);
	if (r < 0)
		return renumber_error(b, r);
	r = client_read_reply(b->h, &smf_method_batch, reply, &applied);
	if (r < 0)
		return r;
	if (applied != b->n)
		return client_set_error(b->h, -SCF_ERROR_INTERNAL,
		        "%s: svc.configd applied %u of %zu steps", smf_method_batch.name, applied,
		        b->n);
	return 1;
}
