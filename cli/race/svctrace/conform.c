/*
 * conform.c: "svctrace conform": is each instance's recorded history one the model allows?
 *
 * THE MODEL.  model/protocol.pml models the creation of one instance and its first start: one
 * client script (a creating command, then a consuming one) and the threads of svc.configd and
 * svc.startd.  Every step of it that leaves a trace event has a label (model/steps.tsv); the
 * events it leaves out are listed with why (model/abstracted.tsv); model/labels.py makes both
 * this file's table (conform-table.h) and the model's labels.pml from those rows, so the
 * checker and the model read one table.  For each instance of the trace:
 *
 *   1. its creation (configd.instance_added: the commit, whose committer is the creating
 *      command), its consuming command (the first svcadm enable -s or svcs of the creator's
 *      script that acts on it: same session and process group), and the roles of svc.startd's
 *      threads, from what each recorded (repository: startd.notify_received; graph:
 *      first_sight, graph_insert; dispatcher: restarter_enqueue; worker: restarter_dequeue);
 *   2. the switches of the run, as the trace shows them: import or add, svcadm or svcs, did the
 *      creator wait (import.wait_begin, add.wait_begin), did svcadm wait for the pg
 *      (svcadm.wait_restarter_begin), did configd create the restarter pg with the instance
 *      (its pg_created in the creating commit), did the import write the service's general;
 *   3. its events (its flow, the configd.write of every commit that wrote it, its service's
 *      general pg, the flow-less events of its two commands), in the merged order, each looked
 *      up by role and pattern: a label; skipped (the model leaves it out); the end of what the
 *      model covers (startd's shutdown, a later administrative action: the instance is checked
 *      up to there); or unknown (the trace does not conform: no step records such an event);
 *   4. svctrace-model, the model's verifier compiled in guided mode, searches the model's
 *      runs for one that records exactly those labels (pan reports its assertion
 *      "gpos != g_len" violated: found).  When none does, a binary search over prefixes finds
 *      the first event the model does not allow, reported with its place in the trace.
 *
 * Identical label sequences under the same switches are searched once.  An instance created
 * before the trace, or by a process that left no trace file, is not checked (and counted).
 *
 * Exit status: 0 every checked instance conforms; 1 one does not; 2 usage, or no trace; 3 no
 * answer to trust (the verifier missing or failing, events lost, out of memory).
 *
 * The parts (what they share: conform.h):
 *   conform.c           this model, and the command: options, the run's context, the summary
 *   conform-run.c       step 1's run-wide half: startd's threads' roles, the commits' events
 *   conform-instance.c  steps 1 to 4 for one instance: its events, its switches, its verdict
 *   conform-steps.c     step 3: an event's role and pattern, and its rule in the table
 *   conform-verify.c    step 4: svctrace-model run on the labels, the binary search, the cache
 *   conform-report.c    an instance's verdict in text and JSON
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"
#include "hashmap.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "svctrace.h"

static void ctx_done(ctx_t *c)
{
	free(c->thread_role);
	free(c->proc_configd);
	free(c->proc_startd);
	free(c->commit_of);
	free(c->commits);
	free(c->proc_events);
	hashmap_free(c->cache);
	if (c->workdir[0]) {
		/* the verifier's trails */
		char p[PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/protocol.pml.trail", c->workdir);
		(void)unlink(p);
		(void)rmdir(c->workdir);
	}
}

static int ctx_init(ctx_t *c, const trace_t *t)
{
	const char *tmp = getenv("TMPDIR");

	*c = (ctx_t){.t = t};
	c->thread_role = calloc(t->n_threads ? t->n_threads : 1, sizeof(*c->thread_role));
	c->proc_configd = calloc(t->n_procs ? t->n_procs : 1, sizeof(bool));
	c->proc_startd = calloc(t->n_procs ? t->n_procs : 1, sizeof(bool));
	c->commit_of = calloc(t->n_events ? t->n_events : 1, sizeof(size_t));
	c->cache = hashmap_new();
	if (!c->thread_role || !c->proc_configd || !c->proc_startd || !c->commit_of || !c->cache)
		return -ENOMEM;
	for (size_t p = 0; p < t->n_procs; p++) {
		c->proc_configd[p] = streq(t->procs[p].prog, "svc.configd");
		c->proc_startd[p] = streq(t->procs[p].prog, "svc.startd");
	}
	conform_classify_threads(c);
	snprintf(c->workdir, sizeof(c->workdir), "%s/svctrace-conform.XXXXXX",
	        tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c->workdir)) {
		int r = -errno;

		c->workdir[0] = '\0';
		return log_error_errno(r, "a working directory for the verifier");
	}
	return conform_index_commits(c);
}

