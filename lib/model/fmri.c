/*
 * fmri.c: parsing, formatting and abbreviation matching of svc: FMRIs.
 *
 * THE MODEL
 *
 * An FMRI names one thing in the repository:
 *
 *     svc:[//scope]/service[:instance][/:properties/pg[/prop]]
 *
 * The service is a '/'-separated path of entity-name components ("network/ssh"), the instance
 * one entity name ("default"), pg and prop are pg/property names (see name.c for both rules).
 * There is one scope, "localhost"; "svc://localhost/x" and "svc:///x" are the same as "svc:/x".
 * As illumos' tools do, the "svc:" prefix and the leading '/' may be left out of a full name
 * ("network/ssh:default", "/network/ssh:default"): that is still a full name, not an
 * abbreviation.  The canonical form is the shortest one: "svc:/service[:instance]...".
 *
 * Parsing splits first, validates second: the instance is whatever follows the first ':'
 * before the "/:properties/" marker; pg and property follow the marker.  Entity names cannot
 * contain ':' or '/', so the split is unambiguous for every valid FMRI, and anything the split
 * gets wrong is then refused by the name rules.
 *
 * ABBREVIATIONS (scf_fmri_abbrev_match)
 *
 * The illumos rules (libscf's scf_walk_fmri), decided per entity FMRI:
 * - a pattern that is a full FMRI matches that entity, and a service FMRI also matches the
 *   service's instances;
 * - a pattern without glob characters matches when it occurs in the FMRI starting at a
 *   component boundary (the start, or after '/' or ':') and ending at the end of the service
 *   path or of the instance name: "smtp", "smtp:sendmail", "sendmail", "network/smtp",
 *   "svc:/network/smtp" all name svc:/network/smtp:sendmail; "tp", "work/smtp" do not;
 * - a pattern with glob characters ('*', '?', '[') is matched by fnmatch() against the whole
 *   FMRI, with "svc:/" put in front unless it starts with '*' or a scheme; so "network/<*>mail"
 *   (read <*> as a star: C comments cannot hold star-slash pairs) is tried as
 *   "svc:/network/<*>mail", where the star may span '/' and ':'.
 * On top of illumos, a glob pattern without a scheme also matches component by component
 * against a suffix of the service path (and the instance when it names one): "smtp:*" and
 * "s*:sendmail" then work as the partial rules suggest they should.
 *
 * Whether an abbreviation is ambiguous, and the illumos rule that a pattern which is the full
 * FMRI of an existing entity matches only that entity, depend on what exists: that is for the
 * resolver in libscf (scf_fmri_resolve), which calls this for each candidate.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libscf.h"
#include "macro.h"
#include "model.h"
#include "strv.h"

#define SVC_PREFIX "svc:"
#define PG_MARKER "/:properties/"
#define LOCAL_SCOPE "localhost"

static bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int strndup_to(const char *s, size_t n, char **ret)
{
	*ret = strndup(s, n);
	return *ret ? 0 : -SCF_ERROR_NO_MEMORY;
}

/* Skips "svc:", the scope and the leading '/'; returns the service's start or NULL if bad. */
static const char *skip_head(const char *s, bool *had_scope)
{
	const char *p = s;

	*had_scope = false;
	if (startswith(p, SVC_PREFIX))
		p += strlen(SVC_PREFIX);

	if (startswith(p, "//")) {
		const char *scope = p + 2, *slash = strchr(scope, '/');
		size_t n;

		if (!slash)
			return NULL; /* a scope and nothing in it */
		n = (size_t)(slash - scope);
		if (n != 0 && (n != strlen(LOCAL_SCOPE) || strncmp(scope, LOCAL_SCOPE, n) != 0))
			return NULL;
		*had_scope = true;
		return slash + 1;
	}

	if (*p == '/')
		p++;
	return p;
}

bool smf_fmri_canonical_form(const char *s)
{
	/* The service starts right after "svc:/", and formatting writes the parts back as split. */
	return s && startswith(s, SVC_PREFIX "/") && s[strlen(SVC_PREFIX) + 1] != '/';
}

