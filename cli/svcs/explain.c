/*
 * explain.c: svcs -x, why instances are not running and what that stops, in illumos' words.
 *
 * THE MODEL
 *
 * Every instance gets a set of *causes*: the instances that are the root reason it is not
 * running.  A running instance has none.  An instance that is offline and waiting (next_state
 * none) is blocked by its unsatisfied dependencies: a dependency that does not exist is a
 * "bad dependency" (reported by name), and a dependency instance that is not running
 * contributes its own causes (recursively; a cycle stops at the instance already being
 * visited).  Every other instance that is not running (maintenance, disabled, uninitialized,
 * starting, offline for no visible reason) is its own cause.  The *impact* of an instance is
 * every other instance that has it among its causes.
 *
 * Without operands, -x explains the root causes worth a look: instances that are their own
 * cause and are enabled or hold up something else, most impact first.  With operands it
 * explains exactly the instances named.  Reasons, diagnosis codes (SMF-8000-xx) and the
 * Impact line follow illumos' explain.c.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-quote.h"
#include "macro.h"
#include "strv.h"
#include "svcs.h"

#define DEFAULT_MSGBASE "http://illumos.org/msg/"

typedef struct cause {
	inst_t *inst;
	inst_t *hop; /* the dependency through which it holds this one up */
} cause_t;

typedef struct xinfo {
	cause_t *causes; /* each instance once */
	size_t n_causes, cap_causes;
	char **baddeps;
	bool done, active;
} xinfo_t;

typedef struct explainer {
	scf_handle_t *h;
	instset_t *all;
	xinfo_t *x; /* parallel to all->v */
	const char *msgbase;
	bool restarter_attached;
} explainer_t;

static xinfo_t *xi(explainer_t *e, const inst_t *i)
{
	assert(i >= e->all->v && (size_t)(i - e->all->v) < e->all->n);
	return &e->x[i - e->all->v];
}

static bool has_cause(const xinfo_t *x, const inst_t *c)
{
	for (size_t k = 0; k < x->n_causes; k++)
		if (x->causes[k].inst == c)
			return true;
	return false;
}

/* Out of memory, a cause is left out: the explanation is shorter, not wrong. */
static void add_cause(xinfo_t *x, inst_t *c, inst_t *hop)
{
	if (has_cause(x, c) || GREEDY_REALLOC(x->causes, x->cap_causes, x->n_causes + 1) < 0)
		return;
	x->causes[x->n_causes++] = (cause_t){.inst = c, .hop = hop};
}

static void determine_causes(explainer_t *e, inst_t *i);

static void inherit(explainer_t *e, xinfo_t *x, inst_t *dep)
{
	xinfo_t *dx = xi(e, dep);

	determine_causes(e, dep);
	if (dx->active && dx->n_causes == 0) {
		add_cause(x, dep, dep); /* a cycle: stop here */
		return;
	}
	for (size_t k = 0; k < dx->n_causes; k++)
		add_cause(x, dx->causes[k].inst, dep);
}

static void dependency_causes(explainer_t *e, inst_t *i, const dep_t *d)
{
	xinfo_t *x = xi(e, i);
	int g = depgroup_from_string(d->grouping);
	bool optional = g == DEPGRP_OPTIONAL_ALL, exclude = g == DEPGRP_EXCLUDE_ALL;
	inst_t *t;
	size_t n;

	if (g == DEPGRP_REQUIRE_ANY) /* satisfied by one running entity */
		STRV_FOREACH (ent, d->entities) {
			n = instset_entity(e->all, *ent, &t);
			for (size_t k = 0; k < n; k++)
				if (inst_running(&t[k]))
					return;
		}
	STRV_FOREACH (ent, d->entities) {
		const char *path = restarter_file_dep_path(*ent);

		if (path) {
			if (!exclude && !optional && access(path, F_OK) != 0)
				(void)strv_extend(&x->baddeps, *ent);
			continue;
		}
		n = instset_entity(e->all, *ent, &t);
		if (n == 0) {
			if (!exclude && !optional)
				(void)strv_extend(&x->baddeps, *ent);
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			if (exclude) {
				if (inst_running(&t[k]))
					add_cause(x, &t[k], &t[k]);
			} else if (!inst_running(&t[k])) {
				/* optional_all waits only for what is on its way up */
				if (optional &&
				        !(inst_enabled(&t[k]) &&
				                (t[k].st == RESTARTER_STATE_OFFLINE ||
				                        t[k].st == RESTARTER_STATE_UNINIT)))
					continue;
				inherit(e, x, &t[k]);
			}
		}
	}
}

