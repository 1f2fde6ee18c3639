/*
 * svcs: report service states, as illumos' svcs(1).
 *
 * THE MODEL
 *
 * svcs is a reader.  It takes the list of every instance from configd in one bulk read, with
 * the pgs the mode needs of every instance when it shows every instance (a listing without
 * operands, -x, -D), selects the instances to show (operands, or every enabled instance, or
 * every instance with -a), reads for those only the pgs the chosen output needs and it does not
 * have yet (load.c: the restarter pg for states, general and general_ovr for the enabled filter,
 * tm_common_name for DESC, dependency pgs for -d, -D, -l and -x), and prints.  States come only from the restarter pg that svc.startd writes; an
 * instance without one (startd has not seen it yet: the race window) shows "-" in STATE, as
 * illumos prints a blank state.
 *
 * Operands go through illumos' scf_walk_fmri() (cli-resolve.h) with svcs.c's flags for the
 * mode, and the command line is read as illumos' svcs.c main() reads it: options end at the
 * first operand (Solaris getopt), the modes -d -D -l -L -x exclude each other and most
 * listing options (usage, exit 2), a bad sort column or restarter FMRI is fatal (exit 1), a bad
 * -o column is fatal once connected (exit 1).
 *
 * Invariants: every instance is shown at most once per run whatever the operands; the default
 * filter is illumos' (general/enabled or general_ovr/enabled is true); a pattern that matches
 * nothing is reported on stderr, the other operands are still shown, and the exit status is 1.
 * Lines are sorted by the sort keys (state, stime, fmri by default, none with -o); lines the
 * keys do not order come in the reverse of the order the instances were visited in, as
 * illumos' uu_avl tree puts an equal element before the others.
 */
#include <assert.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli-error.h"
#include "cli-resolve.h"
#include "log.h"
#include "macro.h"
#include "strv.h"
#include "svcs.h"

#define EXIT_USAGE 2

static struct {
	bool all, no_header, processes, verbose;
	char mode;        /* 0 (listing), or the mode option: 'd', 'D', 'l', 'L', 'x' */
	char **col_specs; /* -o, checked once connected */
	int *cols;
	size_t n_cols, cap_cols;
	bool sorted; /* -s or -S given */
	char **restarters;
	int status;
	scf_handle_t *h;
	instset_t set;
	inst_t **sel; /* selected, no duplicates, in visit order */
	size_t n_sel;
	bool *picked;    /* parallel to set.v */
	char **services; /* -D: services named by the operands (SCF_WALK_SERVICE) */
} g;

static void usage_to(FILE *f)
{
	fprintf(f,
	        "Usage: %1$s [-aHpv] [-o col[,col ... ]] [-R restarter] [-sS col]\n"
	        "            [<service> ...]\n"
	        "       %1$s -d | -D [-Hpv] [-o col[,col ... ]] [-sS col]\n"
	        "            [<service> ...]\n"
	        "       %1$s [-l | -L] <service> ...\n"
	        "       %1$s -x [-v] [<service> ...]\n"
	        "       %1$s -?\n",
	        log_program());
}

static _noreturn_ void usage(void)
{
	usage_to(stderr);
	exit(EXIT_USAGE);
}

static void help(void)
{
	usage_to(stdout);
	printf("\n"
	       "\t-a  list all service instances rather than only those that are enabled\n"
	       "\t-d  list dependencies of the specified service(s)\n"
	       "\t-D  list dependents of the specified service(s)\n"
	       "\t-H  omit header line from output\n"
	       "\t-l  list detailed information about the specified service(s)\n"
	       "\t-L  list the log file associated with the specified service(s)\n"
	       "\t-o  list only the specified columns in the output\n"
	       "\t-p  list process IDs and names associated with each service\n"
	       "\t-R  list only those services with the specified restarter\n"
	       "\t-s  sort output in ascending order by the specified column(s)\n"
	       "\t-S  sort output in descending order by the specified column(s)\n"
	       "\t-v  list verbose information appropriate to the type of output\n"
	       "\t-x  explain the status of services that might require maintenance,\n"
	       "\t    or explain the status of the specified service(s)\n"
	       "\n\tServices can be specified using an FMRI, abbreviation, or fnmatch(7)\n"
	       "\tpattern, as shown in these examples for svc:/network/smtp:sendmail\n\n"
	       "\t%1$s [opts] svc:/network/smtp:sendmail\n"
	       "\t%1$s [opts] network/smtp:sendmail\n"
	       "\t%1$s [opts] network/*mail\n"
	       "\t%1$s [opts] network/smtp\n"
	       "\t%1$s [opts] smtp:sendmail\n"
	       "\t%1$s [opts] smtp\n"
	       "\t%1$s [opts] sendmail\n\n"
	       "\tColumns for output or sorting can be specified using these names:\n\n",
	        log_program());
	columns_help(stdout);
}

