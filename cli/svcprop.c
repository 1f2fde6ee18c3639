/*
 * svcprop: report service configuration properties.
 *
 * THE MODEL (as illumos svcprop(1)).  Each operand is an FMRI or an abbreviation of services
 * and instances, or the FMRI of a property group or property.  What is shown for an instance
 * depends on the view:
 *   default   the "running" snapshot composed with the service's pgs (what the restarter
 *             runs with), plus the current non-persistent pgs, which snapshots never hold; an
 *             instance without a running snapshot falls back to the current composed view;
 *   -c        the current properties, composed; -C the current properties of the instance only;
 *   -s snap   the named snapshot, composed ("No such snapshot." if it is missing).
 * A service is always read current and uncomposed (and has no snapshots).
 *
 * OUTPUT.  Values are quoted for the shell (cli-quote.h) and separated by blanks, one property
 * per line.  Whole pgs, -t, or an operand matching several entities add the "pg/prop type"
 * columns; -f (and several matches) writes the property's full FMRI instead of "pg/prop".
 * A missing pg or property is reported (unless -q) and makes the exit status 1; -q prints
 * nothing and stops at the first miss.  Bad usage exits 2.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli-error.h"
#include "cli-quote.h"
#include "cli-resolve.h"
#include "log.h"
#include "macro.h"
#include "strv.h"

typedef struct prop_arg {
	char *pg;
	char *prop; /* NULL: the whole pg */
} prop_arg_t;

static struct {
	scf_handle_t *h;
	bool quiet, verbose, types, fmris;
	bool Cflag, cflag, sflag;
	const char *snapshot; /* NULL: current view */
	prop_arg_t *props;
	size_t n_props, cap_props;
	int status;
} g = {.snapshot = SCF_SNAPSHOT_RUNNING};

#define PRINT_NOPROP_ERRORS (!g.quiet || g.verbose)

static _noreturn_ void usage(void)
{
	fprintf(stderr,
	        "Usage: %1$s [-fqtv] [-C | -c | -s snapshot] [-p [name/]name]... \n"
	        "         {FMRI | pattern}...\n",
	        log_program());
	exit(2);
}

static void warn(const char *fmt, ...) _printf_(1, 2);
static void warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", log_program());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A fatal error: reported unless -q, exit status 1. */
#define die(...)                                                                                   \
	do {                                                                                       \
		if (!g.quiet)                                                                      \
			warn(__VA_ARGS__);                                                         \
		exit(1);                                                                           \
	} while (0)

static _noreturn_ void scfdie(int r)
{
	die("Unexpected libscf error: %s.  Exiting.", cli_scf_reason(g.h, r));
}

/* A pg or property that is not there: reported (unless -q without -v), status 1. */
static void noprop(void)
{
	if (!PRINT_NOPROP_ERRORS)
		exit(1);
	g.status = 1;
}

static void add_prop(char *arg)
{
	char *slash = strchr(arg, '/');
	prop_arg_t *p;

	if (slash && strchr(slash + 1, '/')) {
		warn("-p argument `%s' has too many components.", arg);
		usage();
	}
	if (slash)
		*slash = '\0';
	if (GREEDY_REALLOC(g.props, g.cap_props, g.n_props + 1) < 0)
		die("Could not allocate memory");
	p = &g.props[g.n_props++];
	*p = (prop_arg_t){.pg = arg, .prop = slash ? slash + 1 : NULL};
	if (scf_name_validate(p->pg) < 0 || (p->prop && scf_name_validate(p->prop) < 0)) {
		fprintf(stderr, "%s: Invalid component name `%s'.\n", log_program(),
		        scf_name_validate(p->pg) < 0 ? p->pg : p->prop);
		exit(2);
	}
	/* pgs and properties mixed: the lines of both kinds must carry identification. */
	if (g.n_props > 1 && !g.props[g.n_props - 2].prop != !p->prop)
		g.types = true;
}

static void print_prop(const scf_pg_t *pg, const scf_property_t *p, const char *entity)
{
	if (g.types) {
		if (g.fmris)
			printf("%s/:properties/%s/%s", pg->entity ? pg->entity : entity, pg->name,
			        p->name);
		else
			printf("%s/%s", pg->name, p->name);
		printf(" %s ", strempty(scf_type_to_string(p->type)));
	}
	for (size_t i = 0; i < p->n_values; i++) {
		_cleanup_free_ char *q = cli_quote_for_shell(p->values[i]);

		if (!q)
			die("Could not allocate memory");
		printf("%s%s", i ? " " : "", q);
	}
	putchar('\n');
}

