/*
 * commands.h: the svccfg command table and the handlers of each command family.
 *
 * A handler gets the arguments after the command word and returns 0, or a negative code
 * having reported why (svccfg.h); a malformed call is reported by command_syntax_error().
 * Families: entities.c (list, add, delete, select, unselect), pgs.c (listpg, addpg, delpg),
 * props.c (listprop, setprop, delprop, addpropvalue, delpropvalue), env.c (setenv,
 * unsetenv), templates.c (describe), editprop.c (editprop), snapshots.c (listsnap, refresh,
 * selectsnap, revert), import.c (import, validate, inventory, delhash), export.c (export,
 * archive, extract), apply.c (apply).
 */
#ifndef SVCCFG_COMMANDS_H
#define SVCCFG_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "lexer.h"
#include "svccfg.h"

typedef int (*command_fn_t)(svccfg_t *c, const token_t *args, size_t n);

typedef struct command {
	const char *name;
	command_fn_t run;
	const char *usage; /* arguments, as in svccfg(1) */
	const char *summary;
} command_t;

/* The command called name, or NULL. */
const command_t *command_find(const char *name);
/* Prints the usage of one command, or of every command when name is NULL. */
void command_help(FILE *f, const char *name);
/*
 * Reports a malformed call of the command being run (c->command): its usage at the prompt,
 * else "Syntax error.".  Returns -EINVAL.
 */
int command_syntax_error(svccfg_t *c);

int cmd_help(svccfg_t *c, const token_t *args, size_t n);
int cmd_end(svccfg_t *c, const token_t *args, size_t n);

int cmd_list(svccfg_t *c, const token_t *args, size_t n);
int cmd_add(svccfg_t *c, const token_t *args, size_t n);
int cmd_delete(svccfg_t *c, const token_t *args, size_t n);
int cmd_select(svccfg_t *c, const token_t *args, size_t n);
int cmd_unselect(svccfg_t *c, const token_t *args, size_t n);

int cmd_listpg(svccfg_t *c, const token_t *args, size_t n);
int cmd_addpg(svccfg_t *c, const token_t *args, size_t n);
int cmd_delpg(svccfg_t *c, const token_t *args, size_t n);

int cmd_listprop(svccfg_t *c, const token_t *args, size_t n);
int cmd_setprop(svccfg_t *c, const token_t *args, size_t n);
int cmd_delprop(svccfg_t *c, const token_t *args, size_t n);
int cmd_addpropvalue(svccfg_t *c, const token_t *args, size_t n);
int cmd_delpropvalue(svccfg_t *c, const token_t *args, size_t n);

int cmd_listsnap(svccfg_t *c, const token_t *args, size_t n);
int cmd_refresh(svccfg_t *c, const token_t *args, size_t n);
int cmd_selectsnap(svccfg_t *c, const token_t *args, size_t n);
int cmd_revert(svccfg_t *c, const token_t *args, size_t n);

/* env.c, templates.c, editprop.c */
int cmd_setenv(svccfg_t *c, const token_t *args, size_t n);
int cmd_unsetenv(svccfg_t *c, const token_t *args, size_t n);
int cmd_describe(svccfg_t *c, const token_t *args, size_t n);
int cmd_editprop(svccfg_t *c, const token_t *args, size_t n);

/* import.c, export.c, apply.c: manifests and profiles. */
int cmd_import(svccfg_t *c, const token_t *args, size_t n);
int cmd_restore(svccfg_t *c, const token_t *args, size_t n);
int cmd_validate(svccfg_t *c, const token_t *args, size_t n);
int cmd_inventory(svccfg_t *c, const token_t *args, size_t n);
int cmd_export(svccfg_t *c, const token_t *args, size_t n);
int cmd_archive(svccfg_t *c, const token_t *args, size_t n);
int cmd_extract(svccfg_t *c, const token_t *args, size_t n);
int cmd_apply(svccfg_t *c, const token_t *args, size_t n);
int cmd_delhash(svccfg_t *c, const token_t *args, size_t n);

/*
 * Leading "-x" words of args, each letter one of allowed (seen[i] set for allowed[i]); returns
 * the index of the first operand, or -EINVAL (not reported) for an unknown option.
 */
int args_flags(const token_t *args, size_t n, const char *allowed, char *seen);

/*
 * Shared by the families: the one optional word argument of list/listpg/listprop; 0, or
 * -EINVAL (not reported: a syntax error) when there are more or it is not a word.
 */
int args_optional_word(const token_t *args, size_t n, const char **ret);

#endif