int scf_fmri_parse(const char *s, scf_fmri_t *ret)
{
	_cleanup_free_ char *service = NULL, *instance = NULL, *pg = NULL, *prop = NULL;
	_cleanup_free_ char *scope = NULL;
	const char *p, *end, *marker, *colon, *svc_end;
	bool had_scope;
	int r;

	if (!s || !ret)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (strlen(s) > SCF_LIMIT_MAX_FMRI_LENGTH)
		return -SCF_ERROR_CONSTRAINT_VIOLATED;

	p = skip_head(s, &had_scope);
	if (!p || !*p)
		return -SCF_ERROR_INVALID_ARGUMENT;
	end = p + strlen(p);

	marker = strstr(p, PG_MARKER);
	colon = strchr(p, ':');
	if (colon && marker && colon > marker)
		colon = NULL; /* the ':' of the marker itself */
	svc_end = colon ? colon : marker ? marker : end;

	r = strndup_to(p, (size_t)(svc_end - p), &service);
	if (r < 0)
		return r;
	r = smf_service_name_validate(service);
	if (r < 0)
		return r;

	if (colon) {
		const char *inst_end = marker ? marker : end;
		r = smf_component_validate_n(colon + 1, (size_t)(inst_end - colon - 1));
		if (r < 0)
			return r;
		r = strndup_to(colon + 1, (size_t)(inst_end - colon - 1), &instance);
		if (r < 0)
			return r;
	}

	if (marker) {
		const char *pgs = marker + strlen(PG_MARKER), *slash = strchr(pgs, '/');
		const char *pg_end = slash ? slash : end;

		r = smf_name_validate_n(pgs, (size_t)(pg_end - pgs));
		if (r < 0)
			return r;
		r = strndup_to(pgs, (size_t)(pg_end - pgs), &pg);
		if (r < 0)
			return r;
		if (slash) {
			r = smf_name_validate_n(slash + 1, (size_t)(end - slash - 1));
			if (r < 0)
				return r;
			r = strndup_to(slash + 1, (size_t)(end - slash - 1), &prop);
			if (r < 0)
				return r;
		}
	}

	if (had_scope) {
		scope = strdup(LOCAL_SCOPE);
		if (!scope)
			return -SCF_ERROR_NO_MEMORY;
	}

	*ret = (scf_fmri_t){
	        .scope = TAKE_PTR(scope),
	        .service = TAKE_PTR(service),
	        .instance = TAKE_PTR(instance),
	        .pg = TAKE_PTR(pg),
	        .prop = TAKE_PTR(prop),
	};
	return 0;
}

void scf_fmri_clear(scf_fmri_t *f)
{
	if (!f)
		return;
	free(f->scope);
	free(f->service);
	free(f->instance);
	free(f->pg);
	free(f->prop);
	*f = (scf_fmri_t){0};
}

/* The one writer of FMRIs (libscf.h: callers never build one by hand). */
static int format(
        const char *service, const char *instance, const char *pg, const char *prop, char **ret)
{
	char *s;

	if (!ret || !service || !*service || (prop && !pg))
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (asprintf(&s, SVC_PREFIX "/%s%s%s%s%s%s%s", service, instance ? ":" : "",
	            strempty(instance), pg ? PG_MARKER : "", strempty(pg), prop ? "/" : "",
	            strempty(prop)) < 0)
		return -SCF_ERROR_NO_MEMORY;
	*ret = s;
	return 0;
}

int scf_fmri_format(const scf_fmri_t *f, char **ret)
{
	char *s;
	int r;

	if (!f || !ret)
		return -SCF_ERROR_INVALID_ARGUMENT;
	r = format(f->service, f->instance, f->pg, f->prop, &s);
	if (r < 0)
		return r;
	/* Canonical is not always shorter ("a" is "svc:/a"), and what configd stores must parse. */
	if (strlen(s) > SCF_LIMIT_MAX_FMRI_LENGTH) {
		free(s);
		return -SCF_ERROR_CONSTRAINT_VIOLATED;
	}
	*ret = s;
	return 0;
}

int scf_fmri_format_entity(const char *service, const char *instance, char **ret)
{
	return format(service, instance, NULL, NULL, ret);
}

int scf_fmri_canonicalize(const char *s, char **ret)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};
	int r;

	r = scf_fmri_parse(s, &f);
	if (r < 0)
		return r;
	return scf_fmri_format(&f, ret);
}

int smf_fmri_kind(const scf_fmri_t *f)
{
	if (!f || !f->service)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (f->prop)
		return SMF_FMRI_PROPERTY;
	if (f->pg)
		return SMF_FMRI_PG;
	if (f->instance)
		return SMF_FMRI_INSTANCE;
	return SMF_FMRI_SERVICE;
}

int smf_fmri_classify(const char *s, char **entity)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};
	int kind, r;

	r = scf_fmri_parse(s, &f);
	if (r < 0)
		return r;
	kind = smf_fmri_kind(&f);
	if (entity) {
		r = scf_fmri_format_entity(f.service, f.instance, entity);
		if (r < 0)
			return r;
	}
	return kind;
}

