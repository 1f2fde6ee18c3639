/*
 * value.c: the 14 SMF value types, their checks and their canonical string forms.
 *
 * THE MODEL
 *
 * Every value travels and is stored as a string in its canonical form, tagged with its type.
 * scf_value_normalize() is the one gate: configd runs it on every value it stores, libscf and
 * the CLI on every value they send, so a reader never sees a malformed or non-canonical value
 * and two equal values are equal strings.
 *
 * What each type accepts is what illumos' scf_value_set_from_string() accepts, with the
 * checks illumos left as "XXX" (hostname, network addresses) done for real:
 *
 *   boolean         "true" "t" "1" / "false" "f" "0"           -> "true" / "false"
 *   count           unsigned 64-bit, C syntax (decimal, 0x hex, 0 octal, optional '+');
 *                   no '-', no overflow                        -> decimal
 *   integer         signed 64-bit, same syntax, optional '-'   -> decimal
 *   time            seconds (signed 64-bit decimal) with an optional '.' and 1-9 digits of
 *                   fraction                                   -> "s[.frac]", zeros dropped
 *   opaque          an even number of hex digits               -> lowercase
 *   astring         any string                                 -> as given
 *   ustring         valid UTF-8                                -> as given
 *   uri             RFC 2396 shape with a non-empty path       -> as given
 *   fmri            svc: FMRI (any form scf_fmri_parse() takes), file://[localhost]/path,
 *                   lrc:/path                                  -> as given
 *   hostname        RFC 1123 host name                         -> as given
 *   net_address_v4  dotted quad, optional "/0".."/32"          -> as given
 *   net_address_v6  RFC 4291 text form, optional "/0".."/128"  -> as given
 *   net_address     either of the two above                    -> as given
 *   host            a hostname or either address               -> as given
 *
 * Three deliberate differences from illumos: every string type must be valid UTF-8 (values
 * cross D-Bus, whose strings are UTF-8, so a non-UTF-8 astring could be stored by nobody); no
 * value holds a C0 control but TAB, LF and CR, which XML 1.0 cannot carry (illumos stores them,
 * and its export then writes a file its import refuses: a backup must import back,
 * docs/decisions.md), nor a Unicode noncharacter, which sd-bus refuses to send (U+FFFE and
 * U+FFFF, which XML cannot carry either, U+FDD0..U+FDEF, U+1FFFE, ... U+10FFFF); and the length
 * limit is on the string form for every type, opaque included (one rule for the protocol and
 * the database: at most SCF_LIMIT_MAX_VALUE_LENGTH bytes).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libscf.h"
#include "macro.h"
#include "model.h"

static const char *const type_names[_SCF_TYPE_MAX] = {
        [SCF_TYPE_BOOLEAN] = "boolean",
        [SCF_TYPE_COUNT] = "count",
        [SCF_TYPE_INTEGER] = "integer",
        [SCF_TYPE_TIME] = "time",
        [SCF_TYPE_ASTRING] = "astring",
        [SCF_TYPE_OPAQUE] = "opaque",
        [SCF_TYPE_USTRING] = "ustring",
        [SCF_TYPE_URI] = "uri",
        [SCF_TYPE_FMRI] = "fmri",
        [SCF_TYPE_HOST] = "host",
        [SCF_TYPE_HOSTNAME] = "hostname",
        [SCF_TYPE_NET_ADDR] = "net_address",
        [SCF_TYPE_NET_ADDR_V4] = "net_address_v4",
        [SCF_TYPE_NET_ADDR_V6] = "net_address_v6",
};

const char *scf_type_to_string(scf_type_t t)
{
	if (t <= SCF_TYPE_INVALID || t >= _SCF_TYPE_MAX)
		return NULL;
	return type_names[t];
}

scf_type_t scf_string_to_type(const char *s)
{
	if (!s)
		return SCF_TYPE_INVALID;
	for (int t = SCF_TYPE_INVALID + 1; t < _SCF_TYPE_MAX; t++)
		if (strcmp(s, type_names[t]) == 0)
			return (scf_type_t)t;
	return SCF_TYPE_INVALID;
}

/* ---- numbers ------------------------------------------------------------------------------ */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * C integer syntax as strtoull() with base 0 reads it, but strictly: no leading whitespace,
 * at least one digit, nothing after.  Returns the magnitude and whether a '-' was given.
 */
