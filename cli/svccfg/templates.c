/*
 * templates.c: what templates say of an entity's properties: describe [-v] [-t] [pattern]
 * (illumos' lscf_describe()) and the check behind validate FMRI (lscf_validate_fmri()).
 *
 * Templates are the pgs an imported <template> became (mapping.c): tm_common_name and
 * tm_description (one ustring per locale), tm_man_* and tm_doc_* (documentation), and one
 * template_pg_pattern pg per <pg_pattern> and template_prop_pattern pg per <prop_pattern>,
 * the latter naming its pg_pattern's pg.  They are read composed (an instance also sees its
 * service's templates), in the current view or the selected snapshot.
 *
 * Output: the entity's common name ("    common name: ..."), with -v its description and
 * documentation; then the listprop table with, after each pg and property line, its
 * template's description (and with -v the template's other fields, indented by four blanks);
 * with -t the template definitions (pg patterns and their property patterns) instead of the
 * properties.
 *
 * Validation checks what the patterns require: a required pg exists, a pg or property of a
 * pattern that names a type has that type, a required property exists.  Each violation is one
 * line on stderr; as illumos' lscf_validate_fmri(), they do not change the exit status.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli-quote.h"
#include "commands.h"
#include "pgs.h"

#define TMPL_INDENT "    "
#define GROUP_PG_PATTERN "template_pg_pattern"
#define GROUP_PROP_PATTERN "template_prop_pattern"
#define GROUP_MANPAGE "template_manpage"
#define GROUP_DOC_LINK "template_doc_link"

typedef struct describe {
	svccfg_t *c;
	scf_handle_t *h;
	const char *entity; /* the selection, or what validate names */
	bool verbose;
	scf_pg_t **pats; /* template pg_pattern and prop_pattern pgs, composed */
	size_t n_pats;
} describe_t;

static const char *str(const scf_pg_t *pg, const char *name)
{
	const scf_property_t *p = pg ? scf_pg_property(pg, name) : NULL;
	const char *s = NULL;

	return p && scf_property_get_string(p, &s) >= 0 ? s : NULL;
}

static scf_pg_t *read_pg(describe_t *d, const char *name)
{
	scf_pg_t *pg = NULL;

	if (scf_pg_get(d->h, d->entity, name, d->c->cur_snap, SCF_READ_COMPOSED, &pg) < 0)
		return NULL;
	return pg;
}

/* Every template text is shown through here: control characters as escapes (cli_display()). */
static void line(const char *indent, const char *label, const char *value)
{
	_cleanup_free_ char *shown = cli_display(value);

	if (!value)
		return;
	if (label)
		printf("%s%s: %s\n", indent, label, shown ? shown : "?");
	else
		printf("%s%s\n", indent, shown ? shown : "?");
}

/* The entity's own template: common name; with -v description and documentation. */
static void describe_entity(describe_t *d, const scf_pg_info_t *infos, size_t n)
{
	_cleanup_(scf_pg_freep) scf_pg_t *cn = read_pg(d, "tm_common_name");
	_cleanup_(scf_pg_freep) scf_pg_t *desc = NULL;

	line(TMPL_INDENT, "common name", str(cn, "C"));
	if (!d->verbose)
		return;
	desc = read_pg(d, "tm_description");
	line(TMPL_INDENT, "description", str(desc, "C"));
	for (size_t k = 0; k < n; k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;

		if (streq(infos[k].type, GROUP_DOC_LINK) && (pg = read_pg(d, infos[k].name))) {
			printf(TMPL_INDENT "doc_link:\n");
			line(TMPL_INDENT TMPL_INDENT, "name", str(pg, "name"));
			line(TMPL_INDENT TMPL_INDENT, "uri", str(pg, "uri"));
		} else if (streq(infos[k].type, GROUP_MANPAGE) &&
		        (pg = read_pg(d, infos[k].name))) {
			printf(TMPL_INDENT "manpage:\n");
			line(TMPL_INDENT TMPL_INDENT, "title", str(pg, "title"));
			line(TMPL_INDENT TMPL_INDENT, "section", str(pg, "section"));
			line(TMPL_INDENT TMPL_INDENT, "manpath", str(pg, "manpath"));
		}
	}
}