static void determine_causes(explainer_t *e, inst_t *i)
{
	xinfo_t *x = xi(e, i);

	if (x->done || x->active)
		return;
	x->active = true;
	if (!inst_running(i)) {
		if (i->st == RESTARTER_STATE_OFFLINE && state_is_none(i->next_state))
			for (size_t k = 0; k < i->n_deps; k++)
				dependency_causes(e, i, &i->deps[k]);
		/* A missing dependency is no other service's fault: the instance is a root. */
		if (x->n_causes == 0 || x->baddeps)
			add_cause(x, i, i);
	}
	x->active = false;
	x->done = true;
}

static size_t impact(explainer_t *e, const inst_t *i, inst_t ***list)
{
	size_t n = 0, cap = 0;

	if (list)
		*list = NULL;
	for (size_t k = 0; k < e->all->n; k++) {
		inst_t *o = &e->all->v[k];

		if (o == i || !has_cause(&e->x[k], i))
			continue;
		if (list) {
			if (GREEDY_REALLOC(*list, cap, n + 1) < 0)
				break;
			(*list)[n] = o;
		}
		n++;
	}
	return n;
}

static bool temporary_disable(const inst_t *i)
{
	return i->enabled_ovr == 0 && i->enabled_perm != 0;
}

/*
 * Why an instance is in maintenance, by the auxiliary state startd recorded: the summary -x
 * gives of it as a cause, and its own Reason line with the diagnosis code.  The last entry
 * stands for any other auxiliary state.
 */
static const struct maint_reason {
	const char *aux;
	const char *summary;
	const char *reason; /* NULL: "Restarter <fmri> gave no explanation." */
	const char *code;
} maint_reasons[] = {
        {RESTARTER_AUX_ADMINISTRATIVE_REQUEST, "was taken down for maintenace by an administrator.",
                "Maintenance requested by an administrator.", "SMF-8000-63"},
        /* svc.startd found the instance completes a dependency cycle (startd/graph.h). */
        {RESTARTER_AUX_DEPENDENCY_CYCLE, "completed a dependency cycle.",
                "Completes a dependency cycle.", "SMF-8000-HP"},
        {RESTARTER_AUX_FAULT_THRESHOLD, "is not running because a method failed repeatedly.",
                "Method failed repeatedly.", "SMF-8000-8Q"},
        {RESTARTER_AUX_METHOD_FAILED, "is not running because a method failed.", "Method failed.",
                "SMF-8000-8Q"},
        {RESTARTER_AUX_RESTARTING_TOO_QUICKLY, "was restarting too quickly.",
                "Restarting too quickly.", "SMF-8000-L5"},
        {RESTARTER_AUX_NONE, "is not running for an unknown reason.", NULL, "SMF-8000-9C"},
        {NULL, "requires maintenance.", "Unknown.", "SMF-8000-AR"},
};

static const struct maint_reason *maint_reason(const inst_t *i)
{
	size_t k = 0;

	while (maint_reasons[k].aux && !streq(strempty(i->aux), maint_reasons[k].aux))
		k++;
	return &maint_reasons[k];
}

