/*
 * detail.c: svcs -l, one paragraph of "label value" lines per instance, as illumos.
 *
 * "enabled" hides the override: it shows the effective value and says "(temporary)" when
 * general_ovr differs from general.  Dependencies are the instance's dependency pgs as startd
 * reads them, one line each: grouping/restart_on, then every entity with its state.
 */
#include <string.h>

#include "cli-quote.h"
#include "macro.h"
#include "strv.h"
#include "svcs.h"

#define DETAILED_WIDTH (11 + 2) /* strlen("description") + two blanks */

static void line(const char *label, const char *value)
{
	printf("%-*s%s\n", DETAILED_WIDTH, label, value);
}

static void print_enabled(const inst_t *i)
{
	int perm = i->enabled_perm, temp = i->enabled_ovr;

	if (temp >= 0) {
		if (temp != perm)
			printf("%-*s%s (temporary)\n", DETAILED_WIDTH, "enabled",
			        temp ? "true" : "false");
		else
			line("enabled", temp ? "true" : "false");
	} else if (perm >= 0)
		line("enabled", perm ? "true" : "false");
}

static void print_dependency(const instset_t *all, const dep_t *d)
{
	char buf[64];

	printf("%-*s%s/%s", DETAILED_WIDTH, "dependency", d->grouping ? d->grouping : "?",
	        d->restart_on ? d->restart_on : "?");
	STRV_FOREACH (e, d->entities)
		printf(" %s (%s)", *e, instset_dep_state(all, *e, buf, sizeof(buf)));
	putchar('\n');
}

static void print_processes(const inst_t *i)
{
	proc_t *p;
	size_t n;

	if (i->contract <= 0 || procs_of_group(i->contract, &p, &n) < 0)
		return;
	for (size_t k = 0; k < n; k++)
		printf("%-*s%d %s\n", DETAILED_WIDTH, "process", p[k].pid,
		        p[k].args && *p[k].args ? p[k].args : p[k].comm);
	procs_free(p, n);
}

/* -v: the application pgs as the instance runs them (running snapshot, else current). */
static void print_application_pgs(scf_handle_t *h, const inst_t *i)
{
	const char *snap = SCF_SNAPSHOT_RUNNING;
	scf_pg_info_t *infos = NULL;
	size_t n = 0;

	if (scf_pg_list(h, i->fmri, snap, SCF_READ_COMPOSED, &infos, &n) < 0) {
		snap = NULL;
		if (scf_pg_list(h, i->fmri, NULL, SCF_READ_COMPOSED, &infos, &n) < 0)
			return;
	}
	for (size_t k = 0; k < n; k++) {
		scf_pg_t *pg;

		if (!streq(infos[k].type, SCF_GROUP_APPLICATION) ||
		        scf_pg_get(h, i->fmri, infos[k].name, snap, SCF_READ_COMPOSED, &pg) < 0)
			continue;
		printf("%s (%s)\n", pg->name, SCF_GROUP_APPLICATION);
		for (size_t p = 0; p < pg->n_props; p++) {
			const scf_property_t *prop = &pg->props[p];

			printf("%s/%s (%s) = ", pg->name, prop->name,
			        scf_type_to_string(prop->type));
			/*
			 * As illumos' print_application_properties(): a value that needs quotes
			 * is printed quoted and alone, any other followed by a blank.
			 */
			for (size_t v = 0; v < prop->n_values; v++) {
				const char *val = prop->values[v];

				if (cli_value_needs_quotes(val))
					cli_print_quoted(stdout, val);
				else
					printf("%s ", val);
			}
			putchar('\n');
		}
		scf_pg_free(pg);
	}
	scf_pg_info_free(infos, n);
}

void detail_print(const instset_t *all, const inst_t *i, bool processes, bool verbose, bool first)
{
	char tbuf[128];

	if (!first)
		putchar('\n');
	line("fmri", i->fmri);
	if (i->desc)
		line("name", i->desc);
	print_enabled(i);
	if (i->has_rpg) {
		if (i->state)
			line("state", i->state);
		if (i->next_state)
			line("next_state", i->next_state);
		if (i->has_stime) {
			format_long_time(i->stime_sec, tbuf, sizeof(tbuf));
			line("state_time", tbuf);
		}
		if (i->logfile)
			line("logfile", i->logfile);
	}
	line("restarter", i->restarter ? i->restarter : SCF_SERVICE_STARTD);
	if (i->contract > 0)
		printf("%-*s%lld \n", DETAILED_WIDTH, "contract_id", (long long)i->contract);
	for (size_t k = 0; k < i->n_deps; k++)
		print_dependency(all, &i->deps[k]);
	if (processes)
		print_processes(i);
	if (verbose)
		print_application_pgs(all->h, i);
}
