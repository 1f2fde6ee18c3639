/*
 * tx.c: transactions, the only way to change properties.
 *
 * A transaction remembers the pg as read (and so its generation) and an ordered list of
 * commands.  Each command is checked here as it is added (name, type, every value normalized
 * to its canonical form), so a bad value fails at the call that introduced it, with a message
 * naming it, instead of at commit.  Commit sends the list with the generation; configd applies
 * it all or nothing, and answers NotLatest when another writer got in first: that is not an
 * error but the "re-read and retry" answer, 0.  SET picks NEW or REPLACE from the pg as read,
 * which stays correct because a pg that changed since is refused by the generation check.
 */
#include <assert.h>

#include "client-internal.h"
#include "model.h"
#include "strv.h"

typedef struct tx_cmd {
	smf_cmd_op_t op;
	char *prop;
	scf_type_t type; /* SCF_TYPE_INVALID for DELETE */
	char **values;   /* canonical; NULL for DELETE */
} tx_cmd_t;

struct scf_tx {
	scf_handle_t *h;
	char *entity;
	char *pgname;
	scf_pg_t *pg;
	uint64_t generation;
	tx_cmd_t *cmds;
	size_t n_cmds, cap_cmds;
};

static void tx_drop_commands(scf_tx_t *tx)
{
	for (size_t i = 0; i < tx->n_cmds; i++) {
		free(tx->cmds[i].prop);
		strv_free(tx->cmds[i].values);
	}
	free(tx->cmds);
	tx->cmds = NULL;
	tx->n_cmds = tx->cap_cmds = 0;
}

void scf_tx_free(scf_tx_t *tx)
{
	if (!tx)
		return;
	tx_drop_commands(tx);
	scf_pg_free(tx->pg);
	free(tx->entity);
	free(tx->pgname);
	free(tx);
}

static int tx_read(scf_tx_t *tx)
{
	scf_pg_t *pg = NULL;
	int r;

	r = scf_pg_get(tx->h, tx->entity, tx->pgname, NULL, 0, &pg);
	if (r < 0)
		return r;
	scf_pg_free(tx->pg);
	tx->pg = pg;
	tx->generation = pg->generation;
	return 0;
}

int scf_tx_begin(scf_handle_t *h, const char *entity, const char *pg, scf_tx_t **ret)
{
	_cleanup_(scf_tx_freep) scf_tx_t *tx = NULL;
	int r;

	client_clear_error(h);
	if (!entity || !pg || !ret)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "a transaction needs an entity and a pg name");
	tx = calloc(1, sizeof(*tx));
	if (!tx)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	tx->h = h;
	tx->entity = strdup(entity);
	tx->pgname = strdup(pg);
	if (!tx->entity || !tx->pgname)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	r = tx_read(tx);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(tx);
	return 0;
}

const scf_pg_t *scf_tx_pg(const scf_tx_t *tx)
{
	return tx ? tx->pg : NULL;
}

uint64_t scf_tx_generation(const scf_tx_t *tx)
{
	return tx ? tx->generation : 0;
}

int scf_tx_reset(scf_tx_t *tx)
{
	if (!tx)
		return -SCF_ERROR_INVALID_ARGUMENT;
	client_clear_error(tx->h);
	tx_drop_commands(tx);
	return tx_read(tx);
}

/* "svc:/a:b/:properties/pg/prop", for messages. */
static int tx_error(scf_tx_t *tx, int err, const char *prop, const char *what)
{
	return client_set_error(tx->h, err, "%s/:properties/%s/%s: %s", tx->pg->entity, tx->pgname,
	        strempty(prop), what);
}