static const char *summary(const inst_t *i)
{
	if (inst_running(i))
		return "is running.";
	switch (i->has_rpg ? i->st : RESTARTER_STATE_UNINIT) {
	case RESTARTER_STATE_UNINIT:
		return "is uninitialized.";
	case RESTARTER_STATE_DISABLED:
		return temporary_disable(i) ? "is temporarily disabled." : "is disabled.";
	case RESTARTER_STATE_OFFLINE:
		return i->next_st == RESTARTER_STATE_ONLINE ? "is starting." : "is offline.";
	case RESTARTER_STATE_MAINT:
		return maint_reason(i)->summary;
	default:
		return "is in an invalid state.";
	}
}

static void see(explainer_t *e, const char *dc)
{
	if (e->msgbase)
		printf("   See: %s%s\n", e->msgbase, dc);
}

static inst_t *hop_towards(explainer_t *e, const inst_t *from, const inst_t *cause)
{
	xinfo_t *x = xi(e, from);

	for (size_t k = 0; k < x->n_causes; k++)
		if (x->causes[k].inst == cause)
			return x->causes[k].hop;
	return NULL;
}

/* -v: the chain of dependencies from the instance to the cause, one more indent per hop. */
static void print_path(explainer_t *e, const inst_t *i, const inst_t *cause)
{
	const inst_t *p = i;
	int indent = 1;

	printf("  Path: %s\n", i->fmri);
	while ((p = hop_towards(e, p, cause)) && indent < 64) {
		printf("%6s  %*s%s\n", "", indent++ * 2, "", p->fmri);
		if (p == cause)
			break;
	}
}

static void dependency_reasons(explainer_t *e, const inst_t *i, bool verbose)
{
	xinfo_t *x = xi(e, i);

	STRV_FOREACH (d, x->baddeps) {
		printf("Reason: Dependency %s is absent.\n", *d);
		see(e, "SMF-8000-E2");
	}
	for (size_t k = 0; k < x->n_causes; k++) {
		const inst_t *c = x->causes[k].inst;
		const char *sum = summary(c);

		if (c == i && x->baddeps)
			continue;
		if (c == i) {
			puts("Reason: Unknown.");
			see(e, "SMF-8000-AR");
			continue;
		}
		if (inst_running(c)) {
			printf("Reason: Service %s is running.\n", c->fmri);
			see(e, "SMF-8000-FJ");
			if (verbose)
				print_path(e, i, c);
			continue;
		}
		if (strlen("Reason: Service ") + strlen(c->fmri) + 1 + strlen(sum) <= 80)
			printf("Reason: Service %s %s\n", c->fmri, sum);
		else
			printf("Reason: Service %s\n        %s\n", c->fmri, sum);
		see(e, "SMF-8000-GE");
		if (verbose)
			print_path(e, i, c);
	}
}

static void maintenance_reason(explainer_t *e, const inst_t *i)
{
	const struct maint_reason *m = maint_reason(i);

	/* startd does not record the method's wait status, so the generic sentence is used. */
	if (m->reason)
		printf("Reason: %s\n", m->reason);
	else
		printf("Reason: Restarter %s gave no explanation.\n",
		        i->restarter ? i->restarter : SCF_SERVICE_STARTD);
	see(e, m->code);
}

/* The offline instance's next state is not given: it waits for its dependencies. */
static bool next_state_blank(const inst_t *i)
{
	return !i->next_state || !*i->next_state || state_is_none(i->next_state);
}