/* The pg_pattern that describes pg: its name, or an unnamed one of its type. */
static const scf_pg_t *pg_pattern(const describe_t *d, const scf_pg_t *pg)
{
	const scf_pg_t *by_type = NULL;

	for (size_t k = 0; k < d->n_pats; k++) {
		const scf_pg_t *p = d->pats[k];
		const char *name = str(p, "name"), *type = str(p, "type");

		if (!streq(p->type, GROUP_PG_PATTERN))
			continue;
		if (name && *name && streq(name, pg->name))
			return p;
		if ((!name || !*name) && type && streq(type, pg->type))
			by_type = p;
	}
	return by_type;
}

static const scf_pg_t *prop_pattern(const describe_t *d, const scf_pg_t *pgpat, const char *name)
{
	for (size_t k = 0; pgpat && k < d->n_pats; k++) {
		const scf_pg_t *p = d->pats[k];
		const char *of = str(p, "pg_pattern"), *pname = str(p, "name");

		if (streq(p->type, GROUP_PROP_PATTERN) && of && streq(of, pgpat->name) && pname &&
		        streq(pname, name))
			return p;
	}
	return NULL;
}

static const char *bool_word(const scf_pg_t *p, const char *name)
{
	const scf_property_t *q = scf_pg_property(p, name);
	bool b = false;

	if (q)
		(void)scf_property_get_boolean(q, &b);
	return b ? "true" : "false";
}

/* The lines after a listprop line: the template's description, or with -v its fields. */
static void describe_line(const describe_t *d, const scf_pg_t *t, bool is_pg)
{
	const char *type = t ? str(t, "type") : NULL;

	if (!t)
		return;
	if (!d->verbose) {
		line(TMPL_INDENT, NULL, str(t, "description_C"));
		return;
	}
	if (is_pg)
		line(TMPL_INDENT, "name", str(t, "name"));
	line(TMPL_INDENT, "type", type && *type ? type : is_pg ? NULL : "(any)");
	line(TMPL_INDENT, "required", bool_word(t, "required"));
	if (is_pg)
		line(TMPL_INDENT, "target", str(t, "target"));
	line(TMPL_INDENT, "common name", str(t, "common_name_C"));
	line(TMPL_INDENT, "description", str(t, "description_C"));
}

static void hook_pg(void *userdata, const scf_pg_t *pg)
{
	describe_t *d = userdata;

	describe_line(d, pg_pattern(d, pg), true);
}

static void hook_prop(void *userdata, const scf_pg_t *pg, const scf_property_t *prop)
{
	describe_t *d = userdata;

	describe_line(d, prop_pattern(d, pg_pattern(d, pg), prop->name), false);
}

static const char *or_any(const char *s)
{
	return s && *s ? s : "(any)";
}

/* One pattern of -t: name and type ("(any)" when unset), with -v what else it says. */
static void print_pattern(const describe_t *d, const scf_pg_t *p, const char *indent)
{
	line(indent, "name", or_any(str(p, "name")));
	line(indent, "type", or_any(str(p, "type")));
	if (!d->verbose)
		return;
	line(indent, "required", bool_word(p, "required"));
	line(indent, "target", str(p, "target"));
	line(indent, "common name", str(p, "common_name_C"));
	line(indent, "description", str(p, "description_C"));
}

/* -t: the template definitions, each pg pattern with its property patterns. */
static void list_templates(describe_t *d, const char *pattern)
{
	for (size_t k = 0; k < d->n_pats; k++) {
		const scf_pg_t *p = d->pats[k];

		if (!streq(p->type, GROUP_PG_PATTERN) ||
		        (pattern && fnmatch(pattern, or_any(str(p, "name")), 0) != 0))
			continue;
		print_pattern(d, p, "");
		for (size_t j = 0; j < d->n_pats; j++) {
			const scf_pg_t *q = d->pats[j];
			const char *of = str(q, "pg_pattern");

			if (streq(q->type, GROUP_PROP_PATTERN) && of && streq(of, p->name))
				print_pattern(d, q, "  ");
		}
	}
}

/* Reads the entity's pgs (names) and its pattern pgs; 0 or < 0 (reported). */
static int load(describe_t *d, scf_pg_info_t **infos, size_t *n)
{
	int r;

	r = scf_pg_list(d->h, d->entity, d->c->cur_snap, SCF_READ_COMPOSED, infos, n);
	if (r < 0)
		return svccfg_scf_error(d->c, r, d->entity);
	d->pats = calloc(*n + 1, sizeof(scf_pg_t *));
	if (!d->pats)
		return svccfg_oom(d->c);
	for (size_t k = 0; k < *n; k++)
		if ((streq((*infos)[k].type, GROUP_PG_PATTERN) ||
		            streq((*infos)[k].type, GROUP_PROP_PATTERN)) &&
		        (d->pats[d->n_pats] = read_pg(d, (*infos)[k].name)))
			d->n_pats++;
	return 0;
}

