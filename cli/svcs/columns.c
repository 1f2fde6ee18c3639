/*
 * columns.c: svcs' columns (-o), sort keys (-s, -S) and line format, as illumos prints them.
 *
 * Each column is written left-aligned in its width and followed by one blank (CTID is
 * right-aligned); a value wider than its column pushes the rest of the line right instead of
 * being cut; trailing blanks are trimmed.  Missing values print as "-" so that every line has
 * the same number of fields for scripts.  Sorting compares the columns' values, not their text:
 * states in illumos' order of interest, STIME by time, CTID by number.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "svcs.h"

typedef struct column {
	const char *name;
	int width;
	bool right;
	unsigned load;
	void (*cell)(const inst_t *i, char *buf, size_t sz);
	int (*cmp)(const inst_t *a, const inst_t *b);
	const char *help;
} column_t;

bool columns_nstate_shown;

/*
 * How svcs prints and sorts each state: its one-letter (S, N, SN) and three-letter (STA, NSTA)
 * abbreviations, and its rank, lower first, from least interesting to most (unknown last).
 */
static const struct {
	char c;
	const char *abbrev;
	int rank;
} state_fmt[_RESTARTER_STATE_MAX] = {
        [RESTARTER_STATE_NONE] = {'?', "?", 7},
        [RESTARTER_STATE_UNINIT] = {'u', "UN", 6},
        [RESTARTER_STATE_OFFLINE] = {'0', "OFF", 4},
        [RESTARTER_STATE_ONLINE] = {'1', "ON", 2},
        [RESTARTER_STATE_DEGRADED] = {'D', "DGD", 3},
        [RESTARTER_STATE_MAINT] = {'m', "MNT", 5},
        [RESTARTER_STATE_DISABLED] = {'d', "DIS", 1},
        [RESTARTER_STATE_LEGACY] = {'L', "LRC", 0},
};

static char state_char(restarter_instance_state_t s)
{
	assert((unsigned)s < _RESTARTER_STATE_MAX);
	return state_fmt[s].c;
}

static const char *state_abbrev(restarter_instance_state_t s)
{
	assert((unsigned)s < _RESTARTER_STATE_MAX);
	return state_fmt[s].abbrev;
}

static int state_rank(restarter_instance_state_t s)
{
	assert((unsigned)s < _RESTARTER_STATE_MAX);
	return state_fmt[s].rank;
}

/* next_state names a state: the instance is on its way there. */
static bool transitioning(const inst_t *i)
{
	return i->next_st != RESTARTER_STATE_NONE;
}

static void cell_state(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s", i->state && *i->state ? i->state : "-",
	        !columns_nstate_shown && transitioning(i) ? "*" : "");
}

static void cell_nstate(const inst_t *i, char *buf, size_t sz)
{
	bool blank = !i->next_state || !*i->next_state || state_is_none(i->next_state);

	snprintf(buf, sz, "%s", blank ? "-" : i->next_state);
}

static void cell_s(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%c%c", state_char(i->st),
	        !columns_nstate_shown && transitioning(i) ? '*' : ' ');
}

static char nstate_char(const inst_t *i)
{
	return !i->next_state || state_is_none(i->next_state) ? '-' : state_char(i->next_st);
}

static void cell_n(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%c", nstate_char(i));
}

static void cell_sn(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%c%c", state_char(i->st), nstate_char(i));
}

static void cell_sta(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s", state_abbrev(i->st),
	        !columns_nstate_shown && transitioning(i) ? "*" : "");
}

static void cell_nsta(const inst_t *i, char *buf, size_t sz)
{
	bool blank = !i->next_state || state_is_none(i->next_state);

	snprintf(buf, sz, "%s", blank ? "-" : state_abbrev(i->next_st));
}

static void cell_stime(const inst_t *i, char *buf, size_t sz)
{
	if (!i->has_stime)
		snprintf(buf, sz, "-");
	else
		format_stime(i->stime_sec, buf, sz);
}

static void cell_fmri(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s", i->fmri);
}

