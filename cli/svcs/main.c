/*
 * svcs: report service states, as illumos' svcs(1).
 *
 * THE MODEL
 *
 * svcs is a reader.  It takes the list of every instance from configd in one call, selects
 * the instances to show (operands, or every enabled instance, or every instance with -a), reads
 * for those only the pgs the chosen output needs (load.c: the restarter pg for states, general
 * and general_ovr for the enabled filter, tm_common_name for DESC, dependency pgs for -d, -D,
 * -l and -x), and prints.  States come only from the restarter pg that svc.startd writes; an
 * instance without one (startd has not seen it yet: the race window) shows "-" in STATE, as
 * illumos prints a blank state.
 *
 * Invariants: every instance is shown at most once per run whatever the operands; the default
 * filter is illumos' (general/enabled or general_ovr/enabled is true); a pattern that matches
 * nothing is reported on stderr, the other operands are still shown, and the exit status is 1.
 * Exit status 2 is a usage error.
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
	bool all, no_header, processes, verbose, deps, dependents, detail, logs, explain;
	int *cols;
	size_t n_cols, cap_cols;
	char **restarters;
	int status;
	scf_handle_t *h;
	instset_t set;
	inst_t **sel; /* selected, no duplicates */
	size_t n_sel;
	bool *picked; /* parallel to set.v */
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

static void add_columns(const char *spec)
{
	_cleanup_free_ char *bad = NULL;
	int r = columns_parse(spec, &g.cols, &g.n_cols, &g.cap_cols, &bad);

	if (r == -SCF_ERROR_NO_MEMORY)
		oom();
	if (r < 0) {
		warn("Unrecognized column \"%s\".\n", strempty(bad));
		exit(EXIT_USAGE);
	}
}

static void add_sort(const char *name, bool reverse)
{
	if (columns_add_sort(name, reverse) < 0) {
		warn("Unrecognized sort column \"%s\".\n", name);
		exit(EXIT_USAGE);
	}
}

static void parse_options(int argc, char *argv[])
{
	int c;
	bool mode = false;

	while ((c = getopt(argc, argv, "aHpvo:R:s:S:dDlLx?z:Z")) >= 0) {
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
			add_columns(optarg);
			break;
		case 'R':
			if (strv_extend(&g.restarters, optarg) < 0)
				oom();
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
			if (mode)
				usage();
			mode = true;
			g.deps = c == 'd';
			g.dependents = c == 'D';
			g.detail = c == 'l';
			g.logs = c == 'L';
			g.explain = c == 'x';
			break;
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
	if ((g.detail || g.logs || g.deps || g.dependents) && optind == argc)
		usage();
	if ((g.detail || g.logs || g.explain) && (g.all || g.n_cols || g.restarters || g.no_header))
		usage();
	if (g.explain && g.processes)
		usage();
}

static void select_inst(inst_t *i)
{
	size_t k = (size_t)(i - g.set.v);

	assert(k < g.set.n);
	if (g.picked[k])
		return;
	g.picked[k] = true;
	g.sel[g.n_sel++] = i;
}

static void select_operand(const char *pattern)
{
	_cleanup_free_ char *errmsg = NULL;
	char **matches = NULL;
	int r;

	r = cli_resolve_all(g.h, pattern, SCF_RESOLVE_INSTANCES, &matches, &errmsg);
	if (r < 0 && !errmsg)
		die_scf(r);
	if (r < 0) {
		warn("%s\n", errmsg);
		g.status = 1;
		return;
	}
	STRV_FOREACH (m, matches) {
		inst_t *i = instset_find(&g.set, *m);

		if (i)
			select_inst(i);
	}
	strv_free(matches);
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
			STRV_FOREACH (e, i->deps[d].entities)
				for (size_t p = 0; p < n; p++)
					if (names_provider(*e, of[p]))
						select_inst(i);
		}
	}
}

static void select_operands(int argc, char *argv[])
{
	for (int k = 0; k < argc; k++)
		select_operand(argv[k]);
}

/* -d / -D: the operands are only the starting point; what is listed is what they lead to. */
static void select_related(int argc, char *argv[])
{
	_cleanup_free_ inst_t **ops = NULL;
	size_t n;

	select_operands(argc, argv);
	n = g.n_sel;
	ops = malloc((n ? n : 1) * sizeof(inst_t *));
	if (!ops)
		oom();
	memcpy(ops, g.sel, n * sizeof(inst_t *));
	g.n_sel = 0;
	memset(g.picked, 0, g.set.n * sizeof(bool));
	if (g.deps)
		select_dependencies(ops, n);
	else
		select_dependents(ops, n);
}

static void select_default(void)
{
	int r;

	if (!g.all) {
		r = instset_load(&g.set, LOAD_FILTER);
		if (r < 0)
			die_scf(r);
	}
	for (size_t k = 0; k < g.set.n; k++)
		if (g.all || inst_listed_by_default(&g.set.v[k]))
			select_inst(&g.set.v[k]);
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

/* -R: each restarter operand is an FMRI (or an abbreviation of one instance). */
static void canonicalize_restarters(void)
{
	for (char **r = g.restarters; r && *r; r++) {
		_cleanup_free_ char *errmsg = NULL;
		char *one = NULL;
		int e = cli_resolve_one(g.h, *r, SCF_RESOLVE_INSTANCES, &one, &errmsg);

		if (e < 0 && scf_fmri_canonicalize(*r, &one) < 0) {
			warn("Restarter FMRI \"%s\" is invalid.\n", *r);
			exit(1);
		}
		free(*r);
		*r = one;
	}
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
		canonicalize_restarters();
		for (size_t k = 0; k < g.n_sel; k++)
			if (restarter_matches(g.sel[k]))
				g.sel[n++] = g.sel[k];
		g.n_sel = n;
	}
	qsort(g.sel, g.n_sel, sizeof(inst_t *), columns_compare);
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

static void detail(void)
{
	int r = inst_load(
	        g.h, g.sel, g.n_sel, LOAD_RESTARTER | LOAD_GENERAL | LOAD_DESC | LOAD_DEPS);

	if (r < 0)
		die_scf(r);
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

static void setup(void)
{
	int r = cli_connect(NULL, &g.h);

	if (r < 0) {
		warn("Could not connect to configuration repository: %s.\n", cli_scf_phrase(r));
		exit(1);
	}
	r = instset_init(&g.set, g.h);
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
	if (g.n_cols == 0)
		add_columns(g.verbose ? "STATE,NSTATE,STIME,CTID,FMRI" : "STATE,STIME,FMRI");
	columns_default_sort();
	setup();

	if (g.explain) {
		if (argc > 0)
			select_operands(argc, argv);
		r = explain(g.h, &g.set, argc > 0 ? g.sel : NULL, g.n_sel, g.verbose);
		if (r < 0)
			die_scf(r);
	} else if (g.detail || g.logs) {
		select_operands(argc, argv);
		if (g.detail)
			detail();
		else
			logs();
	} else {
		if (g.deps || g.dependents)
			select_related(argc, argv);
		else if (argc > 0)
			select_operands(argc, argv);
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
	strv_free(g.restarters);
	instset_done(&g.set);
	scf_handle_destroy(g.h);
	return g.status;
}