static _printf_(1, 2) void warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", log_program());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static _noreturn_ void die_scf(int r)
{
	warn("%s\n", cli_scf_reason(g.h, r));
	exit(1);
}

static _noreturn_ void oom(void)
{
	warn("Out of memory.\n");
	exit(1);
}

/* -o, once connected (as illumos): an unknown name is fatal. */
static void add_columns(const char *spec)
{
	_cleanup_free_ char *bad = NULL;
	int r;

	if (!*spec) {
		warn("No columns specified.\n");
		exit(1);
	}
	r = columns_parse(spec, &g.cols, &g.n_cols, &g.cap_cols, &bad);
	if (r == -SCF_ERROR_NO_MEMORY)
		oom();
	if (r < 0) {
		warn("Unknown column \"%s\".\n", strempty(bad));
		exit(1);
	}
}

/* -s, -S: checked while the options are read, as illumos' add_sort_column(). */
static void add_sort(const char *name, bool reverse)
{
	if (columns_add_sort(name, reverse) < 0) {
		warn("Unrecognized sort column \"%s\".\n", name);
		exit(1);
	}
	g.sorted = true;
}

/*
 * -R: as illumos' add_restarter(), an FMRI of an instance, checked for form only (not
 * abbreviated, not looked up): a restarter nobody uses lists nothing.
 */
static void add_restarter(const char *fmri)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};
	char *canon = NULL;

	if (scf_fmri_parse(fmri, &f) < 0) {
		warn("Restarter FMRI \"%s\" is invalid.\n", fmri);
		exit(1);
	}
	if (!f.instance || f.pg) {
		warn("Restarter FMRI \"%s\" does not designate an instance.\n", fmri);
		exit(1);
	}
	if (scf_fmri_format(&f, &canon) < 0 || strv_consume(&g.restarters, canon) < 0)
		oom();
}

static void parse_options(int argc, char *argv[])
{
	int c;

	/* '+': Solaris getopt, which svcs.c relies on, stops at the first operand. */
	while ((c = getopt(argc, argv, "+aHpvno:R:s:S:dDlLxZz:?")) >= 0) {
		switch (c) {
		case 'a':
			g.all = true;
			break;
		case 'H':
			g.no_header = true;
			break;
		case 'p':
			g.processes = true;
			break;
		case 'v':
			g.verbose = true;
			break;
		case 'o':
			if (strv_extend(&g.col_specs, optarg) < 0)
				oom();
			break;
		case 'R':
			add_restarter(optarg);
			break;
		case 's':
		case 'S':
			add_sort(optarg, c == 'S');
			break;
		case 'd':
		case 'D':
		case 'l':
		case 'L':
		case 'x':
			if (g.mode)
				usage();
			g.mode = (char)c;
			break;
		case 'n':
			warn("-n (notification parameters) is not supported.\n");
			exit(EXIT_USAGE);
		case 'z':
		case 'Z':
			warn("zones are not supported\n");
			exit(EXIT_USAGE);
		case '?':
			if (optopt == '?' || optopt == 0) {
				help();
				exit(0);
			}
			usage();
		default:
			usage();
		}
	}
	/* illumos' second pass over the options: what each mode does not take. */
	if (g.mode && (g.all || g.restarters || g.sorted))
		usage();
	if ((g.mode == 'l' || g.mode == 'x') && (g.no_header || g.col_specs))
		usage();
	if (g.mode == 'x' && g.processes)
		usage();
	if ((g.mode == 'd' || g.mode == 'D' || g.mode == 'l') && optind == argc)
		usage();
}