static void cell_svc(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s", i->svc);
}

static void cell_inst(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s", i->inst);
}

static void cell_scope(const inst_t *i _unused_, char *buf, size_t sz)
{
	snprintf(buf, sz, "localhost");
}

static void cell_ctid(const inst_t *i, char *buf, size_t sz)
{
	if (i->contract > 0)
		snprintf(buf, sz, "%lld", (long long)i->contract);
	else
		snprintf(buf, sz, "-");
}

static void cell_desc(const inst_t *i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s", i->desc && *i->desc ? i->desc : "-");
}

static int cmp_int(long long a, long long b)
{
	return (a > b) - (a < b);
}

static int cmp_state(const inst_t *a, const inst_t *b)
{
	return cmp_int(state_rank(a->st), state_rank(b->st));
}

static int cmp_nstate(const inst_t *a, const inst_t *b)
{
	return cmp_int(state_rank(a->next_st), state_rank(b->next_st));
}

static int cmp_sn(const inst_t *a, const inst_t *b)
{
	int r = cmp_state(a, b);

	return r ? r : cmp_nstate(a, b);
}

static int cmp_stime(const inst_t *a, const inst_t *b)
{
	/* A missing time sorts first, as illumos' zeroed key does. */
	int r = cmp_int(a->has_stime, b->has_stime);

	if (r || !a->has_stime)
		return r;
	r = cmp_int(a->stime_sec, b->stime_sec);
	return r ? r : cmp_int(a->stime_usec, b->stime_usec);
}

static int cmp_fmri(const inst_t *a, const inst_t *b)
{
	return strcmp(a->fmri, b->fmri);
}

static int cmp_svc(const inst_t *a, const inst_t *b)
{
	return strcmp(a->svc, b->svc);
}

static int cmp_inst(const inst_t *a, const inst_t *b)
{
	return strcmp(a->inst, b->inst);
}

static int cmp_none(const inst_t *a _unused_, const inst_t *b _unused_)
{
	return 0;
}

static int cmp_ctid(const inst_t *a, const inst_t *b)
{
	return cmp_int(a->contract, b->contract);
}

#define R LOAD_RESTARTER
static const column_t columns[] = {
        {"CTID", 6, true, R, cell_ctid, cmp_ctid, "contract ID for service (its process group)"},
        {"DESC", 100, false, LOAD_DESC, cell_desc, cmp_none,
                "human-readable description of the service"},
        {"FMRI", 50, false, 0, cell_fmri, cmp_fmri,
                "Fault Managed Resource Identifier for service"},
        {"INST", 20, false, 0, cell_inst, cmp_inst,
                "portion of the FMRI indicating service instance"},
        {"N", 1, false, R, cell_n, cmp_nstate, "abbreviation for next state (if in transition)"},
        {"NSTA", 4, false, R, cell_nsta, cmp_nstate,
                "abbreviation for next state (if in transition)"},
        {"NSTATE", 13, false, R, cell_nstate, cmp_nstate, "name for next state (if in transition)"},
        {"S", 2, false, R, cell_s, cmp_state, "abbreviation for current state"},
        {"SCOPE", 20, false, 0, cell_scope, cmp_none, "name for scope associated with service"},
        {"SN", 2, false, R, cell_sn, cmp_sn, "abbreviation for current state and next state"},
        {"SVC", 20, false, 0, cell_svc, cmp_svc, "portion of the FMRI representing service name"},
        {"STA", 4, false, R, cell_sta, cmp_state, "abbreviation for current state"},
        {"STATE", 14, false, R, cell_state, cmp_state, "name for current state"},
        {"STIME", 8, false, R, cell_stime, cmp_stime, "time of last state change"},
};
#undef R

static int column_find(const char *name, size_t len)
{
	for (size_t k = 0; k < ELEMENTSOF(columns); k++)
		if (strlen(columns[k].name) == len && strncasecmp(columns[k].name, name, len) == 0)
			return (int)k;
	return -1;
}

