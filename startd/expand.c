/*
 * expand.c: the tokens of a method's exec string, expanded as illumos' startd expands them.
 *
 * Pure: the repository is reached only through the caller's lookup, so the rules (what each
 * token means, how values are quoted and joined, what is an error) are unit tested without a
 * configd (tests/unit/startd/test-expand.c).  The rules are illumos' (its startd's expand.c):
 * an unknown token or a property that does not exist is an error, never left in the command
 * as it was, because a method run with half its arguments is worse than one not run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "libscf.h"
#include "macro.h"
#include "why.h"
#include "strv.h"

/* What /bin/sh reads specially in an unquoted word; illumos' startd escapes the same set. */
static const char sh_meta[] = ";&()|^<>\n \t\\\"'`";

char *expand_quote(const char *s)
{
	size_t n = 0;
	char *out, *p;

	for (const char *c = s; *c; c++)
		n += strchr(sh_meta, *c) ? 2 : 1;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	p = out;
	for (const char *c = s; *c; c++) {
		if (strchr(sh_meta, *c))
			*p++ = '\\';
		*p++ = *c;
	}
	*p = '\0';
	return out;
}

/*
 * Where spec's property is: "prop" (pg "application"), "pg/prop", or a property FMRI
 * ("svc:/service[:instance]/:properties/pg/prop").  Fills p and *entity (the FMRI's entity,
 * malloc'd), pointing p's names into *buf or *entity.
 */
static int parse_spec(char *spec, expand_prop_t *p, char **entity, char **why)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {};
	char *slash;
	int r;

	*p = (expand_prop_t){};
	if (!strstr(spec, ":properties")) {
		slash = strchr(spec, '/');
		if (!slash) {
			p->pg = "application";
			p->prop = spec;
		} else {
			*slash = '\0';
			p->pg = spec;
			p->prop = slash + 1;
		}
		return 0;
	}
	r = scf_fmri_parse(spec, &f);
	if (r < 0)
		return why_set(why, "%s", scf_strerror(r));
	if (!f.service || !f.pg || !f.prop)
		return why_set(why, "parse error");
	r = scf_fmri_format_entity(f.service, f.instance, entity);
	if (r < 0)
		return r == -SCF_ERROR_NO_MEMORY ? -ENOMEM : why_set(why, "%s", scf_strerror(r));
	/* The names stay valid in spec: each is a suffix of it once cut at the '/'. */
	slash = strrchr(spec, '/');
	*slash = '\0';
	p->prop = slash + 1;
	p->pg = strrchr(spec, '/') + 1;
	p->entity = *entity;
	p->service = !f.instance;
	return 0;
}

/* The values of the property spec names, quoted and joined by sep, appended to out. */
static int expand_prop(
        const char *spec, char sep, expand_lookup_t lookup, void *userdata, FILE *out, char **why)
{
	_cleanup_free_ char *buf = strdup(spec), *entity = NULL;
	_cleanup_strv_free_ char **values = NULL;
	expand_prop_t p;
	int r;

	if (!buf)
		return -ENOMEM;
	r = parse_spec(buf, &p, &entity, why);
	if (r < 0)
		return r;
	r = lookup(userdata, &p, &values, why);
	if (r == -SCF_ERROR_NOT_FOUND)
		return why_set(why, "property \"%s\" not found", spec);
	if (r < 0)
		return *why ? -EINVAL : why_set(why, "%s", scf_strerror(r));
	for (size_t k = 0; values && values[k]; k++) {
		_cleanup_free_ char *q = expand_quote(values[k]);

		if (!q)
			return -ENOMEM;
		if (k > 0)
			fputc(sep, out);
		fputs(q, out);
	}
	return 0;
}

/* The token after the '%' at t; the number of characters it takes after the '%'. */
static int expand_token(const char *t, const expand_names_t *names, expand_lookup_t lookup,
        void *userdata, FILE *out, char **why)
{
	_cleanup_free_ char *spec = NULL;
	const char *close;
	char sep = ' ';
	size_t len;
	int r;

	switch (t[0]) {
	case 'f':
		fputs(names->fmri, out);
		return 1;
	case 's':
		fputs(names->service, out);
		return 1;
	case 'i':
		fputs(names->instance, out);
		return 1;
	case 'm':
		fputs(names->method, out);
		return 1;
	case 'r':
		fputs("svc.startd", out);
		return 1;
	case '%':
		fputc('%', out);
		return 1;
	case '{':
		break;
	default:
		return why_set(why, "unknown method token");
	}
	close = strchr(t + 1, '}');
	if (!close)
		return why_set(why, "parse error");
	len = (size_t)(close - (t + 1));
	/* "%{pg/prop,}" joins the values with ',', "%{pg/prop:}" with ':'. */
	if (len > 0 && (close[-1] == ',' || close[-1] == ':')) {
		sep = close[-1];
		len--;
	}
	spec = strndup(t + 1, len);
	if (!spec)
		return -ENOMEM;
	r = expand_prop(spec, sep, lookup, userdata, out, why);
	return r < 0 ? r : (int)(close - t) + 1;
}

int expand_method_tokens(const char *exec, const expand_names_t *names, expand_lookup_t lookup,
        void *userdata, char **ret, char **why)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_fclose_ FILE *out = NULL;
	size_t size = 0;
	int r = 0;

	*why = NULL;
	out = open_memstream(&buf, &size);
	if (!out)
		return -ENOMEM;
	for (const char *p = exec; *p && r >= 0; p++) {
		if (*p != '%') {
			fputc(*p, out);
			continue;
		}
		if (!p[1]) /* illumos drops a '%' that ends the string */
			break;
		r = expand_token(p + 1, names, lookup, userdata, out, why);
		if (r > 0)
			p += r;
	}
	if (r < 0)
		return r;
	if (fclose(TAKE_PTR(out)) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}
