/*
 * svc.configd: the repository daemon.
 *
 * BIG THEORY STATEMENT
 *
 * configd owns the SMF repository of one root directory: services, instances, property groups
 * with typed properties, and snapshots, kept in SQLite (backend*.c: a persistent database and
 * a non-persistent one that lives as long as the boot: a configd restart keeps it, a reboot or
 * a new volatile directory starts it afresh).  Clients (libscf, busctl) reach it through
 * $ROOT/etc/svc/volatile/repository_door, a UNIX socket speaking D-Bus peer-to-peer: each
 * accepted connection is its own sd_bus server object (server.c) exposing
 * org.minismf.Repository1 (methods*.c, docs/protocol.md).
 *
 * Model and invariants:
 * - One thread, one sd-event loop.  Every request runs to completion on it, SQLite included,
 *   so requests are serialized: there are no locks, and "commit order" is simply the order in
 *   which handlers ran.
 * - One configd per root: an exclusive flock on etc/svc/volatile/svc.configd.lock is taken
 *   before anything else is touched, and held until exit.
 * - The socket appears (atomically, by rename) only once the databases are open and the loop
 *   is ready, so "the socket exists" means "configd answers".  READY=1 goes to $NOTIFY_SOCKET
 *   right after.  SIGTERM/SIGINT remove the socket first, then give clients a bounded time
 *   (CONFIGD_EXIT_FLUSH_USEC) to read the replies already queued for them, then close the
 *   connections and the databases.  Requests that arrive after the signal are not served.
 * - A write either commits whole in one SQLite transaction or changes nothing; notifications
 *   for it are queued only after the commit (notify.c), on the connections that asked.
 * - Authorization is by the peer's kernel credentials (auth.c): root and the owner of the
 *   root directory write, everyone else reads.
 * - Any local user may connect, so what one peer may cost is bounded (limits.c): connection
 *   slots per uid with a reserve for root and the owner, a deadline for the first request, a
 *   bound on the output a peer leaves unread, no fd passing.
 * - A restarter (svc.startd) registers on its connection; configd forgets it when that
 *   connection closes.  With --native (building a repository with no restarter) none may
 *   register and RestarterAttached is always false.
 * - Tracing (SMF_TRACE=1, lib/util/trace.c) and delay points (SMF_DELAY, lib/util/delay.c) are set up
 *   once the root is known and before the socket exists, so no request is served untraced.
 *   A write is traced as configd.commit (probes.c) after SQLite committed and before its reply
 *   and its notifications: that time stamp is when the pg exists for every client.  Failing to
 *   open the trace file is a warning, not a reason to stop serving.
 */
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <systemd/sd-daemon.h>

#include "config.h"
#include "daemon.h"
#include "configd.h"
#include "log.h"
#include "macro.h"
#include "paths.h"
#include "delay.h"
#include "trace.h"

static daemon_args_t args;

static const daemon_args_spec_t args_spec = {
        .program = "svc.configd",
        .description =
                "Serves the SMF repository of DIR (default: $SMF_ROOT, else the per-user root).",
        .flag_name = "native",
        .flag_short = 'n',
        .flag_help = "no restarter will attach (building a repository)",
        .flag2_name = "eager",
        .flag2_short = 'e',
        .flag2_help = "a new instance gets its restarter pg at once (also SVC_CONFIGD_EAGER=1)",
};

/*
 * configd-eager (--eager, or SVC_CONFIGD_EAGER=1 in the environment): every instance created
 * gets the restarter pg startd's first sight would write, in the same transaction
 * (backend_set_eager_restarter(), docs/decisions.md).  Meaningless with --native, where no
 * restarter will ever own that pg: ignored there.
 */
static bool eager_wanted(const configd_t *m)
{
	const char *e = getenv("SVC_CONFIGD_EAGER");

	if (!args.flag2 && !(e && streq(e, "1")))
		return false;
	if (m->native) {
		log_warning("--native: ignoring --eager (no restarter will own the restarter pg)");
		return false;
	}
	return true;
}

/* Creates the volatile directory (and its parents) world-searchable, as the socket needs. */
static int make_dirs(const configd_t *m)
{
	_cleanup_free_ char *vol = NULL;
	mode_t old_umask;
	struct stat st;
	int r;

	r = smf_path(m->root, SMF_REL_VOLATILE_DIR, &vol);
	if (r < 0)
		return log_error_errno(r, "out of memory");
	/*
	 * Readers reach the socket through every directory below the root, so what we create must
	 * be 0755 whatever umask we were started with (077 would lock every other user out).
	 */
	old_umask = umask(022);
	r = smf_mkdir_p(vol, 0755);
	umask(old_umask);
	if (r < 0)
		return log_error_errno(r, "cannot create %s", vol);
	if (stat(vol, &st) == 0 && (st.st_mode & 07777) != 0755 && st.st_uid == geteuid())
		(void)chmod(vol, 0755); /* it existed, narrower */
	return 0;
}

