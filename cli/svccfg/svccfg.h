/*
 * svccfg.h: the state every svccfg command works on.
 *
 * svccfg is an interpreter for a small command language (svccfg(1)).  A command runs against
 * the current selection: nothing (the scope "svc:"), a service, or an instance, kept as
 * canonical FMRIs.  The repository is reached through one libscf handle, connected on first use
 * so that "svccfg help" works without a configd.
 *
 * Errors follow docs/style.md and, in their words, illumos.  A command returns 0, or a negative
 * errno or negative scf_error_t that says why it failed, having reported it: one sentence, on
 * stderr prefixed with "svccfg: " or "svccfg (FILE, line N): ", on stdout when interactive,
 * printed where the decision is taken (a caller that only passes the code up prints nothing).
 * Outside the interactive prompt the engine then stops with exit status 1.  A malformed call
 * is reported by command_syntax_error() ("Syntax error.", or the usage at the prompt).  A
 * failure after which the session cannot go on (the repository went away, memory ran out)
 * also sets c->fatal, which stops even the prompt; svccfg_scf_error(), svccfg_handle() and
 * svccfg_oom() are the places that decide it.
 */
#ifndef SVCCFG_H
#define SVCCFG_H

#include <stdbool.h>

#include <libscf.h>

#include "macro.h"

typedef struct svccfg {
	char *root; /* --root DIR, or NULL for $SMF_ROOT / the default */
	scf_handle_t *h;
	char *cur_svc;  /* selected service, or NULL at the scope */
	char *cur_inst; /* selected instance (then cur_svc is its service), or NULL */
	char *cur_snap; /* selectsnap: a snapshot of cur_inst that reads go to, or NULL */
	bool verbose;
	bool interactive;
	const char *input_name; /* "-f" file being read, NULL for the command line and prompt */
	unsigned lineno;        /* first line of the command being run */
	const char *command;    /* name of the command being run, for its usage */
	bool quit;              /* "exit", "quit" or "end" was read */
	bool fatal;             /* a reported failure ended the session (see above) */
} svccfg_t;

/* Reports a command's failure as illumos does (see above); the message has no newline. */
void svccfg_error(svccfg_t *c, const char *fmt, ...) _printf_(2, 3);
/* A warning (e.g. with -v) in the same format; does not fail the command. */
#define svccfg_warn svccfg_error

/*
 * The handle, connecting on first use.  A connection that fails is reported ("Could not
 * connect to repository server: ...") and fatal; its libscf error is returned.
 */
int svccfg_handle(svccfg_t *c, scf_handle_t **ret);

/*
 * Reports an unexpected libscf error r (or -ENOMEM) of a call on c->h about subject (an FMRI or
 * a name): "Permission denied.", "Repository connection broken.  Exiting." (fatal), "Out of
 * memory." (fatal) or "<subject>: <reason>.".  Returns r.
 */
int svccfg_scf_error(svccfg_t *c, int r, const char *subject);

/* Reports "Out of memory." (fatal); returns -ENOMEM. */
int svccfg_oom(svccfg_t *c);

/* The selected entity (instance, else service), or NULL at the scope. */
static inline const char *svccfg_entity(const svccfg_t *c)
{
	return c->cur_inst ? c->cur_inst : c->cur_svc;
}

/*
 * Replaces the selection (either may be NULL; copies them) and leaves any selected snapshot;
 * 0 or -ENOMEM (reported).
 */
int svccfg_select_set(svccfg_t *c, const char *svc, const char *inst);

/*
 * The one entity arg names, found by illumos' scf_walk_fmri() with flags (CLI_WALK_*, without
 * MULTIPLE; cli-resolve.h): 0 and its canonical FMRI in *ret, or a negative code after
 * reporting illumos' message ("Pattern 'x' doesn't match any instances or services", ...).
 */
int svccfg_walk_one(svccfg_t *c, const char *arg, unsigned flags, char **ret);

/* Fails (-EINVAL) with "An entity is not selected." when at the scope. */
int svccfg_need_entity(svccfg_t *c);

/* As svccfg_need_entity(), and "Cannot modify snapshots." (-EINVAL) in a snapshot. */
int svccfg_need_writable(svccfg_t *c);

#endif
