/*
 * svcrace: finds the reader-before-async-writer races of any script that drives minismf,
 * replays them, shrinks them, and compares the fixes.
 *
 * BIG THEORY STATEMENT
 *
 * A user's install script ("svccfg import x.xml; svcadm enable -s x") races with svc.startd
 * when it reads what startd writes on its own time.  Whether a run hits the race depends on
 * the interleaving; svcrace makes the interleaving an input.  Each run of SCRIPT gets:
 *
 *   a fresh sandbox       its own root, svc.configd and svc.startd, tracing on (sandbox.c);
 *   a schedule            which delay points of the daemons are slowed and by how much,
 *                         drawn from the run's seed (schedule.c, PCT-style: D of the P
 *                         points, so a race that needs k given points slowed is hit with a
 *                         probability known in advance), passed as SMF_DELAY;
 *   the fixes of --fix    each fix's switch set or unset explicitly (fix.c);
 *   a deadline            a hung script is killed, its whole process group (run.c);
 *   a verdict             the script's exit status says "failed", the trace says "race":
 *                         svctrace check, the tree's one race oracle (verdict.c).
 *
 * Run k of "svcrace run --seed S" has seed S + k, and its schedule is a pure function of that
 * seed (and --depth, and this build's list of points), printed as the SMF_DELAY string of
 * fixed delays it is: "svcrace replay --seed S+k" makes the same run again; "svcrace shrink"
 * minimizes the schedule (shrink.c); "svcrace matrix" runs the same seeds under every fix
 * (matrix.c).  Runs go J at a time, each in a child process of its own, the judging of a
 * finished run's trace overlapping the next run; they are reported in seed order (run.c).
 *
 * INVARIANTS
 * - Nothing a run starts outlives it: the script's group is killed, startd then configd are
 *   stopped and reaped, the sandbox and its trace are removed (unless --keep), also on
 *   Ctrl-C; a svcrace killed outright takes its children along (PR_SET_PDEATHSIG).
 * - A verdict of race comes from the trace only; a script's exit status never makes one.
 * - The daemons and the CLI are the ones next to svcrace's own binary (locate.c), never
 *   whatever PATH holds, and the script finds the same CLI first on its PATH.
 *
 * Exit status: 0 nothing found; 1 a race was found (run, replay) or there was nothing to
 * shrink (shrink); 2 usage; 3 svcrace could not do its work (a sandbox, svctrace); 4 no
 * race, but the script failed or hung; 130 interrupted.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "svcrace.h"
#include "timeutil.h"

#define DEFAULT_TIMEOUT_S 60

static void usage_to(FILE *f)
{
	fprintf(f,
	        "Usage:\n"
	        "  svcrace run [--runs N] [--jobs J] [--seed S] [--depth D] [--scale K] [--fix F]\n"
	        "              [--timeout T] [--stop-at-first] [--json FILE] [--keep] [-v] SCRIPT "
	        "[ARG...]\n"
	        "  svcrace replay --seed S [--runs N] [--depth D | --schedule SMF_DELAY] [--fix "
	        "F]\n"
	        "              [--report FILE] [--json FILE] [...] SCRIPT [ARG...]\n"
	        "  svcrace shrink --seed S [--confirm K] [--depth D | --schedule SMF_DELAY] [--fix "
	        "F]\n"
	        "              [--report FILE] [...] SCRIPT [ARG...]\n"
	        "  svcrace matrix [--runs N] [--seed S] [--depth D] [--fixes F,F...] [...] SCRIPT "
	        "[ARG...]\n"
	        "  svcrace points\n"
	        "SCRIPT runs N times, each in a fresh sandbox (its own svc.configd and "
	        "svc.startd,\n"
	        "SMF_ROOT set, this build's CLI first on PATH, tracing on), with D delay points "
	        "slowed\n"
	        "as drawn from the run's seed (S, S+1, ...), each by 1 to 100 ms times K;\n"
	        "svctrace check judges each run's trace.\n"
	        "F: none, default (import-wait+add-wait), all, or variants joined by '+':\n"
	        "   import-wait, add-wait, svcadm-wait, configd-eager.\n"
	        "Defaults: --runs 100 (matrix 20, replay 1), --jobs cores, --seed from the clock,\n"
	        "--depth %d, --scale 1, --fix default, --timeout %d (seconds per run), --confirm "
	        "5.\n"
	        "Exit: 0 nothing found, 1 a race (shrink: nothing to shrink), 2 usage, 3 svcrace "
	        "could\n"
	        "not run, 4 no race but the script failed or hung.  See svcrace(1).\n",
	        SCHEDULE_DEFAULT_DEPTH, DEFAULT_TIMEOUT_S);
}

static int usage_error(void)
{
	fprintf(stderr, "Try 'svcrace --help'.\n");
	return EXIT_USAGE;
}

static int cmd_points(void)
{
	size_t w = 0;
	unsigned d = SCHEDULE_DEFAULT_DEPTH;

	for (size_t i = 0; i < svcrace_n_points; i++)
		if (strlen(svcrace_points[i].name) > w)
			w = strlen(svcrace_points[i].name);
	for (size_t i = 0; i < svcrace_n_points; i++)
		printf("%-*s  %s\n", (int)w, svcrace_points[i].name, svcrace_points[i].where);
	printf("\n%zu delay points.  With --depth %u a run slows", svcrace_n_points, d);
	for (unsigned k = 1; k <= d; k++)
		printf("%s %u given point%s in %.1f%% of runs", k > 1 ? "," : "", k,
		        k > 1 ? "s" : "", 100 * schedule_hit_probability(svcrace_n_points, d, k));
	printf(" (times, for each, the share of the delays %" PRIu32 "..%" PRIu32
	       " ms long enough).\n",
	        schedule_magnitudes_ms[0], schedule_magnitudes_ms[schedule_n_magnitudes - 1]);
	return 0;
}

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *s == '-' || *end || errno || v > max) {
		log_error("%s: \"%s\" is not a whole number from 0 to %" PRIu64, opt, s, max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_positive(const char *opt, const char *s, uint64_t max, uint64_t *ret)
{
	int r = parse_u64(opt, s, max, ret);

	if (r >= 0 && *ret == 0) {
		log_error("%s: at least 1", opt);
		return -EINVAL;
	}
	return r;
}

/* SCRIPT as execvp() would find it: a name without '/' is looked up in PATH. */
static int resolve_script(const char *name, char **ret)
{
	const char *path = getenv("PATH");
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	if (strchr(name, '/')) {
		struct stat st;

		if (access(name, X_OK) < 0)
			return log_error_errno(negative_errno(), "%s: cannot run it", name);
		if (stat(name, &st) < 0 || !S_ISREG(st.st_mode)) {
			log_error("%s: cannot run it: not a file", name);
			return -EINVAL;
		}
		*ret = strdup(name);
		return *ret ? 0 : -ENOMEM;
	}
	copy = strdup(path && *path ? path : "/usr/bin:/bin");
	if (!copy)
		return -ENOMEM;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p;

		if (asprintf(&p, "%s/%s", d, name) < 0)
			return -ENOMEM;
		if (access(p, X_OK) == 0) {
			*ret = p;
			return 0;
		}
		free(p);
	}
	log_error(
	        "%s: no such executable in PATH (a script in this directory is ./%s)", name, name);
	return -ENOENT;
}

