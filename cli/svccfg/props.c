/*
 * props.c: listprop, setprop, delprop, addpropvalue, delpropvalue.
 *
 * Each change is one transaction run by scf_tx_run(): the callback looks at the pg as read,
 * decides (type inference, the values to keep) and adds one command; if another writer commits
 * first the pg is re-read and the callback runs again, so a decision is never based on a stale
 * read.  A callback that refuses reports why and sets ctx->reported.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli-quote.h"
#include "commands.h"
#include "model.h"
#include "pgs.h"
#include "strv.h"

typedef struct prop_ctx {
	svccfg_t *c;
	const char *pg, *prop;
	const char *type_arg;  /* "astring:" as typed, or NULL */
	scf_type_t type;       /* from type_arg, or SCF_TYPE_INVALID */
	const token_t *values; /* setprop/addpropvalue values, delpropvalue pattern */
	size_t n_values;
	bool list; /* setprop with ( ... ) */
	bool reported;
} prop_ctx_t;

static int refuse(prop_ctx_t *x)
{
	x->reported = true;
	return -SCF_ERROR_INVALID_ARGUMENT;
}

/* "astring:" -> SCF_TYPE_ASTRING; reports "Unknown type" (the colon is part of the syntax). */
static int parse_type(svccfg_t *c, const char *s, scf_type_t *ret)
{
	size_t len = strlen(s);
	_cleanup_free_ char *name = NULL;

	if (len > 1 && s[len - 1] == ':' && (name = strndup(s, len - 1)))
		*ret = scf_string_to_type(name);
	else
		*ret = SCF_TYPE_INVALID;
	if (*ret == SCF_TYPE_INVALID) {
		svccfg_error(c, "Unknown type \"%s\".", s);
		return -EINVAL;
	}
	return 0;
}

/* Runs fn as one transaction on the selection's pg x->pg, reporting whatever failed. */
static int run_tx(prop_ctx_t *x, scf_tx_fn fn)
{
	svccfg_t *c = x->c;
	scf_handle_t *h;
	int r;

	if ((r = pg_name_check(c, x->pg)) < 0 || (r = svccfg_handle(c, &h)) < 0)
		return r;
	r = scf_tx_run(h, svccfg_entity(c), x->pg, fn, x, 0);
	if (r >= 0)
		return 0;
	if (x->reported)
		return r;
	return pg_error(c, x->pg, r);
}

/* Checks one value for type t as illumos' string_to_value() does. */
static int check_value(prop_ctx_t *x, scf_type_t t, const token_t *v, bool need_quotes)
{
	char why[80];
	int r;

	if (need_quotes && v->type != TOKEN_STRING) {
		svccfg_error(x->c,
		        "Multiple string values or string values with spaces must be "
		        "quoted with '\"'.");
		return refuse(x);
	}
	r = scf_value_normalize(t, v->text, NULL);
	if (r == -SCF_ERROR_CONSTRAINT_VIOLATED) {
		svccfg_error(x->c, "Value \"%s\" is too long.", v->text);
		return refuse(x);
	}
	if (r < 0 && smf_value_forbidden_why(v->text, why, sizeof(why))) {
		svccfg_error(x->c, "Invalid \"%s\" value \"%s\" (%s).", scf_type_to_string(t),
		        v->text, why);
		return refuse(x);
	}
	if (r < 0) {
		svccfg_error(x->c, "Invalid \"%s\" value \"%s\".", scf_type_to_string(t), v->text);
		return refuse(x);
	}
	return 0;
}

/*
 * The type a new property gets when none was given: the type of the same property on the
 * service when an instance is selected (it would inherit it), else none.
 */
static scf_type_t inherited_type(prop_ctx_t *x)
{
	scf_property_t *p = NULL;
	scf_type_t t = SCF_TYPE_INVALID;

	if (x->c->cur_inst && scf_property_read(x->c->h, x->c->cur_svc, x->pg, x->prop, &p) >= 0)
		t = p->type;
	scf_property_free(p);
	return t;
}

