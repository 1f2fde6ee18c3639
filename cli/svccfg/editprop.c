/*
 * editprop.c: editprop, the selection's properties as svccfg commands in $EDITOR, as illumos'
 * lscf_editprop().
 *
 * The file (/tmp/svccfg-XXXXXX) selects the entity, then lists every pg as commented-out
 * commands: "# delprop PG", "# addpg PG TYPE" and one "# setprop PG/PROP = TYPE: VALUE" per
 * property.  The user uncomments and edits what is to change; once the editor exits the file is
 * run as a command file (errors name it and its line, and end it) and removed.  Nothing is
 * changed unless the user uncomments something.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli-quote.h"
#include "commands.h"
#include "engine.h"

/* What illumos quotes in an edit script: blanks and the language's own characters. */
static void write_value(FILE *f, const char *v, bool force)
{
	if (force || strpbrk(v, " \t\n\\>=\"()"))
		cli_print_quoted(f, v);
	else
		fputs(v, f);
}

static void write_prop(FILE *f, const scf_pg_t *pg, const scf_property_t *p)
{
	bool string = p->type == SCF_TYPE_ASTRING || p->type == SCF_TYPE_USTRING;

	fprintf(f, "# setprop %s/%s = %s: ", pg->name, p->name, scf_type_to_string(p->type));
	if (p->n_values == 1)
		write_value(f, p->values[0], false);
	else {
		fputc('(', f);
		for (size_t i = 0; i < p->n_values; i++) {
			if (i)
				fputc(' ', f);
			write_value(f, p->values[i], string);
		}
		fputc(')', f);
	}
	fputc('\n', f);
}

static int write_script(svccfg_t *c, scf_handle_t *h, FILE *f)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	r = scf_pg_list(h, svccfg_entity(c), NULL, 0, &infos, &n);
	if (r < 0)
		return svccfg_scf_error(c, r, svccfg_entity(c));
	fprintf(f, "select %s\n\n", svccfg_entity(c));
	for (size_t k = 0; r >= 0 && k < n; k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;

		r = scf_pg_get(h, svccfg_entity(c), infos[k].name, NULL, 0, &pg);
		if (r == -SCF_ERROR_NOT_FOUND) {
			r = 0; /* deleted meanwhile */
			continue;
		}
		if (r < 0) {
			r = svccfg_scf_error(c, r, svccfg_entity(c));
			break;
		}
		fprintf(f, "# Property group \"%s\"\n# delprop %s\n# addpg %s %s%s\n", pg->name,
		        pg->name, pg->name, pg->type,
		        pg->flags & SCF_PG_FLAG_NONPERSISTENT ? " P" : "");
		for (size_t i = 0; i < pg->n_props; i++)
			write_prop(f, pg, &pg->props[i]);
		fputc('\n', f);
	}
	scf_pg_info_free(infos, n);
	return r;
}

int cmd_editprop(svccfg_t *c, const token_t *args, size_t n)
{
	char path[] = "/tmp/svccfg-XXXXXX";
	_cleanup_free_ char *cmd = NULL;
	const char *editor = getenv("EDITOR");
	scf_handle_t *h;
	FILE *f;
	int fd, r, st;

	if (n != 0)
		return command_syntax_error(c);
	if ((r = svccfg_need_writable(c)) < 0 || (r = svccfg_handle(c, &h)) < 0)
		return r;
	/*
	 * As illumos' lscf_editprop(): vi only when EDITOR is unset.  Set but empty, the command
	 * is the script's path alone, which the shell cannot execute (mode 0600): illumos says so
	 * then, and so do we, rather than start an editor nobody asked for.
	 */
	if (!editor)
		editor = "vi";
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		svccfg_error(c, "Could not create temporary file.");
		return -errno;
	}
	r = write_script(c, h, f);
	if (fclose(f) != 0 && r >= 0) {
		svccfg_error(c, "Could not write %s: %s.", path, strerror(errno));
		r = -EIO;
	}
	if (r >= 0 && asprintf(&cmd, "%s %s", editor, path) < 0)
		r = svccfg_oom(c);
	if (r >= 0) {
		/* As illumos: system(), so $EDITOR may carry options. */
		st = system(cmd);
		if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 126) {
			/* The shell's 126: found, not executable; illumos' sh says "cannot execute". */
			svccfg_error(c, "%s: cannot execute", *editor ? editor : path);
			r = -EACCES;
		} else if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) == 127) {
			svccfg_error(c, "Could not launch editor %s: %s", editor,
			        st == -1 ? strerror(errno) : "exited abnormally");
			r = -ECHILD;
		}
	}
	if (r >= 0)
		r = engine_source(c, path);
	unlink(path);
	return r;
}
