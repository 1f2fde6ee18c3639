/*
 * load.c: reading what svcs shows, in as few requests to configd as the protocol allows.
 *
 * A listing needs one to three pgs per instance, so `svcs -a` over 10,000 instances was
 * 10,000+ round trips.  Every read here is a bulk read (scf_bulk_read()): the set of every
 * instance comes with the pgs the mode needs in one request (one page per few thousand
 * instances), and the instances selected later are read in one request for all of them.
 * Each inst_t keeps which pgs it has (loaded), so nothing is read twice.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-quote.h"
#include "macro.h"
#include "strv.h"
#include "svcs.h"

int inst_init(inst_t *i, const char *fmri)
{
	scf_fmri_t f = {0};
	int r;

	*i = (inst_t){.enabled_perm = -1, .enabled_ovr = -1};
	r = scf_fmri_parse(fmri, &f);
	if (r < 0)
		return r;
	i->fmri = strdup(fmri);
	i->svc = TAKE_PTR(f.service);
	i->inst = TAKE_PTR(f.instance);
	scf_fmri_clear(&f);
	if (!i->fmri || !i->svc || !i->inst)
		return -SCF_ERROR_NO_MEMORY;
	return 0;
}

static void dep_done(dep_t *d)
{
	free(d->name);
	free(d->grouping);
	free(d->restart_on);
	strv_free(d->entities);
}

void inst_done(inst_t *i)
{
	free(i->fmri);
	free(i->svc);
	free(i->inst);
	free(i->state);
	free(i->next_state);
	free(i->aux);
	free(i->logfile);
	free(i->restarter);
	free(i->desc);
	for (size_t k = 0; k < i->n_deps; k++)
		dep_done(&i->deps[k]);
	free(i->deps);
}

/*
 * A string property's first value, for display: its control characters escaped (cli_display()),
 * which changes no value svcs compares (states, FMRIs); NULL when missing or not a string.
 */
static char *pg_string(const scf_pg_t *pg, const char *name)
{
	const scf_property_t *p = scf_pg_property(pg, name);
	const char *s;

	if (!p || scf_property_get_string(p, &s) < 0)
		return NULL;
	return cli_display(s);
}

static int pg_bool(const scf_pg_t *pg, const char *name)
{
	const scf_property_t *p = scf_pg_property(pg, name);
	bool b;

	if (!p || scf_property_get_boolean(p, &b) < 0)
		return -1;
	return b;
}

/* state_timestamp is a time: "seconds[.fraction]". */
static void parse_stime(inst_t *i, const scf_pg_t *pg)
{
	const scf_property_t *p = scf_pg_property(pg, SCF_PROPERTY_STATE_TIMESTAMP);
	char *end;
	long long sec;

	if (!p || p->n_values < 1)
		return;
	errno = 0;
	sec = strtoll(p->values[0], &end, 10);
	if (errno != 0 || end == p->values[0])
		return;
	i->has_stime = true;
	i->stime_sec = sec;
	if (*end == '.') {
		char frac[7] = "000000";
		size_t k = strlen(end + 1);

		memcpy(frac, end + 1, k < 6 ? k : 6);
		i->stime_usec = (int32_t)strtol(frac, NULL, 10);
	}
}

static void fill_restarter(inst_t *i, const scf_pg_t *pg)
{
	const scf_property_t *p;
	uint64_t c;

	i->has_rpg = true;
	i->state = pg_string(pg, SCF_PROPERTY_STATE);
	i->next_state = pg_string(pg, SCF_PROPERTY_NEXT_STATE);
	i->st = restarter_state_from_string(i->state);
	i->next_st = restarter_state_from_string(i->next_state);
	i->aux = pg_string(pg, SCF_PROPERTY_AUX_STATE);
	i->logfile = pg_string(pg, SCF_PROPERTY_LOGFILE);
	parse_stime(i, pg);
	p = scf_pg_property(pg, SCF_PROPERTY_CONTRACT);
	if (p && scf_property_get_count(p, &c) >= 0)
		i->contract = (int64_t)c;
}