static int setprop_fn(scf_tx_t *tx, void *userdata)
{
	prop_ctx_t *x = userdata;
	const scf_property_t *cur = scf_pg_property(scf_tx_pg(tx), x->prop);
	scf_type_t t = x->type;
	_cleanup_free_ const char **v = calloc(x->n_values + 1, sizeof(char *));
	int r;

	if (!v)
		return -SCF_ERROR_NO_MEMORY;
	if (t == SCF_TYPE_INVALID)
		t = cur ? cur->type : inherited_type(x);
	if (t == SCF_TYPE_INVALID) {
		svccfg_error(x->c, "Type required for new properties.");
		return refuse(x);
	}
	for (size_t i = 0; i < x->n_values; i++) {
		bool quotes = x->list && (t == SCF_TYPE_ASTRING || t == SCF_TYPE_USTRING);

		if ((r = check_value(x, t, &x->values[i], quotes)) < 0)
			return r;
		v[i] = x->values[i].text;
	}
	return scf_tx_set(tx, x->prop, t, v, x->n_values);
}

/*
 * Parses "= [type:] value" or "= [type:] ( values )" after the property name; 0, or -EINVAL
 * (not reported: a syntax error).
 */
static int parse_setprop_values(const token_t *a, size_t n, prop_ctx_t *x)
{
	size_t i = 0;

	if (n < 1 || a[0].type != TOKEN_EQUALS)
		return -EINVAL;
	a++, n--;
	/* A word before the value or the list is the type. */
	if (n >= 2 && a[0].type == TOKEN_WORD && a[1].type != TOKEN_RPAREN) {
		x->type_arg = a[0].text;
		i = 1;
	}
	if (n - i == 1 && token_is_text(&a[i])) {
		x->values = &a[i];
		x->n_values = 1;
	} else if (n - i >= 2 && a[i].type == TOKEN_LPAREN && a[n - 1].type == TOKEN_RPAREN) {
		x->values = &a[i + 1];
		x->n_values = n - i - 2;
		x->list = true;
		for (size_t k = 0; k < x->n_values; k++)
			if (!token_is_text(&x->values[k]))
				return -EINVAL;
	} else
		return -EINVAL;
	return 0;
}

int cmd_setprop(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *pg = NULL, *prop = NULL;
	prop_ctx_t x = {.c = c, .type = SCF_TYPE_INVALID};
	int r;

	if (n < 3 || !token_is_text(&args[0]) || parse_setprop_values(args + 1, n - 1, &x) < 0)
		return command_syntax_error(c);
	if ((r = svccfg_need_writable(c)) < 0 ||
	        (r = prop_name_split(c, args[0].text, &pg, &prop)) < 0)
		return r;
	if (x.type_arg && (r = parse_type(c, x.type_arg, &x.type)) < 0)
		return r;
	x.pg = pg;
	x.prop = prop;
	return run_tx(&x, setprop_fn);
}

static int delprop_fn(scf_tx_t *tx, void *userdata)
{
	prop_ctx_t *x = userdata;

	if (!scf_pg_property(scf_tx_pg(tx), x->prop)) {
		svccfg_error(x->c, "No such property %s/%s.", x->pg, x->prop);
		return refuse(x);
	}
	return scf_tx_delete(tx, x->prop);
}

int cmd_delprop(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *pg = NULL, *prop = NULL;
	prop_ctx_t x = {.c = c};
	int r;

	if (n != 1 || !token_is_text(&args[0]))
		return command_syntax_error(c);
	if ((r = svccfg_need_writable(c)) < 0)
		return r;
	if (!strchr(args[0].text, '/'))
		return pg_delete(c, args[0].text);
	if ((r = prop_name_split(c, args[0].text, &pg, &prop)) < 0)
		return r;
	x.pg = pg;
	x.prop = prop;
	return run_tx(&x, delprop_fn);
}

