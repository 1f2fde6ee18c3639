/*
 * check.c: "svctrace check": prints the findings of analyze.c, as text with who read, who
 * wrote, the commit that caused the write and the events around each window, or as JSON for
 * harnesses (times in ns since the first event; the keys are in svctrace(1)).
 *
 * Its exit status is what a harness acts on, so each outcome has its own: 0 nothing found,
 * 1 findings, 2 usage or no trace to read, 3 the answer is not to be trusted (out of memory, a
 * failed analysis, or a report that did not reach its reader, e.g. a full disk: a harness must
 * not take a truncated JSON or an empty output for "no race").
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>

#include "json.h"
#include "log.h"
#include "macro.h"
#include "svctrace.h"

#define CONTEXT 8

static void print_context(const trace_t *t, const finding_t *f)
{
	size_t lo = f->start_idx >= CONTEXT ? f->start_idx - CONTEXT : 0,
	       hi = f->start_idx + CONTEXT;
	size_t lo2 = SIZE_MAX, hi2 = 0;

	if (f->end_idx != SIZE_MAX) {
		lo2 = f->end_idx >= CONTEXT ? f->end_idx - CONTEXT : 0;
		hi2 = f->end_idx + CONTEXT;
	}
	if (lo2 <= hi + 1) {
		hi = hi2 > hi ? hi2 : hi; /* the two neighbourhoods touch: one run of lines */
		lo2 = SIZE_MAX;
	}
	printf("  events:\n");
	for (size_t i = lo; i <= hi && i < t->n_events; i++)
		dump_line(stdout, t, &t->events[i],
		        i == f->start_idx || i == f->end_idx ? "  => " : "     ");
	if (lo2 == SIZE_MAX)
		return;
	printf("     ...\n");
	for (size_t i = lo2; i <= hi2 && i < t->n_events; i++)
		dump_line(stdout, t, &t->events[i], i == f->end_idx ? "  => " : "     ");
}

static void print_exit(const trace_t *t, uint32_t pid)
{
	const tr_proc_t *p = trace_find_proc(t, pid);

	if (p && p->exit_status != EXIT_UNKNOWN)
		printf("; it exited %" PRId32 ")\n", p->exit_status);
	else
		printf("; no exit recorded)\n");
}

static void print_finding(const trace_t *t, const finding_t *f)
{
	char w[32], a[32], b[32], p[64];

	printf("%s race: %s\n", finding_kind_name(f->kind), strna(f->fmri));
	printf("  object: %s\n", strna(f->object));
	if (f->read_ns != NS_NEVER) {
		printf("  read: %s found it ", trace_proc_name(t, f->reader_pid, p));
		if (f->read_generation)
			printf("at generation %" PRIu64, f->read_generation);
		else
			printf("absent");
		printf(" (request sent at %s ms", format_rel_ms(t, f->read_ns, a));
		print_exit(t, f->reader_pid);
	}
	if (!f->open)
		printf("  write: %s %s it at %s ms (commit %" PRIu64 ", generation %" PRIu64 ")\n",
		        trace_proc_name(t, f->writer_pid, p),
		        f->write_created ? "created" : "changed", format_rel_ms(t, f->pg_ns, a),
		        f->write_commit, f->write_generation);
	if (f->cause_commit)
		printf("  cause: commit %" PRIu64 " (%s) of %s at %s ms\n", f->cause_commit,
		        strna(f->cause_request), trace_proc_name(t, f->cause_pid, p),
		        format_rel_ms(t, f->cause_ns, a));
	printf("  window: %s ms, from %s at %s ms to ", format_ms(finding_window_ns(f), w),
	        f->rule == FINDING_RULE_READ ? "the read" : "the return",
	        format_rel_ms(t, f->start_ns, a));
	if (f->open)
		printf("the end of the trace (open: the write never came)\n");
	else
		printf("the write at %s ms\n", format_rel_ms(t, f->end_ns, b));
	if (f->return_ns != NS_NEVER && !f->open)
		printf("  latent: %s returned at %s ms, %s ms before the write\n",
		        trace_proc_name(t, t->events[f->return_idx].pid, p),
		        format_rel_ms(t, f->return_ns, a), format_ms(f->end_ns - f->return_ns, w));
	print_context(t, f);
	printf("\n");
}

static void json_rel_ns(json_t *j, const trace_t *t, const char *key, uint64_t ns)
{
	json_key(j, key);
	if (ns == NS_NEVER)
		json_null(j);
	else
		json_uint(j, ns - t->t0);
}

/* "<key>_pid", "<key>_prog" of a process (null when none). */
static void json_proc(
        json_t *j, const trace_t *t, const char *pid_key, const char *prog_key, uint32_t pid)
{
	const tr_proc_t *p = pid ? trace_find_proc(t, pid) : NULL;

	json_key(j, pid_key);
	if (pid)
		json_uint(j, pid);
	else
		json_null(j);
	json_kv_string(j, prog_key, p ? p->prog : NULL);
}