static void print_pg(const scf_pg_t *pg, const char *entity)
{
	g.types = true; /* as illumos: once a whole pg was shown, every line is identified */
	for (size_t i = 0; i < pg->n_props; i++)
		print_prop(pg, &pg->props[i], entity);
}

static int has_snapshot(const char *inst, const char *name)
{
	char **l = NULL;
	int r;

	r = scf_snapshot_list(g.h, inst, &l);
	if (r < 0)
		scfdie(r);
	r = strv_contains(l, name);
	scf_strv_free(l);
	return r;
}

/* The snapshot to read an instance from (NULL: current), per the options. */
static const char *instance_snapshot(const char *inst)
{
	if (!g.snapshot)
		return NULL;
	if (has_snapshot(inst, g.snapshot))
		return g.snapshot;
	if (g.sflag)
		die("No such snapshot.");
	return NULL;
}

/* Prints every pg of the listing; with only_nonpersistent, only those (current view). */
static void print_all_pgs(
        const char *entity, const char *snap, unsigned flags, bool only_nonpersistent)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	r = scf_pg_list(g.h, entity, snap, flags, &infos, &n);
	if (r < 0)
		scfdie(r);
	for (size_t i = 0; i < n; i++) {
		scf_pg_t *pg = NULL;

		if (only_nonpersistent && !(infos[i].flags & SCF_PG_FLAG_NONPERSISTENT))
			continue;
		r = scf_pg_get(g.h, entity, infos[i].name, snap, flags, &pg);
		if (r == -SCF_ERROR_NOT_FOUND)
			continue; /* deleted meanwhile */
		if (r < 0)
			scfdie(r);
		print_pg(pg, entity);
		scf_pg_free(pg);
	}
	scf_pg_info_free(infos, n);
}

/* Reads pg name of the entity in the selected view; NULL (after reporting) if missing. */
static scf_pg_t *read_pg(const char *entity, bool instance, const char *snap, const char *name)
{
	unsigned flags = instance && !g.Cflag ? SCF_READ_COMPOSED : 0;
	scf_pg_t *pg = NULL;
	int r;

	r = scf_pg_get(g.h, entity, name, instance ? snap : NULL, flags, &pg);
	/* Snapshots never hold non-persistent pgs: those are read current. */
	if (r == -SCF_ERROR_NOT_FOUND && instance && snap && !g.Cflag) {
		r = scf_pg_get(g.h, entity, name, NULL, SCF_READ_COMPOSED, &pg);
		if (r >= 0 && !(pg->flags & SCF_PG_FLAG_NONPERSISTENT)) {
			scf_pg_free(pg);
			pg = NULL;
			r = -SCF_ERROR_NOT_FOUND;
		}
	}
	if (r == -SCF_ERROR_NOT_FOUND) {
		if (PRINT_NOPROP_ERRORS)
			warn("Couldn't find property group `%s' for %s `%s'.", name,
			        instance ? "instance" : "service", entity);
		noprop();
		return NULL;
	}
	if (r < 0)
		scfdie(r);
	return pg;
}

static void process_props(const char *entity, bool instance, const char *snap)
{
	for (size_t i = 0; i < g.n_props; i++) {
		const prop_arg_t *a = &g.props[i];
		scf_pg_t *pg = read_pg(entity, instance, snap, a->pg);
		const scf_property_t *p;

		if (!pg)
			continue;
		if (!a->prop) {
			if (!g.quiet)
				print_pg(pg, entity);
		} else if ((p = scf_pg_property(pg, a->prop))) {
			if (!g.quiet)
				print_prop(pg, p, entity);
		} else {
			if (PRINT_NOPROP_ERRORS)
				warn("Couldn't find property `%s/%s' for %s `%s'.", a->pg, a->prop,
				        instance ? "instance" : "service", entity);
			noprop();
		}
		scf_pg_free(pg);
	}
}