static int addpropvalue_fn(scf_tx_t *tx, void *userdata)
{
	prop_ctx_t *x = userdata;
	const scf_property_t *cur = scf_pg_property(scf_tx_pg(tx), x->prop);
	_cleanup_free_ const char **v = NULL;
	int r;

	if (!cur) {
		if (x->type == SCF_TYPE_INVALID) {
			svccfg_error(x->c, "Type required for new properties.");
			return refuse(x);
		}
		if ((r = check_value(x, x->type, &x->values[0], false)) < 0)
			return r;
		return scf_tx_new(
		        tx, x->prop, x->type, (const char *const[]){x->values[0].text}, 1);
	}
	if (x->type != SCF_TYPE_INVALID && x->type != cur->type) {
		svccfg_error(x->c, "Property \"%s\" is not of type \"%s\".", x->prop, x->type_arg);
		return refuse(x);
	}
	if ((r = check_value(x, cur->type, &x->values[0], false)) < 0)
		return r;
	v = calloc(cur->n_values + 2, sizeof(char *));
	if (!v)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t i = 0; i < cur->n_values; i++)
		v[i] = cur->values[i];
	v[cur->n_values] = x->values[0].text;
	return scf_tx_replace(tx, x->prop, cur->type, v, cur->n_values + 1);
}

int cmd_addpropvalue(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *pg = NULL, *prop = NULL;
	prop_ctx_t x = {.c = c, .type = SCF_TYPE_INVALID};
	int r;

	if (n < 2 || n > 3)
		return command_syntax_error(c);
	for (size_t i = 0; i < n; i++)
		if (!token_is_text(&args[i]))
			return command_syntax_error(c);
	if ((r = svccfg_need_writable(c)) < 0)
		return r;
	if (n == 3) {
		x.type_arg = args[1].text;
		if ((r = parse_type(c, x.type_arg, &x.type)) < 0)
			return r;
	}
	if ((r = prop_name_split(c, args[0].text, &pg, &prop)) < 0)
		return r;
	x.pg = pg;
	x.prop = prop;
	x.values = &args[n - 1];
	x.n_values = 1;
	return run_tx(&x, addpropvalue_fn);
}

static int delpropvalue_fn(scf_tx_t *tx, void *userdata)
{
	prop_ctx_t *x = userdata;
	const scf_property_t *cur = scf_pg_property(scf_tx_pg(tx), x->prop);
	_cleanup_free_ const char **v = NULL;
	size_t k = 0;

	if (!cur) {
		svccfg_error(x->c, "No such property %s/%s.", x->pg, x->prop);
		return refuse(x);
	}
	v = calloc(cur->n_values + 1, sizeof(char *));
	if (!v)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t i = 0; i < cur->n_values; i++)
		if (fnmatch(x->values[0].text, cur->values[i], 0) != 0)
			v[k++] = cur->values[i];
	return scf_tx_replace(tx, x->prop, cur->type, v, k);
}

int cmd_delpropvalue(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *pg = NULL, *prop = NULL;
	prop_ctx_t x = {.c = c};
	int r;

	if (n != 2 || !token_is_text(&args[0]) || !token_is_text(&args[1]))
		return command_syntax_error(c);
	if ((r = svccfg_need_writable(c)) < 0 ||
	        (r = prop_name_split(c, args[0].text, &pg, &prop)) < 0)
		return r;
	x.pg = pg;
	x.prop = prop;
	x.values = &args[1];
	x.n_values = 1;
	return run_tx(&x, delpropvalue_fn);
}

/* ---- listprop ---------------------------------------------------------------------------- */

static void print_prop_line(const char *pg, const scf_property_t *p, size_t width)
{
	bool multi_string =
	        p->n_values > 1 && (p->type == SCF_TYPE_ASTRING || p->type == SCF_TYPE_USTRING);

	printf("%s/%s%*s  %-7s ", pg, p->name, (int)(width - strlen(pg) - 1 - strlen(p->name)), "",
	        strempty(scf_type_to_string(p->type)));
	for (size_t i = 0; i < p->n_values; i++) {
		putchar(' ');
		cli_print_svccfg_value(stdout, p->values[i], multi_string);
	}
	putchar('\n');
}