static void reasons(explainer_t *e, const inst_t *i, bool verbose)
{
	const char *rst = i->restarter ? i->restarter : SCF_SERVICE_STARTD;

	switch (i->has_rpg ? i->st : RESTARTER_STATE_UNINIT) {
	case RESTARTER_STATE_ONLINE:
		break;
	case RESTARTER_STATE_UNINIT:
		if (e->restarter_attached) {
			printf("Reason: Restarter %s has not initialized service state.\n", rst);
			see(e, "SMF-8000-4D");
		} else {
			printf("Reason: Restarter %s is not running.\n", rst);
			see(e, "SMF-8000-5H");
		}
		break;
	case RESTARTER_STATE_DISABLED:
		if (temporary_disable(i)) {
			puts("Reason: Temporarily disabled by an administrator.");
			see(e, "SMF-8000-1S");
		} else {
			puts("Reason: Disabled by an administrator.");
			see(e, "SMF-8000-05");
		}
		break;
	case RESTARTER_STATE_MAINT:
		maintenance_reason(e, i);
		break;
	case RESTARTER_STATE_OFFLINE:
		if (i->next_st == RESTARTER_STATE_ONLINE) {
			puts("Reason: Start method is running.");
			see(e, "SMF-8000-C4");
		} else if (next_state_blank(i)) {
			dependency_reasons(e, i, verbose);
		} else {
			printf("Reason: Transitioning to state %s.\n", i->next_state);
			see(e, "SMF-8000-PH");
		}
		break;
	case RESTARTER_STATE_DEGRADED:
		puts("Reason: Degraded by an administrator.");
		see(e, "SMF-8000-DX");
		break;
	default:
		printf("Reason: Not in valid state (%s).\n", strempty(i->state));
		see(e, "SMF-8000-N3");
	}
}

/* Manual pages and doc links from the instance's templates. */
static void docs(explainer_t *e, const inst_t *i, bool verbose)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;

	if (scf_pg_list(e->h, i->fmri, NULL, SCF_READ_COMPOSED, &infos, &n) < 0)
		return;
	for (size_t k = 0; k < n; k++) {
		bool man = strneq(infos[k].name, "tm_man_", 7);
		scf_pg_t *pg;
		const scf_property_t *p;
		const char *title = NULL, *section = NULL, *path = NULL, *uri = NULL;

		if (!man && !strneq(infos[k].name, "tm_doc_", 7))
			continue;
		if (scf_pg_get(e->h, i->fmri, infos[k].name, NULL, SCF_READ_COMPOSED, &pg) < 0)
			continue;
		if ((p = scf_pg_property(pg, "title")))
			(void)scf_property_get_string(p, &title);
		if ((p = scf_pg_property(pg, "section")))
			(void)scf_property_get_string(p, &section);
		if ((p = scf_pg_property(pg, "manpath")))
			(void)scf_property_get_string(p, &path);
		if ((p = scf_pg_property(pg, "uri")))
			(void)scf_property_get_string(p, &uri);
		{
			/* Template values, shown: their control characters as escapes. */
			_cleanup_free_ char *t = cli_display(title), *sec = cli_display(section),
			                    *mp = cli_display(path), *u = cli_display(uri);

			if (man && t && sec && !verbose)
				printf("   See: %s(%s)\n", t, sec);
			else if (man && t && sec && mp)
				printf("   See: man -M %s -s %s %s\n",
				        streq(mp, ":default") ? "/usr/share/man" : mp, sec, t);
			else if (!man && u)
				printf("   See: %s\n", u);
		}
		scf_pg_free(pg);
	}
	scf_pg_info_free(infos, n);
}

static void print_impact(explainer_t *e, const inst_t *i, bool verbose)
{
	inst_t **list = NULL;
	size_t n = impact(e, i, verbose ? &list : NULL);

	if (n == 0)
		puts(inst_running(i) ? "Impact: None." : "Impact: This service is not running.");
	else if (n == 1)
		puts(verbose ? "Impact: 1 dependent service is not running:"
		             : "Impact: 1 dependent service is not running.  (Use -v for list.)");
	else if (verbose)
		printf("Impact: %zu dependent services are not running:\n", n);
	else
		printf("Impact: %zu dependent services are not running.  (Use -v for list.)\n", n);
	for (size_t k = 0; verbose && k < n; k++)
		printf("        %s\n", list[k]->fmri);
	free(list);
}

