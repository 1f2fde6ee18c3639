/*
 * cli-resolve.h: operands to entities, as illumos' scf_walk_fmri() (libscf lowlevel.c).
 *
 * Every tool names services and instances the same way, and scripts depend on the details, so
 * this is illumos' walk, flag for flag and message for message:
 *
 *   1. Each operand is first tried as a full FMRI ("svc:" and the leading '/' are optional:
 *      "site/web" is the service svc:/site/web).  An existing instance matches itself; an
 *      existing service matches itself with CLI_WALK_SERVICE, else all its instances (none is
 *      possible); an existing pg or property matches itself with CLI_WALK_PROPERTY.
 *   2. Anything else is a pattern: with one of "*?[" a glob, matched by fnmatch() against whole
 *      FMRIs after "svc:/" is put in front unless it starts with '*' or a scheme ("go*" is
 *      "svc:/go*": it does not match svc:/site/good); otherwise an abbreviation, which must
 *      start at a component boundary and end at the end of the service or instance name
 *      ("good" matches svc:/site/good and svc:/site/good:default, "od" nothing).
 *   3. Patterns are matched against every service (with CLI_WALK_SERVICE) and every instance,
 *      services first.  A pattern that matched a service does not take its instances too,
 *      except with CLI_WALK_EXPLICIT, where the instance replaces the service.
 *   4. Per operand, in operand order: no match, or more than one without CLI_WALK_MULTIPLE,
 *      or an abbreviation with more than one under CLI_WALK_UNIPARTIAL, is reported (errfn)
 *      and sets *err; the operand is skipped, the others go on.
 *   5. fn runs once per matched entity (the first operand that names it wins), operands in
 *      order; an operand's matches, and the candidates in the messages, come in reverse order
 *      of discovery, as illumos' lists are built by prepending.
 * Without operands, fn runs for every instance (and every service with CLI_WALK_SERVICE).
 * Discovery order is the repository's listing order: services sorted, each followed by its
 * instances sorted.  Messages are returned (errfn) without the program name or the final
 * newline, since each tool prefixes its own.
 */
#ifndef CLI_RESOLVE_H
#define CLI_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include <libscf.h>

/* illumos' SCF_WALK_* (libscf_priv.h), with the same values. */
#define CLI_WALK_MULTIPLE 0x01   /* an operand may match several entities */
#define CLI_WALK_LEGACY 0x02     /* legacy (lrc:) services too; minismf has none */
#define CLI_WALK_SERVICE 0x04    /* services are matched, and a service operand is itself */
#define CLI_WALK_PROPERTY 0x08   /* pg and property FMRIs are operands too */
#define CLI_WALK_NOINSTANCE 0x10 /* services only (with CLI_WALK_SERVICE) */
#define CLI_WALK_EXPLICIT 0x20   /* an instance match replaces its service's (with SERVICE) */
#define CLI_WALK_UNIPARTIAL 0x40 /* an abbreviation may not match several (with MULTIPLE) */

typedef struct cli_walk_info {
	const char *fmri;   /* canonical FMRI of what matched: entity, pg or property */
	const char *entity; /* the service or instance (fmri itself for an entity) */
	bool instance;      /* entity is an instance */
	const char *pg;     /* the pg of a pg or property operand, else NULL */
	const char *prop;   /* the property of a property operand, else NULL */
	size_t count;       /* distinct entities matched by the surviving operands (svcprop) */
} cli_walk_info_t;

/* Called per match; a non-zero return stops the walk and is returned by cli_walk(). */
typedef int (*cli_walk_fn)(void *userdata, const cli_walk_info_t *info);
/* A bad operand's message (one or several lines, no final newline). */
typedef void (*cli_walk_errfn)(void *userdata, const char *msg);

/*
 * The walk (see above).  *err is set to 1 for each operand reported.  Returns 0, fn's non-zero
 * return, or a negative libscf error of the listing (not reported: illumos' callers say
 * "failed to iterate over instances: ...").
 */
int cli_walk(scf_handle_t *h, int argc, char *const *argv, unsigned flags, cli_walk_fn fn,
        cli_walk_errfn errfn, void *userdata, int *err);

/*
 * The order the walk discovers instances in (services sorted, each followed by its instances
 * sorted), as a strcmp()-like comparison of two instance FMRIs; a tool that lists every
 * instance itself sorts by it to visit them as cli_walk() would.
 */
int cli_instance_cmp_discovery(const char *a, const char *b);

/* Does fmri (an entity) name an instance?  "svc:/a/b:i" does, "svc:/a/b" does not. */
bool cli_fmri_is_instance(const char *fmri);

#endif