static void select_inst(inst_t *i)
{
	size_t k = (size_t)(i - g.set.v);

	assert(k < g.set.n);
	if (g.picked[k])
		return;
	g.picked[k] = true;
	i->visit = g.n_sel;
	g.sel[g.n_sel++] = i;
}

static int select_match(void *userdata, const cli_walk_info_t *w)
{
	inst_t *i;

	(void)userdata;
	if (!w->instance) {
		/* -D's SCF_WALK_SERVICE: the service itself is what its dependents name. */
		return strv_extend(&g.services, w->fmri) < 0 ? -SCF_ERROR_NO_MEMORY : 0;
	}
	if ((i = instset_find(&g.set, w->fmri)))
		select_inst(i);
	return 0;
}

static void walk_error(void *userdata, const char *msg)
{
	(void)userdata;
	warn("%s\n", msg);
}

/* The operands (all instances when there are none), through illumos' walk with flags. */
static void select_operands(int argc, char *argv[], unsigned flags)
{
	int err = 0, r;

	r = cli_walk(g.h, argc, argv, flags, select_match, walk_error, NULL, &err);
	if (r < 0) {
		warn("failed to iterate over instances: %s\n", smf_error_phrase(r));
		exit(1);
	}
	if (err)
		g.status = 1;
}

/* The instances an FMRI of a dependency names: the instance, or every instance of a service. */
static void select_entity(const char *entity)
{
	inst_t *first;
	size_t n = instset_entity(&g.set, entity, &first);

	for (size_t k = 0; k < n; k++)
		select_inst(&first[k]);
}

static bool excluded(const dep_t *d)
{
	return depgroup_from_string(d->grouping) == DEPGRP_EXCLUDE_ALL;
}

static void select_dependencies(inst_t **of, size_t n)
{
	int r = inst_load(g.h, of, n, LOAD_DEPS);

	if (r < 0)
		die_scf(r);
	for (size_t k = 0; k < n; k++) {
		for (size_t d = 0; d < of[k]->n_deps; d++)
			if (!excluded(&of[k]->deps[d]))
				STRV_FOREACH (e, of[k]->deps[d].entities)
					select_entity(*e);
	}
}

/* Does a dependency entity name the provider (an instance's dependents include its service's)? */
static bool names_provider(const char *entity, const inst_t *p)
{
	_cleanup_free_ char *canon = NULL;
	size_t len = strlen("svc:/") + strlen(p->svc);

	if (scf_fmri_canonicalize(entity, &canon) < 0)
		return false;
	if (streq(canon, p->fmri))
		return true;
	return strlen(canon) == len && strneq(canon, p->fmri, len);
}

/* Does a dependency entity name one of the services the operands named? */
static bool names_service(const char *entity)
{
	_cleanup_free_ char *canon = NULL;

	return g.services && scf_fmri_canonicalize(entity, &canon) >= 0 &&
	        strv_contains(g.services, canon);
}

static void select_dependents(inst_t **of, size_t n)
{
	int r = instset_load(&g.set, LOAD_DEPS);

	if (r < 0)
		die_scf(r);
	for (size_t k = 0; k < g.set.n; k++) {
		inst_t *i = &g.set.v[k];

		for (size_t d = 0; d < i->n_deps; d++) {
			if (excluded(&i->deps[d]))
				continue;
			STRV_FOREACH (e, i->deps[d].entities) {
				if (names_service(*e))
					select_inst(i);
				for (size_t p = 0; p < n; p++)
					if (names_provider(*e, of[p]))
						select_inst(i);
			}
		}
	}
}

/* -d / -D: the operands are only the starting point; what is listed is what they lead to. */
static void select_related(int argc, char *argv[])
{
	_cleanup_free_ inst_t **ops = NULL;
	size_t n;

	/* svcs.c: -d walks with SCF_WALK_MULTIPLE, -D with SCF_WALK_MULTIPLE | SERVICE. */
	select_operands(argc, argv, CLI_WALK_MULTIPLE | (g.mode == 'D' ? CLI_WALK_SERVICE : 0));
	n = g.n_sel;
	ops = malloc((n ? n : 1) * sizeof(inst_t *));
	if (!ops)
		oom();
	memcpy(ops, g.sel, n * sizeof(inst_t *));
	g.n_sel = 0;
	memset(g.picked, 0, g.set.n * sizeof(bool));
	if (g.mode == 'd')
		select_dependencies(ops, n);
	else
		select_dependents(ops, n);
}