/* Takes the per-root lock; returns the fd (kept open until exit) or < 0. */
static int take_lock(const configd_t *m)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;

	if (smf_path(m->root, SMF_REL_CONFIGD_LOCK, &path) < 0)
		return log_error_errno(-ENOMEM, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return log_error_errno(negative_errno(), "cannot open %s", path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			log_error("another svc.configd already serves %s", m->root);
			return -EBUSY;
		}
		return log_error_errno(negative_errno(), "cannot lock %s", path);
	}
	return TAKE_FD(fd);
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	log_info("%s: shutting down", strsignal((int)si->ssi_signo));
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int setup_event(configd_t *m)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_error_errno(negative_errno(), "sigprocmask");
	signal(SIGPIPE, SIG_IGN);
	r = sd_event_new(&m->event);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGTERM, on_signal, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGINT, on_signal, m);
	if (r < 0)
		return log_error_errno(r, "cannot set up the event loop");
	return 0;
}

/*
 * Every client costs three fds (its socket and the two ends of its pump, inlet.c): make room for
 * CONFIGD_MAX_CONNECTIONS of them, and say so when the hard limit does not allow it.
 */
#define FDS_NEEDED (3u * CONFIGD_MAX_CONNECTIONS + 64u)
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= FDS_NEEDED)
		return;
	rl.rlim_cur = rl.rlim_max;
	(void)setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < FDS_NEEDED)
		log_warning("the fd limit (%llu) serves only about %llu of the %u clients configd "
		            "admits; past it, accepting pauses until one leaves",
		        (unsigned long long)rl.rlim_max,
		        (unsigned long long)(rl.rlim_max > 64 ? (rl.rlim_max - 64) / 3 : 0),
		        CONFIGD_MAX_CONNECTIONS);
}

static int open_backend(configd_t *m)
{
	_cleanup_free_ char *msg = NULL;
	struct stat st;
	int r;

	if (stat(m->root, &st) < 0)
		return log_error_errno(negative_errno(), "cannot stat %s", m->root);
	m->owner_uid = st.st_uid;
	r = backend_open(m->root, &m->backend, &msg);
	if (r < 0) {
		log_error("cannot open the repository of %s: %s", m->root, strna(msg));
		return -EIO;
	}
	log_info("%s", backend_np_note(m->backend));
	return 0;
}

static int run(configd_t *m)
{
	_cleanup_close_ int lock_fd = -1;
	int r;

	r = smf_root_resolve(args.root, &m->root);
	if (r < 0)
		return log_error_errno(r, "cannot determine the root directory");
	r = smf_path(m->root, SMF_REL_DOOR, &m->door_path);
	if (r < 0)
		return log_error_errno(r, "out of memory");
	r = make_dirs(m);
	if (r < 0)
		return r;
	lock_fd = take_lock(m);
	if (lock_fd < 0)
		return lock_fd;
	raise_fd_limit();
	r = smf_trace_open_env(m->root, "svc.configd");
	if (r < 0)
		log_warning_errno(r, "cannot open a trace file under %s; not tracing", m->root);
	smf_points_init("svc.configd");
	r = setup_event(m);
	if (r >= 0)
		r = open_backend(m);
	if (r >= 0) {
		m->eager = eager_wanted(m);
		backend_set_eager_restarter(m->backend, m->eager);
	}
	if (r >= 0)
		r = server_start(m);
	if (r < 0)
		return r;
	log_info("serving %s%s%s", m->root, m->native ? " (native: no restarter)" : "",
	        m->eager ? " (eager: new instances get their restarter pg)" : "");
	(void)sd_notify(0, "READY=1");
	r = sd_event_loop(m->event);
	(void)sd_notify(0, "STOPPING=1");
	if (r < 0)
		return log_error_errno(r, "event loop failed");
	return 0;
}

static void configd_done(configd_t *m)
{
	server_stop(m);
	backend_close(m->backend);
	sd_event_unref(m->event);
	free(m->door_path);
	free(m->root);
	smf_trace_close();
}

int main(int argc, char *argv[])
{
	configd_t m = {.listen_fd = -1};
	int r;

	log_set_program("svc.configd");
	r = daemon_parse_args(&args_spec, argc, argv, &args);
	if (r <= 0)
		return r < 0 ? 2 : 0;
	m.native = args.flag;
	r = run(&m);
	configd_done(&m);
	return r < 0 ? 1 : 0;
}
