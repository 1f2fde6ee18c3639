/*
 * retry.c: the backoff schedule and the episode's log lines of writes the repository's store
 * refused (the model is in retry.h).
 *
 * The episode is one record under one mutex: any thread that writes (instance workers, the bulk
 * worker, the graph) may fail or recover, and a full filesystem fails them all at once, so the
 * record, not each writer, decides what is logged.
 */
#include <poll.h>
#include <pthread.h>

#include "lock.h"
#include "lock.h"
#include "log.h"
#include "retry.h"

static struct {
	pthread_mutex_t lock;
	bool on;              /* an episode: a write failed, and none retried succeeded since */
	bool logged;          /* ... and the log has heard of it */
	uint64_t since;       /* when it began (monotonic usec) */
	uint64_t logged_at;   /* the last failure line, of any episode (0: none yet) */
	unsigned long failed; /* tries that failed in it */
} episode = {.lock = PTHREAD_MUTEX_INITIALIZER};

uint64_t retry_delay_usec(unsigned attempt)
{
	/* Past this many doublings the cap is reached whatever it is; no shift overflows. */
	if (attempt >= 32 || (RETRY_FIRST_USEC << attempt) > RETRY_CAP_USEC)
		return RETRY_CAP_USEC;
	return RETRY_FIRST_USEC << attempt;
}

void retry_failed(const char *what, int r, const char *errmsg)
{
	const char *why = errmsg && *errmsg ? errmsg : scf_strerror(r);
	uint64_t now;
	bool may_log;

	lock_take(&episode.lock, LOCK_LEAF);
	now = now_monotonic_usec(); /* under the lock: logged_at is never ahead of it */
	/* One failure line per interval, whatever the episode: a store that recovers and fails
	 * again and again must not flood the log either. */
	may_log = episode.logged_at == 0 || now - episode.logged_at >= RETRY_LOG_INTERVAL_USEC;
	if (!episode.on) {
		__atomic_store_n(&episode.on, true, __ATOMIC_RELEASE);
		episode.logged = false;
		episode.since = now;
		episode.failed = 0;
	}
	episode.failed++;
	if (may_log && !episode.logged)
		log_warning("%s: the repository cannot store the restarter's writes (%s); retrying "
		            "every %.1f s at most until it can",
		        what, why, (double)RETRY_CAP_USEC / (double)USEC_PER_SEC);
	else if (may_log)
		log_warning("the repository still cannot store the restarter's writes after %.0f s "
		            "(%lu tries failed; last: %s: %s)",
		        (double)(now - episode.since) / (double)USEC_PER_SEC, episode.failed, what,
		        why);
	if (may_log) {
		episode.logged = true;
		episode.logged_at = now;
	}
	lock_drop(&episode.lock, LOCK_LEAF);
}

void retry_succeeded(void)
{
	uint64_t now;

	/* Every write that succeeds comes here: without an episode, no lock. */
	if (!__atomic_load_n(&episode.on, __ATOMIC_ACQUIRE))
		return;
	lock_take(&episode.lock, LOCK_LEAF);
	now = now_monotonic_usec();
	/* An episode the log never heard of ends as quietly as it began. */
	if (episode.on && episode.logged)
		log_info("the repository stores the restarter's writes again after %.1f s, %lu "
		         "tries failed",
		        (double)(now - episode.since) / (double)USEC_PER_SEC, episode.failed);
	__atomic_store_n(&episode.on, false, __ATOMIC_RELEASE);
	lock_drop(&episode.lock, LOCK_LEAF);
}

bool retry_wait(startd_t *m, unsigned attempt)
{
	uint64_t deadline = deadline_after_usec(retry_delay_usec(attempt));

	for (;;) {
		uint64_t left = deadline_left_usec(deadline);
		/* Before repo_thread_start() there is no stop fd yet: poll() ignores -1. */
		struct pollfd p = {.fd = m->repo_stop_fd, .events = POLLIN};
		int n;

		if (left == 0)
			return true;
		n = poll(&p, 1, (int)((left + USEC_PER_MSEC - 1) / USEC_PER_MSEC));
		if (n > 0)
			return false;
	}
}