static void fill_desc(inst_t *i, const scf_pg_t *pg)
{
	const scf_property_t *p = scf_pg_property(pg, "C");
	_cleanup_free_ char *one = NULL;
	const char *s;

	if (!p || scf_property_get_string(p, &s) < 0 || !(one = strdup(s)))
		return;
	/* A multi-line name is shown on one line, as illumos does; other controls as escapes. */
	for (char *c = one; *c; c++)
		if (*c == '\n')
			*c = ' ';
	i->desc = cli_display(one);
}

static int dep_from_pg(const scf_pg_t *pg, dep_t *d)
{
	const scf_property_t *p = scf_pg_property(pg, SCF_PROPERTY_ENTITIES);

	*d = (dep_t){0};
	d->name = strdup(pg->name);
	d->grouping = pg_string(pg, SCF_PROPERTY_GROUPING);
	d->restart_on = pg_string(pg, SCF_PROPERTY_RESTART_ON);
	d->entities = strv_new_empty();
	if (!d->name || !d->entities)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t k = 0; p && k < p->n_values; k++) {
		_cleanup_free_ char *e = cli_display(p->values[k]);

		if (!e || strv_extend(&d->entities, e) < 0)
			return -SCF_ERROR_NO_MEMORY;
	}
	return 0;
}

/*
 * The reads of each LOAD_* flag: the pgs svcs shows, as illumos reads them (the restarter pg,
 * general composed and general_ovr, tm_common_name composed, and the dependency pgs as startd
 * reads them: every pg of type dependency, current view, composed).  LOAD_FILTER reads what
 * LOAD_GENERAL reads: in one bulk read, general_ovr of every instance costs less than a second
 * pass over those whose general/enabled is not true.
 */
enum { Q_RESTARTER, Q_GENERAL, Q_GENERAL_OVR, Q_DESC, Q_DEPS, _Q_MAX };

static const scf_bulk_pg_t all_queries[_Q_MAX] = {
        [Q_RESTARTER] = {.name = SCF_PG_RESTARTER},
        [Q_GENERAL] = {.name = SCF_PG_GENERAL, .read_flags = SCF_READ_COMPOSED},
        [Q_GENERAL_OVR] = {.name = SCF_PG_GENERAL_OVR},
        [Q_DESC] = {.name = "tm_common_name", .read_flags = SCF_READ_COMPOSED},
        [Q_DEPS] = {.type = SCF_GROUP_DEPENDENCY, .read_flags = SCF_READ_COMPOSED},
};

/* What a LOAD_* set reads: what[k] is the flag that query k serves. */
typedef struct plan {
	scf_bulk_pg_t q[_Q_MAX];
	unsigned q_of[_Q_MAX]; /* the Q_* of each query */
	size_t n;
} plan_t;

/* LOAD_FILTER is read as LOAD_GENERAL. */
static unsigned normalize(unsigned what)
{
	return (what & LOAD_FILTER) ? (what | LOAD_GENERAL) & ~LOAD_FILTER : what;
}

static void plan_init(plan_t *p, unsigned what)
{
	static const unsigned load_of[_Q_MAX] = {
	        [Q_RESTARTER] = LOAD_RESTARTER,
	        [Q_GENERAL] = LOAD_GENERAL,
	        [Q_GENERAL_OVR] = LOAD_GENERAL,
	        [Q_DESC] = LOAD_DESC,
	        [Q_DEPS] = LOAD_DEPS,
	};

	what = normalize(what);
	p->n = 0;
	for (unsigned k = 0; k < _Q_MAX; k++)
		if (what & load_of[k]) {
			p->q_of[p->n] = k;
			p->q[p->n++] = all_queries[k];
		}
}

