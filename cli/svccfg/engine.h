/*
 * engine.h: where svccfg's commands come from, and what a failure does to the rest.
 *
 * Three sources, as illumos: the command line (one command), a command file or stdin (-f FILE,
 * -f -, or stdin that is not a terminal), and the interactive prompt.  Outside the prompt the
 * first failing command ends the run with exit status 1 (nothing after it runs); at the prompt
 * the error is shown and the next command is read.  Each returns the process exit status.
 */
#ifndef SVCCFG_ENGINE_H
#define SVCCFG_ENGINE_H

#include <stdio.h>

#include "lexer.h"
#include "svccfg.h"

/* Runs one tokenized command; 0 or a negative code, reported (syntax errors too). */
int engine_exec(svccfg_t *c, const tokens_t *t);

/* svccfg cmd args... */
int engine_run_argv(svccfg_t *c, char *const *argv, int argc);
/* svccfg -f FILE (path "-" is stdin), or commands piped on stdin. */
int engine_run_file(svccfg_t *c, const char *path);
/*
 * Runs a command file from within a command (editprop): its errors name it and its line and end
 * it; 0, or -EINVAL once one was reported.
 */
int engine_source(svccfg_t *c, const char *path);
/* The prompt. */
int engine_run_interactive(svccfg_t *c);

#endif