int cmd_conform(int argc, char *argv[])
{
	static const struct option opts[] = {
	        {"json", no_argument, NULL, 'j'},
	        {"quiet", no_argument, NULL, 'q'},
	        {"verbose", no_argument, NULL, 'v'},
	        {"steps", no_argument, NULL, 's'},
	        {},
	};
	bool json = false, quiet = false, verbose = false, steps = false;
	size_t counts[_OUTCOME_MAX] = {}, ended = 0, n_results = 0;
	_cleanup_free_ result_t *results = NULL;
	ctx_t c = {};
	trace_t t;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "jqvs", opts, NULL)) >= 0)
		switch (opt) {
		case 's':
			steps = true;
			break;
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return usage_error("conform");
		}
	r = load_to_judge(argc, argv, "conform", &t);
	if (r != 0)
		return r;
	if (t.drops > 0 || t.str_drops > 0) {
		log_error("%" PRIu64 " events and %" PRIu64
		          " strings were lost (trace files full): "
		          "a history with holes cannot be judged",
		        t.drops, t.str_drops);
		trace_done(&t);
		return EXIT_INTERNAL;
	}
	r = ctx_init(&c, &t);
	if (r >= 0) {
		r = conform_find_verifier(&c);
		if (r < 0)
			log_error("the model's verifier %s is not there (svctrace-model is built "
			          "with "
			          "svctrace when spin is installed: make deps, then meson setup "
			          "--reconfigure)",
			        c.verifier);
	}
	c.steps = steps;
	results = calloc(t.n_flows ? t.n_flows : 1, sizeof(*results));
	if (!results)
		r = -ENOMEM;
	for (size_t k = 0; r >= 0 && k < t.n_flows; k++) {
		if (!t.flows[k].fmri || !strchr(t.flows[k].fmri + 5, ':'))
			continue; /* a flow that names no instance */
		r = conform_check_instance(&c, &t.flows[k], &results[n_results]);
		if (r < 0)
			break;
		counts[results[n_results].outcome]++;
		ended += results[n_results].end_idx != SIZE_MAX;
		n_results++;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			log_error("out of memory");
		ctx_done(&c);
		trace_done(&t);
		return EXIT_INTERNAL;
	}
	size_t bad = counts[OUTCOME_FAILS] + counts[OUTCOME_UNKNOWN];
	if (json && !quiet) {
		json_t j;

		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "instances");
		json_begin_array(&j);
		for (size_t k = 0; k < n_results; k++)
			conform_json_result(&j, &c, &results[k]);
		json_end_array(&j);
		json_key(&j, "summary");
		json_begin_object(&j);
		json_kv_uint(&j, "instances", n_results);
		json_kv_uint(&j, "checked", n_results - counts[OUTCOME_SKIPPED]);
		json_kv_uint(&j, "conform", counts[OUTCOME_CONFORMS]);
		json_kv_uint(&j, "nonconforming", bad);
		json_kv_uint(&j, "not_checked", counts[OUTCOME_SKIPPED]);
		json_kv_uint(&j, "left_scope", ended);
		json_kv_uint(&j, "verifier_runs", c.runs);
		json_key(&j, "verify_us");
		json_us(&j, c.verify_ns);
		json_end_object(&j);
		json_end_object(&j);
		fputc('\n', stdout);
	} else if (!quiet) {
		for (size_t k = 0; k < n_results; k++)
			if (results[k].outcome == OUTCOME_FAILS ||
			        results[k].outcome == OUTCOME_UNKNOWN)
				conform_print_failure(&c, &results[k]);
			else if (verbose)
				conform_print_ok(&c, &results[k]);
		printf("svctrace: %zu instances, %zu conform, %zu do not, %zu not checked "
		       "(%zu checked up to where the model ends); %zu verifier runs, %.3f s\n",
		        n_results, counts[OUTCOME_CONFORMS], bad, counts[OUTCOME_SKIPPED], ended,
		        c.runs, (double)c.verify_ns / 1e9);
	}
	r = bad > 0 ? EXIT_FINDINGS : 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_error_errno(-EIO, "writing the report to standard output");
		r = EXIT_INTERNAL;
	}
	ctx_done(&c);
	trace_done(&t);
	return r;
}
