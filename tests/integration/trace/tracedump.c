/*
 * tracedump: the events of every trace file in a directory, merged, as text.
 *
 *   tracedump DIR          one line per event, sorted by time:
 *                          "ns pid tid prog event flow str" (flow as 16 hex digits, str the
 *                          rest of the line, "-" when none)
 *   tracedump --flow FMRI  the flow id of FMRI, in the same form, to pick an instance's lines
 *
 * A test-side reader of docs/trace-format.md through the recorder's own reader
 * (smf_trace_read(), smf_trace_read_strings()), so the tests check what the programs wrote,
 * not what svctrace makes of it.  Ties in time keep file order, then each thread's own order.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "trace-reader.h"
#include "trace.h"

typedef struct Line {
	uint64_t ns, flow;
	uint32_t pid, tid;
	uint16_t event;
	size_t seq; /* order of reading, for a stable sort */
	char *prog, *str;
} Line;

typedef struct Dump {
	Line *lines;
	size_t n, cap;
	char **strings; /* the current file's string table, by id (n_strings slots) */
	size_t n_strings;
} Dump;

static int on_string(uint32_t id, const char *s, void *userdata)
{
	Dump *d = userdata;
	size_t had = d->n_strings;

	if (GREEDY_REALLOC(d->strings, d->n_strings, (size_t)id + 1) < 0)
		return -ENOMEM;
	/* Ids may skip: a slot no string filled reads as NULL. */
	memset(d->strings + had, 0, (d->n_strings - had) * sizeof(*d->strings));
	free(d->strings[id]);
	d->strings[id] = strdup(s);
	return d->strings[id] ? 0 : -ENOMEM;
}

static int on_event(const struct smf_trace_record *rec, void *userdata)
{
	Dump *d = userdata;
	const char *s = rec->str;
	Line *l;

	if (!s && rec->str_id && rec->str_id < d->n_strings)
		s = d->strings[rec->str_id];
	if (GREEDY_REALLOC(d->lines, d->cap, d->n + 1) < 0)
		return -ENOMEM;
	l = &d->lines[d->n];
	*l = (Line){.ns = rec->ns,
	        .flow = rec->flow,
	        .pid = rec->pid,
	        .tid = rec->tid,
	        .event = rec->event,
	        .seq = d->n,
	        .prog = strdup(rec->file->prog),
	        .str = s ? strdup(s) : NULL};
	if (!l->prog || (s && !l->str))
		return -ENOMEM;
	d->n++;
	return 0;
}

static void strings_clear(Dump *d)
{
	for (size_t i = 0; i < d->n_strings; i++)
		free(d->strings[i]);
	free(d->strings);
	d->strings = NULL;
	d->n_strings = 0;
}

static int read_file(Dump *d, const char *path)
{
	struct smf_trace_file_info info;
	int r;

	r = smf_trace_read_strings(path, on_string, d);
	if (r >= 0)
		r = smf_trace_read(path, on_event, d, &info);
	strings_clear(d);
	if (r < 0)
		fprintf(stderr, "tracedump: %s: %s\n", path, strerror(-r));
	return r;
}

static int cmp_line(const void *a, const void *b)
{
	const Line *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool is_trace(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && streq(name + n - 6, ".trace");
}

static int read_dir(Dump *d, const char *dir)
{
	struct dirent **ents = NULL;
	int n, r = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "tracedump: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;

		if (r >= 0 && is_trace(ents[i]->d_name)) {
			if (asprintf(&path, "%s/%s", dir, ents[i]->d_name) < 0)
				r = -ENOMEM;
			else
				r = read_file(d, path);
		}
		free(ents[i]);
	}
	free(ents);
	return r;
}

int main(int argc, char *argv[])
{
	Dump d = {};
	int r;

	if (argc == 3 && streq(argv[1], "--flow")) {
		printf("%016" PRIx64 "\n", smf_trace_flow(argv[2]));
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: tracedump DIR | tracedump --flow FMRI\n");
		return 2;
	}
	r = read_dir(&d, argv[1]);
	if (r >= 0) {
		qsort(d.lines, d.n, sizeof(*d.lines), cmp_line);
		for (size_t i = 0; i < d.n; i++) {
			const Line *l = &d.lines[i];
			const char *name = smf_trace_event_name(l->event);

			printf("%" PRIu64 " %" PRIu32 " %" PRIu32 " %s %s %016" PRIx64 " %s\n",
			        l->ns, l->pid, l->tid, l->prog, name ? name : "?", l->flow,
			        l->str ? l->str : "-");
		}
	}
	for (size_t i = 0; i < d.n; i++) {
		free(d.lines[i].prog);
		free(d.lines[i].str);
	}
	free(d.lines);
	return r < 0 ? 1 : 0;
}