/* Fills what i has not loaded yet of todo (normalized) from an entity's answer. */
static int fill(inst_t *i, const plan_t *p, const scf_bulk_entity_t *e, unsigned todo)
{
	size_t cap = 0;
	int r = 0;

	for (size_t k = 0; k < e->n_pgs && r >= 0; k++) {
		const scf_pg_t *pg = &e->pgs[k];

		switch (p->q_of[e->which[k]]) {
		case Q_RESTARTER:
			if (todo & LOAD_RESTARTER)
				fill_restarter(i, pg);
			break;
		case Q_GENERAL:
			if (todo & LOAD_GENERAL) {
				i->enabled_perm = pg_bool(pg, SCF_PROPERTY_ENABLED);
				i->restarter = pg_string(pg, SCF_PROPERTY_RESTARTER);
			}
			break;
		case Q_GENERAL_OVR:
			if (todo & LOAD_GENERAL)
				i->enabled_ovr = pg_bool(pg, SCF_PROPERTY_ENABLED);
			break;
		case Q_DESC:
			if (todo & LOAD_DESC)
				fill_desc(i, pg);
			break;
		case Q_DEPS:
			if (!(todo & LOAD_DEPS))
				break;
			assert(i->n_deps == 0 || i->deps);
			if (GREEDY_REALLOC(i->deps, cap, i->n_deps + 1) < 0)
				r = -SCF_ERROR_NO_MEMORY;
			else
				r = dep_from_pg(pg, &i->deps[i->n_deps++]);
			break;
		}
	}
	/* general read: LOAD_FILTER is answered too */
	i->loaded |= todo | ((todo & LOAD_GENERAL) ? LOAD_FILTER : 0);
	return r;
}

/* inst_load(): the instances answered in the order listed. */
typedef struct listed {
	inst_t **v;
	size_t n, next;
	const plan_t *plan;
	unsigned what;
} listed_t;

static int listed_one(const scf_bulk_entity_t *e, void *userdata)
{
	listed_t *l = userdata;
	inst_t *i;

	assert(l->next < l->n);
	i = l->v[l->next++];
	/* Gone meanwhile: nothing to show, as a read that finds nothing. */
	return e->error ? 0 : fill(i, l->plan, e, normalize(l->what) & ~i->loaded);
}

int inst_load(scf_handle_t *h, inst_t **v, size_t n, unsigned what)
{
	_cleanup_free_ const char **fmris = NULL;
	_cleanup_free_ inst_t **todo = NULL;
	unsigned need = 0;
	size_t m = 0;
	plan_t plan;

	fmris = calloc(n ? n : 1, sizeof(char *));
	todo = calloc(n ? n : 1, sizeof(inst_t *));
	if (!fmris || !todo)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t k = 0; k < n; k++) {
		unsigned t = normalize(what) & ~v[k]->loaded;

		if (!t)
			continue;
		need |= t;
		todo[m] = v[k];
		fmris[m++] = v[k]->fmri;
	}
	if (m == 0)
		return 0;
	plan_init(&plan, need);
	return scf_bulk_read(h,
	        &(scf_bulk_query_t){.fmris = fmris, .n_fmris = m, .pgs = plan.q, .n_pgs = plan.n},
	        listed_one, &(listed_t){.v = todo, .n = m, .plan = &plan, .what = what});
}

bool inst_enabled(const inst_t *i)
{
	if (i->enabled_ovr >= 0)
		return i->enabled_ovr;
	return i->enabled_perm > 0;
}

bool inst_listed_by_default(const inst_t *i)
{
	return i->enabled_perm == 1 || i->enabled_ovr == 1;
}

static int inst_cmp_fmri(const void *a, const void *b)
{
	return strcmp(((const inst_t *)a)->fmri, ((const inst_t *)b)->fmri);
}

/* instset_init(): every instance, in FMRI order, each filled as it comes. */
typedef struct all {
	instset_t *s;
	size_t cap;
	const plan_t *plan;
	unsigned what;
} all_t;

static int all_one(const scf_bulk_entity_t *e, void *userdata)
{
	all_t *a = userdata;
	inst_t *i;
	int r;

	if (e->error)
		return 0;
	if (GREEDY_REALLOC(a->s->v, a->cap, a->s->n + 1) < 0)
		return -SCF_ERROR_NO_MEMORY;
	i = &a->s->v[a->s->n];
	r = inst_init(i, e->fmri);
	if (r < 0) {
		inst_done(i);
		return r == -SCF_ERROR_NO_MEMORY ? r : 0;
	}
	a->s->n++;
	return fill(i, a->plan, e, normalize(a->what));
}

