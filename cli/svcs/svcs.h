/*
 * svcs.h: what svcs knows about an instance, and the pieces that print it.
 *
 * Every mode (listing, -l, -x, -d/-D) works on one array of inst_t records, filled by
 * instset_init() and inst_load() with only the pgs the mode needs, in bulk reads (load.c).
 * A string field is NULL when the repository has no such value; printers decide what a
 * missing value looks like, as illumos does ("-" in columns, nothing in -l).
 */
#ifndef SVCS_H
#define SVCS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <libscf.h>

#include "macro.h"
#include "restarter.h"

typedef struct dep {
	char *name;       /* the pg name */
	char *grouping;   /* require_all, require_any, optional_all, exclude_all; NULL: missing */
	char *restart_on; /* NULL: missing */
	char **entities;  /* FMRIs as written (svc:/..., file://...) */
} dep_t;

typedef struct inst {
	char *fmri; /* canonical: svc:/service:instance */
	char *svc;  /* "network/ssh" */
	char *inst; /* "default" */

	/* restarter pg; st and next_st are state and next_state read (NONE: missing, unknown) */
	bool has_rpg;
	char *state, *next_state, *aux, *logfile;
	restarter_instance_state_t st, next_st;
	bool has_stime;
	int64_t stime_sec;
	int32_t stime_usec;
	int64_t contract; /* the instance's process group; 0: none */

	/* general (composed) and general_ovr; -1: not set */
	int enabled_perm, enabled_ovr;
	char *restarter;

	char *desc; /* tm_common_name/C */

	dep_t *deps;
	size_t n_deps;

	unsigned loaded; /* LOAD_* flags already read */
	size_t visit;    /* when it was selected: lines the sort keys leave equal go by it */
} inst_t;

/* What inst_load() reads. */
enum {
	LOAD_RESTARTER = 1 << 0,
	LOAD_GENERAL = 1 << 1, /* general and general_ovr */
	LOAD_DESC = 1 << 2,
	LOAD_DEPS = 1 << 3,
	/* Just enough of general/general_ovr to decide inst_listed_by_default(). */
	LOAD_FILTER = 1 << 4,
};

/* load.c */
int inst_init(inst_t *i, const char *fmri);
void inst_done(inst_t *i);
/* Reads what (LOAD_*) for each instance not loaded with it yet, in one bulk read. */
int inst_load(scf_handle_t *h, inst_t **v, size_t n, unsigned what);
/* The effective enabled value (override first), false when neither is set. */
bool inst_enabled(const inst_t *i);
/* As illumos' listing filter: either general/enabled or general_ovr/enabled is true. */
bool inst_listed_by_default(const inst_t *i);
/* Online or degraded: it runs, and satisfies its dependents. */
static inline bool inst_running(const inst_t *i)
{
	return restarter_state_is_up(i->st);
}
/*
 * next_state is "none" as startd writes it when no transition is under way (not missing, and
 * not a state svcs does not know, which st/next_st also read as RESTARTER_STATE_NONE).
 */
static inline bool state_is_none(const char *s)
{
	return s && streq(s, restarter_state_to_string(RESTARTER_STATE_NONE));
}

/* Index of all instances by FMRI, for dependency lookups (-d, -D, -l, -x). */
typedef struct instset {
	scf_handle_t *h; /* for reading what was not loaded yet */
	inst_t *v;       /* sorted by FMRI */
	size_t n;
} instset_t;
/* Every instance of the repository, with what (LOAD_*) loaded, in one bulk read. */
int instset_init(instset_t *s, scf_handle_t *h, unsigned what);
void instset_done(instset_t *s);
int instset_load(instset_t *s, unsigned what);
inst_t *instset_find(const instset_t *s, const char *fmri);
/*
 * The instances an entity FMRI (as a dependency writes it) names: the instance itself, or
 * every instance of a service.  Returns how many, adjacent from *first (the set is sorted); 0
 * for a file: entity, a malformed FMRI, or one that names nothing here.
 */
size_t instset_entity(const instset_t *s, const char *entity, inst_t **first);
/* The state shown for a dependency target, as illumos' -l: a state, "absent", "multiple"... */
const char *instset_dep_state(const instset_t *s, const char *entity, char *buf, size_t sz);

/* columns.c */
/*
 * -o: appends the columns of a comma-separated list to cols (n used, cap allocated); *bad gets
 * an unknown name (malloc'd).
 */
int columns_parse(const char *spec, int **cols, size_t *n, size_t *cap, char **bad);
int columns_add_sort(const char *name, bool reverse); /* -s / -S */
void columns_default_sort(void);
void columns_print_header(const int *cols, size_t n);
/* The line of one instance (no newline, trailing blanks trimmed); malloc'd. */
char *columns_format(const inst_t *i, const int *cols, size_t n);
/* qsort comparator over inst_t pointers, by the sort keys given. */
int columns_compare(const void *a, const void *b);
/* Whether the NSTATE/N/SN column is shown (then STATE gets no '*'). */
extern bool columns_nstate_shown;
unsigned columns_load_flags(const int *cols, size_t n);
void columns_help(FILE *f);

/* time.c */
void format_stime(int64_t sec, char *buf, size_t sz);     /* STIME column */
void format_long_time(int64_t sec, char *buf, size_t sz); /* -l, -x ("%c") */

/* procs.c: processes of a process group, sorted by pid. */
typedef struct proc {
	int pid;
	int64_t start_sec; /* realtime */
	char comm[64];     /* escaped (cli_display()) */
	char *args;
} proc_t;
int procs_of_group(int64_t pgid, proc_t **ret, size_t *n);
void procs_free(proc_t *p, size_t n);

/* detail.c */
void detail_print(const instset_t *all, const inst_t *i, bool processes, bool verbose, bool first);

/* explain.c */
int explain(scf_handle_t *h, instset_t *all, inst_t **sel, size_t n_sel, bool verbose);

#endif