static void json_finding(json_t *j, const trace_t *t, const finding_t *f)
{
	const tr_proc_t *reader = f->reader_pid ? trace_find_proc(t, f->reader_pid) : NULL;

	json_begin_object(j);
	json_kv_string(j, "kind", finding_kind_name(f->kind));
	json_kv_string(j, "fmri", f->fmri);
	json_key(j, "flow");
	json_hex(j, f->flow);
	json_key(j, "window_us");
	json_us(j, finding_window_ns(f));
	json_key(j, "open");
	json_bool(j, f->open);
	json_key(j, "latent_window_us");
	if (f->return_ns == NS_NEVER || f->open)
		json_null(j);
	else
		json_us(j, f->end_ns - f->return_ns);
	/* The name is from when the only return judged was the import's; any return now. */
	json_rel_ns(j, t, "import_return_ns", f->return_ns);
	json_rel_ns(j, t, "pg_commit_ns", f->pg_ns);
	json_rel_ns(j, t, "read_ns", f->read_ns);
	json_kv_string(j, "object", f->object);
	json_kv_string(j, "rule", finding_rule_name(f->rule));
	json_proc(j, t, "reader_pid", "reader_prog", f->reader_pid);
	json_key(j, "reader_exit");
	if (reader && reader->exit_status != EXIT_UNKNOWN)
		json_int(j, reader->exit_status);
	else
		json_null(j);
	json_key(j, "read_generation");
	if (f->read_ns == NS_NEVER || f->read_generation == 0)
		json_null(j);
	else
		json_uint(j, f->read_generation);
	json_proc(j, t, "return_pid", "return_prog",
	        f->return_idx != SIZE_MAX ? t->events[f->return_idx].pid : 0);
	json_key(j, "cause_commit");
	if (f->cause_commit)
		json_uint(j, f->cause_commit);
	else
		json_null(j);
	json_proc(j, t, "cause_pid", "cause_prog", f->cause_commit ? f->cause_pid : 0);
	json_kv_string(j, "cause_request", f->cause_commit ? f->cause_request : NULL);
	json_rel_ns(j, t, "cause_ns", f->cause_commit ? f->cause_ns : NS_NEVER);
	json_key(j, "write_commit");
	if (f->open)
		json_null(j);
	else
		json_uint(j, f->write_commit);
	json_proc(j, t, "writer_pid", "writer_prog", f->open ? 0 : f->writer_pid);
	json_key(j, "write_generation");
	if (f->open)
		json_null(j);
	else
		json_uint(j, f->write_generation);
	json_key(j, "write_created");
	json_bool(j, !f->open && f->write_created);
	json_end_object(j);
}

static void print_json(const trace_t *t, const analysis_t *a)
{
	json_t j;

	json_init(&j, stdout);
	json_begin_object(&j);
	json_key(&j, "findings");
	json_begin_array(&j);
	for (size_t i = 0; i < a->n_findings; i++)
		json_finding(&j, t, &a->findings[i]);
	json_end_array(&j);
	/* The two counts a harness acts on, at the top level too (svcrace reads them there). */
	json_kv_uint(&j, "latent", a->n_latent);
	json_kv_uint(&j, "manifested", a->n_manifested);
	json_key(&j, "summary");
	json_begin_object(&j);
	json_kv_uint(&j, "instances", a->n_instances);
	json_kv_uint(&j, "imported", a->n_imported);
	json_kv_uint(&j, "latent", a->n_latent);
	json_kv_uint(&j, "manifested", a->n_manifested);
	json_kv_uint(&j, "reads", a->n_reads);
	json_kv_uint(&j, "waits", a->n_waits);
	json_kv_uint(&j, "commits", a->n_commits);
	json_kv_uint(&j, "caused_commits", a->n_caused);
	json_kv_uint(&j, "events", t->n_events);
	json_kv_uint(&j, "files", t->n_files);
	json_kv_uint(&j, "drops", t->drops);
	json_kv_uint(&j, "string_drops", t->str_drops);
	json_kv_uint(&j, "t0_ns", t->t0);
	json_key(&j, "duration_us");
	json_us(&j, t->t_end - t->t0);
	json_end_object(&j);
	json_end_object(&j);
	fputc('\n', stdout);
}

int cmd_check(int argc, char *argv[])
{
	static const struct option opts[] = {
	        {"json", no_argument, NULL, 'j'},
	        {"quiet", no_argument, NULL, 'q'},
	        {},
	};
	bool json = false, quiet = false;
	analysis_t a;
	trace_t t;
	int c, r;

	while ((c = getopt_long(argc, argv, "jq", opts, NULL)) >= 0)
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return usage_error("check");
		}
	r = load_to_judge(argc, argv, "check", &t);
	if (r != 0)
		return r;
	r = trace_analyze(&t, &a);
	if (r < 0) {
		log_error_errno(r, "analysing %s", t.dir);
		trace_done(&t);
		return EXIT_INTERNAL;
	}
	/*
	 * On stderr in every mode: a harness reading --json sees it in its log, and a lost string
	 * can hide a pg's creation (its event names no pg) or a lost event a whole step.
	 */
	if (t.drops > 0 || t.str_drops > 0)
		log_warning("warning: %" PRIu64 " events and %" PRIu64
		            " strings were lost (trace files full); windows may be wrong",
		        t.drops, t.str_drops);
	/* Reads but no write numbered: configd was not traced, nothing can be linked. */
	if (a.n_reads > 0 && a.n_commits == 0)
		log_warning(
		        "warning: no svc.configd write in the trace (was svc.configd traced from "
		        "its start?): no race can be found");
	if (json && !quiet)
		print_json(&t, &a);
	else if (!quiet) {
		for (size_t i = 0; i < a.n_findings; i++)
			print_finding(&t, &a.findings[i]);
		printf("svctrace: %zu instances, %zu latent, %zu manifested\n", a.n_instances,
		        a.n_latent, a.n_manifested);
	}
	r = a.n_findings > 0 ? EXIT_FINDINGS : 0;
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		/* errno from the failed flush; an earlier failed write left only the flag. */
		log_error_errno(errno > 0 ? -errno : -EIO, "writing the report to standard output");
		r = EXIT_INTERNAL;
	}
	analysis_done(&a);
	trace_done(&t);
	return r;
}
