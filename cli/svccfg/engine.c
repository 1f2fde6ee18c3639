/* engine.c: reading statements and running them (see engine.h). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "engine.h"

int engine_exec(svccfg_t *c, const tokens_t *t)
{
	const command_t *cmd;
	int r;

	if (t->n == 0)
		return 0;
	if (t->v[0].type != TOKEN_WORD || !(cmd = command_find(t->v[0].text))) {
		/*
		 * As svccfg.y's unknown_cmd rule: a word and words after it is an unknown
		 * command; anything else ("foo = bar", a quoted first word) a syntax error.
		 */
		bool words = t->v[0].type == TOKEN_WORD;

		for (size_t i = 1; words && i < t->n; i++)
			words = token_is_text(&t->v[i]);
		if (words)
			svccfg_error(c, "Unknown command \"%s\".", t->v[0].text);
		else
			svccfg_error(c, "Syntax error.");
		return -EINVAL;
	}
	c->command = cmd->name;
	r = cmd->run(c, t->v + 1, t->n - 1);
	c->command = NULL;
	/* Only a failure may end the session. */
	assert(r < 0 || !c->fatal);
	return r;
}

static int exit_status(int r)
{
	return r < 0 ? 1 : 0;
}

int engine_run_argv(svccfg_t *c, char *const *argv, int argc)
{
	tokens_t t = {0};
	int r;

	r = lex_argv(argv, argc, &t);
	if (r == -ENOMEM)
		r = svccfg_oom(c);
	else if (r < 0)
		svccfg_error(c, "Syntax error.");
	else
		r = engine_exec(c, &t);
	tokens_clear(&t);
	return exit_status(r);
}

/*
 * Reads the next statement (several lines when a quote or a parenthesis is open) and lexes it.
 * Returns 1 with tokens, 0 at the end of input, or a negative code (reported).
 */
static int read_statement(svccfg_t *c, FILE *f, unsigned *line, tokens_t *t)
{
	_cleanup_free_ char *text = NULL, *buf = NULL;
	size_t text_len = 0, text_allocated = 0, bufsz = 0;
	ssize_t k;
	int r = LEX_INCOMPLETE;

	c->lineno = *line + 1;
	while (r == LEX_INCOMPLETE) {
		k = getline(&buf, &bufsz, f);
		if (k < 0) {
			if (!text)
				return 0;
			svccfg_error(c, "Syntax error.");
			return -EINVAL;
		}
		(*line)++;
		if (GREEDY_REALLOC(text, text_allocated, text_len + k + 1) < 0)
			return svccfg_oom(c);
		memcpy(text + text_len, buf, k + 1);
		text_len += k;
		r = lex_statement(text, t);
	}
	if (r == -ENOMEM)
		return svccfg_oom(c);
	if (r < 0) {
		svccfg_error(c, "Syntax error.");
		return r;
	}
	return 1;
}

static void prompt(const svccfg_t *c)
{
	if (c->cur_snap)
		printf("[%s]", c->cur_snap);
	printf("%s> ", c->cur_inst ? c->cur_inst : c->cur_svc ? c->cur_svc : "svc:");
	fflush(stdout);
}

/* The loop shared by files and the prompt. */
static int run_stream(svccfg_t *c, FILE *f)
{
	tokens_t t = {0};
	unsigned line = 0;
	int r = 0;

	while (!c->quit) {
		if (c->interactive)
			prompt(c);
		r = read_statement(c, f, &line, &t);
		if (r == 0)
			break;
		if (r > 0)
			r = engine_exec(c, &t);
		if (c->fatal || (r < 0 && !c->interactive))
			break;
	}
	if (c->interactive && !c->quit && r == 0)
		putchar('\n');
	tokens_clear(&t);
	return c->fatal || (r < 0 && !c->interactive) ? 1 : 0;
}

int engine_run_file(svccfg_t *c, const char *path)
{
	_cleanup_fclose_ FILE *f = NULL;

	if (streq(path, "-")) {
		c->input_name = "<stdin>";
		return run_stream(c, stdin);
	}
	c->input_name = path;
	f = fopen(path, "re");
	if (!f) {
		c->input_name = NULL;
		svccfg_error(c, "Could not open %s: %s.", path, strerror(errno));
		return 1;
	}
	return run_stream(c, f);
}

int engine_source(svccfg_t *c, const char *path)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	const char *name = c->input_name;
	unsigned lineno = c->lineno;
	bool interactive = c->interactive;
	int r;

	if (!f) {
		svccfg_error(c, "Could not open %s: %s.", path, strerror(errno));
		return -errno;
	}
	/* Its errors name the file and stop it, even when it is run from the prompt. */
	c->input_name = path;
	c->interactive = false;
	r = run_stream(c, f);
	c->input_name = name;
	c->lineno = lineno;
	c->interactive = interactive;
	return r == 0 ? 0 : -EINVAL;
}

int engine_run_interactive(svccfg_t *c)
{
	c->interactive = true;
	return run_stream(c, stdin);
}