int instset_init(instset_t *s, scf_handle_t *h, unsigned what)
{
	plan_t plan;
	all_t a = {.s = s, .what = what, .plan = &plan};
	int r;

	*s = (instset_t){.h = h};
	plan_init(&plan, what);
	r = scf_bulk_read(h, &(scf_bulk_query_t){.pgs = plan.q, .n_pgs = plan.n}, all_one, &a);
	if (r < 0) {
		instset_done(s);
		return r;
	}
	/* configd answers sorted already (checked: bsearch depends on it). */
	for (size_t k = 1; k < s->n; k++)
		if (inst_cmp_fmri(&s->v[k - 1], &s->v[k]) > 0) {
			qsort(s->v, s->n, sizeof(inst_t), inst_cmp_fmri);
			break;
		}
	return 0;
}

void instset_done(instset_t *s)
{
	for (size_t k = 0; k < s->n; k++)
		inst_done(&s->v[k]);
	free(s->v);
	*s = (instset_t){0};
}

/* instset_load(): every instance again, matched to the set by FMRI (both sorted). */
typedef struct again {
	instset_t *s;
	size_t next;
	const plan_t *plan;
	unsigned what;
} again_t;

static int again_one(const scf_bulk_entity_t *e, void *userdata)
{
	again_t *a = userdata;
	inst_t *i;

	while (a->next < a->s->n && strcmp(a->s->v[a->next].fmri, e->fmri) < 0)
		a->next++;
	if (a->next == a->s->n || !streq(a->s->v[a->next].fmri, e->fmri))
		return 0; /* created since the set was made: not part of it */
	i = &a->s->v[a->next++];
	return fill(i, a->plan, e, normalize(a->what) & ~i->loaded);
}

int instset_load(instset_t *s, unsigned what)
{
	plan_t plan;
	unsigned need = 0;

	for (size_t k = 0; k < s->n; k++)
		need |= normalize(what) & ~s->v[k].loaded;
	if (!need)
		return 0;
	plan_init(&plan, need);
	return scf_bulk_read(s->h, &(scf_bulk_query_t){.pgs = plan.q, .n_pgs = plan.n}, again_one,
	        &(again_t){.s = s, .plan = &plan, .what = what});
}

inst_t *instset_find(const instset_t *s, const char *fmri)
{
	inst_t key = {.fmri = (char *)fmri};

	return bsearch(&key, s->v, s->n, sizeof(inst_t), inst_cmp_fmri);
}

size_t instset_entity(const instset_t *s, const char *entity, inst_t **first)
{
	_cleanup_free_ char *canon = NULL;
	size_t lo = 0, hi = s->n, len, k;

	*first = NULL;
	if (restarter_file_dep_path(entity) || scf_fmri_canonicalize(entity, &canon) < 0)
		return 0;
	*first = instset_find(s, canon);
	if (*first)
		return 1;
	/* A service: its instances are "<canon>:..." and sort together, from the lower bound. */
	len = strlen(canon);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(s->v[mid].fmri, canon, len);

		if (c < 0 || (c == 0 && s->v[mid].fmri[len] < ':'))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < s->n && strneq(s->v[k].fmri, canon, len) && s->v[k].fmri[len] == ':'; k++)
		;
	*first = k > lo ? &s->v[lo] : NULL;
	return k - lo;
}

static const char *file_state(const char *path)
{
	if (access(path, F_OK) == 0)
		return restarter_state_to_string(RESTARTER_STATE_ONLINE);
	return errno == ENOENT ? "absent" : "unknown";
}

static const char *loaded_state(const instset_t *s, inst_t *i)
{
	if (inst_load(s->h, &i, 1, LOAD_RESTARTER) < 0 || !i->state)
		return "-";
	return i->state;
}

const char *instset_dep_state(const instset_t *s, const char *entity, char *buf, size_t sz)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};
	const char *path = restarter_file_dep_path(entity);
	inst_t *first;
	size_t n;

	if (path)
		return file_state(path);
	if (scf_fmri_parse(entity, &f) < 0 || !f.service || f.pg)
		return "invalid";
	n = instset_entity(s, entity, &first);
	if (f.instance)
		return n == 1 ? loaded_state(s, first) : "absent";
	/* A service: the state of its only instance, else "multiple" (or "absent"). */
	if (n > 1)
		return "multiple";
	snprintf(buf, sz, "%s", n == 1 ? loaded_state(s, first) : "absent");
	return buf;
}
