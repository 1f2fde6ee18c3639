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
	bool Cflag, cflag, sflag, wait;
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
	        "         {FMRI | pattern}...\n"
	        "       %1$s -w [-fqtv] [-p [name/]name] {FMRI | pattern}\n",
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

/* A pg or property operand: read now, from the current view of its entity. */
static void process_pg_operand(const cli_walk_info_t *w)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	int r;

	r = scf_pg_get(g.h, w->entity, w->pg, NULL, 0, &pg);
	if (r == -SCF_ERROR_NOT_FOUND)
		return; /* deleted since the walk found it */
	if (r < 0)
		scfdie(r);
	if (w->prop) {
		if (g.n_props > 0) {
			warn("The -p option cannot be used with property operands.");
			usage();
		}
		if ((p = scf_pg_property(pg, w->prop)) && !g.quiet)
			print_prop(pg, p, w->entity);
		return;
	}
	if (g.n_props == 0) {
		if (!g.quiet)
			print_pg(pg, w->entity);
		return;
	}
	for (size_t i = 0; i < g.n_props; i++) {
		const prop_arg_t *a = &g.props[i];

		if (a->prop) {
			fprintf(stderr,
			        "%s: -p argument `%s/%s' has too many components for property "
			        "group `%s'.\n",
			        log_program(), a->pg, a->prop, w->fmri);
			exit(2);
		}
		p = scf_pg_property(pg, a->pg);
		if (p && !g.quiet)
			print_prop(pg, p, w->entity);
		else if (!p) {
			if (PRINT_NOPROP_ERRORS)
				warn("Couldn't find property `%s' in property group `%s'.", a->pg,
				        w->fmri);
			noprop();
		}
	}
}

/* illumos' process_fmri(): the callback of the walk. */
static int process_fmri(void *userdata, const cli_walk_info_t *w)
{
	(void)userdata;
	/* Several things to show: each line must say which one it is about. */
	if (w->count > 1)
		g.types = g.fmris = true;
	if (w->pg)
		process_pg_operand(w);
	else
		process_entity(w->entity);
	return 0;
}

static void walk_error(void *userdata, const char *msg)
{
	(void)userdata;
	if (!g.quiet)
		warn("%s", msg);
}

/* ---- -w: wait for a change of a pg (illumos' do_wait) ------------------------------------ */

static struct {
	char *entity, *pg, *prop; /* what to watch; prop NULL: the whole pg */
} wt;

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("Could not allocate memory");
	return d;
}

/* The pg to watch, from the one operand (and the one -p); usage errors exit 2. */
static int wait_target(void *userdata, const cli_walk_info_t *w)
{
	(void)userdata;
	if (w->prop) {
		if (g.n_props > 0) {
			warn("-p cannot be used with property FMRIs.");
			exit(2);
		}
		wt.pg = xstrdup(w->pg);
		wt.prop = xstrdup(w->prop);
	} else if (w->pg) {
		wt.pg = xstrdup(w->pg);
		if (g.n_props > 0) {
			if (g.props[0].prop) {
				warn("-p argument `%s/%s' has too many components for property "
				     "group "
				     "`%s'.",
				        g.props[0].pg, g.props[0].prop, w->fmri);
				exit(2);
			}
			wt.prop = xstrdup(g.props[0].pg);
		}
	} else {
		if (g.n_props == 0) {
			warn("Cannot wait for %s.", w->instance ? "an instance" : "a service");
			exit(2);
		}
		wt.pg = xstrdup(g.props[0].pg);
		if (g.props[0].prop)
			wt.prop = xstrdup(g.props[0].prop);
	}
	wt.entity = xstrdup(w->entity);
	return 0;
}

/* The watched pg as it is now; dies "Not found." when it (or the property) is gone. */
static scf_pg_t *wait_read(void)
{
	scf_pg_t *pg = NULL;
	int r = scf_pg_get(g.h, wt.entity, wt.pg, NULL, 0, &pg);

	if (r == -SCF_ERROR_NOT_FOUND || (r >= 0 && wt.prop && !scf_pg_property(pg, wt.prop)))
		die("Not found.");
	if (r < 0)
		scfdie(r);
	return pg;
}

/*
 * As illumos: blocks until the repository reports a commit to the pg (any of its properties),
 * then prints the property (or the whole pg) once.  The interest is registered before the pg
 * is read, so a change committed after the read is never missed: it is a notification with a
 * newer generation.  No polling: the wait is on configd's notifications only.
 */
static void do_wait(void)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	uint64_t gen;
	int r;

	r = scf_notify_add_pgname(g.h, wt.pg);
	if (r < 0)
		scfdie(r);
	pg = wait_read();
	gen = pg->generation;
	for (;;) {
		_cleanup_(scf_notification_clear) scf_notification_t n = {0};

		r = scf_notify_wait(g.h, UINT64_MAX, &n);
		if (r < 0)
			scfdie(r);
		if (r == 0 || !streq(n.entity, wt.entity) || !streq(n.pg, wt.pg))
			continue;
		if (n.kind == SCF_NOTIFY_PG_DELETED)
			die("Not found.");
		if (n.generation > gen)
			break;
	}
	scf_pg_free(TAKE_PTR(pg));
	pg = wait_read();
	if (g.quiet)
		return;
	if (wt.prop)
		print_prop(pg, scf_pg_property(pg, wt.prop), wt.entity);
	else
		print_pg(pg, wt.entity);
}

static void parse_options(int argc, char *argv[])
{
	int opt;

	/* '+': as Solaris getopt, options end at the first operand. */
	while ((opt = getopt(argc, argv, "+Ccfp:qs:tvwz:")) != -1) {
		switch (opt) {
		case 'C':
			if (g.cflag || g.sflag || g.wait)
				usage();
			g.Cflag = true;
			g.snapshot = NULL;
			break;
		case 'c':
			if (g.Cflag || g.sflag || g.wait)
				usage();
			g.cflag = true;
			g.snapshot = NULL;
			break;
		case 's':
			if (g.Cflag || g.cflag || g.wait)
				usage();
			g.sflag = true;
			g.snapshot = optarg;
			break;
		case 'w':
			if (g.Cflag || g.cflag || g.sflag)
				usage();
			g.wait = true;
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
		case 'z':
			warn("zones are not supported.");
			exit(2);
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	if (g.wait && (g.n_props > 1 || argc - optind > 1))
		usage();
}

int main(int argc, char *argv[])
{
	unsigned flags = CLI_WALK_PROPERTY | CLI_WALK_SERVICE | CLI_WALK_EXPLICIT;
	int r, err = 0;

	log_set_program(argv[0]);
	parse_options(argc, argv);
	r = cli_connect(NULL, &g.h);
	if (r < 0)
		die("Could not connect to configuration repository: %s.", smf_error_phrase(r));
	/* As illumos' main(): an operand may match several entities, except with -w. */
	if (!g.wait)
		flags |= CLI_WALK_MULTIPLE;
	r = cli_walk(g.h, argc - optind, argv + optind, flags, g.wait ? wait_target : process_fmri,
	        walk_error, NULL, &err);
	if (r < 0) {
		warn("failed to iterate over instances: %s", smf_error_phrase(r));
		exit(1);
	}
	if (err)
		g.status = 1;
	if (g.wait && wt.entity)
		do_wait();
	scf_handle_destroy(g.h);
	free(g.props);
	free(wt.entity);
	free(wt.pg);
	free(wt.prop);
	return g.status;
}