static void process_entity(const char *entity)
{
	bool instance = strchr(entity + strlen("svc:"), ':') != NULL;
	const char *snap = NULL;

	if (!instance && g.sflag)
		die("Only instances have snapshots.");
	if (instance)
		snap = instance_snapshot(entity);
	if (g.n_props > 0) {
		process_props(entity, instance, snap);
		return;
	}
	if (g.quiet)
		return;
	if (!instance || g.Cflag) {
		print_all_pgs(entity, NULL, 0, false);
		return;
	}
	print_all_pgs(entity, snap, SCF_READ_COMPOSED, false);
	if (snap && !g.sflag)
		print_all_pgs(entity, NULL, SCF_READ_COMPOSED, true);
}

/*
 * What the operands name, in order and each once (as illumos' scf_walk_fmri()): entities, and
 * pgs or properties given by FMRI (read from the current view of their entity).
 */
typedef struct target {
	char *key;        /* canonical FMRI: identity, for dropping duplicates */
	char *entity;     /* the service or instance */
	scf_pg_t *pg;     /* a pg operand's pg, read when the operand was resolved */
	const char *prop; /* a property operand's property name (points into pg) */
} target_t;

static struct {
	target_t *v;
	size_t n, cap;
} targets;

static void target_add(const char *key, const char *entity, scf_pg_t *pg, const char *prop)
{
	target_t *v;

	if (GREEDY_REALLOC(targets.v, targets.cap, targets.n + 1) < 0)
		die("Could not allocate memory");
	v = targets.v;
	v[targets.n] =
	        (target_t){.key = strdup(key), .entity = strdup(entity), .pg = pg, .prop = prop};
	if (!v[targets.n].key || !v[targets.n].entity)
		die("Could not allocate memory");
	targets.n++;
}

static void no_match(const char *operand)
{
	/* svcprop also takes pg and property FMRIs, hence illumos' wider word. */
	if (!g.quiet)
		warn("Pattern '%s' doesn't match any entities", operand);
	g.status = 1;
}

/* A pg or property FMRI operand; false if it does not name one that exists. */
static bool resolve_pg_operand(const scf_fmri_t *f)
{
	_cleanup_free_ char *entity = NULL, *key = NULL;
	scf_pg_t *pg = NULL;
	const scf_property_t *p = NULL;
	int r;

	if (asprintf(&entity, "svc:/%s%s%s", f->service, f->instance ? ":" : "",
	            strempty(f->instance)) < 0 ||
	        scf_fmri_format(f, &key) < 0)
		die("Could not allocate memory");
	r = scf_pg_get(g.h, entity, f->pg, NULL, 0, &pg);
	if (r == -SCF_ERROR_NOT_FOUND)
		return false;
	if (r < 0)
		scfdie(r);
	if (f->prop && !(p = scf_pg_property(pg, f->prop))) {
		scf_pg_free(pg);
		return false;
	}
	target_add(key, entity, pg, p ? p->name : NULL);
	return true;
}

/*
 * As illumos' svcprop (SCF_WALK_EXPLICIT): a service is shown only when the operand names it
 * exactly, as a full "svc:" FMRI without globs; an abbreviation such as "web" stands for the
 * instances it matches, so `svcprop web` reads svc:/site/web:default, not the service too.
 */
static unsigned operand_flags(const char *operand)
{
	if (strneq(operand, "svc:", 4) && !strpbrk(operand, "*?["))
		return SCF_RESOLVE_SERVICES | SCF_RESOLVE_INSTANCES;
	return SCF_RESOLVE_INSTANCES;
}

static void resolve_operand(const char *operand)
{
	_cleanup_free_ char *errmsg = NULL;
	scf_fmri_t f = {0};
	char **matches = NULL;
	bool found;
	int r;

	if (scf_fmri_parse(operand, &f) >= 0 && f.pg) {
		found = resolve_pg_operand(&f);
		scf_fmri_clear(&f);
		if (!found)
			no_match(operand);
		return;
	}
	scf_fmri_clear(&f);
	r = cli_resolve_all(g.h, operand, operand_flags(operand), &matches, &errmsg);
	if (r < 0 && !errmsg)
		scfdie(r);
	if (r < 0) {
		no_match(operand);
		return;
	}
	for (char **m = matches; *m; m++)
		target_add(*m, *m, NULL, NULL);
	strv_free(matches);
}