static void print_one(explainer_t *e, inst_t *i, bool verbose, bool first)
{
	const char *state =
	        i->has_rpg ? strempty(i->state) : restarter_state_to_string(RESTARTER_STATE_UNINIT);
	char tbuf[128];

	if (!first)
		putchar('\n');
	(void)inst_load(e->h, &i, 1, LOAD_DESC);
	printf("%s (%s)\n", i->fmri, i->desc && *i->desc ? i->desc : "?");
	if (i->has_stime) {
		format_long_time(i->stime_sec, tbuf, sizeof(tbuf));
		printf(" State: %s since %s\n", state, tbuf);
	} else
		printf(" State: %s\n", state);
	reasons(e, i, verbose);
	docs(e, i, verbose);
	if (i->logfile)
		printf("   See: %s\n", i->logfile);
	print_impact(e, i, verbose);
}

/* The msg/base of svc.startd's instance, as illumos; illumos' own base when it has none. */
static const char *msgbase(scf_handle_t *h, char **owned)
{
	scf_pg_t *pg;
	const scf_property_t *p;
	const char *s;

	*owned = NULL;
	if (scf_pg_get(h, SCF_SERVICE_STARTD, "msg", NULL, SCF_READ_COMPOSED, &pg) < 0)
		return DEFAULT_MSGBASE;
	if ((p = scf_pg_property(pg, "base")) && scf_property_get_string(p, &s) >= 0)
		*owned = strdup(s);
	scf_pg_free(pg);
	return *owned ? *owned : DEFAULT_MSGBASE;
}

static size_t impact_of(explainer_t *e, const inst_t *i)
{
	return impact(e, i, NULL);
}

static explainer_t *cmp_ctx;
static int impact_cmp(const void *a, const void *b)
{
	const inst_t *x = *(inst_t *const *)a, *y = *(inst_t *const *)b;
	size_t n = impact_of(cmp_ctx, x), m = impact_of(cmp_ctx, y);

	if (n != m)
		return n > m ? -1 : 1;
	return strcmp(x->fmri, y->fmri);
}

int explain(scf_handle_t *h, instset_t *all, inst_t **sel, size_t n_sel, bool verbose)
{
	_cleanup_free_ char *owned = NULL;
	explainer_t e = {.h = h, .all = all};
	_cleanup_free_ inst_t **roots = NULL;
	size_t n_roots = 0;
	int r;

	r = instset_load(all, LOAD_RESTARTER | LOAD_GENERAL | LOAD_DEPS);
	if (r < 0)
		return r;
	e.x = calloc(all->n ? all->n : 1, sizeof(xinfo_t));
	if (!e.x)
		return -SCF_ERROR_NO_MEMORY;
	e.restarter_attached = scf_restarter_attached(h) > 0;
	e.msgbase = msgbase(h, &owned);
	for (size_t k = 0; k < all->n; k++)
		determine_causes(&e, &all->v[k]);

	if (sel) {
		for (size_t k = 0; k < n_sel; k++)
			print_one(&e, sel[k], verbose, k == 0);
	} else {
		roots = calloc(all->n ? all->n : 1, sizeof(inst_t *));
		if (!roots)
			r = -SCF_ERROR_NO_MEMORY;
		for (size_t k = 0; roots && k < all->n; k++) {
			inst_t *i = &all->v[k];
			xinfo_t *x = &e.x[k];

			if (has_cause(x, i) && (inst_enabled(i) || impact_of(&e, i) > 0))
				roots[n_roots++] = i;
		}
		cmp_ctx = &e;
		if (roots)
			qsort(roots, n_roots, sizeof(inst_t *), impact_cmp);
		for (size_t k = 0; k < n_roots; k++)
			print_one(&e, roots[k], verbose, k == 0);
	}
	for (size_t k = 0; k < all->n; k++) {
		free(e.x[k].causes);
		strv_free(e.x[k].baddeps);
	}
	free(e.x);
	return r;
}
