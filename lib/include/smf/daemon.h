/*
 * daemon.h: the command line both daemons share.
 *
 *   svc.configd [--root DIR] [--native] [--eager]      svc.startd [--root DIR]
 *
 * One parser, so the daemons agree on every option they have in common (-r/--root, -h/--help,
 * --version) and on what a usage error is.  A daemon with flags of its own (configd's
 * --native and --eager) names them in the spec: up to two.
 */
#ifndef SMF_DAEMON_H
#define SMF_DAEMON_H

#include <stdbool.h>

typedef struct daemon_args_spec {
	const char *program;     /* "svc.configd" */
	const char *description; /* the paragraph under the usage line */
	/* An optional flag of the daemon's own (NULL: none): --<flag_name>, -<flag_short>. */
	const char *flag_name;
	char flag_short;
	const char *flag_help;
	/* A second one, the same way (NULL: none). */
	const char *flag2_name;
	char flag2_short;
	const char *flag2_help;
} daemon_args_spec_t;

typedef struct daemon_args {
	const char *root; /* NULL: $SMF_ROOT or the default root */
	bool flag;        /* the spec's own flag was given */
	bool flag2;       /* ... its second flag */
} daemon_args_t;

/*
 * Parses argv into *ret.  Returns 1: run; 0: exit successfully (--help or --version was
 * printed); -EINVAL: a usage error, already reported on stderr (exit 2).
 */
int daemon_parse_args(const daemon_args_spec_t *spec, int argc, char *argv[], daemon_args_t *ret);

#endif
