/*
 * cli-error.h: libscf failures as the sentences the illumos tools print.
 *
 * Scripts grep the CLI's stderr, so the wording follows illumos' commands ("repository server
 * unavailable", "Permission denied."): a code's phrase is smf_error_phrase() (error.h), whose
 * row in lib/util/error.c sits beside scf_strerror()'s words for the same code.  Every tool
 * connects through cli_connect() so a dead configd is reported the same way everywhere and
 * never waited on.
 */
#ifndef CLI_ERROR_H
#define CLI_ERROR_H

#include <libscf.h>

#include "error.h"

/*
 * The best one-line explanation of a failed call on h: configd's own sentence when it gave one
 * (it names the entity, pg or value), else smf_error_phrase(r).
 */
const char *cli_scf_reason(scf_handle_t *h, int r);

/* True for the errors after which no further call on the handle can work. */
int cli_scf_is_fatal(int r);

/*
 * Connects to the repository at root (NULL: $SMF_ROOT or the default); returns 0 or < 0.
 * With SMF_TRACE=1 it first opens the command's trace file, unless the tool opened one
 * already (smf_trace_open_command(): the command line, then its exit status at exit), so
 * that every tool's reads are recorded (docs/trace-format.md).
 */
int cli_connect(const char *root, scf_handle_t **ret);

#endif