enum {
	OPT_STOP_AT_FIRST = 0x100,
	OPT_JSON,
	OPT_SCHEDULE,
	OPT_CONFIRM,
	OPT_SCALE,
	OPT_FIXES,
	OPT_VERSION,
};

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
	        {"runs", required_argument, NULL, 'n'},
	        {"jobs", required_argument, NULL, 'j'},
	        {"seed", required_argument, NULL, 's'},
	        {"depth", required_argument, NULL, 'd'},
	        {"scale", required_argument, NULL, OPT_SCALE},
	        {"fix", required_argument, NULL, 'f'},
	        {"timeout", required_argument, NULL, 't'},
	        {"keep", no_argument, NULL, 'k'},
	        {"report", required_argument, NULL, 'o'},
	        {"verbose", no_argument, NULL, 'v'},
	        {"help", no_argument, NULL, 'h'},
	        {"stop-at-first", no_argument, NULL, OPT_STOP_AT_FIRST},
	        {"json", required_argument, NULL, OPT_JSON},
	        {"schedule", required_argument, NULL, OPT_SCHEDULE},
	        {"confirm", required_argument, NULL, OPT_CONFIRM},
	        {"fixes", required_argument, NULL, OPT_FIXES},
	        {"version", no_argument, NULL, OPT_VERSION},
	        {},
	};
	svcrace_t c = {.timeout_usec = DEFAULT_TIMEOUT_S * USEC_PER_SEC};
	options_t o = {
	        .depth = SCHEDULE_DEFAULT_DEPTH, .scale = 1, .fixes = FIX_DEFAULT, .confirm = 5};
	_cleanup_free_ char *script = NULL;
	const char *cmd;
	bool runs_given = false, confirm_given = false;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t v;
	int ch;

	log_set_program("svcrace");
	if (argc >= 2 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
		usage_to(stdout);
		return 0;
	}
	if (argc >= 2 && streq(argv[1], "--version")) {
		printf("%s\n", SVCRACE_VERSION);
		return 0;
	}
	if (argc < 2) {
		usage_to(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (streq(cmd, "points")) {
		if (argc != 2) {
			log_error("points takes no arguments");
			return usage_error();
		}
		return cmd_points();
	}
	if (!streq(cmd, "run") && !streq(cmd, "replay") && !streq(cmd, "shrink") &&
	        !streq(cmd, "matrix")) {
		log_error("unknown command \"%s\"", cmd);
		return usage_error();
	}
	c.jobs = cores > 0 ? (unsigned)cores : 1;
	c.pid = getpid();

	/* "+": options end at SCRIPT, so that its own arguments are left alone. */
	argc--;
	argv++;
	while ((ch = getopt_long(argc, argv, "+n:j:s:d:f:t:ko:vh", opts, NULL)) >= 0) {
		switch (ch) {
		case 'n':
			if (parse_u64("--runs", optarg, 1000000, &v) < 0)
				return usage_error();
			o.runs = v;
			runs_given = true;
			break;
		case 'j':
			if (parse_positive("--jobs", optarg, 256, &v) < 0)
				return usage_error();
			c.jobs = (unsigned)v;
			break;
		case 's':
			if (parse_u64("--seed", optarg, UINT64_MAX / 2, &o.seed) < 0)
				return usage_error();
			o.seed_given = true;
			break;
		case 'd':
			if (parse_u64("--depth", optarg, SCHEDULE_MAX, &v) < 0)
				return usage_error();
			o.depth = (unsigned)v;
			break;
		case 'f':
			if (fix_parse(optarg, &o.fixes) < 0)
				return usage_error();
			break;
		case 't':
			if (parse_positive("--timeout", optarg, 86400, &v) < 0)
				return usage_error();
			c.timeout_usec = v * USEC_PER_SEC;
			break;
		case 'k':
			c.keep = true;
			break;
		case 'o':
			o.report = optarg;
			break;
		case 'v':
			c.verbose = true;
			break;
		case 'h':
			usage_to(stdout);
			return 0;
		case OPT_STOP_AT_FIRST:
			o.stop_at_first = true;
			break;
		case OPT_JSON:
			o.json = optarg;
			break;
		case OPT_SCHEDULE:
			if (schedule_parse(optarg, &o.schedule) < 0)
				return usage_error();
			o.have_schedule = true;
			break;
		case OPT_SCALE:
			if (parse_positive("--scale", optarg, SCHEDULE_MAX_SCALE, &v) < 0)
				return usage_error();
			o.scale = (unsigned)v;
			break;
		case OPT_CONFIRM:
			if (parse_positive("--confirm", optarg, 64, &v) < 0)
				return usage_error();
			o.confirm = (unsigned)v;
			confirm_given = true;
			break;
		case OPT_FIXES: {
			_cleanup_free_ char *copy = strdup(optarg);
			char *save = NULL;

			if (!copy)
				return EXIT_INTERNAL;
			o.matrix_n = 0;
			for (char *w = strtok_r(copy, ",", &save); w;
			        w = strtok_r(NULL, ",", &save)) {
				if (o.matrix_n == ELEMENTSOF(o.matrix_fixes)) {
					log_error("--fixes: at most %zu variants",
					        ELEMENTSOF(o.matrix_fixes));
					return usage_error();
				}
				if (fix_parse(w, &o.matrix_fixes[o.matrix_n++]) < 0)
					return usage_error();
			}
			if (o.matrix_n == 0) {
				log_error("--fixes: name at least one variant");
				return usage_error();
			}
			break;
		}
		case OPT_VERSION:
			printf("%s\n", SVCRACE_VERSION);
			return 0;
		default:
			return usage_error();
		}
	}
	if (optind >= argc) {
		log_error("%s: no SCRIPT given", cmd);
		return usage_error();
	}
	if ((streq(cmd, "replay") || streq(cmd, "shrink")) && !o.seed_given) {
		log_error("%s needs --seed S: the seed of the run to %s (svcrace run prints it)",
		        cmd, cmd);
		return usage_error();
	}
	if (o.have_schedule && (streq(cmd, "run") || streq(cmd, "matrix"))) {
		log_error("%s draws a schedule per run; --schedule is for replay and shrink", cmd);
		return usage_error();
	}
	if (o.matrix_n && !streq(cmd, "matrix")) {
		log_error("--fixes is for matrix; %s takes --fix", cmd);
		return usage_error();
	}
	if (o.json && !streq(cmd, "run") && !streq(cmd, "replay")) {
		log_error("--json is for run and replay");
		return usage_error();
	}
	if (o.stop_at_first && !streq(cmd, "run")) {
		log_error("--stop-at-first is for run");
		return usage_error();
	}
	if (o.report && !streq(cmd, "replay") && !streq(cmd, "shrink")) {
		log_error("--report is for replay and shrink");
		return usage_error();
	}
	if (confirm_given && !streq(cmd, "shrink")) {
		log_error("--confirm is for shrink");
		return usage_error();
	}
	if (!runs_given)
		o.runs = streq(cmd, "run") ? 100 : streq(cmd, "matrix") ? 20 : 1;
	if (o.runs == 0) {
		log_error("--runs: at least 1");
		return usage_error();
	}
	if (!o.seed_given)
		o.seed = (now_realtime_usec() ^ (uint64_t)getpid() << 20) % 1000000000;
	if (o.seed > UINT64_MAX / 2 - o.runs) {
		log_error("--seed: too large");
		return usage_error();
	}
	if (resolve_script(argv[optind], &script) < 0)
		return EXIT_USAGE;
	argv[optind] = script;
	c.script = &argv[optind];
	if (tools_locate(&c.tools) < 0)
		return EXIT_INTERNAL;
	proc_catch_signals();

	if (streq(cmd, "run"))
		return cmd_run(&c, &o);
	if (streq(cmd, "replay"))
		return cmd_replay(&c, &o);
	if (streq(cmd, "shrink"))
		return cmd_shrink(&c, &o);
	return cmd_matrix(&c, &o);
}
