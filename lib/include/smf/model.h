/*
 * model.h: internal helpers of lib/model (FMRIs, names, values) for configd, libscf and the CLI.
 *
 * The public half of the model (scf_fmri_parse(), scf_value_normalize(), scf_name_validate(),
 * ...) is in libscf.h.  What is here is what the server and the tools need on top of it and
 * what must not become public API: classifying an FMRI, the entity-name rules, and parsing
 * canonical numeric values back into C integers.
 */
#ifndef SMF_MODEL_H
#define SMF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libscf.h"

typedef enum smf_fmri_kind {
	SMF_FMRI_SERVICE = 1,
	SMF_FMRI_INSTANCE,
	SMF_FMRI_PG,
	SMF_FMRI_PROPERTY,
} smf_fmri_kind_t;

/* What a parsed FMRI names, from the fields present; -SCF_ERROR_INVALID_ARGUMENT if no service. */
int smf_fmri_kind(const scf_fmri_t *f);

/*
 * Parses s (any form scf_fmri_parse() accepts) and returns what it names (> 0, an
 * smf_fmri_kind_t) or a negative scf_error_t.  With entity != NULL, also returns the canonical
 * FMRI of the service or instance that s names or lies under (pg and property stripped).
 */
int smf_fmri_classify(const char *s, char **entity);

/*
 * Whether s, if it is a valid FMRI at all, is already its own canonical form: it starts with
 * "svc:/" and names no scope ("svc://..."), so scf_fmri_canonicalize() would give s back.  A
 * reader that only wants the canonical form of a valid FMRI can then skip formatting it again.
 */
bool smf_fmri_canonical_form(const char *s);

/*
 * Entity names, as illumos (libuutil's name rules): an identifier starts with an ASCII letter
 * and continues with letters, digits, '-' and '_'; it may carry a "provider," prefix (a stock
 * symbol or a reversed domain name: letter first, then letters, digits, '-', '_', '.').
 * A service name is one or more such components joined by '/'; each is at most
 * SCF_LIMIT_MAX_NAME_LENGTH bytes.  Return 0, -SCF_ERROR_INVALID_ARGUMENT or
 * -SCF_ERROR_CONSTRAINT_VIOLATED (too long).
 */
int smf_instance_name_validate(const char *name);
int smf_service_name_validate(const char *name);
/* The same checks on a counted (not NUL-terminated) string. */
int smf_component_validate_n(const char *s, size_t n);
int smf_name_validate_n(const char *s, size_t n);

/*
 * Parses a canonical (or any accepted) value of the type into a C value; these accept exactly
 * what scf_value_normalize() accepts for that type.  0 or -SCF_ERROR_INVALID_ARGUMENT.
 */
int smf_value_parse_boolean(const char *s, bool *ret);
int smf_value_parse_count(const char *s, uint64_t *ret);
int smf_value_parse_integer(const char *s, int64_t *ret);
int smf_value_parse_time(const char *s, int64_t *sec, uint32_t *nsec);

/* The value-type checks behind scf_value_normalize(), for other modules that need one alone. */
bool smf_utf8_valid(const char *s);
bool smf_hostname_valid(const char *s);
bool smf_net_addr_v4_valid(const char *s);
bool smf_net_addr_v6_valid(const char *s);
/*
 * The first character of the UTF-8 string s that no value may hold, as a code point, or 0 when
 * there is none: a C0 control other than TAB, LF and CR, which XML 1.0 cannot carry (not even
 * as &#...; references), so a value holding one could not be exported or archived and imported
 * back; or a Unicode noncharacter (U+FDD0..U+FDEF, U+FFFE, U+FFFF, U+1FFFE, ... U+10FFFF), which
 * D-Bus does not carry (docs/values.md, "Control characters").
 */
uint32_t smf_value_forbidden_char(const char *s);
/*
 * For the message about a value refused for holding such a character: "it holds U+001B, a
 * control character no value may hold" in buf (n >= 64), or NULL when s holds none.
 */
const char *smf_value_forbidden_why(const char *s, char *buf, size_t n);

#endif
