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
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strv.h"
#include "svcs.h"

#define DEFAULT_MSGBASE "http://illumos.org/msg/"

typedef struct xinfo {
	inst_t **causes;
	inst_t **next_hop; /* per cause: the dependency through which it holds this one up */
	size_t n_causes;
	char **baddeps;
	bool done, active;
	const char *summary;
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
	return &e->x[i - e->all->v];
}

static void add_cause(xinfo_t *x, inst_t *c, inst_t *hop)
{
	inst_t **n, **h;

	for (size_t k = 0; k < x->n_causes; k++)
		if (x->causes[k] == c)
			return;
	n = realloc(x->causes, (x->n_causes + 1) * sizeof(inst_t *));
	if (!n)
		return;
	x->causes = n;
	h = realloc(x->next_hop, (x->n_causes + 1) * sizeof(inst_t *));
	if (!h)
		return;
	x->next_hop = h;
	x->causes[x->n_causes] = c;
	x->next_hop[x->n_causes++] = hop;
}

static void determine_causes(explainer_t *e, inst_t *i);

/* The instances an entity names: itself, or a service's instances. */
static size_t entity_instances(explainer_t *e, const char *entity, inst_t **out, size_t max)
{
	_cleanup_free_ char *canon = NULL;
	size_t n = 0, len;
	inst_t *i;

	if (scf_fmri_canonicalize(entity, &canon) < 0)
		return 0;
	i = instset_find(e->all, canon);
	if (i) {
		out[0] = i;
		return 1;
	}
	len = strlen(canon);
	for (size_t k = 0; k < e->all->n && n < max; k++)
		if (strneq(e->all->v[k].fmri, canon, len) && e->all->v[k].fmri[len] == ':')
			out[n++] = &e->all->v[k];
	return n;
}

static void inherit(explainer_t *e, xinfo_t *x, inst_t *dep)
{
	xinfo_t *dx = xi(e, dep);

	determine_causes(e, dep);
	if (dx->active && dx->n_causes == 0) {
		add_cause(x, dep, dep); /* a cycle: stop here */
		return;
	}
	for (size_t k = 0; k < dx->n_causes; k++)
		add_cause(x, dx->causes[k], dep);
}

