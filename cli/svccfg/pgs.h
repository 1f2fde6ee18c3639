/*
 * pgs.h: property-group helpers shared by pgs.c and props.c.
 *
 * Everything here works on the current (editing) view of the selected entity itself, never
 * composed with its service: svccfg edits what is there, as illumos' svccfg does.
 */
#ifndef SVCCFG_PGS_H
#define SVCCFG_PGS_H

#include "svccfg.h"

/* Reports "Invalid property group name" (-EINVAL) unless name is one. */
int pg_name_check(svccfg_t *c, const char *name);

/*
 * Reports the failure r of a call on the selection's pg name: "No such property group" when
 * the pg does not exist (or no longer does), else as svccfg_scf_error().  Returns r.
 */
int pg_error(svccfg_t *c, const char *name, int r);

/* Prints a pg line of listpg/listprop: name padded to width, type, NONPERSISTENT flag. */
void pg_print_line(const char *name, const char *type, uint32_t flags, size_t width);

/* Deletes pg name of the selection (delpg, and delprop without a property). */
int pg_delete(svccfg_t *c, const char *name);

/*
 * Splits "pg/prop" into malloc'd halves.  Reports "Property names must contain a `/'." when
 * there is no slash, or an invalid property name (-EINVAL both).
 */
int prop_name_split(svccfg_t *c, const char *arg, char **pg, char **prop);

/* What describe adds after each line of the listprop table. */
typedef struct listprop_hooks {
	void (*pg)(void *userdata, const scf_pg_t *pg);
	void (*prop)(void *userdata, const scf_pg_t *pg, const scf_property_t *p);
	void *userdata;
} listprop_hooks_t;

/*
 * listprop: the selection's pgs and properties matching pattern (NULL: all), in the current
 * view or the selected snapshot, with the hooks called after each line.  0 or < 0 (reported).
 */
int listprop_print(svccfg_t *c, const char *pattern, const listprop_hooks_t *hooks);

/*
 * templates.c: checks entity (an instance; the selected snapshot if any) against its templates,
 * composed: every violation is reported as a warning and counted in *errors.  0, or < 0
 * (reported) when the entity cannot be read.
 */
int template_validate(svccfg_t *c, const char *entity, int *errors);

#endif