static void done(describe_t *d, scf_pg_info_t *infos, size_t n)
{
	for (size_t k = 0; k < d->n_pats; k++)
		scf_pg_free(d->pats[k]);
	free(d->pats);
	scf_pg_info_free(infos, n);
}

int cmd_describe(svccfg_t *c, const token_t *args, size_t n)
{
	describe_t d = {.c = c};
	scf_pg_info_t *infos = NULL;
	size_t ninfos = 0, i = 0;
	const char *pattern = NULL;
	bool templates = false;
	int r;

	for (; i < n && token_is_text(&args[i]) && args[i].text[0] == '-'; i++) {
		if (streq(args[i].text, "-v"))
			d.verbose = true;
		else if (streq(args[i].text, "-t"))
			templates = true;
		else
			return command_syntax_error(c);
	}
	if (args_optional_word(args + i, n - i, &pattern) < 0)
		return command_syntax_error(c);
	if ((r = svccfg_need_entity(c)) < 0 || (r = svccfg_handle(c, &d.h)) < 0)
		return r;
	d.entity = svccfg_entity(c);
	if ((r = load(&d, &infos, &ninfos)) >= 0) {
		if (!pattern)
			describe_entity(&d, infos, ninfos);
		if (templates)
			list_templates(&d, pattern);
		else
			r = listprop_print(c, pattern,
			        &(listprop_hooks_t){
			                .pg = hook_pg, .prop = hook_prop, .userdata = &d});
	}
	done(&d, infos, ninfos);
	return r < 0 ? r : 0;
}

/* ---- validate ---------------------------------------------------------------------------- */

static scf_pg_t *find_pg(describe_t *d, const scf_pg_t *pat, scf_pg_info_t *infos, size_t n)
{
	const char *name = str(pat, "name"), *type = str(pat, "type");

	for (size_t k = 0; k < n; k++) {
		if (name && *name ? streq(infos[k].name, name)
		                  : type && *type && streq(infos[k].type, type))
			return read_pg(d, infos[k].name);
	}
	return NULL;
}

static int check_prop(describe_t *d, const scf_pg_t *pg, const scf_pg_t *pat)
{
	const char *name = str(pat, "name"), *type = str(pat, "type");
	const scf_property_t *p = name ? scf_pg_property(pg, name) : NULL;

	if (!name)
		return 0;
	if (!p && streq(bool_word(pat, "required"), "true")) {
		svccfg_warn(
		        d->c, "%s: required property %s/%s is missing.", d->entity, pg->name, name);
		return 1;
	}
	if (p && type && *type && !streq(scf_type_to_string(p->type), type)) {
		svccfg_warn(d->c, "%s: property %s/%s is of type %s, not %s.", d->entity, pg->name,
		        name, scf_type_to_string(p->type), type);
		return 1;
	}
	return 0;
}

static int check_pg_pattern(describe_t *d, const scf_pg_t *pat, scf_pg_info_t *infos, size_t n)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = find_pg(d, pat, infos, n);
	const char *name = str(pat, "name"), *type = str(pat, "type");
	int errors = 0;

	if (!pg) {
		if (!streq(bool_word(pat, "required"), "true"))
			return 0;
		svccfg_warn(d->c, "%s: required property group %s is missing.", d->entity,
		        name && *name ? name : or_any(type));
		return 1;
	}
	if (type && *type && !streq(pg->type, type)) {
		svccfg_warn(d->c, "%s: property group %s is of type %s, not %s.", d->entity,
		        pg->name, pg->type, type);
		errors++;
	}
	for (size_t k = 0; k < d->n_pats; k++) {
		const scf_pg_t *q = d->pats[k];
		const char *of = str(q, "pg_pattern");

		if (streq(q->type, GROUP_PROP_PATTERN) && of && streq(of, pat->name))
			errors += check_prop(d, pg, q);
	}
	return errors;
}

int template_validate(svccfg_t *c, const char *entity, int *errors)
{
	describe_t d = {.c = c, .entity = entity};
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	*errors = 0;
	if ((r = svccfg_handle(c, &d.h)) < 0)
		return r;
	if ((r = load(&d, &infos, &n)) >= 0)
		for (size_t k = 0; k < d.n_pats; k++)
			if (streq(d.pats[k]->type, GROUP_PG_PATTERN))
				*errors += check_pg_pattern(&d, d.pats[k], infos, n);
	done(&d, infos, n);
	return r < 0 ? r : 0;
}
