/*
 * conform-verify.c: the model's verifier, svctrace-model (SPIN's pan for model/protocol.pml in
 * guided mode), run on an instance's labels: does some run of the model record exactly these?
 * When none does, a binary search over prefixes finds the first label it does not allow.  An
 * answer is cached by switches and labels, so identical histories are searched once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conform.h"
#include "log.h"
#include "macro.h"
#include "timeutil.h"

#define VERIFIER_NAME "svctrace-model"

int conform_find_verifier(ctx_t *c)
{
	const char *e = getenv("SVCTRACE_MODEL");
	char self[PATH_MAX];
	ssize_t n;

	if (e && *e) {
		snprintf(c->verifier, sizeof(c->verifier), "%s", e);
		return access(c->verifier, X_OK) == 0 ? 0 : -errno;
	}
	/* The build tree: next to svctrace; an installed one: its libexec directory. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(c->verifier, sizeof(c->verifier), "%.*s/" VERIFIER_NAME,
		        (int)(strrchr(self, '/') - self), self);
		if (access(c->verifier, X_OK) == 0)
			return 0;
	}
	snprintf(c->verifier, sizeof(c->verifier), "%s/" VERIFIER_NAME, SVCTRACE_MODEL_DIR);
	return access(c->verifier, X_OK) == 0 ? 0 : -ENOENT;
}

static char *switches_text(const int sw[MODEL_SW_COUNT])
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t k = 0; k < MODEL_SW_COUNT; k++)
		fprintf(f, "%s%d", k ? "," : "", sw[k]);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * The verifier's search depth (-m).  A recorded step is about ten of the model's (the steps
 * nobody records between two that are), so DEPTH_PER_LABEL x n + DEPTH_BASE is ample; a
 * deeper search than needed costs time (its stack is set up for the whole depth: 5 of a run's
 * 25 ms at 250,000), and one that runs out is run again at DEPTH_MAX.
 */
#define DEPTH_PER_LABEL 32
#define DEPTH_BASE 1024
#define DEPTH_MAX 250000

/* verify_at()'s "the search was cut short": not an errno, which posix_spawn() may give. */
#define VERIFY_TOO_SHALLOW (-10000)

/*
 * Runs the verifier on the first n labels with search depth depth: 1 the model allows them,
 * 0 it does not, VERIFY_TOO_SHALLOW the depth was too small, other < 0 no answer (said why).
 */
static int verify_at(ctx_t *c, const char *switches, const int *labels, size_t n, size_t depth)
{
	_cleanup_free_ char *trace = NULL, *out = NULL, *env_switches = NULL, *env_trace = NULL;
	char m[32];
	char *argv[] = {(char *)VERIFIER_NAME, (char *)"-n", (char *)"-E", m, (char *)"-w16", NULL};
	size_t len = 0, used = 0, cap = 0;
	FILE *f = open_memstream(&trace, &len);
	posix_spawn_file_actions_t fa;
	int pfd[2], status, r;
	uint64_t t0 = now_monotonic_nsec();
	pid_t pid;

	if (!f)
		return -ENOMEM;
	snprintf(m, sizeof(m), "-m%zu", depth);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%s%d", k ? "," : "", labels[k]);
	if (fclose(f) != 0)
		return -ENOMEM;
	if (asprintf(&env_switches, "SMF_MODEL_SWITCHES=%s", switches) < 0 ||
	        asprintf(&env_trace, "SMF_MODEL_TRACE=%s", trace) < 0)
		return -ENOMEM;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return log_error_errno(-errno, "pipe");
	/*
	 * posix_spawn, not fork: svctrace holds the whole trace, and copying its page tables for
	 * every run would cost more than the search.  The verifier writes its trail (the run it
	 * found) into its working directory.
	 */
	r = posix_spawn_file_actions_init(&fa);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	if (r == 0)
		r = posix_spawn_file_actions_addchdir_np(&fa, c->workdir);
	if (r == 0)
		r = posix_spawn(&pid, c->verifier, &fa, NULL, argv,
		        (char *[]){env_switches, env_trace, NULL});
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		close(pfd[0]);
		close(pfd[1]);
		return log_error_errno(-r, "%s", c->verifier);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t k;

		if (cap - used < 4096 && GREEDY_REALLOC(out, cap, used + 4096) < 0)
			break;
		k = read(pfd[0], out + used, cap - used - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		used += (size_t)k;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	c->runs++;
	c->verify_ns += now_monotonic_nsec() - t0;
	if (!out)
		return -ENOMEM;
	out[used] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_error("%s failed (%s %d): %s", c->verifier,
		        WIFEXITED(status) ? "exit status" : "signal",
		        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), out);
		return -EIO;
	}
	/* A run that followed the whole trace answers, even if another branch was cut short. */
	if (strstr(out, "assertion violated") && strstr(out, "gpos!=g_len"))
		return 1;
	if (strstr(out, "max search depth too small")) {
		if (depth >= DEPTH_MAX)
			log_error("%s: the search was cut short (depth): no answer", c->verifier);
		return VERIFY_TOO_SHALLOW;
	}
	if (strstr(out, "errors: 0"))
		return 0;
	log_error("%s: an answer svctrace does not know: %s", c->verifier, out);
	return -EIO;
}

/* verify_at() at a depth for n labels, then at DEPTH_MAX if that was too small. */
static int verify(ctx_t *c, const char *switches, const int *labels, size_t n)
{
	size_t depth = DEPTH_PER_LABEL * n + DEPTH_BASE;
	int r = verify_at(c, switches, labels, n, depth < DEPTH_MAX ? depth : DEPTH_MAX);

	if (r == VERIFY_TOO_SHALLOW && depth < DEPTH_MAX)
		r = verify_at(c, switches, labels, n, DEPTH_MAX);
	return r == VERIFY_TOO_SHALLOW ? -E2BIG : r;
}

/*
 * Checks the labels: -1 the model allows them all, else the position of the first one it does
 * not allow (the labels before it it does); < 0 - 2 on error (said).  Cached by content.
 */
ssize_t conform_check_labels(ctx_t *c, const int sw[MODEL_SW_COUNT], const int *labels, size_t n)
{
	_cleanup_free_ char *switches = switches_text(sw), *key = NULL;
	size_t len = 0, lo = 0, hi = n;
	FILE *f;
	void *hit;
	int r;

	if (!switches)
		return -ENOMEM - 2;
	f = open_memstream(&key, &len);
	if (!f)
		return -ENOMEM - 2;
	fprintf(f, "%s;", switches);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%d,", labels[k]);
	if (fclose(f) != 0)
		return -ENOMEM - 2;
	hit = hashmap_get(c->cache, key);
	if (hit)
		return (ssize_t)(uintptr_t)hit - 2;
	r = verify(c, switches, labels, n);
	if (r < 0)
		return r - 2;
	ssize_t res = -1;
	if (r == 0) {
		/* lo: a prefix the model allows (the empty one does); hi: one it does not */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			int k = verify(c, switches, labels, mid);

			if (k < 0)
				return k - 2;
			if (k)
				lo = mid;
			else
				hi = mid;
		}
		res = (ssize_t)lo;
	}
	if (hashmap_put(c->cache, key, (void *)(uintptr_t)(res + 2)) < 0)
		return -ENOMEM - 2;
	return res;
}