static int parse_magnitude(const char *s, uint64_t *mag, bool *neg)
{
	const char *p = s;
	char *end;

	*neg = false;
	if (*p == '+' || *p == '-') {
		*neg = *p == '-';
		p++;
	}
	/* strtoull() would accept "0x" as 0 with end at 'x', and skip spaces; we do neither. */
	if (!is_digit(*p))
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	        !((p[2] >= '0' && p[2] <= '9') || (p[2] >= 'a' && p[2] <= 'f') ||
	                (p[2] >= 'A' && p[2] <= 'F')))
		return -SCF_ERROR_INVALID_ARGUMENT;

	errno = 0;
	*mag = strtoull(p, &end, 0);
	if (errno != 0 || end == p || *end != '\0')
		return -SCF_ERROR_INVALID_ARGUMENT;
	return 0;
}

int smf_value_parse_count(const char *s, uint64_t *ret)
{
	uint64_t mag;
	bool neg;
	int r;

	if (!s)
		return -SCF_ERROR_INVALID_ARGUMENT;
	r = parse_magnitude(s, &mag, &neg);
	if (r < 0)
		return r;
	if (neg) /* even "-0": a count has no sign */
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (ret)
		*ret = mag;
	return 0;
}

int smf_value_parse_integer(const char *s, int64_t *ret)
{
	uint64_t mag;
	bool neg;
	int r;

	if (!s)
		return -SCF_ERROR_INVALID_ARGUMENT;
	r = parse_magnitude(s, &mag, &neg);
	if (r < 0)
		return r;
	if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (ret)
		*ret = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

int smf_value_parse_boolean(const char *s, bool *ret)
{
	bool b;

	if (!s)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (strcmp(s, "true") == 0 || strcmp(s, "t") == 0 || strcmp(s, "1") == 0)
		b = true;
	else if (strcmp(s, "false") == 0 || strcmp(s, "f") == 0 || strcmp(s, "0") == 0)
		b = false;
	else
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (ret)
		*ret = b;
	return 0;
}

int smf_value_parse_time(const char *s, int64_t *sec, uint32_t *nsec)
{
	const char *p = s, *dot;
	uint32_t ns = 0;
	size_t digits;
	char *end;
	int64_t v;

	if (!s)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (*p == '+' || *p == '-')
		p++;
	if (!is_digit(*p))
		return -SCF_ERROR_INVALID_ARGUMENT;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '.'))
		return -SCF_ERROR_INVALID_ARGUMENT;

	if (*end == '.') {
		dot = end;
		digits = strlen(dot + 1);
		if (digits == 0 || digits > 9)
			return -SCF_ERROR_INVALID_ARGUMENT;
		for (size_t i = 1; i <= 9; i++) {
			char c = i <= digits ? dot[i] : '0';
			if (!is_digit(c))
				return -SCF_ERROR_INVALID_ARGUMENT;
			ns = ns * 10 + (uint32_t)(c - '0');
		}
	}
	if (sec)
		*sec = v;
	if (nsec)
		*nsec = ns;
	return 0;
}

static int format_time(const char *s, char **ret)
{
	char buf[64];
	int64_t sec;
	uint32_t ns;
	int r, n;

	r = smf_value_parse_time(s, &sec, &ns);
	if (r < 0)
		return r;

	n = snprintf(buf, sizeof(buf), "%" PRId64, sec);
	if (ns != 0) {
		char frac[16];
		size_t len;

		snprintf(frac, sizeof(frac), "%09" PRIu32, ns);
		for (len = 9; frac[len - 1] == '0'; len--)
			;
		frac[len] = '\0';
		snprintf(buf + n, sizeof(buf) - (size_t)n, ".%s", frac);
	}
	if (!ret)
		return 0;
	*ret = strdup(buf);
	return *ret ? 0 : -SCF_ERROR_NO_MEMORY;
}

/* ---- strings ------------------------------------------------------------------------------ */