/* ---- abbreviations ------------------------------------------------------------------------ */

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The pattern is a full FMRI naming this entity, or the service of this instance. */
static bool exact_match(const char *pattern, const char *fmri)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};
	_cleanup_free_ char *canon = NULL;
	size_t n;

	if (scf_fmri_parse(pattern, &f) < 0 || f.pg)
		return false;
	if (scf_fmri_format(&f, &canon) < 0)
		return false;
	if (strcmp(canon, fmri) == 0)
		return true;
	n = strlen(canon);
	return !f.instance && strncmp(canon, fmri, n) == 0 && fmri[n] == ':';
}

/* illumos' partial rule, tried at every occurrence (illumos tries only the first). */
static bool partial_match(const char *pattern, const char *fmri)
{
	size_t plen = strlen(pattern), flen = strlen(fmri);

	for (const char *at = strstr(fmri, pattern); at; at = strstr(at + 1, pattern)) {
		const char *after = at + plen;
		bool start_ok = at == fmri || at[-1] == '/' || at[-1] == ':' || at[0] == ':';
		bool end_ok = after == fmri + flen || after[0] == ':' || after[-1] == ':';

		/* A pattern such as "svc" that only covers the scheme names nothing. */
		if (start_ok && end_ok && after > fmri + 4)
			return true;
	}
	return false;
}

static char **split(const char *s, size_t n, char sep)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	const char *end = s + n;

	if (!l)
		return NULL;
	for (const char *p = s;;) {
		const char *q = memchr(p, sep, (size_t)(end - p));
		char *c = strndup(p, q ? (size_t)(q - p) : (size_t)(end - p));
		if (!c || strv_consume(&l, c) < 0) {
			free(c);
			return NULL;
		}
		if (!q)
			return TAKE_PTR(l);
		p = q + 1;
	}
}

/* Each pattern component globs the matching component of the path's last components. */
static bool components_suffix_match(char **pat, char **path, bool anchored)
{
	size_t pn = strv_length(pat), fn = strv_length(path);

	if (pn == 0 || pn > fn || (anchored && pn != fn))
		return false;
	for (size_t i = 0; i < pn; i++) {
		if (!*pat[i] || fnmatch(pat[i], path[fn - pn + i], 0) != 0)
			return false;
	}
	return true;
}

static bool glob_component_match(const char *pattern, const char *fmri)
{
	_cleanup_strv_free_ char **pat = NULL, **path = NULL;
	const char *fsvc, *finst, *pinst;
	bool anchored = false;

	if (!startswith(fmri, "svc:/") || startswith(pattern, "svc:") ||
	        startswith(pattern, "lrc:"))
		return false;

	fsvc = fmri + strlen("svc:/");
	finst = strchr(fsvc, ':');
	path = split(fsvc, finst ? (size_t)(finst - fsvc) : strlen(fsvc), '/');

	if (*pattern == '/') {
		anchored = true;
		pattern++;
	}
	pinst = strchr(pattern, ':');
	pat = split(pattern, pinst ? (size_t)(pinst - pattern) : strlen(pattern), '/');
	if (!path || !pat)
		return false;

	if (pinst) {
		if (!finst || fnmatch(pinst + 1, finst + 1, 0) != 0)
			return false;
		/* ":inst" alone names the instance under any service */
		return (pat[0] && !pat[1] && !*pat[0] && !anchored) ||
		        components_suffix_match(pat, path, anchored);
	}

	if (components_suffix_match(pat, path, anchored))
		return true;
	/* a bare name may be the instance's */
	return !anchored && finst && strv_length(pat) == 1 && fnmatch(pattern, finst + 1, 0) == 0;
}

static bool glob_match(const char *pattern, const char *fmri)
{
	_cleanup_free_ char *full = NULL;

	if (pattern[0] == '*' || (strlen(pattern) >= 4 && pattern[3] == ':')) {
		if (fnmatch(pattern, fmri, 0) == 0)
			return true;
	} else {
		if (asprintf(&full, "svc:/%s", pattern) < 0) {
			full = NULL;
			return false;
		}
		if (fnmatch(full, fmri, 0) == 0)
			return true;
	}
	return glob_component_match(pattern, fmri);
}

bool scf_fmri_abbrev_match(const char *pattern, const char *fmri)
{
	if (!pattern || !fmri || !*pattern || !*fmri)
		return false;
	if (strlen(pattern) > SCF_LIMIT_MAX_FMRI_LENGTH)
		return false;
	if (has_glob(pattern))
		return glob_match(pattern, fmri);
	return exact_match(pattern, fmri) || partial_match(pattern, fmri);
}
