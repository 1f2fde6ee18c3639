/*
 * svccfg: import, export, and modify service configurations.
 *
 * THE MODEL.  svccfg reads statements of its command language (lexer.h) from one of three
 * sources (engine.h) and runs each against a selection (svccfg.h): the scope, a service or an
 * instance of the repository that svc.configd serves at $SMF_ROOT (or --root DIR, given before
 * the command; illumos has no such flag).  Every change goes through libscf, so the repository
 * enforces names, types and values; svccfg only adds illumos' messages and type inference.
 *
 * INVARIANTS.  A failing command changes nothing: each is one libscf call or one transaction
 * (a property change is a read-modify-commit retried while another writer beats it).  Outside
 * the prompt the first failure ends the run with status 1; bad options give status 2.
 *
 * TRACING.  With SMF_TRACE=1 the run records its import events (import.c) in a file of its own
 * under the root's var/svc/trace/; a file that cannot be opened is a warning, never a failure.
 */
#include <getopt.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"
#include "engine.h"
#include "log.h"
#include "svccfg.h"
#include "trace.h"

static _noreturn_ void usage(void)
{
	fprintf(stderr,
	        "Usage:\tsvccfg [--root DIR] [-v] [-s FMRI] [-f file]\n"
	        "\tsvccfg [--root DIR] [-v] [-s FMRI] <command> [args]\n");
	exit(2);
}

static int select_initial(svccfg_t *c, const char *fmri)
{
	tokens_t t = {0};
	int r;

	if (tokens_push(&t, TOKEN_WORD, "select", 6) < 0 ||
	        tokens_push(&t, TOKEN_STRING, fmri, strlen(fmri)) < 0) {
		tokens_clear(&t);
		return svccfg_oom(c);
	}
	r = engine_exec(c, &t);
	tokens_clear(&t);
	return r;
}

static void svccfg_done(svccfg_t *c)
{
	scf_handle_destroy(c->h);
	free(c->cur_svc);
	free(c->cur_inst);
	free(c->cur_snap);
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
	        {"root", required_argument, NULL, 'R'},
	        {"help", no_argument, NULL, 'h'},
	        {},
	};
	svccfg_t c = {0};
	const char *fmri = NULL, *file = NULL;
	int opt, r;

	log_set_program(argv[0]);
	/* '+': options end at the command, so "delete -f x" keeps its -f. */
	while ((opt = getopt_long(argc, argv, "+vs:f:h", options, NULL)) != -1) {
		switch (opt) {
		case 'R':
			c.root = optarg;
			break;
		case 'v':
			c.verbose = true;
			break;
		case 's':
			fmri = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		default:
			usage();
		}
	}
	if (file && optind < argc)
		usage();
	/* Its exit status is recorded, and the file closed, at exit. */
	r = smf_trace_open_command(c.root, "svccfg");
	if (r < 0)
		log_warning_errno(r, "cannot open a trace file; not tracing");

	r = fmri ? select_initial(&c, fmri) : 0;
	if (r < 0)
		r = 1;
	else if (file)
		r = engine_run_file(&c, file);
	else if (optind < argc)
		r = engine_run_argv(&c, argv + optind, argc - optind);
	else if (isatty(STDIN_FILENO))
		r = engine_run_interactive(&c);
	else
		r = engine_run_file(&c, "-");
	svccfg_done(&c);
	return r;
}