static bool prop_shown(const char *pattern, bool pg_shown, const char *pg, const char *prop)
{
	_cleanup_free_ char *full = NULL;

	if (!pattern || pg_shown)
		return true;
	if (asprintf(&full, "%s/%s", pg, prop) < 0)
		return false;
	return fnmatch(pattern, full, 0) == 0;
}

/* Reads every pg of the selection whole; a pg deleted meanwhile is left out. */
static int read_all_pgs(svccfg_t *c, scf_handle_t *h, scf_pg_t ***ret, size_t *n)
{
	scf_pg_info_t *infos = NULL;
	size_t ninfos = 0, k = 0;
	scf_pg_t **pgs;
	int r;

	r = scf_pg_list(h, svccfg_entity(c), c->cur_snap, 0, &infos, &ninfos);
	if (r < 0)
		return svccfg_scf_error(c, r, svccfg_entity(c));
	pgs = calloc(ninfos + 1, sizeof(*pgs));
	for (size_t i = 0; pgs && i < ninfos; i++) {
		r = scf_pg_get(h, svccfg_entity(c), infos[i].name, c->cur_snap, 0, &pgs[k]);
		if (r >= 0)
			k++;
		else if (r != -SCF_ERROR_NOT_FOUND) {
			r = svccfg_scf_error(c, r, svccfg_entity(c));
			break;
		}
	}
	scf_pg_info_free(infos, ninfos);
	if (!pgs || r < 0) {
		for (size_t i = 0; pgs && i < k; i++)
			scf_pg_free(pgs[i]);
		free(pgs);
		return pgs ? r : svccfg_oom(c);
	}
	*ret = pgs;
	*n = k;
	return 0;
}

static size_t listprop_width(scf_pg_t **pgs, size_t n, const char *pattern)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		bool pg_shown = !pattern || fnmatch(pattern, pgs[i]->name, 0) == 0;

		if (pg_shown && strlen(pgs[i]->name) > w)
			w = strlen(pgs[i]->name);
		for (size_t j = 0; j < pgs[i]->n_props; j++) {
			size_t len = strlen(pgs[i]->name) + 1 + strlen(pgs[i]->props[j].name);

			if (prop_shown(pattern, pg_shown, pgs[i]->name, pgs[i]->props[j].name) &&
			        len > w)
				w = len;
		}
	}
	return w;
}

int listprop_print(svccfg_t *c, const char *pattern, const listprop_hooks_t *hooks)
{
	scf_pg_t **pgs = NULL;
	size_t npgs = 0, width;
	scf_handle_t *h;
	int r;

	if ((r = svccfg_need_entity(c)) < 0 || (r = svccfg_handle(c, &h)) < 0 ||
	        (r = read_all_pgs(c, h, &pgs, &npgs)) < 0)
		return r;
	width = listprop_width(pgs, npgs, pattern);
	for (size_t i = 0; i < npgs; i++) {
		const scf_pg_t *pg = pgs[i];
		bool pg_shown = !pattern || fnmatch(pattern, pg->name, 0) == 0;

		if (pg_shown) {
			pg_print_line(pg->name, pg->type, pg->flags, width);
			if (hooks && hooks->pg)
				hooks->pg(hooks->userdata, pg);
		}
		for (size_t j = 0; j < pg->n_props; j++) {
			if (!prop_shown(pattern, pg_shown, pg->name, pg->props[j].name))
				continue;
			print_prop_line(pg->name, &pg->props[j], width);
			if (hooks && hooks->prop)
				hooks->prop(hooks->userdata, pg, &pg->props[j]);
		}
		scf_pg_free(pgs[i]);
	}
	free(pgs);
	return 0;
}

int cmd_listprop(svccfg_t *c, const token_t *args, size_t n)
{
	const char *pattern;

	if (args_optional_word(args, n, &pattern) < 0)
		return command_syntax_error(c);
	return listprop_print(c, pattern, NULL);
}
