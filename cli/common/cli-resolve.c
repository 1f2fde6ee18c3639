/*
 * cli-resolve.c: illumos' scf_walk_fmri() over libscf's listings (see cli-resolve.h).
 *
 * Round trips: whether the operands that could name an entity exist is one bulk read
 * (scf_bulk_read() of the entities alone) when there are several, the patterns are matched
 * against two listings (services, instances), and a service operand that stands for its
 * instances lists them: a walk costs a few requests, not one per operand.
 */
#include <assert.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-resolve.h"
#include "hashmap.h"
#include "macro.h"
#include "strv.h"

typedef enum pattern_type {
	PATTERN_INVALID = 0, /* too long: reported, then ignored */
	PATTERN_EXACT,
	PATTERN_GLOB,
	PATTERN_PARTIAL,
} pattern_type_t;

/* One matched thing, shared by every operand that matched it. */
typedef struct match_key {
	const char *fmri; /* the table's copy */
	char *entity;
	char *pg, *prop;
	bool instance;
	bool seen;
} match_key_t;

typedef struct pattern {
	pattern_type_t type;
	char *arg;             /* as given; a glob rewritten with "svc:/" in front */
	match_key_t **matches; /* in discovery order: illumos' list is this one reversed */
	size_t n, cap;
} pattern_t;

typedef struct walk {
	scf_handle_t *h;
	unsigned flags;
	hashmap_t *keys;
	pattern_t *pats;
	size_t npats;
	hashmap_t *known; /* canonical entity FMRI -> KNOWN_*: the operands, read in bulk */
} walk_t;

enum { KNOWN_ABSENT = 1, KNOWN_EXISTS = 2 };

bool cli_fmri_is_instance(const char *fmri)
{
	const char *p = strstr(fmri, ":/");

	return p && strchr(p + 2, ':');
}

static void key_free(match_key_t *k)
{
	free(k->entity);
	free(k->pg);
	free(k->prop);
	free(k);
}

