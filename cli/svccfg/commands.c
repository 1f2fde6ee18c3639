/* commands.c: the command table, help, and the commands that belong to no family. */
#include <errno.h>
#include <string.h>

#include "commands.h"

static const command_t commands[] = {
        {"list", cmd_list, "[glob_pattern]", "List children of the current selection."},
        {"add", cmd_add, "name", "Add a service or an instance to the current selection."},
        {"delete", cmd_delete, "[-f] {name | fmri | pattern}",
                "Delete a service or an instance (-f: even if it may be running)."},
        {"select", cmd_select, "{name | fmri | pattern}", "Select a service or an instance."},
        {"unselect", cmd_unselect, "", "Select the parent of the current selection."},
        {"listpg", cmd_listpg, "[glob_pattern]", "List property groups of the selection."},
        {"addpg", cmd_addpg, "name type [P]",
                "Add a property group (P: non-persistent) to the selection."},
        {"delpg", cmd_delpg, "name", "Delete a property group of the selection."},
        {"listprop", cmd_listprop, "[glob_pattern]",
                "List property groups and properties of the selection."},
        {"setprop", cmd_setprop, "pg/name = [type:] value | ( values ... )",
                "Set a property of the selection."},
        {"delprop", cmd_delprop, "pg[/name]", "Delete a property or a property group."},
        {"addpropvalue", cmd_addpropvalue, "pg/name [type:] value", "Add a value to a property."},
        {"delpropvalue", cmd_delpropvalue, "pg/name glob_pattern",
                "Delete the values of a property that match the pattern."},
        {"setenv", cmd_setenv, "[-s | -i] [-m method] NAME VALUE",
                "Set a variable of a method's environment (the start method's by default)."},
        {"unsetenv", cmd_unsetenv, "[-s | -i] [-m method] NAME",
                "Remove a variable from a method's environment."},
        {"editprop", cmd_editprop, "",
                "Edit the properties of the selection in $EDITOR, as svccfg commands."},
        {"describe", cmd_describe, "[-v] [-t] [propertygroup/property]",
                "Describe the properties of the selection with their templates."},
        {"listsnap", cmd_listsnap, "", "List the snapshots of the selected instance."},
        {"selectsnap", cmd_selectsnap, "[snapshot]",
                "Read a snapshot of the selected instance (none: the current properties)."},
        {"revert", cmd_revert, "[snapshot]",
                "Set the instance and its service back to a snapshot (default: the selected "
                "one)."},
        {"refresh", cmd_refresh, "",
                "Retake the running snapshot of the selected instance (or of every instance of the "
                "selected service)."},
        {"validate", cmd_validate, "[file | fmri] ...",
                "Check service bundles (a directory: every *.xml below it) without importing, "
                "or an instance (default: the selected one) against its templates."},
        {"import", cmd_import, "[-n] [-V] [--timeout seconds] {file | directory} ...",
                "Import manifests, each in one atomic step (-n: do not refresh instances)."},
        {"inventory", cmd_inventory, "file", "List the services and instances a bundle defines."},
        {"export", cmd_export, "[-a] {service | pattern} [> file]",
                "Write a service as a manifest on stdout (or to file)."},
        {"archive", cmd_archive, "[-a] [> file]", "Write the whole repository as one bundle."},
        {"restore", cmd_restore, "file", "Import an archive that archive wrote."},
        {"extract", cmd_extract, "[> file]", "Write the instances' enabled states as a profile."},
        {"apply", cmd_apply, "[-n] {file | directory} ...",
                "Apply profiles to existing instances, each in one atomic step (-n: only "
                "check them)."},
        {"delhash", cmd_delhash, "[-d] manifest",
                "Forget the recorded hash of a manifest, so that it is imported again."},
        {"help", cmd_help, "[command]", "Describe a command, or list them all."},
        {"end", cmd_end, "", "Leave svccfg."},
        {"exit", cmd_end, "", "Leave svccfg."},
        {"quit", cmd_end, "", "Leave svccfg."},
};

const command_t *command_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void command_help(FILE *f, const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
		const command_t *cmd = &commands[i];

		if (name && !streq(cmd->name, name))
			continue;
		fprintf(f, "Usage: %s%s%s\n", cmd->name, *cmd->usage ? " " : "", cmd->usage);
		if (name)
			fprintf(f, "\n\t%s\n", cmd->summary);
	}
}

int command_syntax_error(svccfg_t *c)
{
	/* At the prompt the usage helps more than the bare verdict. */
	if (c->interactive && c->command && command_find(c->command))
		command_help(stdout, c->command);
	else
		svccfg_error(c, "Syntax error.");
	return -EINVAL;
}

int cmd_help(svccfg_t *c, const token_t *args, size_t n)
{
	if (n > 1 || (n == 1 && !token_is_text(&args[0])))
		return command_syntax_error(c);
	if (n == 1 && !command_find(args[0].text)) {
		svccfg_error(c, "Unknown command \"%s\".", args[0].text);
		return -EINVAL;
	}
	command_help(stdout, n == 1 ? args[0].text : NULL);
	return 0;
}

int cmd_end(svccfg_t *c, const token_t *args, size_t n)
{
	if (n != 0)
		return command_syntax_error(c);
	c->quit = true;
	return 0;
}

int args_optional_word(const token_t *args, size_t n, const char **ret)
{
	if (n > 1 || (n == 1 && args[0].type != TOKEN_WORD && args[0].type != TOKEN_STRING))
		return -EINVAL;
	*ret = n == 1 ? args[0].text : NULL;
	return 0;
}