static void dependency_causes(explainer_t *e, inst_t *i, const dep_t *d)
{
	xinfo_t *x = xi(e, i);
	bool any = streq(strempty(d->grouping), "require_any");
	bool optional = streq(strempty(d->grouping), "optional_all");
	bool exclude = streq(strempty(d->grouping), "exclude_all");
	inst_t *targets[64];

	if (any) /* satisfied by one running entity */
		STRV_FOREACH (ent, d->entities) {
			size_t n = entity_instances(e, *ent, targets, ELEMENTSOF(targets));
			for (size_t k = 0; k < n; k++)
				if (inst_running(targets[k]))
					return;
		}
	STRV_FOREACH (ent, d->entities) {
		size_t n;

		if (strneq(*ent, "file:", 5)) {
			char buf[16];
			if (!exclude && !optional &&
			        !streq(instset_dep_state(e->all, *ent, buf, sizeof(buf)), "online"))
				(void)strv_extend(&x->baddeps, *ent);
			continue;
		}
		n = entity_instances(e, *ent, targets, ELEMENTSOF(targets));
		if (n == 0) {
			if (!exclude && !optional)
				(void)strv_extend(&x->baddeps, *ent);
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			inst_t *t = targets[k];

			if (exclude) {
				if (inst_running(t))
					add_cause(x, t, t);
			} else if (!inst_running(t)) {
				/* optional_all waits only for what is on its way up */
				if (optional &&
				        !(inst_enabled(t) && t->state &&
				                (streq(t->state, "offline") ||
				                        streq(t->state, "uninitialized"))))
					continue;
				inherit(e, x, t);
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
		if (i->state && streq(i->state, "offline") &&
		        streq(strempty(i->next_state), "none"))
			for (size_t k = 0; k < i->n_deps; k++)
				dependency_causes(e, i, &i->deps[k]);
		/* A missing dependency is no other service's fault: the instance is a root. */
		if (x->n_causes == 0 || x->baddeps)
			add_cause(x, i, i);
	}
	x->active = false;
	x->done = true;
}

static bool has_cause(const xinfo_t *x, const inst_t *c)
{
	for (size_t k = 0; k < x->n_causes; k++)
		if (x->causes[k] == c)
			return true;
	return false;
}

static size_t impact(explainer_t *e, const inst_t *i, inst_t ***list)
{
	size_t n = 0;

	if (list)
		*list = NULL;
	for (size_t k = 0; k < e->all->n; k++) {
		inst_t *o = &e->all->v[k];

		if (o == i || !has_cause(&e->x[k], i))
			continue;
		if (list) {
			inst_t **nl = realloc(*list, (n + 1) * sizeof(inst_t *));
			if (!nl)
				break;
			*list = nl;
			nl[n] = o;
		}
		n++;
	}
	return n;
}

static bool temporary_disable(const inst_t *i)
{
	return i->enabled_ovr == 0 && i->enabled_perm != 0;
}

static const char *summary(const inst_t *i)
{
	const char *s = strempty(i->state), *aux = strempty(i->aux);

	if (inst_running(i))
		return "is running.";
	if (!i->has_rpg || streq(s, "uninitialized"))
		return "is uninitialized.";
	if (streq(s, "disabled"))
		return temporary_disable(i) ? "is temporarily disabled." : "is disabled.";
	if (streq(s, "offline"))
		return streq(strempty(i->next_state), "online") ? "is starting." : "is offline.";
	if (streq(s, "maintenance")) {
		if (streq(aux, "administrative_request"))
			return "was taken down for maintenace by an administrator.";
		if (streq(aux, "fault_threshold_reached"))
			return "is not running because a method failed repeatedly.";
		if (streq(aux, "method_failed"))
			return "is not running because a method failed.";
		if (streq(aux, "restarting_too_quickly"))
			return "was restarting too quickly.";
		if (streq(aux, "none"))
			return "is not running for an unknown reason.";
		return "requires maintenance.";
	}
	return "is in an invalid state.";
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
		if (x->causes[k] == cause)
			return x->next_hop[k];
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
		const inst_t *c = x->causes[k];
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
	const char *aux = strempty(i->aux);

	/* startd does not record the method's wait status, so the generic sentence is used. */
	if (streq(aux, "administrative_request")) {
		puts("Reason: Maintenance requested by an administrator.");
		see(e, "SMF-8000-63");
	} else if (streq(aux, "fault_threshold_reached")) {
		puts("Reason: Method failed repeatedly.");
		see(e, "SMF-8000-8Q");
	} else if (streq(aux, "method_failed")) {
		puts("Reason: Method failed.");
		see(e, "SMF-8000-8Q");
	} else if (streq(aux, "restarting_too_quickly")) {
		puts("Reason: Restarting too quickly.");
		see(e, "SMF-8000-L5");
	} else if (streq(aux, "none")) {
		printf("Reason: Restarter %s gave no explanation.\n",
		        i->restarter ? i->restarter : SVCS_DEFAULT_RESTARTER);
		see(e, "SMF-8000-9C");
	} else {
		puts("Reason: Unknown.");
		see(e, "SMF-8000-AR");
	}
}

static void reasons(explainer_t *e, const inst_t *i, bool verbose)
{
	const char *s = strempty(i->state);
	const char *rst = i->restarter ? i->restarter : SVCS_DEFAULT_RESTARTER;

	if (streq(s, "online"))
		return;
	if (!i->has_rpg || streq(s, "uninitialized")) {
		if (e->restarter_attached) {
			printf("Reason: Restarter %s has not initialized service state.\n", rst);
			see(e, "SMF-8000-4D");
		} else {
			printf("Reason: Restarter %s is not running.\n", rst);
			see(e, "SMF-8000-5H");
		}
	} else if (streq(s, "disabled")) {
		if (temporary_disable(i)) {
			puts("Reason: Temporarily disabled by an administrator.");
			see(e, "SMF-8000-1S");
		} else {
			puts("Reason: Disabled by an administrator.");
			see(e, "SMF-8000-05");
		}
	} else if (streq(s, "maintenance")) {
		maintenance_reason(e, i);
	} else if (streq(s, "offline")) {
		const char *ns = strempty(i->next_state);

		if (streq(ns, "online")) {
			puts("Reason: Start method is running.");
			see(e, "SMF-8000-C4");
		} else if (streq(ns, "none") || !*ns) {
			dependency_reasons(e, i, verbose);
		} else {
			printf("Reason: Transitioning to state %s.\n", ns);
			see(e, "SMF-8000-PH");
		}
	} else if (streq(s, "degraded")) {
		puts("Reason: Degraded by an administrator.");
		see(e, "SMF-8000-DX");
	} else {
		printf("Reason: Not in valid state (%s).\n", s);
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
		if (man && title && section && !verbose)
			printf("   See: %s(%s)\n", title, section);
		else if (man && title && section && path)
			printf("   See: man -M %s -s %s %s\n",
			        streq(path, ":default") ? "/usr/share/man" : path, section, title);
		else if (!man && uri)
			printf("   See: %s\n", uri);
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
	char tbuf[128];

	if (!first)
		putchar('\n');
	(void)inst_load(e->h, &i, 1, LOAD_DESC);
	printf("%s (%s)\n", i->fmri, i->desc && *i->desc ? i->desc : "?");
	if (i->has_stime) {
		format_long_time(i->stime_sec, tbuf, sizeof(tbuf));
		printf(" State: %s since %s\n", i->has_rpg ? strempty(i->state) : "uninitialized",
		        tbuf);
	} else
		printf(" State: %s\n", i->has_rpg ? strempty(i->state) : "uninitialized");
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
	if (scf_pg_get(h, SVCS_DEFAULT_RESTARTER, "msg", NULL, SCF_READ_COMPOSED, &pg) < 0)
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
		free(e.x[k].next_hop);
		strv_free(e.x[k].baddeps);
	}
	free(e.x);
	return r;
}