static int get_key(walk_t *w, const char *fmri, const scf_fmri_t *f, match_key_t **ret)
{
	match_key_t *k = hashmap_get(w->keys, fmri);
	int r;

	if (k) {
		*ret = k;
		return 0;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -SCF_ERROR_NO_MEMORY;
	if (f && f->pg) {
		r = scf_fmri_format_entity(f->service, f->instance, &k->entity);
		if (r < 0) {
			key_free(k);
			return r;
		}
		k->pg = strdup(f->pg);
		k->prop = f->prop ? strdup(f->prop) : NULL;
		k->instance = f->instance != NULL;
	} else {
		k->entity = strdup(fmri);
		k->instance = cli_fmri_is_instance(fmri);
	}
	if (!k->entity || (f && f->pg && !k->pg) || (f && f->prop && !k->prop) ||
	        hashmap_put(w->keys, fmri, k) < 0) {
		key_free(k);
		return -SCF_ERROR_NO_MEMORY;
	}
	k->fmri = hashmap_key(w->keys, fmri);
	*ret = k;
	return 0;
}

/* "svc:/a" is the service of "svc:/a:i". */
static bool service_of(const char *svc, const char *fmri)
{
	size_t len = strlen(svc);

	return strneq(svc, fmri, len) && fmri[len] == ':';
}

/* illumos' scf_add_match(). */
static int add_match(walk_t *w, pattern_t *p, const char *fmri, const scf_fmri_t *f)
{
	match_key_t *k;
	size_t j = 0;
	int r;

	if (w->flags & CLI_WALK_EXPLICIT) {
		/* An instance replaces the match of its service. */
		for (size_t i = 0; i < p->n; i++)
			if (!service_of(p->matches[i]->fmri, fmri))
				p->matches[j++] = p->matches[i];
		p->n = j;
	} else {
		/* A matched service stands for its instances. */
		for (size_t i = 0; i < p->n; i++)
			if (service_of(p->matches[i]->fmri, fmri))
				return 0;
	}
	r = get_key(w, fmri, f, &k);
	if (r < 0)
		return r;
	if (GREEDY_REALLOC(p->matches, p->cap, p->n + 1) < 0)
		return -SCF_ERROR_NO_MEMORY;
	p->matches[p->n++] = k;
	return 0;
}

/* illumos' scf_cmp_pattern(). */
static bool cmp_pattern(const char *fmri, const pattern_t *p)
{
	const char *t;

	if (p->type == PATTERN_GLOB)
		return fnmatch(p->arg, fmri, 0) == 0;
	if (p->type != PATTERN_PARTIAL || !(t = strstr(fmri, p->arg)))
		return false;
	/* Only the first occurrence counts, as in illumos. */
	if (t != fmri && t[-1] != '/' && t[-1] != ':' && t[0] != ':')
		return false;
	t += strlen(p->arg);
	if (*t != '\0' && t[0] != ':' && t[-1] != ':')
		return false;
	/* A pattern that only covers "svc:/" names nothing. */
	return t > fmri + 4;
}

static int match_all(walk_t *w, const char *fmri)
{
	int r;

	for (size_t i = 0; i < w->npats; i++)
		if (cmp_pattern(fmri, &w->pats[i]) &&
		        (r = add_match(w, &w->pats[i], fmri, NULL)) < 0)
			return r;
	return 0;
}

/* 1 if entity (canonical) exists, 0 if not, < 0 on a libscf error that ends the walk. */
static int exists(walk_t *w, const char *fmri)
{
	uintptr_t known = (uintptr_t)hashmap_get(w->known, fmri);
	int r;

	if (known)
		return known == KNOWN_EXISTS;
	r = scf_entity_exists(w->h, fmri);

	if (r == -SCF_ERROR_INVALID_ARGUMENT || r == -SCF_ERROR_CONSTRAINT_VIOLATED ||
	        r == -SCF_ERROR_NOT_FOUND)
		return 0;
	return r;
}

/* An existing pg, or property of it (current view of its entity). */
static int pg_exists(walk_t *w, const scf_fmri_t *f)
{
	_cleanup_free_ char *entity = NULL;
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	int r;

	r = scf_fmri_format_entity(f->service, f->instance, &entity);
	if (r < 0)
		return r;
	r = scf_pg_get(w->h, entity, f->pg, NULL, 0, &pg);
	if (r == -SCF_ERROR_NOT_FOUND || r == -SCF_ERROR_INVALID_ARGUMENT ||
	        r == -SCF_ERROR_CONSTRAINT_VIOLATED)
		return 0;
	if (r < 0)
		return r;
	return !f->prop || scf_pg_property(pg, f->prop);
}

/*
 * The first pass over one operand: 1 when it named an existing entity (matches added), 0 when
 * it is a pattern for the second pass, < 0 on an error that ends the walk.
 */
static int classify_exact(walk_t *w, pattern_t *p, const char *arg)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};
	_cleanup_strv_free_ char **insts = NULL;
	_cleanup_free_ char *canon = NULL;
	int r;

	if (scf_fmri_parse(arg, &f) < 0 || scf_fmri_format(&f, &canon) < 0)
		return 0;
	if (f.pg) {
		if (!(w->flags & CLI_WALK_PROPERTY))
			return 0;
		r = pg_exists(w, &f);
		if (r <= 0)
			return r;
		return add_match(w, p, canon, &f) < 0 ? -SCF_ERROR_NO_MEMORY : 1;
	}
	if (f.instance && (w->flags & CLI_WALK_NOINSTANCE))
		return 0;
	r = exists(w, canon);
	if (r <= 0)
		return r;
	if (f.instance || (w->flags & CLI_WALK_SERVICE))
		return (r = add_match(w, p, canon, NULL)) < 0 ? r : 1;
	if (w->flags & CLI_WALK_NOINSTANCE)
		return 0;
	r = scf_instance_list(w->h, canon, &insts);
	if (r == -SCF_ERROR_NOT_FOUND)
		return 1; /* deleted meanwhile: no instances */
	if (r < 0)
		return r;
	STRV_FOREACH (i, insts)
		if ((r = add_match(w, p, *i, NULL)) < 0)
			return r;
	return 1;
}