/* A pg operand: the pg (or the -p properties of it), or one property. */
static void process_pg_target(const target_t *t)
{
	const scf_property_t *p;

	if (t->prop) {
		if (g.n_props > 0) {
			warn("The -p option cannot be used with property operands.");
			usage();
		}
		if (!g.quiet)
			print_prop(t->pg, scf_pg_property(t->pg, t->prop), t->entity);
		return;
	}
	if (g.n_props == 0) {
		if (!g.quiet)
			print_pg(t->pg, t->entity);
		return;
	}
	for (size_t i = 0; i < g.n_props; i++) {
		const prop_arg_t *a = &g.props[i];

		if (a->prop) {
			fprintf(stderr,
			        "%s: -p argument `%s/%s' has too many components for property "
			        "group `%s'.\n",
			        log_program(), a->pg, a->prop, t->key);
			exit(2);
		}
		p = scf_pg_property(t->pg, a->pg);
		if (p && !g.quiet)
			print_prop(t->pg, p, t->entity);
		else if (!p) {
			if (PRINT_NOPROP_ERRORS)
				warn("Couldn't find property `%s' in property group `%s'.", a->pg,
				        t->key);
			noprop();
		}
	}
}

static void target_clear(target_t *t)
{
	scf_pg_free(t->pg);
	free(t->key);
	free(t->entity);
}

static int cmp_target_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(targets.v[i].key, targets.v[j].key);

	return c ? c : (i > j) - (i < j);
}

/*
 * Keeps the first of targets with the same key, in operand order.  Sorting an index makes this
 * O(n log n): a pattern such as "*" over a large repository yields every entity as a target.
 */
static void targets_dedup(void)
{
	_cleanup_free_ size_t *idx = calloc(targets.n + 1, sizeof(size_t));
	_cleanup_free_ bool *dup = calloc(targets.n + 1, sizeof(bool));
	size_t k = 0;

	if (!idx || !dup)
		die("Could not allocate memory");
	for (size_t i = 0; i < targets.n; i++)
		idx[i] = i;
	qsort(idx, targets.n, sizeof(size_t), cmp_target_index);
	for (size_t i = 1; i < targets.n; i++)
		if (streq(targets.v[idx[i]].key, targets.v[idx[i - 1]].key))
			dup[idx[i]] = true;
	for (size_t i = 0; i < targets.n; i++) {
		if (dup[i])
			target_clear(&targets.v[i]);
		else
			targets.v[k++] = targets.v[i];
	}
	targets.n = k;
}

static void process_targets(void)
{
	targets_dedup();
	/* Several things to show: each line must say which one it is about. */
	if (targets.n > 1)
		g.types = g.fmris = true;
	for (size_t i = 0; i < targets.n; i++) {
		target_t *t = &targets.v[i];

		if (t->pg)
			process_pg_target(t);
		else
			process_entity(t->entity);
		target_clear(t);
	}
	free(targets.v);
}

static void parse_options(int argc, char *argv[])
{
	int opt;

	while ((opt = getopt(argc, argv, "Ccfp:qs:tv")) != -1) {
		switch (opt) {
		case 'C':
			if (g.cflag || g.sflag)
				usage();
			g.Cflag = true;
			g.snapshot = NULL;
			break;
		case 'c':
			if (g.Cflag || g.sflag)
				usage();
			g.cflag = true;
			g.snapshot = NULL;
			break;
		case 's':
			if (g.Cflag || g.cflag)
				usage();
			g.sflag = true;
			g.snapshot = optarg;
			break;
		case 'f':
			g.types = g.fmris = true;
			break;
		case 'p':
			add_prop(optarg);
			break;
		case 'q':
			g.quiet = true;
			break;
		case 't':
			g.types = true;
			break;
		case 'v':
			g.verbose = true;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
}

int main(int argc, char *argv[])
{
	int r;

	log_set_program(argv[0]);
	parse_options(argc, argv);
	r = cli_connect(NULL, &g.h);
	if (r < 0)
		die("Could not connect to configuration repository: %s.", cli_scf_phrase(r));
	for (int i = optind; i < argc; i++)
		resolve_operand(argv[i]);
	process_targets();
	scf_handle_destroy(g.h);
	free(g.props);
	return g.status;
}