static int check_name(scf_tx_t *tx, const char *prop)
{
	int r;

	if (!prop)
		return client_set_error(
		        tx->h, -SCF_ERROR_INVALID_ARGUMENT, "no property name given");
	r = scf_name_validate(prop);
	if (r == -SCF_ERROR_CONSTRAINT_VIOLATED)
		return tx_error(tx, r, prop, "property name is too long");
	if (r < 0)
		return tx_error(tx, r, prop, "invalid property name");
	for (size_t i = 0; i < tx->n_cmds; i++)
		if (streq(tx->cmds[i].prop, prop))
			return tx_error(tx, -SCF_ERROR_INVALID_ARGUMENT, prop,
			        "property already changed in this transaction");
	return 0;
}

int client_normalize_values(scf_handle_t *h, const char *entity, const char *pg, const char *prop,
        scf_type_t type, const char *const *values, size_t n, char ***ret)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	const char *tname = scf_type_to_string(type);
	size_t k = 0;
	int r;

	if (!l)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	if (!tname)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s/:properties/%s/%s: invalid type", entity, pg, prop);
	if (n > SCF_LIMIT_MAX_VALUES)
		return client_set_error(h, -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "%s/:properties/%s/%s: %zu values are more than %d", entity, pg, prop, n,
		        SCF_LIMIT_MAX_VALUES);
	if (n > 0 && !values)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s/:properties/%s/%s: values missing", entity, pg, prop);
	for (size_t i = 0; i < n; i++) {
		const char *v = values[i] ? values[i] : "";
		_cleanup_free_ char *canon = NULL;
		char why[80];

		r = scf_value_normalize(type, v, &canon);
		if (r == -SCF_ERROR_CONSTRAINT_VIOLATED)
			return client_set_error(h, r,
			        "%s/:properties/%s/%s: a value of %zu bytes is longer than %d",
			        entity, pg, prop, strlen(v), SCF_LIMIT_MAX_VALUE_LENGTH);
		if (r < 0 && smf_value_forbidden_why(v, why, sizeof(why)))
			return client_set_error(h, r,
			        "%s/:properties/%s/%s: \"%s\" is not a valid %s: %s", entity, pg,
			        prop, v, tname, why);
		if (r < 0)
			return client_set_error(h, r,
			        "%s/:properties/%s/%s: \"%s\" is not a valid %s", entity, pg, prop,
			        v, tname);
		if (strv_extend_counted(&l, &k, canon ? canon : v) < 0)
			return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	}
	*ret = TAKE_PTR(l);
	return 0;
}

static int add_command(scf_tx_t *tx, smf_cmd_op_t op, const char *prop, scf_type_t type,
        const char *const *values, size_t n)
{
	_cleanup_strv_free_ char **canon = NULL;
	_cleanup_free_ char *name = NULL;
	int r;

	client_clear_error(tx->h);
	r = check_name(tx, prop);
	if (r < 0)
		return r;
	if (op != SMF_CMD_DELETE) {
		r = client_normalize_values(
		        tx->h, tx->pg->entity, tx->pgname, prop, type, values, n, &canon);
		if (r < 0)
			return r;
	}
	name = strdup(prop);
	if (!name || GREEDY_REALLOC(tx->cmds, tx->cap_cmds, tx->n_cmds + 1) < 0)
		return client_set_error(tx->h, -SCF_ERROR_NO_MEMORY, "out of memory");
	tx->cmds[tx->n_cmds++] = (tx_cmd_t){
	        .op = op,
	        .prop = TAKE_PTR(name),
	        .type = type,
	        .values = TAKE_PTR(canon),
	};
	return 0;
}

int scf_tx_new(scf_tx_t *tx, const char *prop, scf_type_t type, const char *const *values, size_t n)
{
	if (!tx)
		return -SCF_ERROR_INVALID_ARGUMENT;
	return add_command(tx, SMF_CMD_NEW, prop, type, values, n);
}

int scf_tx_replace(
        scf_tx_t *tx, const char *prop, scf_type_t type, const char *const *values, size_t n)
{
	if (!tx)
		return -SCF_ERROR_INVALID_ARGUMENT;
	return add_command(tx, SMF_CMD_REPLACE, prop, type, values, n);
}