static int cmp_discovery(const void *a, const void *b)
{
	return cli_instance_cmp_discovery((*(inst_t *const *)a)->fmri, (*(inst_t *const *)b)->fmri);
}

/*
 * No operands: every instance, in the order the walk would visit them (without asking
 * configd for the list a second time); enabled ones only, unless -a or -R.
 */
static void select_default(void)
{
	bool all = g.all || g.restarters;
	_cleanup_free_ inst_t **order = malloc((g.set.n ? g.set.n : 1) * sizeof(inst_t *));
	int r;

	if (!order)
		oom();
	for (size_t k = 0; k < g.set.n; k++)
		order[k] = &g.set.v[k];
	qsort(order, g.set.n, sizeof(inst_t *), cmp_discovery);
	if (!all && (r = instset_load(&g.set, LOAD_FILTER)) < 0)
		die_scf(r);
	for (size_t k = 0; k < g.set.n; k++)
		if (all || inst_listed_by_default(order[k]))
			select_inst(order[k]);
}

static bool restarter_matches(const inst_t *i)
{
	_cleanup_free_ char *canon = NULL;
	const char *r = i->restarter ? i->restarter : SCF_SERVICE_STARTD;

	if (scf_fmri_canonicalize(r, &canon) < 0)
		return false;
	STRV_FOREACH (want, g.restarters)
		if (streq(canon, *want))
			return true;
	return false;
}

static void print_processes(const inst_t *i)
{
	proc_t *p;
	size_t n;
	char st[16];

	if (i->contract <= 0 || procs_of_group(i->contract, &p, &n) < 0)
		return;
	for (size_t k = 0; k < n; k++) {
		format_stime(p[k].start_sec, st, sizeof(st));
		printf("               %-8s   %6d %s\n", st, p[k].pid, p[k].comm);
	}
	procs_free(p, n);
}

/* The sort keys, then (for lines they do not order) the reverse of the visit order. */
static int compare_lines(const void *a, const void *b)
{
	const inst_t *x = *(inst_t *const *)a, *y = *(inst_t *const *)b;
	int r = columns_compare(a, b);

	return r ? r : (x->visit < y->visit) - (x->visit > y->visit);
}

static void list(void)
{
	unsigned load = columns_load_flags(g.cols, g.n_cols) | (g.processes ? LOAD_RESTARTER : 0);
	size_t n = 0;
	int r;

	if (g.restarters)
		load |= LOAD_GENERAL;
	r = inst_load(g.h, g.sel, g.n_sel, load);
	if (r < 0)
		die_scf(r);
	if (g.restarters) {
		for (size_t k = 0; k < g.n_sel; k++)
			if (restarter_matches(g.sel[k]))
				g.sel[n++] = g.sel[k];
		g.n_sel = n;
	}
	qsort(g.sel, g.n_sel, sizeof(inst_t *), compare_lines);
	if (!g.no_header)
		columns_print_header(g.cols, g.n_cols);
	for (size_t k = 0; k < g.n_sel; k++) {
		_cleanup_free_ char *line = columns_format(g.sel[k], g.cols, g.n_cols);

		if (!line)
			oom();
		puts(line);
		if (g.processes)
			print_processes(g.sel[k]);
	}
}

/*
 * -l shows the state of every instance a dependency names: read them in one request (a failure
 * leaves them unread, and each shows "-" as a failed single read does).
 */
static void load_dependency_targets(void)
{
	_cleanup_free_ inst_t **targets = NULL;
	size_t n = 0, cap = 0;

	for (size_t k = 0; k < g.n_sel; k++)
		for (size_t d = 0; d < g.sel[k]->n_deps; d++)
			STRV_FOREACH (e, g.sel[k]->deps[d].entities) {
				inst_t *first;
				size_t m = instset_entity(&g.set, *e, &first);

				if (m > 0 && GREEDY_REALLOC(targets, cap, n + m) < 0)
					oom();
				for (size_t j = 0; j < m; j++)
					targets[n++] = &first[j];
			}
	(void)inst_load(g.h, targets, n, LOAD_RESTARTER);
}

