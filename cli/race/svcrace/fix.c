/*
 * fix.c: the fix variants and the switches that select them (docs/race.md, "The fixes").
 *
 * Each fix has one switch, an environment variable read by the program that implements it:
 *
 *   import-wait    on by default;  SVCCFG_IMPORT_NOWAIT=1 turns it off      (svccfg)
 *   add-wait       on by default;  SVCCFG_ADD_NOWAIT=1 turns it off         (svccfg, libscf)
 *   svcadm-wait    off by default; SVCADM_WAIT_RESTARTER=1 turns it on      (svcadm)
 *   configd-eager  off by default; SVC_CONFIGD_EAGER=1 turns it on          (svc.configd)
 *
 * A run's --fix F is the set of fixes that are on; every switch is then set or unset
 * explicitly, so what the user's environment holds never leaks into a run.  The clients'
 * switches go to the script and to startd (whose methods may run svccfg, as EMI does);
 * configd's only to configd.
 */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "strv.h"
#include "svcrace.h"

static const struct {
	const char *name;
	unsigned bit;
} variants[] = {
        {"import-wait", FIX_IMPORT_WAIT},
        {"add-wait", FIX_ADD_WAIT},
        {"svcadm-wait", FIX_SVCADM_WAIT},
        {"configd-eager", FIX_CONFIGD_EAGER},
};

const unsigned fix_matrix_default[] = {
        0,
        FIX_IMPORT_WAIT,
        FIX_ADD_WAIT,
        FIX_SVCADM_WAIT,
        FIX_CONFIGD_EAGER,
        FIX_DEFAULT,
        FIX_ALL,
};
const size_t fix_matrix_n_default = ELEMENTSOF(fix_matrix_default);

static int fix_word(const char *w, unsigned *bits)
{
	if (streq(w, "default")) {
		*bits = FIX_DEFAULT;
		return 0;
	}
	if (streq(w, "all")) {
		*bits = FIX_ALL;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(variants); i++)
		if (streq(w, variants[i].name)) {
			*bits = variants[i].bit;
			return 0;
		}
	return -EINVAL;
}

int fix_parse(const char *text, unsigned *ret)
{
	_cleanup_free_ char *copy = strdup(text);
	char *save = NULL;
	unsigned fixes = 0;

	if (!copy)
		return log_error_errno(-ENOMEM, "parsing --fix");
	if (streq(text, "none")) {
		*ret = 0;
		return 0;
	}
	if (!*text || text[strlen(text) - 1] == '+' || text[0] == '+' || strstr(text, "++"))
		goto bad;
	for (char *w = strtok_r(copy, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
		unsigned bits;

		if (fix_word(w, &bits) < 0)
			goto bad;
		fixes |= bits;
	}
	*ret = fixes;
	return 0;
bad:
	log_error("--fix \"%s\": want none, default, all, or variants joined by '+' (import-wait, "
	          "add-wait, svcadm-wait, configd-eager, default)",
	        text);
	return -EINVAL;
}

const char *fix_name(unsigned fixes, char *buf, size_t size)
{
	size_t len = 0;

	if (fixes == 0)
		return "none";
	if (fixes == FIX_DEFAULT)
		return "default";
	if (fixes == FIX_ALL)
		return "all";
	buf[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(variants); i++) {
		int w;

		if (!(fixes & variants[i].bit) || len >= size)
			continue;
		w = snprintf(buf + len, size - len, "%s%s", len ? "+" : "", variants[i].name);
		if (w > 0)
			len += (size_t)w;
	}
	return buf;
}

/* NAME=1 when the switch is to be set, no NAME at all otherwise. */
static int env_switch(char ***env, const char *name, bool set)
{
	if (set)
		return env_set(env, name, "1");
	env_unset(*env, name);
	return 0;
}

int fix_client_env(unsigned fixes, char ***env)
{
	int r;

	r = env_switch(env, "SVCCFG_IMPORT_NOWAIT", !(fixes & FIX_IMPORT_WAIT));
	if (r >= 0)
		r = env_switch(env, "SVCCFG_ADD_NOWAIT", !(fixes & FIX_ADD_WAIT));
	if (r >= 0)
		r = env_switch(env, "SVCADM_WAIT_RESTARTER", fixes & FIX_SVCADM_WAIT);
	/* configd's switch is configd's alone: a client that saw it would mean nothing by it. */
	if (r >= 0)
		env_unset(*env, "SVC_CONFIGD_EAGER");
	return r;
}

int fix_configd_env(unsigned fixes, char ***env)
{
	return env_switch(env, "SVC_CONFIGD_EAGER", fixes & FIX_CONFIGD_EAGER);
}
