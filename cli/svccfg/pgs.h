/*
 * pgs.h: property-group helpers shared by pgs.c and props.c.
 *
 * Everything here works on the current (editing) view of the selected entity itself, never
 * composed with its service: svccfg edits what is there, as illumos' svccfg does.
 */
#ifndef SVCCFG_PGS_H
#define SVCCFG_PGS_H

#include "svccfg.h"

/*
 * Reads pg name of the selection.  Reports "Invalid property group name" (-EINVAL), "No such
 * property group" (-SCF_ERROR_NOT_FOUND) or another failure (its code).
 */
int pg_read(svccfg_t *c, const char *name, scf_pg_t **ret);

/* Prints a pg line of listpg/listprop: name padded to width, type, NONPERSISTENT flag. */
void pg_print_line(const char *name, const char *type, uint32_t flags, size_t width);

/* Deletes pg name of the selection (delpg, and delprop without a property). */
int pg_delete(svccfg_t *c, const char *name);

/*
 * Splits "pg/prop" into malloc'd halves.  Reports "Property names must contain a `/'." when
 * there is no slash, or an invalid property name (-EINVAL both).
 */
int prop_name_split(svccfg_t *c, const char *arg, char **pg, char **prop);

#endif
