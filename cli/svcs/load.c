/*
 * load.c: reading what svcs shows, with as few waits on configd as the protocol allows.
 *
 * The protocol reads one pg per round trip, and a listing needs one or two pgs per instance,
 * so `svcs -a` over 10,000 instances is 10,000+ round trips.  Each round trip is mostly
 * waiting (the client for configd, configd for the client), so the reads are spread over a
 * few threads, each with its own handle (a handle is not thread-safe): configd's one thread
 * then always has a request queued, and the wall time approaches configd's own service time
 * instead of the sum of the round trips.  Threads take instances by an atomic index; each
 * inst_t is written by exactly one thread, so nothing else is shared.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "strv.h"
#include "svcs.h"

#define LOAD_THREADS_MAX 4
#define LOAD_PER_THREAD_MIN 64

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

/* A string property's first value, copied; NULL when missing or not a string. */
static char *pg_string(const scf_pg_t *pg, const char *name)
{
	const scf_property_t *p = scf_pg_property(pg, name);
	const char *s;

	if (!p || scf_property_get_string(p, &s) < 0)
		return NULL;
	return strdup(s);
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

/* Reads a pg; 0 and *ret NULL when it does not exist. */
static int get_pg(
        scf_handle_t *h, const char *fmri, const char *name, unsigned flags, scf_pg_t **ret)
{
	int r = scf_pg_get(h, fmri, name, NULL, flags, ret);

	if (r == -SCF_ERROR_NOT_FOUND) {
		*ret = NULL;
		return 0;
	}
	return r;
}

static int load_restarter(scf_handle_t *h, inst_t *i)
{
	const scf_property_t *p;
	scf_pg_t *pg;
	uint64_t c;
	int r;

	r = get_pg(h, i->fmri, SCF_PG_RESTARTER, 0, &pg);
	if (r < 0 || !pg)
		return r;
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
	scf_pg_free(pg);
	return 0;
}

/* filter_only: general_ovr is not needed when general/enabled is true already. */
static int load_general(scf_handle_t *h, inst_t *i, bool filter_only)
{
	scf_pg_t *pg;
	int r;

	r = get_pg(h, i->fmri, SCF_PG_GENERAL, SCF_READ_COMPOSED, &pg);
	if (r < 0)
		return r;
	if (pg) {
		i->enabled_perm = pg_bool(pg, SCF_PROPERTY_ENABLED);
		free(i->restarter); /* read before by a LOAD_FILTER */
		i->restarter = pg_string(pg, SCF_PROPERTY_RESTARTER);
		scf_pg_free(pg);
	}
	if (filter_only && i->enabled_perm == 1)
		return 0;
	r = get_pg(h, i->fmri, SCF_PG_GENERAL_OVR, 0, &pg);
	if (r < 0)
		return r;
	if (pg) {
		i->enabled_ovr = pg_bool(pg, SCF_PROPERTY_ENABLED);
		scf_pg_free(pg);
	}
	return 0;
}

static int load_desc(scf_handle_t *h, inst_t *i)
{
	scf_pg_t *pg;
	int r;

	r = get_pg(h, i->fmri, "tm_common_name", SCF_READ_COMPOSED, &pg);
	if (r < 0 || !pg)
		return r;
	i->desc = pg_string(pg, "C");
	scf_pg_free(pg);
	/* A multi-line name is shown on one line, as illumos does. */
	for (char *c = i->desc; c && *c; c++)
		if (*c == '\n')
			*c = ' ';
	return 0;
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
	for (size_t k = 0; p && k < p->n_values; k++)
		if (strv_extend(&d->entities, p->values[k]) < 0)
			return -SCF_ERROR_NO_MEMORY;
	return 0;
}

/* Dependencies as startd sees them: dependency-type pgs, current view, composed. */
static int load_deps(scf_handle_t *h, inst_t *i)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0, cap = 0;
	int r;

	assert(!i->deps && i->n_deps == 0); /* read once: LOAD_DEPS is then in i->loaded */
	r = scf_pg_list(h, i->fmri, NULL, SCF_READ_COMPOSED, &infos, &n);
	if (r == -SCF_ERROR_NOT_FOUND)
		return 0;
	if (r < 0)
		return r;
	for (size_t k = 0; k < n && r >= 0; k++) {
		scf_pg_t *pg;

		if (!streq(infos[k].type, SCF_GROUP_DEPENDENCY))
			continue;
		r = get_pg(h, i->fmri, infos[k].name, SCF_READ_COMPOSED, &pg);
		if (r < 0 || !pg)
			continue;
		if (GREEDY_REALLOC(i->deps, cap, i->n_deps + 1) < 0)
			r = -SCF_ERROR_NO_MEMORY;
		else
			r = dep_from_pg(pg, &i->deps[i->n_deps++]);
		scf_pg_free(pg);
	}
	scf_pg_info_free(infos, n);
	return r;
}

