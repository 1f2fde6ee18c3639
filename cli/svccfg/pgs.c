/* pgs.c: listpg, addpg, delpg, and the pg helpers of pgs.h. */
#include <assert.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pgs.h"

int pg_name_check(svccfg_t *c, const char *name)
{
	if (scf_name_validate(name) >= 0)
		return 0;
	svccfg_error(c, "Invalid property group name \"%s\".", name);
	return -EINVAL;
}

int pg_error(svccfg_t *c, const char *name, int r)
{
	assert(r < 0);
	/* DELETED: a transaction's pg went away between its read and its commit. */
	if (r != -SCF_ERROR_NOT_FOUND && r != -SCF_ERROR_DELETED)
		return svccfg_scf_error(c, r, svccfg_entity(c));
	svccfg_error(c, "No such property group \"%s\".", name);
	return r;
}

void pg_print_line(const char *name, const char *type, uint32_t flags, size_t width)
{
	printf("%-*s  %s%s\n", (int)width, name, type,
	        flags & SCF_PG_FLAG_NONPERSISTENT ? "\tNONPERSISTENT" : "");
}

int prop_name_split(svccfg_t *c, const char *arg, char **pg, char **prop)
{
	const char *slash = strchr(arg, '/');

	if (!slash) {
		svccfg_error(c, "Property names must contain a `/'.");
		return -EINVAL;
	}
	if (scf_name_validate(slash + 1) < 0) {
		svccfg_error(c, "Invalid property name \"%s\".", slash + 1);
		return -EINVAL;
	}
	*pg = strndup(arg, slash - arg);
	*prop = strdup(slash + 1);
	if (!*pg || !*prop) {
		free(*pg);
		free(*prop);
		return svccfg_oom(c);
	}
	return 0;
}

int cmd_listpg(svccfg_t *c, const token_t *args, size_t n)
{
	scf_pg_info_t *pgs = NULL;
	size_t npgs = 0, width = 0;
	const char *pattern;
	scf_handle_t *h;
	int r;

	if (args_optional_word(args, n, &pattern) < 0)
		return command_syntax_error(c);
	if ((r = svccfg_need_entity(c)) < 0 || (r = svccfg_handle(c, &h)) < 0)
		return r;
	r = scf_pg_list(h, svccfg_entity(c), c->cur_snap, 0, &pgs, &npgs);
	if (r < 0)
		return svccfg_scf_error(c, r, svccfg_entity(c));
	/* Two passes, so the type column lines up over the pgs shown. */
	for (size_t i = 0; i < npgs; i++)
		if (!pattern || fnmatch(pattern, pgs[i].name, 0) == 0)
			width = strlen(pgs[i].name) > width ? strlen(pgs[i].name) : width;
	for (size_t i = 0; i < npgs; i++)
		if (!pattern || fnmatch(pattern, pgs[i].name, 0) == 0)
			pg_print_line(pgs[i].name, pgs[i].type, pgs[i].flags, width);
	scf_pg_info_free(pgs, npgs);
	return 0;
}

/* "P" makes the pg non-persistent, "p" persistent (the default); the last letter wins. */
static int parse_pg_flags(svccfg_t *c, const char *s, uint32_t *ret)
{
	uint32_t flags = 0;

	for (; s && *s; s++) {
		if (*s == 'P')
			flags |= SCF_PG_FLAG_NONPERSISTENT;
		else if (*s == 'p')
			flags &= ~SCF_PG_FLAG_NONPERSISTENT;
		else {
			svccfg_error(c, "Invalid property group flag %c.", *s);
			return -EINVAL;
		}
	}
	*ret = flags;
	return 0;
}

int cmd_addpg(svccfg_t *c, const token_t *args, size_t n)
{
	uint32_t flags;
	scf_handle_t *h;
	int r;

	if (n < 2 || n > 3 || !token_is_text(&args[0]) || !token_is_text(&args[1]) ||
	        (n == 3 && !token_is_text(&args[2])))
		return command_syntax_error(c);
	if ((r = svccfg_need_writable(c)) < 0)
		return r;
	if ((r = parse_pg_flags(c, n == 3 ? args[2].text : NULL, &flags)) < 0)
		return r;
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	r = scf_pg_add(h, svccfg_entity(c), args[0].text, args[1].text, flags);
	if (r == -SCF_ERROR_INVALID_ARGUMENT || r == -SCF_ERROR_CONSTRAINT_VIOLATED)
		svccfg_error(c, "Name, type, or flags are invalid.");
	else if (r == -SCF_ERROR_EXISTS)
		svccfg_error(c, "Property group already exists.");
	else if (r == -SCF_ERROR_BACKEND_ACCESS)
		svccfg_error(c, "Backend refused access.");
	else if (r < 0)
		return svccfg_scf_error(c, r, svccfg_entity(c));
	return r < 0 ? r : 0;
}

int pg_delete(svccfg_t *c, const char *name)
{
	scf_handle_t *h;
	int r;

	/*
	 * No read first: DeletePg answers NotFound itself, and a pg whose values are too large
	 * for one D-Bus reply (over 64 MiB), which nothing can read, can still be deleted.
	 */
	if ((r = pg_name_check(c, name)) < 0 || (r = svccfg_handle(c, &h)) < 0)
		return r;
	r = scf_pg_delete(h, svccfg_entity(c), name);
	return r < 0 ? pg_error(c, name, r) : 0;
}

int cmd_delpg(svccfg_t *c, const token_t *args, size_t n)
{
	int r;

	if (n != 1 || !token_is_text(&args[0]))
		return command_syntax_error(c);
	if ((r = svccfg_need_writable(c)) < 0)
		return r;
	if (strchr(args[0].text, '/')) {
		svccfg_error(c, "Invalid property group name \"%s\".", args[0].text);
		return -EINVAL;
	}
	return pg_delete(c, args[0].text);
}