bool smf_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		uint32_t cp, min;
		int n;

		if (*p < 0x80) {
			p++;
			continue;
		} else if ((*p & 0xe0) == 0xc0) {
			n = 1, cp = *p & 0x1f, min = 0x80;
		} else if ((*p & 0xf0) == 0xe0) {
			n = 2, cp = *p & 0x0f, min = 0x800;
		} else if ((*p & 0xf8) == 0xf0) {
			n = 3, cp = *p & 0x07, min = 0x10000;
		} else {
			return false;
		}
		p++;
		for (int i = 0; i < n; i++, p++) {
			if ((*p & 0xc0) != 0x80) /* also stops at the NUL */
				return false;
			cp = (cp << 6) | (*p & 0x3f);
		}
		/* overlong forms, UTF-16 surrogates and beyond U+10FFFF are not UTF-8 */
		if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
	}
	return true;
}

/* A Unicode noncharacter: U+FDD0..U+FDEF and the last two code points of every plane. */
static bool is_noncharacter(uint32_t c)
{
	return (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe;
}

uint32_t smf_value_forbidden_char(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	/* Valid UTF-8 is assumed (smf_utf8_valid() runs first): the lead byte gives the length. */
	while (*p) {
		uint32_t c = *p;
		int n = c < 0x80 ? 0 : c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;

		if (n)
			c &= 0x3fu >> n;
		for (int i = 1; i <= n && p[i]; i++)
			c = (c << 6) | (p[i] & 0x3f);
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || is_noncharacter(c))
			return c;
		p += n + 1;
	}
	return 0;
}

const char *smf_value_forbidden_why(const char *s, char *buf, size_t n)
{
	uint32_t c = smf_utf8_valid(s) ? smf_value_forbidden_char(s) : 0;

	if (!c)
		return NULL;
	snprintf(buf, n, "it holds U+%04" PRIX32 ", %s no value may hold", c,
	        c < 0x20 ? "a control character" : "a noncharacter");
	return buf;
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int normalize_opaque(const char *s, char **ret)
{
	size_t n = strlen(s);
	char *out;

	if (n % 2 != 0)
		return -SCF_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < n; i++)
		if (!is_hex(s[i]))
			return -SCF_ERROR_INVALID_ARGUMENT;
	if (!ret)
		return 0;
	out = strdup(s);
	if (!out)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t i = 0; i < n; i++)
		if (out[i] >= 'A' && out[i] <= 'F')
			out[i] = (char)(out[i] - 'A' + 'a');
	*ret = out;
	return 0;
}

/*
 * RFC 2396 appendix B splits any string into [scheme:][//authority]path[?query][#fragment];
 * like illumos we call it a URI when the path is not empty and the scheme, if any, is one.
 */
static bool uri_valid(const char *s)
{
	const char *p = s, *colon = strpbrk(s, ":/?#");
	size_t pathlen;

	if (colon && *colon == ':' && colon != s)
		p = colon + 1;
	if (p[0] == '/' && p[1] == '/')
		p += 2 + strcspn(p + 2, "/?#");
	pathlen = strcspn(p, "?#");
	return pathlen > 0;
}

static bool file_fmri_valid(const char *s)
{
	const char *p = s + strlen("file:");

	if (p[0] == '/' && p[1] == '/') {
		const char *host = p + 2, *slash = strchr(host, '/');
		size_t n;

		if (!slash)
			return false;
		n = (size_t)(slash - host);
		if (n != 0 && (n != strlen("localhost") || strncmp(host, "localhost", n) != 0))
			return false;
		p = slash;
	}
	return p[0] == '/' && p[1] != '\0';
}

static bool fmri_value_valid(const char *s)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};

	if (strncmp(s, "file:", 5) == 0)
		return file_fmri_valid(s);
	if (strncmp(s, "lrc:", 4) == 0)
		return s[4] == '/' && s[5] != '\0';
	return scf_fmri_parse(s, &f) >= 0;
}

/* ---- hosts and addresses ------------------------------------------------------------------ */