static int load_one(scf_handle_t *h, inst_t *i, unsigned what)
{
	unsigned todo = what & ~i->loaded;
	int r = 0;

	if (todo & LOAD_RESTARTER)
		r = load_restarter(h, i);
	if (r >= 0 && (todo & LOAD_GENERAL))
		r = load_general(h, i, false);
	else if (r >= 0 && (todo & LOAD_FILTER) && !(i->loaded & LOAD_GENERAL))
		r = load_general(h, i, true);
	if (r >= 0 && (todo & LOAD_DESC))
		r = load_desc(h, i);
	if (r >= 0 && (todo & LOAD_DEPS))
		r = load_deps(h, i);
	if (r >= 0)
		i->loaded |= todo;
	return r;
}

typedef struct loader {
	const char *root;
	inst_t **v;
	size_t n;
	unsigned what;
	atomic_size_t next;
	atomic_int error;
} loader_t;

static void loader_run(loader_t *l, scf_handle_t *h)
{
	size_t k;
	int r;

	while ((k = atomic_fetch_add(&l->next, 1)) < l->n && atomic_load(&l->error) == 0) {
		r = load_one(h, l->v[k], l->what);
		if (r < 0) {
			int zero = 0;
			atomic_compare_exchange_strong(&l->error, &zero, r);
		}
	}
}

static void *loader_thread(void *arg)
{
	loader_t *l = arg;
	scf_handle_t *h = NULL;
	int r, zero = 0;

	r = scf_handle_create(l->root, &h);
	if (r < 0) {
		atomic_compare_exchange_strong(&l->error, &zero, r);
		return NULL;
	}
	loader_run(l, h);
	scf_handle_destroy(h);
	return NULL;
}

int inst_load(scf_handle_t *h, inst_t **v, size_t n, unsigned what)
{
	loader_t l = {.root = scf_handle_root(h), .v = v, .n = n, .what = what};
	pthread_t tids[LOAD_THREADS_MAX];
	size_t nt = n / LOAD_PER_THREAD_MIN, started = 0;

	if (nt > LOAD_THREADS_MAX)
		nt = LOAD_THREADS_MAX;
	/* The calling thread works too, on its own handle. */
	for (size_t t = 1; t < nt; t++) {
		if (pthread_create(&tids[started], NULL, loader_thread, &l) != 0)
			break;
		started++;
	}
	loader_run(&l, h);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	return atomic_load(&l.error);
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

int instset_init(instset_t *s, scf_handle_t *h)
{
	char **l = NULL;
	size_t n;
	int r;

	*s = (instset_t){.h = h};
	r = scf_instance_list(h, NULL, &l);
	if (r < 0)
		return r;
	n = strv_length(l);
	s->v = calloc(n ? n : 1, sizeof(inst_t));
	if (!s->v) {
		strv_free(l);
		return -SCF_ERROR_NO_MEMORY;
	}
	for (size_t k = 0; k < n; k++) {
		r = inst_init(&s->v[s->n], l[k]);
		if (r < 0) {
			inst_done(&s->v[s->n]);
			continue;
		}
		s->n++;
	}
	strv_free(l);
	/* configd lists sorted already; sorting again keeps bsearch honest. */
	qsort(s->v, s->n, sizeof(inst_t), inst_cmp_fmri);
	return 0;
}

void instset_done(instset_t *s)
{
	for (size_t k = 0; k < s->n; k++)
		inst_done(&s->v[k]);
	free(s->v);
	*s = (instset_t){0};
}

int instset_load(instset_t *s, unsigned what)
{
	_cleanup_free_ inst_t **v = malloc((s->n ? s->n : 1) * sizeof(inst_t *));

	if (!v)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t k = 0; k < s->n; k++)
		v[k] = &s->v[k];
	return inst_load(s->h, v, s->n, what);
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
	if (load_one(s->h, i, LOAD_RESTARTER) < 0 || !i->state)
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