static int known_one(const scf_bulk_entity_t *e, void *userdata)
{
	walk_t *w = userdata;

	if (e->error == -SCF_ERROR_INVALID_ARGUMENT)
		return 0;
	return hashmap_put(w->known, e->fmri,
	               (void *)(uintptr_t)(e->error ? KNOWN_ABSENT : KNOWN_EXISTS)) < 0
	        ? -SCF_ERROR_NO_MEMORY
	        : 0;
}

/*
 * Whether the operands that may name an entity exist, in one bulk read instead of one request
 * per operand (svcadm enable of 1,000 FMRIs).  What is not known here is asked one by one.
 */
static int learn_operands(walk_t *w, int argc, char *const *argv)
{
	_cleanup_free_ const char **l = calloc((size_t)argc + 1, sizeof(char *));
	size_t n = 0;

	w->known = hashmap_new();
	if (!l || !w->known)
		return -SCF_ERROR_NO_MEMORY;
	for (int i = 0; i < argc; i++)
		if (strlen(argv[i]) <= SCF_LIMIT_MAX_FMRI_LENGTH && !strpbrk(argv[i], "*?[") &&
		        !strstr(argv[i], "/:properties"))
			l[n++] = argv[i];
	if (n < 2)
		return 0; /* one question costs one request either way */
	return scf_bulk_read(w->h, &(scf_bulk_query_t){.fmris = l, .n_fmris = n}, known_one, w);
}

static int classify(walk_t *w, pattern_t *p, const char *arg, bool *search)
{
	int r;

	r = classify_exact(w, p, arg);
	if (r < 0)
		return r;
	if (r > 0) {
		p->type = PATTERN_EXACT;
		p->arg = strdup(arg);
		return p->arg ? 0 : -SCF_ERROR_NO_MEMORY;
	}
	*search = true;
	if (strpbrk(arg, "*?[")) {
		p->type = PATTERN_GLOB;
		if (arg[0] == '*' || (strlen(arg) >= 4 && arg[3] == ':'))
			p->arg = strdup(arg);
		else if (asprintf(&p->arg, "svc:/%s", arg) < 0)
			p->arg = NULL;
	} else {
		p->type = PATTERN_PARTIAL;
		p->arg = strdup(arg);
	}
	return p->arg ? 0 : -SCF_ERROR_NO_MEMORY;
}

/* strcmp() of the service part of an instance FMRI (up to its last ':') with a service FMRI. */
static int cmp_service_part(const char *inst, const char *svc)
{
	size_t li = (size_t)(strrchr(inst, ':') - inst), ls = strlen(svc);
	int c = strncmp(inst, svc, li < ls ? li : ls);

	return c ? c : (li > ls) - (li < ls);
}

int cli_instance_cmp_discovery(const char *x, const char *y)
{
	size_t lx = (size_t)(strrchr(x, ':') - x), ly = (size_t)(strrchr(y, ':') - y);
	int c = strncmp(x, y, lx < ly ? lx : ly);

	/* Services in sorted order, so "svc:/a:x" < "svc:/a-b:x" although ':' > '-'. */
	if (c == 0 && lx != ly)
		return lx < ly ? -1 : 1;
	return c ? c : strcmp(x + lx, y + ly);
}

/* An instance of the repository's listing, and its place in it. */
typedef struct inst_ref {
	const char *fmri;
	size_t idx;
} inst_ref_t;