/* RFC 1123 section 2.1: labels of letters, digits and '-', 1..63 bytes, no '-' at either end. */
bool smf_hostname_valid(const char *s)
{
	size_t n = strlen(s), label = 0;

	if (n > 0 && s[n - 1] == '.')
		n--; /* the root, as in "example.com." */
	if (n == 0 || n > 253)
		return false;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
			return false;
		if (label == 0 && c == '-')
			return false;
		if (++label > 63)
			return false;
	}
	return s[n - 1] != '-';
}

/* "addr[/prefix]" where prefix is decimal 0..max without leading zeros or sign. */
static bool net_addr_valid(const char *s, int af, unsigned max)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned char bin[sizeof(struct in6_addr)];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(af, buf, bin) != 1)
		return false;

	if (slash) {
		const char *d = slash + 1;
		unsigned v = 0;
		size_t len = strlen(d);

		if (len == 0 || len > 3 || (len > 1 && d[0] == '0'))
			return false;
		for (size_t i = 0; i < len; i++) {
			if (!is_digit(d[i]))
				return false;
			v = v * 10 + (unsigned)(d[i] - '0');
		}
		if (v > max)
			return false;
	}
	return true;
}

bool smf_net_addr_v4_valid(const char *s)
{
	return net_addr_valid(s, AF_INET, 32);
}

bool smf_net_addr_v6_valid(const char *s)
{
	return net_addr_valid(s, AF_INET6, 128);
}

/* ---- the gate ----------------------------------------------------------------------------- */

static bool string_valid(scf_type_t t, const char *s)
{
	switch (t) {
	case SCF_TYPE_ASTRING:
	case SCF_TYPE_USTRING:
		return true;
	case SCF_TYPE_URI:
		return uri_valid(s);
	case SCF_TYPE_FMRI:
		return uri_valid(s) && fmri_value_valid(s);
	case SCF_TYPE_HOSTNAME:
		return smf_hostname_valid(s);
	case SCF_TYPE_NET_ADDR_V4:
		return smf_net_addr_v4_valid(s);
	case SCF_TYPE_NET_ADDR_V6:
		return smf_net_addr_v6_valid(s);
	case SCF_TYPE_NET_ADDR:
		return smf_net_addr_v4_valid(s) || smf_net_addr_v6_valid(s);
	case SCF_TYPE_HOST:
		return smf_hostname_valid(s) || smf_net_addr_v4_valid(s) ||
		        smf_net_addr_v6_valid(s);
	default:
		return false;
	}
}

static int dup_to(const char *s, char **ret)
{
	if (!ret)
		return 0;
	*ret = strdup(s);
	return *ret ? 0 : -SCF_ERROR_NO_MEMORY;
}

static int format_number(bool is_signed, uint64_t u, int64_t i, char **ret)
{
	if (!ret)
		return 0;
	int n = is_signed ? asprintf(ret, "%" PRId64, i) : asprintf(ret, "%" PRIu64, u);

	if (n < 0) {
		*ret = NULL;
		return -SCF_ERROR_NO_MEMORY;
	}
	return 0;
}

int scf_value_normalize(scf_type_t t, const char *s, char **ret)
{
	uint64_t u = 0;
	int64_t i = 0;
	bool b;
	int r;

	if (ret)
		*ret = NULL;
	if (!s || !scf_type_to_string(t))
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (strlen(s) > SCF_LIMIT_MAX_VALUE_LENGTH)
		return -SCF_ERROR_CONSTRAINT_VIOLATED;

	switch (t) {
	case SCF_TYPE_BOOLEAN:
		r = smf_value_parse_boolean(s, &b);
		return r < 0 ? r : dup_to(b ? "true" : "false", ret);
	case SCF_TYPE_COUNT:
		r = smf_value_parse_count(s, &u);
		return r < 0 ? r : format_number(false, u, 0, ret);
	case SCF_TYPE_INTEGER:
		r = smf_value_parse_integer(s, &i);
		return r < 0 ? r : format_number(true, 0, i, ret);
	case SCF_TYPE_TIME:
		return format_time(s, ret);
	case SCF_TYPE_OPAQUE:
		return normalize_opaque(s, ret);
	default:
		if (!smf_utf8_valid(s) || smf_value_forbidden_char(s) || !string_valid(t, s))
			return -SCF_ERROR_INVALID_ARGUMENT;
		return dup_to(s, ret);
	}
}
