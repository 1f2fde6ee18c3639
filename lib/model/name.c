/*
 * name.c: the rules for names in the repository.
 *
 * Two families of names exist, and they are deliberately different:
 *
 * - Entity names (service path components and instance names) follow illumos' libuutil rule:
 *   "[provider,]identifier", the identifier starting with an ASCII letter and continuing with
 *   letters, digits, '-' and '_'; the provider (a stock symbol such as "SUNW" or a reversed
 *   domain such as "com.example") also allows '.'.  They end up inside FMRIs, so they must
 *   never contain ':' or '/' (the FMRI separators) or glob characters.
 *
 * - Property group and property names (and pg types) follow libscf.h's contract: a letter or
 *   '_' first, then letters, digits, '_', '-', '.', with an optional "PROVIDER," prefix.  This is
 *   a superset of the illumos rule (which also starts with a letter and has no '.' outside the
 *   provider), so every name illumos accepts is accepted here.
 *
 * Every name is at most SCF_LIMIT_MAX_NAME_LENGTH bytes; a longer one is a constraint
 * violation, not a malformed name, so callers can tell "too long" from "bad character".
 * Classification is by ASCII only: <ctype.h> depends on the locale, and names must not.
 */
#include <string.h>

#include "libscf.h"
#include "model.h"

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* letter, then letters, digits, '-', '_' (and '.' if allowdot); n > 0 */
static bool ident_valid(const char *s, size_t n, bool allowdot, bool allow_underscore_first)
{
	if (n == 0)
		return false;
	if (!is_alpha(s[0]) && !(allow_underscore_first && s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (is_alpha(c) || is_digit(c) || c == '-' || c == '_' || (allowdot && c == '.'))
			continue;
		return false;
	}
	return true;
}

/*
 * "[provider,]identifier": the provider is checked with the provider rule (dots allowed), the
 * identifier with the caller's family rule (see the theory statement above).
 */
static int prefixed_name_validate(const char *s, size_t n, bool allowdot, bool underscore_first)
{
	const char *comma;

	if (!s || n == 0)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (n > SCF_LIMIT_MAX_NAME_LENGTH)
		return -SCF_ERROR_CONSTRAINT_VIOLATED;

	comma = memchr(s, ',', n);
	if (comma) {
		size_t pn = (size_t)(comma - s);

		if (!ident_valid(s, pn, true, false))
			return -SCF_ERROR_INVALID_ARGUMENT;
		n -= pn + 1;
		s = comma + 1;
	}
	return ident_valid(s, n, allowdot, underscore_first) ? 0 : -SCF_ERROR_INVALID_ARGUMENT;
}

int smf_component_validate_n(const char *s, size_t n)
{
	return prefixed_name_validate(s, n, false, false);
}

int smf_name_validate_n(const char *s, size_t n)
{
	return prefixed_name_validate(s, n, true, true);
}

int scf_name_validate(const char *name)
{
	if (!name)
		return -SCF_ERROR_INVALID_ARGUMENT;
	return smf_name_validate_n(name, strlen(name));
}

int smf_instance_name_validate(const char *name)
{
	if (!name)
		return -SCF_ERROR_INVALID_ARGUMENT;
	return smf_component_validate_n(name, strlen(name));
}

int smf_service_name_validate(const char *name)
{
	const char *p;

	if (!name || !*name)
		return -SCF_ERROR_INVALID_ARGUMENT;

	/* Every component is checked, so "a//b", "/a" and "a/" fail on their empty component. */
	for (p = name;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		int r = smf_component_validate_n(p, n);
		if (r < 0)
			return r;
		if (!slash)
			return 0;
		p = slash + 1;
	}
}