int scf_tx_set(scf_tx_t *tx, const char *prop, scf_type_t type, const char *const *values, size_t n)
{
	if (!tx)
		return -SCF_ERROR_INVALID_ARGUMENT;
	return add_command(tx,
	        prop && scf_pg_property(tx->pg, prop) ? SMF_CMD_REPLACE : SMF_CMD_NEW, prop, type,
	        values, n);
}

int scf_tx_delete(scf_tx_t *tx, const char *prop)
{
	if (!tx)
		return -SCF_ERROR_INVALID_ARGUMENT;
	return add_command(tx, SMF_CMD_DELETE, prop, SCF_TYPE_INVALID, NULL, 0);
}

int client_append_command(
        sd_bus_message *m, smf_cmd_op_t op, const char *prop, scf_type_t type, char **values)
{
	/* DELETE and REMOVE ignore type and values (docs/protocol.md): they travel empty. */
	bool del = op == SMF_CMD_DELETE || op == SMF_CMD_REMOVE;
	int r = sd_bus_message_open_container(m, 'r', SMF_BUS_COMMAND);

	if (r >= 0)
		r = sd_bus_message_append(m, "uss", (uint32_t)op, prop,
		        del ? "" : strempty(scf_type_to_string(type)));
	if (r >= 0)
		r = sd_bus_message_append_strv(m, del ? NULL : values);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

static int append_commands(scf_tx_t *tx, sd_bus_message *m)
{
	int r;

	r = sd_bus_message_open_container(m, 'a', "(" SMF_BUS_COMMAND ")");
	for (size_t i = 0; r >= 0 && i < tx->n_cmds; i++) {
		const tx_cmd_t *c = &tx->cmds[i];

		r = client_append_command(m, c->op, c->prop, c->type, c->values);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

int scf_tx_commit(scf_tx_t *tx)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	uint64_t gen;
	int r;

	if (!tx)
		return -SCF_ERROR_INVALID_ARGUMENT;
	client_clear_error(tx->h);
	r = client_new_call(tx->h, &smf_method_commit, &m);
	if (r < 0)
		return r;
	r = sd_bus_message_append(m, "sst", tx->entity, tx->pgname, tx->generation);
	if (r >= 0)
		r = append_commands(tx, m);
	if (r < 0)
		return client_error_from_bus(tx->h, smf_method_commit.name, r, NULL);
	/* Not client_call_message(): NotLatest is an answer here, not a failure. */
	assert(client_call_is(&smf_method_commit, m));
	r = sd_bus_call(tx->h->bus, m, 0, &error, &reply);
	if (r < 0) {
		if (sd_bus_error_has_name(&error, SMF_BUS_ERROR_NOT_LATEST)) {
			/* Not a failure: the caller re-reads and retries.  Keep why, for logs. */
			client_set_error(tx->h, 0, "%s", strempty(error.message));
			return 0;
		}
		return client_error_from_bus(tx->h, smf_method_commit.name, r, &error);
	}
	r = client_read_reply(tx->h, &smf_method_commit, reply, &gen);
	if (r < 0)
		return r;
	tx->generation = gen;
	return 1;
}

int scf_tx_run(scf_handle_t *h, const char *entity, const char *pg, scf_tx_fn fn, void *userdata,
        unsigned max_tries)
{
	_cleanup_(scf_tx_freep) scf_tx_t *tx = NULL;
	int r;

	if (!fn)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no transaction function");
	if (max_tries == 0)
		max_tries = 100;
	r = scf_tx_begin(h, entity, pg, &tx);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < max_tries; i++) {
		if (i > 0) {
			r = scf_tx_reset(tx);
			if (r < 0)
				return r;
		}
		r = fn(tx, userdata);
		if (r < 0)
			return r;
		r = scf_tx_commit(tx);
		if (r != 0)
			return r;
	}
	return client_set_error(h, -SCF_ERROR_NO_RESOURCES,
	        "%s/:properties/%s: changed by other writers on each of %u tries", entity, pg,
	        max_tries);
}