/* By service, then in the listing's order within a service. */
static int cmp_by_service(const void *a, const void *b)
{
	const inst_ref_t *x = a, *y = b;
	size_t lx = (size_t)(strrchr(x->fmri, ':') - x->fmri);
	size_t ly = (size_t)(strrchr(y->fmri, ':') - y->fmri);
	int c = strncmp(x->fmri, y->fmri, lx < ly ? lx : ly);

	if (c == 0 && lx != ly)
		return lx < ly ? -1 : 1;
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

typedef int (*visit_fn)(walk_t *w, const char *fmri, void *userdata);

/*
 * Every service (with SERVICE) and instance, in discovery order: the repository's order (of
 * creation, as illumos' backend), each service followed by its instances.  The instances come
 * in one listing; grouped by service (keeping their order), each service finds its own by a
 * binary search.
 */
static int discover(walk_t *w, visit_fn visit, void *userdata)
{
	_cleanup_strv_free_ char **svcs = NULL, **insts = NULL;
	_cleanup_free_ inst_ref_t *refs = NULL;
	size_t n = 0;
	int r;

	if ((r = scf_service_list(w->h, &svcs)) < 0)
		return r;
	if (!(w->flags & CLI_WALK_NOINSTANCE)) {
		if ((r = scf_instance_list(w->h, NULL, &insts)) < 0)
			return r;
		n = strv_length(insts);
		if (n > 0 && !(refs = calloc(n, sizeof(*refs))))
			return -SCF_ERROR_NO_MEMORY;
		for (size_t i = 0; i < n; i++)
			refs[i] = (inst_ref_t){.fmri = insts[i], .idx = i};
		qsort(refs, n, sizeof(*refs), cmp_by_service);
	}
	STRV_FOREACH (s, svcs) {
		size_t lo = 0, hi = n;

		if ((w->flags & CLI_WALK_SERVICE) && (r = visit(w, *s, userdata)) != 0)
			return r;
		/* The first instance of this service; instances of services not listed are skipped. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_service_part(refs[mid].fmri, *s) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && cmp_service_part(refs[lo].fmri, *s) == 0; lo++)
			if ((r = visit(w, refs[lo].fmri, userdata)) != 0)
				return r;
	}
	return 0;
}

static int visit_match(walk_t *w, const char *fmri, void *userdata)
{
	(void)userdata;
	return match_all(w, fmri);
}

typedef struct direct {
	cli_walk_fn fn;
	void *userdata;
} direct_t;

static int visit_direct(walk_t *w, const char *fmri, void *userdata)
{
	direct_t *d = userdata;
	cli_walk_info_t info = {
	        .fmri = fmri, .entity = fmri, .instance = cli_fmri_is_instance(fmri)};

	(void)w;
	return d->fn(d->userdata, &info);
}

/* "<what> '<arg>' matches multiple instances:" and the candidates in illumos' (reverse) order. */
static void report_multiple(const pattern_t *p, const char *what, cli_walk_errfn errfn, void *ud)
{
	_cleanup_free_ char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return;
	fprintf(f, "%s '%s' matches multiple instances:", what, p->arg);
	for (size_t i = p->n; i-- > 0;)
		fprintf(f, "\n\t%s", p->matches[i]->fmri);
	if (fclose(f) == 0)
		errfn(ud, buf);
}

static void report_no_match(unsigned flags, const char *arg, cli_walk_errfn errfn, void *ud)
{
	_cleanup_free_ char *msg = NULL;
	const char *what = "instances";
	int r;

	if (flags & CLI_WALK_PROPERTY)
		what = "entities";
	else if (flags & CLI_WALK_NOINSTANCE)
		what = "services";
	else if (flags & CLI_WALK_SERVICE)
		what = "instances or services";
	if (!(flags & CLI_WALK_LEGACY) && strneq(arg, "lrc:/", 5))
		r = asprintf(&msg, "Operation not supported for legacy service '%s'", arg);
	else
		r = asprintf(&msg, "Pattern '%s' doesn't match any %s", arg, what);
	if (r >= 0)
		errfn(ud, msg);
	else
		msg = NULL;
}

/* The checks after matching; leaves only the operands whose matches are to be walked. */
static void check_patterns(walk_t *w, cli_walk_errfn errfn, void *ud, int *err, size_t *count)
{
	*count = 0;
	for (size_t i = 0; i < w->npats; i++) {
		pattern_t *p = &w->pats[i];

		if (p->type == PATTERN_INVALID)
			continue;
		if (p->n == 0) {
			report_no_match(w->flags, p->arg, errfn, ud);
			*err = 1;
		} else if (p->n > 1 && !(w->flags & CLI_WALK_MULTIPLE)) {
			report_multiple(p, "Pattern", errfn, ud);
			*err = 1;
			p->n = 0;
		} else if (p->n > 1 && (w->flags & CLI_WALK_UNIPARTIAL) &&
		        p->type == PATTERN_PARTIAL) {
			report_multiple(p, "Partial FMRI", errfn, ud);
			*err = 1;
			p->n = 0;
		} else {
			for (size_t j = 0; j < p->n; j++) {
				if (!p->matches[j]->seen)
					(*count)++;
				p->matches[j]->seen = true;
			}
		}
	}
	for (size_t i = 0; i < w->npats; i++)
		for (size_t j = 0; j < w->pats[i].n; j++)
			w->pats[i].matches[j]->seen = false;
}

static int run_callbacks(walk_t *w, size_t count, cli_walk_fn fn, void *ud)
{
	int r;

	for (size_t i = 0; i < w->npats; i++) {
		pattern_t *p = &w->pats[i];

		for (size_t j = p->n; j-- > 0;) {
			match_key_t *k = p->matches[j];
			cli_walk_info_t info = {.fmri = k->fmri,
			        .entity = k->entity,
			        .instance = k->instance,
			        .pg = k->pg,
			        .prop = k->prop,
			        .count = count};

			if (k->seen)
				continue;
			k->seen = true;
			if ((r = fn(ud, &info)) != 0)
				return r;
		}
	}
	return 0;
}

static void walk_done(walk_t *w)
{
	size_t state = 0;
	match_key_t *k;

	for (size_t i = 0; i < w->npats; i++) {
		free(w->pats[i].arg);
		free(w->pats[i].matches);
	}
	free(w->pats);
	while ((k = hashmap_next(w->keys, &state, NULL)))
		key_free(k);
	hashmap_free(w->keys);
	hashmap_free(w->known);
}

int cli_walk(scf_handle_t *h, int argc, char *const *argv, unsigned flags, cli_walk_fn fn,
        cli_walk_errfn errfn, void *userdata, int *err)
{
	walk_t w = {.h = h, .flags = flags, .npats = argc > 0 ? (size_t)argc : 0};
	bool search = false;
	size_t count = 0;
	int r = 0;

	assert(!(flags & CLI_WALK_EXPLICIT) || (flags & CLI_WALK_SERVICE));
	assert(!(flags & CLI_WALK_NOINSTANCE) || (flags & CLI_WALK_SERVICE));
	if (argc == 0) {
		direct_t d = {.fn = fn, .userdata = userdata};

		return discover(&w, visit_direct, &d);
	}
	w.keys = hashmap_new();
	w.pats = calloc(w.npats, sizeof(pattern_t));
	if (!w.keys || !w.pats) {
		walk_done(&w);
		return -SCF_ERROR_NO_MEMORY;
	}
	r = learn_operands(&w, argc, argv);
	if (r == -SCF_ERROR_NO_MEMORY) {
		walk_done(&w);
		return r;
	}
	r = 0; /* a failed bulk read leaves each operand to be asked alone */
	for (size_t i = 0; r >= 0 && i < w.npats; i++) {
		_cleanup_free_ char *msg = NULL;

		if (strlen(argv[i]) > SCF_LIMIT_MAX_FMRI_LENGTH) {
			if (asprintf(&msg, "Argument '%s' is too long, ignoring", argv[i]) >= 0)
				errfn(userdata, msg);
			else
				msg = NULL;
			*err = 1;
			continue;
		}
		r = classify(&w, &w.pats[i], argv[i], &search);
	}
	if (r >= 0 && search)
		r = discover(&w, visit_match, NULL);
	if (r >= 0) {
		check_patterns(&w, errfn, userdata, err, &count);
		r = run_callbacks(&w, count, fn, userdata);
	}
	walk_done(&w);
	return r;
}
