/*
 * svccfg.h: the state every svccfg command works on.
 *
 * svccfg is an interpreter for a small command language (svccfg(1)).  A command runs against
 * the current selection: nothing (the scope "svc:"), a service, or an instance, kept as
 * canonical FMRIs.  The repository is reached through one libscf handle, connected on first use
 * so that "svccfg help" works without a configd.
 *
 * Errors follow illumos: a command that fails prints one sentence (on stderr prefixed with
 * "svccfg: " or "svccfg (FILE, line N): ", on stdout when interactive) and returns
 * SVCCFG_ERR; outside the interactive prompt the engine then stops with exit status 1.
 * SVCCFG_FATAL (the repository went away) stops even the prompt.
 */
#ifndef SVCCFG_H
#define SVCCFG_H

#include <stdbool.h>

#include <libscf.h>

#include "macro.h"

enum {
	SVCCFG_OK = 0,
	SVCCFG_ERR = -1,    /* reported; stop unless interactive */
	SVCCFG_FATAL = -2,  /* reported; stop, exit 1 */
	SVCCFG_SYNTAX = -3, /* not reported yet: the engine prints "Syntax error." or the usage */
};

typedef struct svccfg {
	char *root; /* --root DIR, or NULL for $SMF_ROOT / the default */
	scf_handle_t *h;
	char *cur_svc;  /* selected service, or NULL at the scope */
	char *cur_inst; /* selected instance (then cur_svc is its service), or NULL */
	bool verbose;
	bool interactive;
	const char *input_name; /* "-f" file being read, NULL for the command line and prompt */
	unsigned lineno;        /* first line of the command being run */
	bool quit;              /* "exit", "quit" or "end" was read */
} svccfg_t;

/* Reports a command's failure as illumos does (see above); the message has no newline. */
void svccfg_error(svccfg_t *c, const char *fmt, ...) _printf_(2, 3);
/* A warning (e.g. with -v) in the same format; does not fail the command. */
#define svccfg_warn svccfg_error

/* The handle, connecting on first use; SVCCFG_FATAL (reported) if configd is unreachable. */
int svccfg_handle(svccfg_t *c, scf_handle_t **ret);

/*
 * Reports an unexpected libscf error r of a call on c->h about subject (an FMRI or a name):
 * "Permission denied.", "Repository connection broken.  Exiting." (SVCCFG_FATAL) or
 * "<subject>: <reason>.".  Returns SVCCFG_ERR or SVCCFG_FATAL.
 */
int svccfg_scf_error(svccfg_t *c, int r, const char *subject);

/* The selected entity (instance, else service), or NULL at the scope. */
static inline const char *svccfg_entity(const svccfg_t *c)
{
	return c->cur_inst ? c->cur_inst : c->cur_svc;
}

/* Replaces the selection (either may be NULL; copies them); 0 or SVCCFG_FATAL on OOM. */
int svccfg_select_set(svccfg_t *c, const char *svc, const char *inst);

/* Fails with "An entity is not selected." when at the scope. */
int svccfg_need_entity(svccfg_t *c);

#endif
