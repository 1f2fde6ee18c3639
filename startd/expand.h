/* expand.h: a method's exec string with its tokens expanded, as illumos' startd does. */
#ifndef STARTD_EXPAND_H
#define STARTD_EXPAND_H

#include <stdbool.h>

/* The names the one-letter tokens stand for. */
typedef struct expand_names {
	const char *fmri;     /* %f */
	const char *service;  /* %s */
	const char *instance; /* %i */
	const char *method;   /* %m */
} expand_names_t;

/*
 * Where a %{...} token's property is: entity is NULL for the instance whose method runs (read
 * in its running snapshot, composed), else the FMRI of another service or instance named by a
 * full property FMRI in the token.
 */
typedef struct expand_prop {
	const char *entity;
	bool service; /* entity is a service: its own pg, no snapshot */
	const char *pg;
	const char *prop;
} expand_prop_t;

/*
 * Reads a property's values: 0 with *values (a strv the caller frees; none is an empty strv),
 * -SCF_ERROR_NOT_FOUND when the entity, pg or property does not exist, else another negative
 * error with *why set (malloc'd) or NULL.
 */
typedef int (*expand_lookup_t)(void *userdata, const expand_prop_t *p, char ***values, char **why);

/*
 * Expands exec: %f %s %i %m, %r (svc.startd), %% (a percent sign), and %{spec} (the values of a
 * property, each quoted for the shell, joined by a blank, or by ',' or ':' when spec ends with
 * one).  spec is "pg/prop" of the instance, "prop" (pg "application"), or a property's full FMRI.
 * A '%' that ends exec is dropped.  0 with *ret, or a negative error with *why (malloc'd) saying
 * what could not be expanded, in illumos' words; -ENOMEM alone has no *why.
 */
int expand_method_tokens(const char *exec, const expand_names_t *names, expand_lookup_t lookup,
        void *userdata, char **ret, char **why);

/*
 * A value as illumos' startd puts it in a method's command line: each /bin/sh metacharacter
 * (blanks and newlines included) preceded by a backslash, an empty value left empty.  NULL on
 * OOM.
 */
char *expand_quote(const char *s);

#endif
