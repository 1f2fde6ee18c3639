/* state.c: the selection, the handle, and illumos-style error reports. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-error.h"
#include "cli-resolve.h"
#include "cut.h"
#include "log.h"
#include "svccfg.h"

void svccfg_error(svccfg_t *c, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	/* What the message quotes of the input is cut (cut.h). */
	va_start(ap, fmt);
	msg = smf_cut_vformat(fmt, ap);
	va_end(ap);
	/* At the prompt the user reads stdout; elsewhere scripts read stderr. */
	if (c->interactive) {
		printf("%s\n", msg ? msg : "out of memory");
		fflush(stdout);
		return;
	}
	if (c->input_name)
		fprintf(stderr, "%s (%s, line %u): ", log_program(), c->input_name, c->lineno);
	else
		fprintf(stderr, "%s: ", log_program());
	fprintf(stderr, "%s\n", msg ? msg : "out of memory");
}

int svccfg_handle(svccfg_t *c, scf_handle_t **ret)
{
	int r;

	if (!c->h) {
		r = cli_connect(c->root, &c->h);
		if (r < 0) {
			svccfg_error(c, "Could not connect to repository server: %s.",
			        smf_error_phrase(r));
			c->fatal = true;
			return r;
		}
	}
	*ret = c->h;
	return 0;
}

int svccfg_oom(svccfg_t *c)
{
	svccfg_error(c, "Out of memory.");
	c->fatal = true;
	return -ENOMEM;
}

/* After NOT_FOUND on the selection: was it deleted under us?  Then fall back to what remains. */
static bool selection_vanished(svccfg_t *c)
{
	const char *sel = svccfg_entity(c);

	if (!sel || scf_entity_exists(c->h, sel) != 0)
		return false;
	if (c->cur_inst && scf_entity_exists(c->h, c->cur_svc) > 0)
		(void)svccfg_select_set(c, c->cur_svc, NULL);
	else
		(void)svccfg_select_set(c, NULL, NULL);
	return true;
}

int svccfg_scf_error(svccfg_t *c, int r, const char *subject)
{
	assert(r < 0);
	if (r == -SCF_ERROR_CONNECTION_BROKEN || r == -SCF_ERROR_NO_SERVER) {
		svccfg_error(c, "Repository connection broken.  Exiting.");
		c->fatal = true;
		return r;
	}
	if (r == -SCF_ERROR_TIMEOUT) {
		svccfg_error(
		        c, "Repository server timed out: %s.  Exiting.", cli_scf_reason(c->h, r));
		c->fatal = true;
		return r;
	}
	if (r == -SCF_ERROR_NO_MEMORY || r == -ENOMEM) {
		svccfg_oom(c);
		return r;
	}
	if (r == -SCF_ERROR_NOT_FOUND && selection_vanished(c))
		svccfg_error(c, "Current selection has been deleted.");
	else if (r == -SCF_ERROR_PERMISSION_DENIED)
		svccfg_error(c, "Permission denied.");
	else if (r == -SCF_ERROR_BACKEND_READONLY)
		svccfg_error(c, "Backend read-only.");
	else
		svccfg_error(c, "%s: %s.", subject, cli_scf_reason(c->h, r));
	return r;
}

int svccfg_select_set(svccfg_t *c, const char *svc, const char *inst)
{
	char *s = NULL, *i = NULL;

	if ((svc && !(s = strdup(svc))) || (inst && !(i = strdup(inst)))) {
		free(s);
		return svccfg_oom(c);
	}
	/* An instance is selected together with its service. */
	assert(!inst || svc);
	free(c->cur_svc);
	free(c->cur_inst);
	free(c->cur_snap);
	c->cur_snap = NULL;
	c->cur_svc = s;
	c->cur_inst = i;
	return 0;
}

int svccfg_need_entity(svccfg_t *c)
{
	if (svccfg_entity(c))
		return 0;
	svccfg_error(c, "An entity is not selected.");
	return -EINVAL;
}

int svccfg_need_writable(svccfg_t *c)
{
	int r = svccfg_need_entity(c);

	if (r < 0 || !c->cur_snap)
		return r;
	svccfg_error(c, "Cannot modify snapshots.");
	return -EINVAL;
}

typedef struct walk_one {
	svccfg_t *c;
	char *fmri;
} walk_one_t;

static int take_one(void *userdata, const cli_walk_info_t *info)
{
	walk_one_t *w = userdata;

	/* Without CLI_WALK_MULTIPLE a single operand yields at most one match. */
	assert(!w->fmri);
	w->fmri = strdup(info->fmri);
	return w->fmri ? 0 : -SCF_ERROR_NO_MEMORY;
}

static void report_walk(void *userdata, const char *msg)
{
	walk_one_t *w = userdata;

	svccfg_error(w->c, "%s", msg);
}

int svccfg_walk_one(svccfg_t *c, const char *arg, unsigned flags, char **ret)
{
	walk_one_t w = {.c = c};
	scf_handle_t *h;
	int err = 0, r;

	assert(!(flags & CLI_WALK_MULTIPLE));
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	r = cli_walk(h, 1, (char *const[]){(char *)arg}, flags, take_one, report_walk, &w, &err);
	if (r < 0) {
		free(w.fmri);
		return svccfg_scf_error(c, r, arg);
	}
	if (err || !w.fmri) {
		free(w.fmri);
		return -EINVAL;
	}
	*ret = w.fmri;
	return 0;
}