static void detail(void)
{
	int r = inst_load(
	        g.h, g.sel, g.n_sel, LOAD_RESTARTER | LOAD_GENERAL | LOAD_DESC | LOAD_DEPS);

	if (r < 0)
		die_scf(r);
	load_dependency_targets();
	for (size_t k = 0; k < g.n_sel; k++)
		detail_print(&g.set, g.sel[k], g.processes, g.verbose, k == 0);
}

static void logs(void)
{
	int r = inst_load(g.h, g.sel, g.n_sel, LOAD_RESTARTER);

	if (r < 0)
		die_scf(r);
	for (size_t k = 0; k < g.n_sel; k++)
		if (g.sel[k]->logfile)
			puts(g.sel[k]->logfile);
}

static void connect_repository(void)
{
	int r = cli_connect(NULL, &g.h);

	if (r < 0) {
		warn("Could not bind to repository server: %s.  Exiting.\n", smf_error_phrase(r));
		exit(1);
	}
}

/*
 * What the mode will read of every instance, read with the list of instances: the columns and
 * the filter of a listing without operands, -x's and -D's reads of the whole set.
 */
static unsigned read_with_list(int argc)
{
	unsigned load = columns_load_flags(g.cols, g.n_cols) | (g.processes ? LOAD_RESTARTER : 0);

	if (g.mode == 'x')
		return LOAD_RESTARTER | LOAD_GENERAL | LOAD_DEPS;
	if (g.mode == 'D')
		return LOAD_DEPS;
	if (g.mode || argc > 0)
		return 0;
	if (g.restarters)
		load |= LOAD_GENERAL;
	else if (!g.all)
		load |= LOAD_FILTER;
	return load;
}

static void setup(int argc)
{
	int r = instset_init(&g.set, g.h, read_with_list(argc));

	if (r < 0)
		die_scf(r);
	g.sel = calloc(g.set.n ? g.set.n : 1, sizeof(inst_t *));
	g.picked = calloc(g.set.n ? g.set.n : 1, sizeof(bool));
	if (!g.sel || !g.picked)
		oom();
}

int main(int argc, char *argv[])
{
	int r;

	log_set_program(argv[0]);
	parse_options(argc, argv);
	argc -= optind;
	argv += optind;
	if (g.all && argc > 0)
		warn("-a ignored when used with arguments.\n");
	connect_repository();
	STRV_FOREACH (spec, g.col_specs)
		add_columns(*spec);
	if (g.n_cols == 0) {
		add_columns(g.verbose ? "STATE,NSTATE,STIME,CTID,FMRI" : "STATE,STIME,FMRI");
		/* As illumos: the default keys come with the default columns only. */
		if (!g.sorted)
			columns_default_sort();
	}
	setup(argc);

	if (g.mode == 'x') {
		if (argc > 0)
			select_operands(argc, argv, CLI_WALK_MULTIPLE);
		r = explain(g.h, &g.set, argc > 0 ? g.sel : NULL, g.n_sel, g.verbose);
		if (r < 0)
			die_scf(r);
	} else if (g.mode == 'l' || g.mode == 'L') {
		/* -L without operands: every instance, as illumos. */
		select_operands(argc, argv, CLI_WALK_MULTIPLE);
		if (g.mode == 'l')
			detail();
		else
			logs();
	} else {
		if (g.mode == 'd' || g.mode == 'D')
			select_related(argc, argv);
		else if (argc > 0)
			select_operands(argc, argv, CLI_WALK_MULTIPLE | CLI_WALK_LEGACY);
		else
			select_default();
		list();
	}
	fflush(stdout);
	if (ferror(stdout)) {
		warn("Error writing to standard output.\n");
		g.status = 1;
	}
	free(g.sel);
	free(g.picked);
	free(g.cols);
	strv_free(g.col_specs);
	strv_free(g.restarters);
	strv_free(g.services);
	instset_done(&g.set);
	scf_handle_destroy(g.h);
	return g.status;
}