static bool is_nstate_column(int c)
{
	return streq(columns[c].name, "NSTATE") || streq(columns[c].name, "N") ||
	        streq(columns[c].name, "SN") || streq(columns[c].name, "NSTA");
}

int columns_parse(const char *spec, int **cols, size_t *n, size_t *cap, char **bad)
{
	const char *p = spec;

	for (;;) {
		size_t len = strcspn(p, ",");
		int c = column_find(p, len);

		if (c < 0) {
			*bad = strndup(p, len);
			return -SCF_ERROR_INVALID_ARGUMENT;
		}
		if (GREEDY_REALLOC(*cols, *cap, *n + 1) < 0)
			return -SCF_ERROR_NO_MEMORY;
		(*cols)[(*n)++] = c;
		if (is_nstate_column(c))
			columns_nstate_shown = true;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

#define SORT_MAX 32
static int sort_cols[SORT_MAX];
static bool sort_rev[SORT_MAX];
static size_t n_sort;

int columns_add_sort(const char *name, bool reverse)
{
	int c = column_find(name, strlen(name));

	if (c < 0)
		return -1;
	if (n_sort < SORT_MAX) {
		sort_cols[n_sort] = c;
		sort_rev[n_sort++] = reverse;
	}
	return 0;
}

void columns_default_sort(void)
{
	if (n_sort == 0) {
		(void)columns_add_sort("STATE", false);
		(void)columns_add_sort("STIME", false);
		(void)columns_add_sort("FMRI", false);
	}
}

unsigned columns_load_flags(const int *cols, size_t n)
{
	unsigned f = 0;

	for (size_t k = 0; k < n; k++)
		f |= columns[cols[k]].load;
	for (size_t k = 0; k < n_sort; k++)
		f |= columns[sort_cols[k]].load;
	return f;
}

static void trim_right(char *s)
{
	size_t l = strlen(s);

	while (l > 0 && s[l - 1] == ' ')
		s[--l] = '\0';
}

void columns_print_header(const int *cols, size_t n)
{
	char *line = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&line, &sz);

	if (!f)
		return;
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%-*s ", columns[cols[k]].width, columns[cols[k]].name);
	fclose(f);
	trim_right(line);
	puts(line);
	free(line);
}

/*
 * Each cell padded to its column's width (on the left for a right-aligned one), then a blank,
 * as fprintf's "%-*s " and "%*s " would write it; by hand, since a stdio stream per line was
 * half of `svcs -a`'s instructions.
 */
char *columns_format(const inst_t *i, const int *cols, size_t n)
{
	char *line = NULL, cell[4200];
	size_t len = 0, cap = 0;

	for (size_t k = 0; k < n; k++) {
		const column_t *c = &columns[cols[k]];
		size_t w, pad;

		c->cell(i, cell, sizeof(cell));
		w = strlen(cell);
		pad = (size_t)c->width > w ? (size_t)c->width - w : 0;
		if (GREEDY_REALLOC(line, cap, len + w + pad + 2) < 0) {
			free(line);
			return NULL;
		}
		if (c->right) {
			memset(line + len, ' ', pad);
			memcpy(line + len + pad, cell, w);
		} else {
			memcpy(line + len, cell, w);
			memset(line + len + w, ' ', pad);
		}
		len += w + pad;
		line[len++] = ' ';
	}
	if (!line && !(line = calloc(1, 1)))
		return NULL;
	line[len] = 0;
	trim_right(line);
	return line;
}

int columns_compare(const void *a, const void *b)
{
	const inst_t *x = *(inst_t *const *)a, *y = *(inst_t *const *)b;

	for (size_t k = 0; k < n_sort; k++) {
		int r = columns[sort_cols[k]].cmp(x, y);

		if (r)
			return sort_rev[k] ? -r : r;
	}
	return 0;
}

void columns_help(FILE *f)
{
	for (size_t k = 0; k < ELEMENTSOF(columns); k++)
		fprintf(f, "\t%-6s  %s\n", columns[k].name, columns[k].help);
}
