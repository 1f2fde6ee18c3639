/*
 * svctrace: merges the trace files of a minismf run and finds reader-before-async-writer races
 * in them (the import/enable race among them).
 *
 * THE MODEL
 *
 * Every traced process (svccfg, svc.configd, svc.startd, svcadm) wrote its own file,
 * $ROOT/var/svc/trace/<prog>.<pid>.trace (docs/trace-format.md), of fixed-size events: a
 * CLOCK_MONOTONIC time, pid, tid, event id, a flow (the FNV-1a hash of the instance FMRI the
 * event is about, 0 for none) and a string.  CLOCK_MONOTONIC is one clock for all processes
 * of a boot, so sorting every event of every file by time is the merge (merge.c); the files
 * are read whole even when their writer was killed, because each page publishes only whole
 * events.  A flow names an instance in every process; its FMRI is learnt from any of its
 * events whose string is the instance FMRI or one of its pg FMRIs.
 *
 * On the merged trace:
 *   dump    one line per event (dump.c);
 *   export  Chrome Trace Event JSON for Perfetto: a track per thread, one flow per instance
 *           from the import through configd and startd to svcadm, race windows (export.c);
 *   check   the race oracle (analyze.c, check.c): reads by a command that missed a write
 *           caused, through commit ids, by an earlier commit of its script (manifested, or
 *           latent when the reader caught up), and commands that returned before an object
 *           their commits caused to be created existed (latent), each with its window and the
 *           events around it; it warns when the recorders lost events or strings (a full
 *           file), as findings may be missed or windows wrong;
 *   conform each instance's events, mapped to the steps of the SPIN model of the protocol
 *           (model/), checked to be a run the model allows (conform.c; docs/model.md);
 *   html    a self-contained page with the timeline of one instance (html.c, on a template
 *           compiled in at build time).
 *
 * Invariants: the tool only reads the trace directory; the same files give the same output
 * (files are read in name order and ties in time keep read order); every output format is
 * derived from one analysis, so check, export and html agree on what is a race.
 *
 * Exit status: 0 success (check: no finding), 1 check found a race, or another command failed
 * (out of memory, an output error), 2 usage error, or a directory that cannot be read or holds
 * no events, 3 check could not give a trustworthy answer (out of memory, a failed analysis, an
 * output error): check's 1 must mean a race and nothing else, since harnesses count on it.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "svctrace.h"

typedef struct command {
	const char *name;
	int (*run)(int argc, char *argv[]);
	const char *args;
	const char *help;
} command_t;

static const command_t commands[] = {
        {"dump", cmd_dump, "DIR", "print the merged events, one per line"},
        {"export", cmd_export, "DIR -o FILE [--fmri FMRI]",
                "write Chrome Trace Event JSON (Perfetto)"},
        {"check", cmd_check, "[--json] [-q] DIR", "report latent and manifested races"},
        {"conform", cmd_conform, "[--json] [-q] [-v] [--steps] DIR",
                "check each instance's events against the model"},
        {"html", cmd_html, "DIR -o FILE [--fmri FMRI]", "write a self-contained HTML report"},
};

static void usage_to(FILE *f)
{
	fprintf(f, "Usage:\n");
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		fprintf(f, "  svctrace %-7s %-33s %s\n", commands[i].name, commands[i].args,
		        commands[i].help);
	fprintf(f,
	        "DIR is a run's trace directory ($ROOT/var/svc/trace) or the root above it.\n"
	        "FILE \"-\" is standard output.\n");
}

int open_output(const char *path, FILE **ret)
{
	if (streq(path, "-")) {
		*ret = stdout;
		return 0;
	}
	*ret = fopen(path, "we");
	if (!*ret) {
		log_error_errno(negative_errno(), "%s", path);
		return EXIT_FAILURE;
	}
	return 0;
}

int load_or_complain(const char *dir, trace_t *t)
{
	int r = trace_load(dir, t);

	if (r == -ENOMEM) {
		log_error("out of memory");
		return EXIT_FAILURE;
	}
	if (r < 0)
		return EXIT_USAGE; /* trace_load() said what */
	if (t->n_files == 0 || t->n_events == 0) {
		log_error("%s: no trace events (no *.trace files%s); run with SMF_TRACE=1", t->dir,
		        t->n_files ? " with events" : "");
		trace_done(t);
		return EXIT_USAGE;
	}
	return 0;
}

int load_to_judge(int argc, char *argv[], const char *name, trace_t *t)
{
	int r;

	if (optind != argc - 1)
		return usage_error(name);
	r = load_or_complain(argv[optind], t);
	return r == EXIT_FAILURE ? EXIT_INTERNAL : r; /* out of memory, said */
}

int usage_error(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(commands[i].name, name))
			log_error("usage: svctrace %s %s", name, commands[i].args);
	return EXIT_USAGE;
}

int run_writer(int argc, char *argv[], const char *name, trace_writer_t write)
{
	static const struct option opts[] = {
	        {"fmri", required_argument, NULL, 'f'},
	        {},
	};
	const char *output = NULL, *fmri = NULL;
	_cleanup_fclose_ FILE *out = NULL;
	trace_t t;
	int c, r;

	/* GNU getopt permutes: "NAME DIR -o FILE" and "NAME -o FILE DIR" both work. */
	while ((c = getopt_long(argc, argv, "o:f:", opts, NULL)) >= 0)
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			fmri = optarg;
			break;
		default:
			return usage_error(name);
		}
	if (!output || optind != argc - 1)
		return usage_error(name);
	r = load_or_complain(argv[optind], &t);
	if (r != 0)
		return r;
	r = open_output(output, &out);
	if (r == 0) {
		r = write(&t, fmri, out);
		if (r == -ENOENT && fmri)
			r = EXIT_USAGE; /* already said: no such instance */
		else if (r < 0) {
			log_error_errno(r, "%s", name);
			r = EXIT_FAILURE;
		} else if (fflush(out) != 0 || ferror(out)) {
			log_error_errno(-EIO, "%s", output);
			r = EXIT_FAILURE;
		}
	}
	if (out == stdout)
		out = NULL;
	trace_done(&t);
	return r;
}

int main(int argc, char *argv[])
{
	log_set_program("svctrace");
	if (argc < 2) {
		usage_to(stderr);
		return EXIT_USAGE;
	}
	if (streq(argv[1], "-h") || streq(argv[1], "--help")) {
		usage_to(stdout);
		return 0;
	}
	if (streq(argv[1], "--version")) {
		printf("%s\n", SVCTRACE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	log_error("unknown command \"%s\"", argv[1]);
	usage_to(stderr);
	return EXIT_USAGE;
}
