/*
 * test-libscf.c: libscf against a real svc.configd.
 *
 * The group set-up makes a private root (test-root.h), starts $SVC_CONFIGD --root ROOT and waits
 * for it to serve: an inotify watch on the volatile directory and a pidfd on the daemon are
 * polled against a deadline, so the wait ends the moment the socket appears (or the daemon
 * dies), never after a fixed sleep.  The tests run in order on that one daemon, each in its
 * own part of the namespace (svc:/t/<test>/...), so none depends on another's data; the last
 * ones stop and restart the daemon.  The teardown kills configd and removes the root.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "libscf.h"
#include "macro.h"
#include "paths.h"
#include "protocol.h"
#include "test-root.h"
#include "timeutil.h"
#include "unixsock.h"

#define READY_DEADLINE_USEC (20 * USEC_PER_SEC)
#define STOP_DEADLINE_USEC (10 * USEC_PER_SEC)
/* A quiet wait: long enough that a notification in flight would arrive, short for the suite. */
#define QUIET_USEC (200 * USEC_PER_MSEC)
#define NOTIFY_DEADLINE_USEC (5 * USEC_PER_SEC)

static struct {
	char root[PATH_MAX];
	char vol[PATH_MAX + 64]; /* root's volatile directory, where the socket appears */
	const char *configd;
	pid_t pid;
	int pidfd;
} T = {.pid = -1, .pidfd = -1};

/* Asserts r >= 0 and shows the handle's message when not. */
#define OK(h, expr)                                                                                \
	do {                                                                                       \
		int _r = (expr);                                                                   \
		if (_r < 0)                                                                        \
			print_error("%s: %d %s: %s\n", #expr, _r, scf_strerror(_r),                \
			        scf_handle_errmsg(h));                                             \
		assert_true(_r >= 0);                                                              \
	} while (0)

#define ERR(h, expr, err)                                                                          \
	do {                                                                                       \
		int _r = (expr);                                                                   \
		if (_r != -(err))                                                                  \
			print_error("%s: got %d (%s), wanted %s: %s\n", #expr, _r,                 \
			        scf_strerror(_r), scf_strerror(err), scf_handle_errmsg(h));        \
		assert_int_equal(_r, -(err));                                                      \
	} while (0)

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static bool configd_alive(void)
{
	struct pollfd p = {.fd = T.pidfd, .events = POLLIN};

	return T.pidfd >= 0 && poll(&p, 1, 0) == 0;
}

static int try_connect(void)
{
	scf_handle_t *h = NULL;
	int r = scf_handle_create(T.root, &h);

	scf_handle_destroy(h);
	return r;
}

/* Waits until configd serves T.root: socket events and the daemon's death wake the poll. */
static int wait_ready(void)
{
	uint64_t deadline = deadline_after_usec(READY_DEADLINE_USEC);
	int ino, r = -1;

	ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ino < 0 || inotify_add_watch(ino, T.vol, IN_CREATE | IN_MOVED_TO) < 0)
		return -1;
	for (;;) {
		struct pollfd p[2] = {
		        {.fd = ino, .events = POLLIN}, {.fd = T.pidfd, .events = POLLIN}};
		char buf[4096];
		uint64_t left;

		/* Checked after arming the watch, so an appearance in between is not missed. */
		r = try_connect();
		if (r >= 0 || r != -SCF_ERROR_NO_SERVER)
			break;
		left = deadline_left_usec(deadline);
		if (left == 0 || !configd_alive())
			break;
		/* Capped, because the socket may appear under a temporary name first. */
		if (poll(p, 2, (int)(left / USEC_PER_MSEC < 100 ? left / USEC_PER_MSEC + 1 : 100)) <
		        0)
			break;
		while (read(ino, buf, sizeof(buf)) > 0)
			;
	}
	close(ino);
	return r;
}

static int start_configd(void)
{
	if (smf_mkdir_p(T.vol, 0755) < 0)
		return -1;
	T.pid = fork();
	if (T.pid < 0)
		return -1;
	if (T.pid == 0) {
		execl(T.configd, T.configd, "--root", T.root, (char *)NULL);
		_exit(127);
	}
	T.pidfd = pidfd_open_(T.pid);
	if (T.pidfd < 0)
		return -1;
	if (wait_ready() < 0) {
		fprintf(stderr, "svc.configd did not become ready at %s\n", T.root);
		return -1;
	}
	return 0;
}

static void stop_configd(void)
{
	struct pollfd p = {.fd = T.pidfd, .events = POLLIN};

	if (T.pid <= 0)
		return;
	kill(T.pid, SIGTERM);
	if (poll(&p, 1, (int)(STOP_DEADLINE_USEC / USEC_PER_MSEC)) <= 0) {
		fprintf(stderr, "svc.configd ignored SIGTERM; killing it\n");
		kill(T.pid, SIGKILL);
	}
	waitpid(T.pid, NULL, 0);
	close(T.pidfd);
	T.pidfd = -1;
	T.pid = -1;
}

/* A crash: SIGKILL, no chance to close anything. */
static void kill_configd(void)
{
	if (T.pid <= 0)
		return;
	kill(T.pid, SIGKILL);
	waitpid(T.pid, NULL, 0);
	close(T.pidfd);
	T.pidfd = -1;
	T.pid = -1;
}

static int group_teardown(void **state)
{
	stop_configd();
	if (!getenv("KEEP_SANDBOX"))
		test_root_remove(T.root);
	return 0;
}

static int group_setup(void **state)
{
	if (test_root_make(T.root, sizeof(T.root), "minismf-libscf") < 0)
		return -1;
	snprintf(T.vol, sizeof(T.vol), "%s/%s", T.root, SMF_REL_VOLATILE_DIR);
	if (start_configd() < 0) {
		/* cmocka skips the group teardown when the set-up fails. */
		group_teardown(state);
		return -1;
	}
	return 0;
}

static scf_handle_t *connect_(void)
{
	scf_handle_t *h = NULL;

	OK(NULL, scf_handle_create(T.root, &h));
	assert_non_null(h);
	return h;
}

static bool strv_has(char **l, const char *s)
{
	for (; l && *l; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

/* Adds a pg and commits one transaction of astring/count properties given as name=value. */
static void set_props(scf_handle_t *h, const char *entity, const char *pg, ...)
{
	scf_tx_t *tx = NULL;
	const char *name;
	va_list ap;

	OK(h, scf_tx_begin(h, entity, pg, &tx));
	va_start(ap, pg);
	while ((name = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);

		OK(h, scf_tx_set(tx, name, SCF_TYPE_ASTRING, &v, 1));
	}
	va_end(ap);
	assert_int_equal(scf_tx_commit(tx), 1);
	scf_tx_free(tx);
}

static const char *prop_value(const scf_pg_t *pg, const char *name)
{
	const scf_property_t *p = scf_pg_property(pg, name);
	const char *v = NULL;

	if (!p || scf_property_get_string(p, &v) < 0)
		return NULL;
	return v;
}

/* ------------------------------------------------------------------------------------------ */

static void test_handle(void **state)
{
	scf_handle_t *h = connect_();

	assert_string_equal(scf_handle_root(h), T.root);
	assert_string_equal(scf_handle_errmsg(h), "");
	assert_true(scf_notify_fd(h) >= 0);
	assert_string_equal(scf_strerror(-SCF_ERROR_NOT_FOUND), scf_strerror(SCF_ERROR_NOT_FOUND));
	/* errno values and scf_error_t codes do not collide: scf_strerror() names either kind. */
	assert_string_equal(scf_strerror(-SCF_ERROR_NOT_FOUND), "entity not found");
	assert_string_equal(scf_strerror(-ENOENT), strerror(ENOENT));
	assert_string_equal(scf_strerror(ENOMEM), strerror(ENOMEM));
	assert_string_equal(scf_strerror(0), "no error");
	assert_string_equal(scf_strerror(-SCF_ERROR_NONE), "no error");
	assert_true(SCF_ERROR_NONE == 1000 && SCF_ERROR_NOT_FOUND == 1003 &&
	        SCF_ERROR_INTERNAL == 1101);
	scf_handle_destroy(h);
	scf_handle_destroy(NULL);
}

/* In a child: a socket we may not connect to is PERMISSION_DENIED, not NO_SERVER. */
static int denied_child(const char *root)
{
	scf_handle_t *h = NULL;
	int r;

	if (geteuid() == 0 &&
	        (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	                setresuid(65534, 65534, 65534) < 0))
		return 10;
	r = scf_handle_create(root, &h);
	scf_handle_destroy(h);
	if (r != -SCF_ERROR_PERMISSION_DENIED) {
		fprintf(stderr, "scf_handle_create: %d (%s)\n", r, scf_strerror(r));
		return 11;
	}
	return 0;
}

static void test_handle_denied(void **state)
{
	char root[PATH_MAX];
	_cleanup_free_ char *vol = NULL, *door = NULL;
	_cleanup_close_ int lfd = -1;
	int status;
	pid_t pid;

	assert_int_equal(test_root_make(root, sizeof(root), "test-libscf-denied"), 0);
	assert_true(smf_path(root, SMF_REL_VOLATILE_DIR, &vol) >= 0);
	assert_true(smf_path(root, SMF_REL_DOOR, &door) >= 0);
	assert_true(smf_mkdir_p(vol, 0755) >= 0);
	/* Mode 0: connect() needs write permission on the socket (root drops it in the child). */
	lfd = smf_unix_listen(door, 0, 16);
	assert_true(lfd >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(denied_child(root));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	test_root_remove(root);
}

static void test_entities(void **state)
{
	scf_handle_t *h = connect_();
	char **l = NULL;

	OK(h, scf_service_add(h, "svc:/t/ent/a"));
	OK(h, scf_service_add(h, "svc:/t/ent/b"));
	ERR(h, scf_service_add(h, "svc:/t/ent/a"), SCF_ERROR_EXISTS);
	assert_string_not_equal(scf_handle_errmsg(h), "");
	OK(h, scf_instance_add(h, "svc:/t/ent/a:one"));
	OK(h, scf_instance_add(h, "svc:/t/ent/a:two"));
	ERR(h, scf_instance_add(h, "svc:/t/ent/a:one"), SCF_ERROR_EXISTS);
	ERR(h, scf_instance_add(h, "svc:/t/ent/missing:one"), SCF_ERROR_NOT_FOUND);
	ERR(h, scf_service_add(h, "svc:/t/bad name"), SCF_ERROR_INVALID_ARGUMENT);

	assert_int_equal(scf_entity_exists(h, "svc:/t/ent/a"), 1);
	assert_string_equal(scf_handle_errmsg(h), "");
	assert_int_equal(scf_entity_exists(h, "svc:/t/ent/a:two"), 1);
	assert_int_equal(scf_entity_exists(h, "svc:/t/ent/a:three"), 0);
	assert_int_equal(scf_entity_exists(h, "svc:/t/ent/nope"), 0);

	OK(h, scf_service_list(h, &l));
	assert_true(strv_has(l, "svc:/t/ent/a") && strv_has(l, "svc:/t/ent/b"));
	for (size_t i = 1; l[0] && l[i]; i++)
		assert_true(strcmp(l[i - 1], l[i]) < 0);
	scf_strv_free(l);

	OK(h, scf_instance_list(h, "svc:/t/ent/a", &l));
	assert_non_null(l[0]);
	assert_string_equal(l[0], "svc:/t/ent/a:one");
	assert_string_equal(l[1], "svc:/t/ent/a:two");
	assert_null(l[2]);
	scf_strv_free(l);
	OK(h, scf_instance_list(h, "svc:/t/ent/b", &l));
	assert_null(l[0]); /* empty, but a list */
	scf_strv_free(l);

	OK(h, scf_entity_delete(h, "svc:/t/ent/a:one"));
	assert_int_equal(scf_entity_exists(h, "svc:/t/ent/a:one"), 0);
	ERR(h, scf_entity_delete(h, "svc:/t/ent/a:one"), SCF_ERROR_NOT_FOUND);
	/* A service takes its instances with it. */
	OK(h, scf_entity_delete(h, "svc:/t/ent/a"));
	assert_int_equal(scf_entity_exists(h, "svc:/t/ent/a:two"), 0);
	assert_int_equal(scf_entity_exists(h, "svc:/t/ent/a"), 0);
	scf_handle_destroy(h);
}

static void test_pgs(void **state)
{
	scf_handle_t *h = connect_();
	scf_pg_info_t *infos = NULL;
	scf_pg_t *pg = NULL;
	size_t n = 0;

	OK(h, scf_service_add(h, "svc:/t/pg"));
	OK(h, scf_instance_add(h, "svc:/t/pg:i"));
	OK(h, scf_pg_add(h, "svc:/t/pg:i", "general", "framework", 0));
	OK(h, scf_pg_add(h, "svc:/t/pg:i", "app", "application", 0));
	OK(h, scf_pg_add(h, "svc:/t/pg", "svcpg", "application", 0));
	ERR(h, scf_pg_add(h, "svc:/t/pg:i", "app", "framework", 0), SCF_ERROR_EXISTS);
	ERR(h, scf_pg_add(h, "svc:/t/pg:i", "bad name", "framework", 0),
	        SCF_ERROR_INVALID_ARGUMENT);
	ERR(h, scf_pg_add(h, "svc:/t/pg:nope", "app", "framework", 0), SCF_ERROR_NOT_FOUND);

	OK(h, scf_pg_get(h, "svc:/t/pg:i", "app", NULL, 0, &pg));
	assert_string_equal(pg->entity, "svc:/t/pg:i");
	assert_string_equal(pg->name, "app");
	assert_string_equal(pg->type, "application");
	assert_int_equal(pg->flags, 0);
	assert_int_equal(pg->n_props, 0);
	assert_null(scf_pg_property(pg, "x"));
	scf_pg_free(pg);

	OK(h, scf_pg_list(h, "svc:/t/pg:i", NULL, 0, &infos, &n));
	assert_int_equal(n, 2);
	assert_string_equal(infos[0].name, "app");
	assert_string_equal(infos[1].name, "general");
	assert_string_equal(infos[1].type, "framework");
	scf_pg_info_free(infos, n);

	OK(h, scf_pg_delete(h, "svc:/t/pg:i", "app"));
	ERR(h, scf_pg_get(h, "svc:/t/pg:i", "app", NULL, 0, &pg), SCF_ERROR_NOT_FOUND);
	assert_string_not_equal(scf_handle_errmsg(h), "");
	ERR(h, scf_pg_delete(h, "svc:/t/pg:i", "app"), SCF_ERROR_NOT_FOUND);
	ERR(h, scf_pg_get(h, "svc:/t/pg:nope", "general", NULL, 0, &pg), SCF_ERROR_NOT_FOUND);
	ERR(h, scf_pg_get(h, "not an fmri!", "general", NULL, 0, &pg), SCF_ERROR_INVALID_ARGUMENT);
	scf_handle_destroy(h);
}

static void test_typed_reads(void **state)
{
	static const char *const multi[] = {"a b", "", "c"};
	scf_handle_t *h = connect_();
	const scf_property_t *p;
	scf_property_t *rp = NULL;
	const char *v, *s;
	scf_tx_t *tx = NULL;
	scf_pg_t *pg = NULL;
	uint64_t u;
	int64_t i;
	bool b;

	OK(h, scf_service_add(h, "svc:/t/typed"));
	OK(h, scf_pg_add(h, "svc:/t/typed", "p", "application", 0));
	OK(h, scf_tx_begin(h, "svc:/t/typed", "p", &tx));
	v = "true";
	OK(h, scf_tx_new(tx, "b", SCF_TYPE_BOOLEAN, &v, 1));
	v = "0x2a";
	OK(h, scf_tx_new(tx, "c", SCF_TYPE_COUNT, &v, 1));
	v = "18446744073709551615";
	OK(h, scf_tx_new(tx, "bigc", SCF_TYPE_COUNT, &v, 1));
	v = "-7";
	OK(h, scf_tx_new(tx, "i", SCF_TYPE_INTEGER, &v, 1));
	v = "1.500";
	OK(h, scf_tx_new(tx, "t", SCF_TYPE_TIME, &v, 1));
	OK(h, scf_tx_new(tx, "m", SCF_TYPE_ASTRING, multi, 3));
	OK(h, scf_tx_new(tx, "none", SCF_TYPE_ASTRING, NULL, 0));
	v = "svc:/t/typed";
	OK(h, scf_tx_new(tx, "f", SCF_TYPE_FMRI, &v, 1));
	v = "10.0.0.1";
	OK(h, scf_tx_new(tx, "ip", SCF_TYPE_NET_ADDR_V4, &v, 1));
	assert_int_equal(scf_tx_commit(tx), 1);
	scf_tx_free(tx);

	OK(h, scf_pg_get(h, "svc:/t/typed", "p", NULL, 0, &pg));
	assert_int_equal(pg->n_props, 9);
	for (size_t k = 1; k < pg->n_props; k++)
		assert_true(strcmp(pg->props[k - 1].name, pg->props[k].name) < 0);

	p = scf_pg_property(pg, "b");
	assert_int_equal(p->type, SCF_TYPE_BOOLEAN);
	OK(h, scf_property_get_boolean(p, &b));
	assert_true(b);
	ERR(h, scf_property_get_count(p, &u), SCF_ERROR_TYPE_MISMATCH);
	ERR(h, scf_property_get_string(p, &s), SCF_ERROR_TYPE_MISMATCH);

	p = scf_pg_property(pg, "c");
	assert_string_equal(p->values[0], "42"); /* canonical */
	OK(h, scf_property_get_count(p, &u));
	assert_int_equal(u, 42);
	OK(h, scf_property_get_integer(p, &i)); /* a count that fits reads as an integer */
	assert_int_equal(i, 42);
	ERR(h, scf_property_get_boolean(p, &b), SCF_ERROR_TYPE_MISMATCH);

	p = scf_pg_property(pg, "bigc");
	OK(h, scf_property_get_count(p, &u));
	assert_true(u == UINT64_MAX);
	ERR(h, scf_property_get_integer(p, &i), SCF_ERROR_TYPE_MISMATCH);

	p = scf_pg_property(pg, "i");
	OK(h, scf_property_get_integer(p, &i));
	assert_int_equal(i, -7);
	ERR(h, scf_property_get_count(p, &u), SCF_ERROR_TYPE_MISMATCH);

	assert_string_equal(scf_pg_property(pg, "t")->values[0], "1.5");

	p = scf_pg_property(pg, "m");
	assert_int_equal(p->n_values, 3);
	assert_string_equal(p->values[0], "a b");
	assert_string_equal(p->values[1], "");
	assert_string_equal(p->values[2], "c");
	assert_null(p->values[3]);
	/* Several values: an error, not the first one (illumos' scf_property_get_value()). */
	s = "untouched";
	ERR(h, scf_property_get_string(p, &s), SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_string_equal(s, "untouched");

	p = scf_pg_property(pg, "none");
	assert_int_equal(p->n_values, 0);
	assert_null(p->values[0]);
	ERR(h, scf_property_get_string(p, &s), SCF_ERROR_NOT_FOUND);

	OK(h, scf_property_get_string(scf_pg_property(pg, "f"), &s));
	assert_string_equal(s, "svc:/t/typed");
	OK(h, scf_property_get_string(scf_pg_property(pg, "ip"), &s));
	assert_string_equal(s, "10.0.0.1");
	scf_pg_free(pg);

	OK(h, scf_property_read(h, "svc:/t/typed", "p", "c", &rp));
	assert_string_equal(rp->name, "c");
	assert_int_equal(rp->type, SCF_TYPE_COUNT);
	scf_property_free(rp);
	ERR(h, scf_property_read(h, "svc:/t/typed", "p", "nope", &rp), SCF_ERROR_NOT_FOUND);
	assert_non_null(strstr(scf_handle_errmsg(h), "nope"));
	scf_handle_destroy(h);
}

static void test_tx_rules(void **state)
{
	scf_handle_t *h = connect_(), *h2 = connect_();
	scf_tx_t *tx = NULL, *tx2 = NULL;
	const char *v = "1";
	scf_pg_t *pg = NULL;
	uint64_t gen;

	OK(h, scf_service_add(h, "svc:/t/tx"));
	OK(h, scf_pg_add(h, "svc:/t/tx", "p", "application", 0));
	set_props(h, "svc:/t/tx", "p", "keep", "k", "x", "1", NULL);

	/* Local checks fail at the call, with the value in the message. */
	OK(h, scf_tx_begin(h, "svc:/t/tx", "p", &tx));
	v = "yes";
	ERR(h, scf_tx_set(tx, "flag", SCF_TYPE_BOOLEAN, &v, 1), SCF_ERROR_INVALID_ARGUMENT);
	assert_non_null(strstr(scf_handle_errmsg(h), "\"yes\""));
	v = "-1";
	ERR(h, scf_tx_new(tx, "n", SCF_TYPE_COUNT, &v, 1), SCF_ERROR_INVALID_ARGUMENT);
	ERR(h, scf_tx_new(tx, "bad name", SCF_TYPE_ASTRING, &v, 1), SCF_ERROR_INVALID_ARGUMENT);
	ERR(h, scf_tx_new(tx, "n", SCF_TYPE_INVALID, &v, 1), SCF_ERROR_INVALID_ARGUMENT);

	/* NEW of an existing property: EXISTS at commit, nothing applied. */
	v = "2";
	OK(h, scf_tx_new(tx, "y", SCF_TYPE_ASTRING, &v, 1));
	OK(h, scf_tx_new(tx, "x", SCF_TYPE_ASTRING, &v, 1));
	ERR(h, scf_tx_commit(tx), SCF_ERROR_EXISTS);
	OK(h, scf_tx_reset(tx));
	assert_null(scf_pg_property(scf_tx_pg(tx), "y"));

	/* REPLACE and DELETE of a missing property: NOT_FOUND. */
	OK(h, scf_tx_replace(tx, "missing", SCF_TYPE_ASTRING, &v, 1));
	ERR(h, scf_tx_commit(tx), SCF_ERROR_NOT_FOUND);
	OK(h, scf_tx_reset(tx));
	OK(h, scf_tx_delete(tx, "missing"));
	ERR(h, scf_tx_commit(tx), SCF_ERROR_NOT_FOUND);
	OK(h, scf_tx_reset(tx));

	/* SET on an existing property replaces it, type included; unnamed ones carry over. */
	gen = scf_tx_generation(tx);
	v = "5";
	OK(h, scf_tx_set(tx, "x", SCF_TYPE_COUNT, &v, 1));
	OK(h, scf_tx_set(tx, "z", SCF_TYPE_ASTRING, &v, 1));
	assert_int_equal(scf_tx_commit(tx), 1);
	assert_true(scf_tx_generation(tx) > gen);
	scf_tx_free(tx);
	OK(h, scf_pg_get(h, "svc:/t/tx", "p", NULL, 0, &pg));
	assert_int_equal(scf_pg_property(pg, "x")->type, SCF_TYPE_COUNT);
	assert_string_equal(prop_value(pg, "keep"), "k");
	assert_string_equal(prop_value(pg, "z"), "5");
	gen = pg->generation;
	scf_pg_free(pg);

	/* An empty transaction is a no-op: 1, and the generation does not move. */
	OK(h, scf_tx_begin(h, "svc:/t/tx", "p", &tx));
	assert_int_equal(scf_tx_commit(tx), 1);
	scf_tx_free(tx);
	OK(h, scf_pg_get(h, "svc:/t/tx", "p", NULL, 0, &pg));
	assert_int_equal(pg->generation, gen);
	scf_pg_free(pg);

	/* A stale generation answers 0 and changes nothing; after a reset the retry commits. */
	OK(h, scf_tx_begin(h, "svc:/t/tx", "p", &tx));
	OK(h2, scf_tx_begin(h2, "svc:/t/tx", "p", &tx2));
	v = "from-h2";
	OK(h2, scf_tx_set(tx2, "z", SCF_TYPE_ASTRING, &v, 1));
	assert_int_equal(scf_tx_commit(tx2), 1);
	v = "from-h";
	OK(h, scf_tx_set(tx, "z", SCF_TYPE_ASTRING, &v, 1));
	assert_int_equal(scf_tx_commit(tx), 0);
	OK(h, scf_pg_get(h, "svc:/t/tx", "p", NULL, 0, &pg));
	assert_string_equal(prop_value(pg, "z"), "from-h2");
	scf_pg_free(pg);
	OK(h, scf_tx_reset(tx));
	assert_string_equal(prop_value(scf_tx_pg(tx), "z"), "from-h2");
	OK(h, scf_tx_set(tx, "z", SCF_TYPE_ASTRING, &v, 1));
	assert_int_equal(scf_tx_commit(tx), 1);
	scf_tx_free(tx);
	scf_tx_free(tx2);

	/* An empty transaction is checked like any other: a stale generation answers 0. */
	OK(h, scf_tx_begin(h, "svc:/t/tx", "p", &tx));
	OK(h2, scf_tx_begin(h2, "svc:/t/tx", "p", &tx2));
	OK(h2, scf_tx_set(tx2, "z", SCF_TYPE_ASTRING, &v, 1));
	assert_int_equal(scf_tx_commit(tx2), 1);
	assert_int_equal(scf_tx_commit(tx), 0);
	assert_int_equal(scf_tx_generation(tx) + 1, scf_tx_generation(tx2));
	scf_tx_free(tx);
	scf_tx_free(tx2);

	/* A commit on a pg deleted since it was read. */
	OK(h, scf_tx_begin(h, "svc:/t/tx", "p", &tx));
	OK(h2, scf_pg_delete(h2, "svc:/t/tx", "p"));
	OK(h, scf_tx_delete(tx, "z"));
	{
		int r = scf_tx_commit(tx);

		assert_true(r == -SCF_ERROR_DELETED || r == -SCF_ERROR_NOT_FOUND);
	}
	scf_tx_free(tx);
	ERR(h, scf_tx_begin(h, "svc:/t/tx", "p", &tx), SCF_ERROR_NOT_FOUND);
	scf_handle_destroy(h2);
	scf_handle_destroy(h);
}

/* ------------------------------------------------------------------------------------------ */
/* Many threads, each with its own handle, incrementing one count through scf_tx_run(). */

#define N_THREADS 4
#define N_INCREMENTS 25

static int increment(scf_tx_t *tx, void *userdata)
{
	const scf_property_t *p = scf_pg_property(scf_tx_pg(tx), "n");
	uint64_t n = 0;
	char buf[32];
	const char *v = buf;

	if (p && scf_property_get_count(p, &n) < 0)
		return -SCF_ERROR_INTERNAL;
	snprintf(buf, sizeof(buf), "%" PRIu64, n + 1);
	return scf_tx_set(tx, "n", SCF_TYPE_COUNT, &v, 1);
}

static void *incrementer(void *arg)
{
	scf_handle_t *h = NULL;
	intptr_t failures = 0;

	if (scf_handle_create(T.root, &h) < 0)
		return (void *)(intptr_t)N_INCREMENTS;
	for (int i = 0; i < N_INCREMENTS; i++)
		if (scf_tx_run(h, "svc:/t/run", "p", increment, NULL, 0) != 1)
			failures++;
	scf_handle_destroy(h);
	return (void *)failures;
}

static int abort_fn(scf_tx_t *tx, void *userdata)
{
	return -SCF_ERROR_PERMISSION_DENIED;
}

static void test_tx_run_threads(void **state)
{
	scf_handle_t *h = connect_();
	pthread_t t[N_THREADS];
	scf_property_t *p = NULL;
	uint64_t n = 0;

	OK(h, scf_service_add(h, "svc:/t/run"));
	OK(h, scf_pg_add(h, "svc:/t/run", "p", "application", 0));
	assert_int_equal(
	        scf_tx_run(h, "svc:/t/run", "p", abort_fn, NULL, 0), -SCF_ERROR_PERMISSION_DENIED);
	for (int i = 0; i < N_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, incrementer, NULL), 0);
	for (int i = 0; i < N_THREADS; i++) {
		void *failures;

		pthread_join(t[i], &failures);
		assert_int_equal((intptr_t)failures, 0);
	}
	OK(h, scf_property_read(h, "svc:/t/run", "p", "n", &p));
	OK(h, scf_property_get_count(p, &n));
	assert_int_equal(n, N_THREADS * N_INCREMENTS);
	scf_property_free(p);
	scf_handle_destroy(h);
}

/* ------------------------------------------------------------------------------------------ */

static void test_composed_and_snapshots(void **state)
{
	scf_handle_t *h = connect_();
	scf_pg_info_t *infos = NULL;
	scf_pg_t *pg = NULL;
	char **l = NULL;
	size_t n = 0;
	bool seen_svc = false, seen_inst = false;

	OK(h, scf_service_add(h, "svc:/t/comp"));
	OK(h, scf_instance_add(h, "svc:/t/comp:i"));
	OK(h, scf_pg_add(h, "svc:/t/comp", "shared", "application", 0));
	set_props(h, "svc:/t/comp", "shared", "v", "from-service", NULL);
	OK(h, scf_pg_add(h, "svc:/t/comp:i", "own", "application", 0));
	set_props(h, "svc:/t/comp:i", "own", "v", "one", NULL);

	/* Composed reads fall back on the service; plain reads do not. */
	ERR(h, scf_pg_get(h, "svc:/t/comp:i", "shared", NULL, 0, &pg), SCF_ERROR_NOT_FOUND);
	OK(h, scf_pg_get(h, "svc:/t/comp:i", "shared", NULL, SCF_READ_COMPOSED, &pg));
	assert_string_equal(prop_value(pg, "v"), "from-service");
	scf_pg_free(pg);
	OK(h, scf_pg_list(h, "svc:/t/comp:i", NULL, SCF_READ_COMPOSED, &infos, &n));
	for (size_t k = 0; k < n; k++) {
		seen_svc |= strcmp(infos[k].name, "shared") == 0;
		seen_inst |= strcmp(infos[k].name, "own") == 0;
	}
	assert_true(seen_svc && seen_inst);
	scf_pg_info_free(infos, n);
	/* An instance pg overrides the service's of the same name. */
	OK(h, scf_pg_add(h, "svc:/t/comp:i", "shared", "application", 0));
	set_props(h, "svc:/t/comp:i", "shared", "v", "from-instance", NULL);
	OK(h, scf_pg_get(h, "svc:/t/comp:i", "shared", NULL, SCF_READ_COMPOSED, &pg));
	assert_string_equal(prop_value(pg, "v"), "from-instance");
	scf_pg_free(pg);

	/* Refresh: running := now; a second refresh moves it to previous. */
	OK(h, scf_instance_refresh(h, "svc:/t/comp:i"));
	set_props(h, "svc:/t/comp:i", "own", "v", "two", NULL);
	OK(h, scf_pg_get(h, "svc:/t/comp:i", "own", SCF_SNAPSHOT_RUNNING, 0, &pg));
	assert_string_equal(prop_value(pg, "v"), "one");
	scf_pg_free(pg);
	OK(h, scf_instance_refresh(h, "svc:/t/comp:i"));
	OK(h, scf_pg_get(h, "svc:/t/comp:i", "own", SCF_SNAPSHOT_RUNNING, 0, &pg));
	assert_string_equal(prop_value(pg, "v"), "two");
	scf_pg_free(pg);
	OK(h, scf_pg_get(h, "svc:/t/comp:i", "own", SCF_SNAPSHOT_PREVIOUS, 0, &pg));
	assert_string_equal(prop_value(pg, "v"), "one");
	scf_pg_free(pg);
	/* The snapshot holds the service's pgs too. */
	set_props(h, "svc:/t/comp", "shared", "v", "later", NULL);
	OK(h, scf_pg_list(h, "svc:/t/comp:i", SCF_SNAPSHOT_RUNNING, SCF_READ_COMPOSED, &infos, &n));
	assert_true(n >= 2);
	scf_pg_info_free(infos, n);

	OK(h, scf_snapshot_take(h, "svc:/t/comp:i", SCF_SNAPSHOT_INITIAL));
	OK(h, scf_snapshot_list(h, "svc:/t/comp:i", &l));
	assert_true(strv_has(l, "initial") && strv_has(l, "running") && strv_has(l, "previous"));
	for (size_t k = 1; l[0] && l[k]; k++)
		assert_true(strcmp(l[k - 1], l[k]) < 0);
	scf_strv_free(l);
	OK(h, scf_snapshot_delete(h, "svc:/t/comp:i", SCF_SNAPSHOT_INITIAL));
	ERR(h, scf_snapshot_delete(h, "svc:/t/comp:i", SCF_SNAPSHOT_INITIAL), SCF_ERROR_NOT_FOUND);
	ERR(h, scf_pg_get(h, "svc:/t/comp:i", "own", "initial", 0, &pg), SCF_ERROR_NOT_FOUND);
	scf_handle_destroy(h);
}

/* ------------------------------------------------------------------------------------------ */
/* Bulk reads                                                                                  */

/* A pg as text (everything a read returns but the entity), appended to out. */
static void pg_text(const scf_pg_t *pg, char *out, size_t size)
{
	size_t len = strlen(out);

	len += (size_t)snprintf(out + len, size - len, "[%s %s %u %" PRIu64 ":", pg->name, pg->type,
	        pg->flags, pg->generation);
	for (size_t k = 0; k < pg->n_props && len < size; k++) {
		const scf_property_t *p = &pg->props[k];

		len += (size_t)snprintf(
		        out + len, size - len, " %s/%s", p->name, scf_type_to_string(p->type));
		for (size_t v = 0; v < p->n_values && len < size; v++)
			len += (size_t)snprintf(
			        out + len, size - len, "%s'%s'", v ? "," : "=", p->values[v]);
		assert_null(p->values[p->n_values]);
	}
	if (len < size)
		snprintf(out + len, size - len, "]");
}

typedef struct seen {
	scf_handle_t *h;
	const scf_bulk_query_t *q;
	char text[8192];
	size_t n;
	int errors[8];
	char *fmris[8];
	int stop_after; /* > 0: fail the read at that entity */
} seen_t;

/*
 * Each entity's answer as text, and the same read made with scf_pg_get() for each query by
 * name, which must answer exactly the same.
 */
static int seen_one(const scf_bulk_entity_t *e, void *userdata)
{
	seen_t *s = userdata;
	size_t len = strlen(s->text);

	if (s->n < ELEMENTSOF(s->errors)) {
		s->errors[s->n] = e->error;
		s->fmris[s->n] = strdup(e->fmri);
	}
	if (++s->n == (size_t)s->stop_after)
		return -SCF_ERROR_CONNECTION_BROKEN;
	snprintf(s->text + len, sizeof(s->text) - len, "%s:", e->fmri);
	for (size_t k = 0; k < e->n_pgs; k++) {
		assert_string_equal(e->pgs[k].entity, e->fmri);
		pg_text(&e->pgs[k], s->text, sizeof(s->text));
	}
	len = strlen(s->text);
	snprintf(s->text + len, sizeof(s->text) - len, "\n");
	for (unsigned k = 0; !e->error && k < s->q->n_pgs; k++) {
		const scf_bulk_pg_t *x = &s->q->pgs[k];
		const scf_pg_t *got = scf_bulk_entity_pg(e, k);
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		char a[2048] = "", b[2048] = "";
		int r;

		if (!x->name)
			continue;
		r = scf_pg_get(s->h, e->fmri, x->name, x->snapshot, x->read_flags, &pg);
		assert_int_equal(r == 0, got != NULL);
		if (!got)
			continue;
		pg_text(got, a, sizeof(a));
		pg_text(pg, b, sizeof(b));
		assert_string_equal(a, b);
	}
	return 0;
}

static void seen_clear(seen_t *s)
{
	for (size_t k = 0; k < ELEMENTSOF(s->fmris); k++)
		free(s->fmris[k]);
	*s = (seen_t){.h = s->h, .q = s->q};
}

static void test_bulk(void **state)
{
	scf_handle_t *h = connect_();
	static const scf_bulk_pg_t pgs[] = {
	        {.name = "p", .read_flags = SCF_READ_COMPOSED},
	        {.name = "nope"},
	        {.type = SCF_GROUP_DEPENDENCY, .read_flags = SCF_READ_COMPOSED},
	        {.name = "p", .snapshot = SCF_SNAPSHOT_RUNNING},
	};
	scf_bulk_query_t q = {.pattern = "svc:/t/bulk:*", .pgs = pgs, .n_pgs = ELEMENTSOF(pgs)};
	seen_t s = {.h = h, .q = &q};
	static const char *const values[] = {"a", "", "b c"};
	_cleanup_free_ char *whole = NULL;
	const char *list[] = {
	        "svc:/t/bulk:i2", "bulk:nope", "svc:/t/bulk/:properties/p", "/t/bulk"};
	enum { N = 12000 };
	const char **many = calloc(N, sizeof(char *));
	char fmri[10][32];
	scf_tx_t *tx = NULL;

	OK(h, scf_service_add(h, "svc:/t/bulk"));
	OK(h, scf_pg_add(h, "svc:/t/bulk", "p", "application", 0));
	set_props(h, "svc:/t/bulk", "p", "s", "from-service", "x", "hidden", NULL);
	OK(h, scf_pg_add(h, "svc:/t/bulk", "dep", SCF_GROUP_DEPENDENCY, 0));
	set_props(h, "svc:/t/bulk", "dep", "grouping", "require_all", NULL);
	for (int i = 0; i < 10; i++) {
		snprintf(fmri[i], sizeof(fmri[i]), "svc:/t/bulk:i%d", i);
		OK(h, scf_instance_add(h, fmri[i]));
		if (i == 3)
			continue; /* no p of its own: the service's, composed */
		OK(h, scf_pg_add(h, fmri[i], "p", "application", i == 5 ? 0x10 : 0));
		set_props(h, fmri[i], "p", "x", fmri[i], NULL);
		OK(h, scf_tx_begin(h, fmri[i], "p", &tx));
		OK(h, scf_tx_set(tx, "m", SCF_TYPE_ASTRING, values, ELEMENTSOF(values)));
		assert_int_equal(scf_tx_commit(tx), 1);
		scf_tx_free(tx);
	}
	OK(h, scf_instance_refresh(h, fmri[4]));
	set_props(h, fmri[4], "p", "x", "after the snapshot", NULL);

	/* A page per entity, then all in one: the same answers, each as scf_pg_get()'s. */
	q.page_bytes = 1;
	OK(h, scf_bulk_read(h, &q, seen_one, &s));
	assert_int_equal(s.n, 10);
	whole = strdup(s.text);
	seen_clear(&s);
	q.page_bytes = 0;
	OK(h, scf_bulk_read(h, &q, seen_one, &s));
	assert_string_equal(s.text, whole);
	assert_non_null(strstr(whole,
	        "svc:/t/bulk:i3:[p application 0 2: s/astring='from-service' "
	        "x/astring='hidden'][dep dependency"));
	assert_non_null(strstr(whole, "x/astring='after the snapshot'"));
	assert_non_null(strstr(whole, "m/astring='a','','b c'"));
	seen_clear(&s);

	/* Listed: in order, a missing instance, a pg FMRI, a service. */
	q = (scf_bulk_query_t){.fmris = list, .n_fmris = ELEMENTSOF(list), .pgs = pgs, .n_pgs = 1};
	OK(h, scf_bulk_read(h, &q, seen_one, &s));
	assert_int_equal(s.n, 4);
	assert_int_equal(s.errors[0], 0);
	assert_int_equal(s.errors[1], -SCF_ERROR_NOT_FOUND);
	assert_string_equal(s.fmris[1], "svc:/bulk:nope");
	assert_int_equal(s.errors[2], -SCF_ERROR_INVALID_ARGUMENT);
	assert_string_equal(s.fmris[2], list[2]);
	assert_int_equal(s.errors[3], 0);
	assert_string_equal(s.fmris[3], "svc:/t/bulk");
	seen_clear(&s);

	/* A list longer than one request, answered in pages: every entity once, in order. */
	assert_non_null(many);
	for (size_t k = 0; k < N; k++)
		many[k] = fmri[k % 10];
	q = (scf_bulk_query_t){.fmris = many, .n_fmris = N, .page_bytes = 64 * 1024};
	OK(h, scf_bulk_read(h, &q, seen_one, &s));
	assert_int_equal(s.n, N);
	free(many);
	seen_clear(&s);

	/* The callback ends the read; bad queries are refused before anything is read. */
	q = (scf_bulk_query_t){.pattern = "svc:/t/bulk:*", .page_bytes = 1};
	s.stop_after = 3;
	ERR(h, scf_bulk_read(h, &q, seen_one, &s), SCF_ERROR_CONNECTION_BROKEN);
	assert_int_equal(s.n, 3);
	seen_clear(&s);
	q.pgs = (scf_bulk_pg_t[]){{.name = "p", .type = "t"}};
	q.n_pgs = 1;
	ERR(h, scf_bulk_read(h, &q, seen_one, &s), SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(s.n, 0);
	q.pgs = (scf_bulk_pg_t[SCF_BULK_MAX_PGS + 1]){};
	q.n_pgs = SCF_BULK_MAX_PGS + 1;
	ERR(h, scf_bulk_read(h, &q, seen_one, &s), SCF_ERROR_CONSTRAINT_VIOLATED);
	seen_clear(&s);
	scf_handle_destroy(h);
}

/*
 * A configd of protocol 1.0, as far as one client needs: Version 1 and GetPg, no ReadPg or
 * ReadPgs (sd-bus answers UnknownMethod), serving one connection on its own root.
 */
static int old_get_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r = sd_bus_message_new_method_return(m, &reply);

	if (r >= 0)
		r = sd_bus_message_append(reply, smf_method_get_pg.out, "application", 0,
		        (uint64_t)7, 1, "x", "count", 1, "42");
	return r < 0 ? r : sd_bus_message_send(reply);
}

static int old_version(sd_bus *bus, const char *path, const char *interface, const char *property,
        sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, smf_property_version.sig, 1u);
}

static void *old_configd(void *arg)
{
	/* protocol.h's members are not constant expressions: the vtable lives as long as the bus. */
	const sd_bus_vtable old_vtable[] = {
	        SD_BUS_VTABLE_START(0),
	        SD_BUS_PROPERTY(smf_property_version.name, smf_property_version.sig, old_version, 0,
	                SD_BUS_VTABLE_PROPERTY_CONST),
	        SD_BUS_METHOD(smf_method_get_pg.name, smf_method_get_pg.in, smf_method_get_pg.out,
	                old_get_pg, SD_BUS_VTABLE_UNPRIVILEGED),
	        SD_BUS_VTABLE_END,
	};
	/*
	 * The listening socket is non-blocking (smf_unix_listen(), as configd's): an accept before
	 * the client's connect() would fail with EAGAIN and leave the client's handshake to time
	 * out, so wait for the connection first: for longer than the client's connect deadline
	 * (25 s), so that only a client that never connects ends the wait.
	 */
	struct pollfd p = {.fd = *(int *)arg, .events = POLLIN};
	int fd = poll(&p, 1, 30 * 1000) == 1 ? accept4(p.fd, NULL, NULL, SOCK_CLOEXEC) : -1;
	sd_bus *bus = NULL;
	sd_id128_t id;

	if (fd < 0 || sd_id128_randomize(&id) < 0 || sd_bus_new(&bus) < 0 ||
	        sd_bus_set_fd(bus, fd, fd) < 0 || sd_bus_set_server(bus, 1, id) < 0 ||
	        sd_bus_set_anonymous(bus, 1) < 0 ||
	        sd_bus_add_object_vtable(
	                bus, NULL, SMF_BUS_PATH, SMF_BUS_INTERFACE, old_vtable, NULL) < 0 ||
	        sd_bus_start(bus) < 0)
		return NULL;
	for (;;) {
		int r = sd_bus_process(bus, NULL);

		if (r < 0)
			break;
		if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0)
			break;
	}
	sd_bus_close_unref(bus);
	return NULL;
}

/* libscf reads from a 1.0 configd with GetPg; a bulk read there is a version mismatch. */
static void test_old_configd(void **state)
{
	char root[64];
	_cleanup_free_ char *vol = NULL, *door = NULL;
	scf_handle_t *h = NULL;
	scf_pg_t *pg = NULL;
	pthread_t t;
	int lfd;

	assert_int_equal(test_root_make(root, sizeof(root), "libscf-old"), 0);
	assert_int_equal(smf_path(root, SMF_REL_VOLATILE_DIR, &vol), 0);
	assert_int_equal(smf_mkdir_p(vol, 0755), 0);
	assert_int_equal(smf_path(root, SMF_REL_DOOR, &door), 0);
	lfd = smf_unix_listen(door, 0666, 4);
	assert_true(lfd >= 0);
	assert_int_equal(pthread_create(&t, NULL, old_configd, &lfd), 0);
	OK(NULL, scf_handle_create(root, &h));
	for (int k = 0; k < 2; k++) { /* the second remembers that ReadPg is missing */
		OK(h, scf_pg_get(h, "svc:/old:i", "p", NULL, 0, &pg));
		assert_int_equal(pg->generation, 7);
		assert_string_equal(pg->type, "application");
		assert_int_equal(pg->n_props, 1);
		assert_string_equal(pg->props[0].name, "x");
		assert_string_equal(pg->props[0].values[0], "42");
		scf_pg_free(pg);
	}
	ERR(h, scf_bulk_read(h, &(scf_bulk_query_t){0}, NULL, NULL), SCF_ERROR_INVALID_ARGUMENT);
	{
		static const scf_bulk_pg_t q = {.name = "p"};
		seen_t s = {.h = h};
		scf_bulk_query_t bq = {.pattern = "", .pgs = &q, .n_pgs = 1};

		s.q = &bq;
		ERR(h, scf_bulk_read(h, &bq, seen_one, &s), SCF_ERROR_VERSION_MISMATCH);
	}
	scf_handle_destroy(h);
	pthread_join(t, NULL);
	close(lfd);
	test_root_remove(root);
}

/* ------------------------------------------------------------------------------------------ */

static void expect_notification(
        scf_handle_t *h, scf_notify_kind_t kind, const char *entity, const char *pg, uint64_t gen)
{
	scf_notification_t n = {};
	int r = scf_notify_wait(h, NOTIFY_DEADLINE_USEC, &n);

	if (r != 1)
		print_error("notify_wait: %d (%s) waiting for %s %s\n", r, scf_handle_errmsg(h),
		        entity, pg);
	assert_int_equal(r, 1);
	assert_int_equal(n.kind, kind);
	assert_string_equal(n.entity, entity);
	if (pg)
		assert_string_equal(n.pg, pg);
	if (gen)
		assert_int_equal(n.generation, gen);
	scf_notification_clear(&n);
}

static void expect_quiet(scf_handle_t *h, uint64_t usec)
{
	scf_notification_t n = {};
	uint64_t t0 = now_monotonic_usec();

	assert_int_equal(scf_notify_wait(h, usec, &n), 0);
	assert_true(now_monotonic_usec() - t0 >= usec);
	assert_null(n.entity);
}

static void test_notify(void **state)
{
	scf_handle_t *w = connect_(), *h = connect_();
	struct pollfd p = {.events = POLLIN};
	scf_notification_t n = {};
	uint64_t g[3];
	char buf[8];
	char **l = NULL;

	OK(h, scf_service_add(h, "svc:/t/notify"));
	OK(h, scf_instance_add(h, "svc:/t/notify:i"));
	OK(w, scf_notify_add_pgname(w, "watched"));
	OK(w, scf_notify_add_pgtype(w, "wtype"));

	/* Nothing yet: a poll answers at once, a wait times out. */
	assert_int_equal(scf_notify_wait(w, 0, &n), 0);
	expect_quiet(w, QUIET_USEC);

	OK(h, scf_pg_add(h, "svc:/t/notify:i", "watched", "application", 0));
	OK(h, scf_pg_add(h, "svc:/t/notify:i", "other", "application", 0));
	OK(h, scf_pg_add(h, "svc:/t/notify", "typed", "wtype", 0));
	for (int i = 0; i < 3; i++) {
		scf_tx_t *tx = NULL;
		const char *v = buf;

		snprintf(buf, sizeof(buf), "%d", i);
		OK(h, scf_tx_begin(h, "svc:/t/notify:i", i == 1 ? "other" : "watched", &tx));
		OK(h, scf_tx_set(tx, "v", SCF_TYPE_COUNT, &v, 1));
		assert_int_equal(scf_tx_commit(tx), 1);
		g[i] = scf_tx_generation(tx);
		scf_tx_free(tx);
	}
	/* A call on the waiting handle pulls signals in while it waits for its reply;
	 * they must still come out in commit order. */
	OK(w, scf_service_list(w, &l));
	scf_strv_free(l);
	OK(h, scf_pg_delete(h, "svc:/t/notify:i", "watched"));

	expect_notification(w, SCF_NOTIFY_PG_UPDATED, "svc:/t/notify:i", "watched", 0);
	expect_notification(w, SCF_NOTIFY_PG_UPDATED, "svc:/t/notify", "typed", 0);
	expect_notification(w, SCF_NOTIFY_PG_UPDATED, "svc:/t/notify:i", "watched", g[0]);
	expect_notification(w, SCF_NOTIFY_PG_UPDATED, "svc:/t/notify:i", "watched", g[2]);
	expect_notification(w, SCF_NOTIFY_PG_DELETED, "svc:/t/notify:i", "watched", 0);
	expect_quiet(w, QUIET_USEC);

	/* The fd becomes readable when a notification arrives. */
	p.fd = scf_notify_fd(w);
	assert_true(p.fd >= 0);
	OK(h, scf_pg_add(h, "svc:/t/notify:i", "watched", "application", 0));
	assert_int_equal(poll(&p, 1, (int)(NOTIFY_DEADLINE_USEC / USEC_PER_MSEC)), 1);
	expect_notification(w, SCF_NOTIFY_PG_UPDATED, "svc:/t/notify:i", "watched", 0);

	/* Deleting the entity deletes its pgs, and says so; an unbounded wait returns with it. */
	OK(h, scf_entity_delete(h, "svc:/t/notify:i"));
	assert_int_equal(scf_notify_wait(w, UINT64_MAX, &n), 1);
	assert_int_equal(n.kind, SCF_NOTIFY_PG_DELETED);
	assert_string_equal(n.pg, "watched");
	scf_notification_clear(&n);
	OK(h, scf_pg_add(h, "svc:/t/notify", "watched", "application", 0));
	OK(h, scf_entity_delete(h, "svc:/t/notify"));
	expect_notification(w, SCF_NOTIFY_PG_UPDATED, "svc:/t/notify", "watched", 0);
	/* A service's deletion reports every pg that goes with it, in some order. */
	expect_notification(w, SCF_NOTIFY_PG_DELETED, "svc:/t/notify", NULL, 0);
	expect_notification(w, SCF_NOTIFY_PG_DELETED, "svc:/t/notify", NULL, 0);
	expect_quiet(w, QUIET_USEC);

	/* After a reset nothing is delivered. */
	OK(h, scf_service_add(h, "svc:/t/notify"));
	OK(h, scf_pg_add(h, "svc:/t/notify", "typed", "wtype", 0));
	expect_notification(w, SCF_NOTIFY_PG_UPDATED, "svc:/t/notify", "typed", 0);
	OK(w, scf_notify_reset(w));
	OK(h, scf_pg_delete(h, "svc:/t/notify", "typed"));
	expect_quiet(w, QUIET_USEC);
	scf_handle_destroy(h);
	scf_handle_destroy(w);
}

/* ------------------------------------------------------------------------------------------ */

/* Waits for the next notification and checks, with a read on the same handle, that the change
 * it announces is already committed (configd sends it after the SQLite commit). */
static void expect_committed(scf_handle_t *w, const char *entity, const char *pg, uint64_t gen)
{
	scf_notification_t n = {};
	scf_pg_t *p = NULL;

	assert_int_equal(scf_notify_wait(w, NOTIFY_DEADLINE_USEC, &n), 1);
	assert_int_equal(n.kind, SCF_NOTIFY_PG_UPDATED);
	assert_string_equal(n.entity, entity);
	assert_string_equal(n.pg, pg);
	assert_int_equal(n.generation, gen);
	OK(w, scf_pg_get(w, entity, pg, NULL, 0, &p));
	assert_int_equal(p->generation, gen);
	scf_pg_free(p);
	scf_notification_clear(&n);
}

/* As nobody (a reader): a batch is refused and changes nothing.  Exit status says why not. */
static int reader_child(void)
{
	scf_handle_t *h = NULL;
	scf_batch_t *b = NULL;
	int r;

	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	        setresuid(65534, 65534, 65534) < 0)
		return 10;
	if (scf_handle_create(T.root, &h) < 0)
		return 11;
	if (scf_batch_new(h, &b) < 0 || scf_batch_service_ensure(b, "svc:/t/batch-reader") < 0)
		return 12;
	r = scf_batch_commit(b);
	if (r != -SCF_ERROR_PERMISSION_DENIED)
		return 13;
	/* Refused before configd reads the steps, so the message names the method, not them. */
	if (!strstr(scf_handle_errmsg(h), "permission denied") ||
	        !strstr(scf_handle_errmsg(h), smf_method_batch.name))
		return 14;
	scf_batch_free(b);
	scf_handle_destroy(h);
	return 0;
}

static void test_batch(void **state)
{
	scf_handle_t *w = connect_(), *h = connect_();
	const char *one = "1", *yes = "yes", *tru = "true", *two[] = {"a", "b"};
	scf_batch_t *b = NULL, *bad = NULL;
	scf_pg_t *pg = NULL;
	int status = -1;
	uint64_t x = 0;
	pid_t pid;

	OK(w, scf_notify_add_pgtype(w, "btype"));
	OK(w, scf_notify_add_pgname(w, "general"));
	OK(h, scf_service_add(h, "svc:/t/batch"));
	OK(h, scf_instance_add(h, "svc:/t/batch:i"));
	OK(h, scf_pg_add(h, "svc:/t/batch:i", "general", "framework", 0));
	expect_committed(w, "svc:/t/batch:i", "general", 1);

	/* Each adder checks its arguments at once; a refused step is not added. */
	OK(h, scf_batch_new(h, &b));
	ERR(h, scf_batch_service_ensure(b, "svc:/t/batch:i"), SCF_ERROR_INVALID_ARGUMENT);
	ERR(h, scf_batch_instance_ensure(b, "svc:/t/batch"), SCF_ERROR_INVALID_ARGUMENT);
	ERR(h, scf_batch_pg_ensure(b, "svc:/t/batch", "bad name", "x", 0),
	        SCF_ERROR_INVALID_ARGUMENT);
	ERR(h,
	        scf_batch_prop_set(
	                b, "svc:/t/batch:i", "general", "enabled", SCF_TYPE_BOOLEAN, &yes, 1),
	        SCF_ERROR_INVALID_ARGUMENT);
	assert_non_null(strstr(scf_handle_errmsg(h), "\"yes\""));
	assert_int_equal(scf_batch_size(b), 0);

	/* Every kind of step, three pgs touched, one of them several times. */
	OK(h, scf_batch_service_ensure(b, "svc:/t/batch"));
	OK(h, scf_batch_instance_ensure(b, "t/batch:j"));
	OK(h, scf_batch_pg_ensure(b, "svc:/t/batch:j", "config", "btype", 0));
	OK(h, scf_batch_prop_set(b, "svc:/t/batch:j", "config", "a", SCF_TYPE_COUNT, &one, 1));
	OK(h,
	        scf_batch_prop_set(
	                b, "svc:/t/batch:i", "general", "enabled", SCF_TYPE_BOOLEAN, &tru, 1));
	OK(h, scf_batch_prop_set(b, "svc:/t/batch:j", "config", "b", SCF_TYPE_ASTRING, two, 2));
	OK(h, scf_batch_prop_set(b, "svc:/t/batch:i", "general", "x", SCF_TYPE_COUNT, &one, 1));
	OK(h, scf_batch_prop_delete(b, "svc:/t/batch:i", "general", "nope"));
	OK(h, scf_batch_pg_ensure(b, "svc:/t/batch", "general", "framework", 0));
	OK(h, scf_batch_pg_ensure(b, "svc:/t/batch", "gone", "btype", 0));
	OK(h, scf_batch_pg_delete(b, "svc:/t/batch", "gone"));
	OK(h, scf_batch_snapshot_take(b, "svc:/t/batch:j", "last-import"));
	OK(h, scf_batch_refresh(b, "svc:/t/batch:j"));
	assert_int_equal(scf_batch_size(b), 13);
	assert_int_equal(scf_batch_commit(b), 1);
	scf_batch_free(b);

	/* One notification per pg, in first-touch order, each after the commit. */
	expect_committed(w, "svc:/t/batch:j", "config", 1);
	expect_committed(w, "svc:/t/batch:i", "general", 2);
	expect_committed(w, "svc:/t/batch", "general", 1);
	expect_quiet(w, QUIET_USEC);
	OK(h, scf_pg_get(h, "svc:/t/batch:j", "config", "running", 0, &pg));
	assert_non_null(scf_pg_property(pg, "b"));
	assert_int_equal(scf_pg_property(pg, "b")->n_values, 2);
	assert_string_equal(scf_pg_property(pg, "b")->values[1], "b");
	scf_pg_free(pg);
	OK(h, scf_pg_get(h, "svc:/t/batch:j", "config", "last-import", 0, &pg));
	assert_non_null(scf_pg_property(pg, "a"));
	scf_pg_free(pg);

	/* A step that fails at commit: nothing applied, nothing notified, the step named. */
	OK(h, scf_batch_new(h, &bad));
	OK(h, scf_batch_service_ensure(bad, "svc:/t/batch2"));
	OK(h, scf_batch_instance_ensure(bad, "svc:/t/batch2:k"));
	OK(h, scf_batch_prop_set(bad, "svc:/t/batch:i", "general", "x", SCF_TYPE_COUNT, two, 0));
	OK(h, scf_batch_pg_ensure(bad, "svc:/t/batch:i", "general", "application", 0));
	ERR(h, scf_batch_commit(bad), SCF_ERROR_EXISTS);
	assert_non_null(
	        strstr(scf_handle_errmsg(h), "step 4 (svc:/t/batch:i/:properties/general): "));
	assert_int_equal(scf_batch_size(bad), 4);
	ERR(h, scf_batch_commit(bad), SCF_ERROR_EXISTS); /* kept: it can be sent again */
	scf_batch_free(bad);
	assert_int_equal(scf_entity_exists(h, "svc:/t/batch2"), 0);
	OK(h, scf_pg_get(h, "svc:/t/batch:i", "general", NULL, 0, &pg));
	assert_int_equal(pg->generation, 2);
	OK(h, scf_property_get_count(scf_pg_property(pg, "x"), &x));
	assert_int_equal(x, 1); /* not the empty list the failed batch set */
	scf_pg_free(pg);
	expect_quiet(w, QUIET_USEC);

	/* A reader may not: the same check as every other write. */
	if (getuid() != 0) {
		print_message("not root: skipping the reader's batch\n");
	} else {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			_exit(reader_child());
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_int_equal(scf_entity_exists(h, "svc:/t/batch-reader"), 0);
	}
	scf_handle_destroy(h);
	scf_handle_destroy(w);
}

/*
 * Property calls on one pg in a row travel as one step (a command each, in order); the caller
 * still counts in calls: scf_batch_size(), and the step that a refused commit names.
 */
static void test_batch_merged(void **state)
{
	static const char *const I = "svc:/t/bmerge:i";
	scf_handle_t *w = connect_(), *h = connect_();
	const char *one = "1", *two = "2", *three = "3", *ab[] = {"a", "b"};
	scf_batch_t *b = NULL;
	scf_pg_t *pg = NULL;
	uint64_t x = 0;

	OK(w, scf_notify_add_pgname(w, "m"));
	OK(h, scf_batch_new(h, &b));
	OK(h, scf_batch_service_ensure(b, "svc:/t/bmerge"));
	OK(h, scf_batch_instance_ensure(b, I));
	OK(h, scf_batch_pg_ensure(b, I, "m", "btype", 0));
	OK(h, scf_batch_prop_set(b, I, "m", "a", SCF_TYPE_COUNT, &one, 1));
	OK(h, scf_batch_prop_set(b, I, "m", "b", SCF_TYPE_ASTRING, ab, 2));
	OK(h, scf_batch_prop_set(b, "t/bmerge:i", "m", "a", SCF_TYPE_COUNT, &two, 1)); /* wins */
	OK(h, scf_batch_prop_delete(b, I, "m", "b"));
	OK(h, scf_batch_prop_set(b, I, "m", "c", SCF_TYPE_ASTRING, ab, 2));
	assert_int_equal(scf_batch_size(b), 8);
	assert_int_equal(scf_batch_commit(b), 1);
	scf_batch_free(b);
	expect_committed(w, I, "m", 1);
	expect_quiet(w, QUIET_USEC);
	OK(h, scf_pg_get(h, I, "m", NULL, 0, &pg));
	OK(h, scf_property_get_count(scf_pg_property(pg, "a"), &x));
	assert_int_equal(x, 2);
	assert_null(scf_pg_property(pg, "b"));
	assert_int_equal(scf_pg_property(pg, "c")->n_values, 2);
	scf_pg_free(pg);

	/* Refused at call 4, the first of the second run (configd's step 2): "step 4". */
	OK(h, scf_batch_new(h, &b));
	OK(h, scf_batch_prop_set(b, I, "m", "a", SCF_TYPE_COUNT, &three, 1));
	OK(h, scf_batch_prop_set(b, I, "m", "d", SCF_TYPE_COUNT, &three, 1));
	OK(h, scf_batch_prop_set(b, I, "m", "e", SCF_TYPE_COUNT, &three, 1));
	OK(h, scf_batch_prop_set(b, I, "nopg", "x", SCF_TYPE_COUNT, &one, 1));
	OK(h, scf_batch_prop_set(b, I, "nopg", "y", SCF_TYPE_COUNT, &one, 1));
	assert_int_equal(scf_batch_size(b), 5);
	ERR(h, scf_batch_commit(b), SCF_ERROR_NOT_FOUND);
	assert_true(strncmp(scf_handle_errmsg(h), "step 4 (svc:/t/bmerge:i/:properties/nopg): ",
	                    strlen("step 4 (svc:/t/bmerge:i/:properties/nopg): ")) == 0);
	/* Sent again, the same; and nothing was applied. */
	ERR(h, scf_batch_commit(b), SCF_ERROR_NOT_FOUND);
	assert_non_null(strstr(scf_handle_errmsg(h), "step 4 ("));
	scf_batch_free(b);
	OK(h, scf_pg_get(h, I, "m", NULL, 0, &pg));
	assert_int_equal(pg->generation, 1);
	assert_null(scf_pg_property(pg, "d"));
	scf_pg_free(pg);
	expect_quiet(w, QUIET_USEC);
	scf_handle_destroy(h);
	scf_handle_destroy(w);
}

/* ------------------------------------------------------------------------------------------ */

static void test_resolve(void **state)
{
	scf_handle_t *h = connect_();
	char **l = NULL;
	char *one = NULL;

	OK(h, scf_service_add(h, "svc:/t/network/smtp"));
	OK(h, scf_instance_add(h, "svc:/t/network/smtp:sendmail"));
	OK(h, scf_service_add(h, "svc:/t/amb"));
	OK(h, scf_instance_add(h, "svc:/t/amb:x"));
	OK(h, scf_instance_add(h, "svc:/t/amb:y"));

	OK(h, scf_fmri_resolve_one(h, "smtp:sendmail", SCF_RESOLVE_INSTANCES, &one));
	assert_string_equal(one, "svc:/t/network/smtp:sendmail");
	free(one);
	OK(h, scf_fmri_resolve_one(h, "sendmail", SCF_RESOLVE_INSTANCES, &one));
	assert_string_equal(one, "svc:/t/network/smtp:sendmail");
	free(one);
	OK(h, scf_fmri_resolve_one(h, "smtp", SCF_RESOLVE_SERVICES, &one));
	assert_string_equal(one, "svc:/t/network/smtp");
	free(one);
	OK(h, scf_fmri_resolve_one(h, "svc:/t/network/smtp:sendmail", SCF_RESOLVE_INSTANCES, &one));
	assert_string_equal(one, "svc:/t/network/smtp:sendmail");
	free(one);

	OK(h, scf_fmri_resolve(h, "amb", SCF_RESOLVE_INSTANCES, &l));
	assert_string_equal(l[0], "svc:/t/amb:x");
	assert_string_equal(l[1], "svc:/t/amb:y");
	assert_null(l[2]);
	scf_strv_free(l);
	ERR(h, scf_fmri_resolve_one(h, "amb", SCF_RESOLVE_INSTANCES, &one), SCF_ERROR_AMBIGUOUS);
	assert_non_null(strstr(scf_handle_errmsg(h), "svc:/t/amb:x"));
	assert_non_null(strstr(scf_handle_errmsg(h), "svc:/t/amb:y"));
	ERR(h, scf_fmri_resolve_one(h, "nosuchthing", SCF_RESOLVE_INSTANCES, &one),
	        SCF_ERROR_NOT_FOUND);
	OK(h, scf_fmri_resolve(h, "svc:/t/nosuch:thing", SCF_RESOLVE_INSTANCES, &l));
	assert_null(l[0]);
	scf_strv_free(l);
	scf_handle_destroy(h);
}

static void test_restarter(void **state)
{
	scf_handle_t *h = connect_(), *r1 = connect_(), *r2 = connect_();
	uint64_t deadline;
	int r;

	assert_int_equal(scf_restarter_attached(h), 0);
	OK(r1, scf_restarter_register(r1));
	assert_int_equal(scf_restarter_attached(h), 1);
	ERR(r2, scf_restarter_register(r2), SCF_ERROR_EXISTS);
	scf_handle_destroy(r1);
	/* configd learns of the close asynchronously; poll against a deadline. */
	deadline = deadline_after_usec(NOTIFY_DEADLINE_USEC);
	while ((r = scf_restarter_attached(h)) == 1 && deadline_left_usec(deadline) > 0)
		poll(NULL, 0, 5);
	assert_int_equal(r, 0);
	OK(r2, scf_restarter_register(r2));
	scf_handle_destroy(r2);
	scf_handle_destroy(h);
}

/*
 * A configd that hangs costs a call its timeout, not forever, and the call says it timed out
 * (the connection is not broken); the handle stays usable.
 */
static void test_stuck_configd(void **state)
{
	scf_handle_t *h = connect_();
	char **l = NULL;
	uint64_t t0;

	scf_handle_set_timeout(h, 200 * USEC_PER_MSEC);
	assert_int_equal(kill(T.pid, SIGSTOP), 0);
	t0 = now_monotonic_usec();
	ERR(h, scf_service_list(h, &l), SCF_ERROR_TIMEOUT);
	assert_non_null(strstr(scf_handle_errmsg(h), "timed out"));
	assert_true(now_monotonic_usec() - t0 >= 200 * USEC_PER_MSEC);
	assert_true(now_monotonic_usec() - t0 < 5 * USEC_PER_SEC);
	assert_int_equal(kill(T.pid, SIGCONT), 0);
	scf_handle_set_timeout(h, 25 * USEC_PER_SEC);
	/* The late reply to the timed-out call is dropped, not mistaken for the next one's. */
	OK(h, scf_service_list(h, &l));
	assert_true(strv_has(l, "svc:/t/typed"));
	scf_strv_free(l);
	assert_int_equal(scf_entity_exists(h, "svc:/t/typed"), 1);
	scf_handle_destroy(h);
}

static struct {
	scf_handle_t *h;
	pid_t tid;
	int result;
} blocked;

static void *blocked_call(void *arg)
{
	char **l = NULL;

	__atomic_store_n(&blocked.tid, gettid(), __ATOMIC_SEQ_CST);
	blocked.result = scf_service_list(blocked.h, &l);
	scf_strv_free(l);
	return NULL;
}

/* Is thread tid asleep (in its call's poll, since it has nothing else to wait for)? */
static bool thread_sleeping(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	bool r = false;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		r = p[1] == ' ' && p[2] == 'S';
	fclose(f);
	return r;
}

/*
 * configd dies while a call waits for its answer: the call fails with CONNECTION_BROKEN, so do
 * later ones and a notification wait; a new handle gets NO_SERVER; all of it at once.
 */
static void test_dead_configd(void **state)
{
	scf_handle_t *h = connect_(), *w = connect_(), *h2 = NULL;
	uint64_t deadline = deadline_after_usec(NOTIFY_DEADLINE_USEC);
	scf_notification_t n = {};
	char **l = NULL;
	pthread_t t;
	uint64_t t0;

	OK(h, scf_service_add(h, "svc:/t/persist"));
	OK(h, scf_instance_add(h, "svc:/t/persist:i"));
	OK(h, scf_pg_add(h, "svc:/t/persist:i", "kept", "application", 0));
	set_props(h, "svc:/t/persist:i", "kept", "v", "stays", NULL);
	OK(h,
	        scf_pg_add(h, "svc:/t/persist:i", SCF_PG_RESTARTER, SCF_GROUP_FRAMEWORK,
	                SCF_PG_FLAG_NONPERSISTENT));
	set_props(h, "svc:/t/persist:i", SCF_PG_RESTARTER, "state", "online", NULL);
	OK(w, scf_notify_add_pgname(w, "kept"));

	/* Stopped, configd cannot answer: the call is surely pending when configd dies. */
	assert_int_equal(kill(T.pid, SIGSTOP), 0);
	blocked.h = h;
	assert_int_equal(pthread_create(&t, NULL, blocked_call, NULL), 0);
	while (!(__atomic_load_n(&blocked.tid, __ATOMIC_SEQ_CST) && thread_sleeping(blocked.tid)) &&
	        deadline_left_usec(deadline) > 0)
		poll(NULL, 0, 1);
	kill_configd();
	t0 = now_monotonic_usec();
	pthread_join(t, NULL);
	assert_int_equal(blocked.result, -SCF_ERROR_CONNECTION_BROKEN);
	assert_string_not_equal(scf_handle_errmsg(h), "");
	ERR(h, scf_service_list(h, &l), SCF_ERROR_CONNECTION_BROKEN);
	ERR(w, scf_notify_wait(w, NOTIFY_DEADLINE_USEC, &n), SCF_ERROR_CONNECTION_BROKEN);
	ERR(NULL, scf_handle_create(T.root, &h2), SCF_ERROR_NO_SERVER);
	assert_null(h2);
	assert_true(now_monotonic_usec() - t0 < USEC_PER_SEC);
	scf_handle_destroy(h);
	scf_handle_destroy(w);
}

static void test_restart_persistence(void **state)
{
	scf_handle_t *h;
	scf_pg_t *pg = NULL;

	assert_int_equal(start_configd(), 0);
	h = connect_();
	OK(h, scf_pg_get(h, "svc:/t/persist:i", "kept", NULL, 0, &pg));
	assert_string_equal(prop_value(pg, "v"), "stays");
	scf_pg_free(pg);
	/* Non-persistent, but the same boot: a configd restart keeps it (configd/backend.c). */
	OK(h, scf_pg_get(h, "svc:/t/persist:i", SCF_PG_RESTARTER, NULL, 0, &pg));
	assert_string_equal(prop_value(pg, "state"), "online");
	scf_pg_free(pg);
	assert_int_equal(scf_restarter_attached(h), 0);
	scf_handle_destroy(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_handle),
	        cmocka_unit_test(test_handle_denied),
	        cmocka_unit_test(test_entities),
	        cmocka_unit_test(test_pgs),
	        cmocka_unit_test(test_typed_reads),
	        cmocka_unit_test(test_tx_rules),
	        cmocka_unit_test(test_tx_run_threads),
	        cmocka_unit_test(test_composed_and_snapshots),
	        cmocka_unit_test(test_bulk),
	        cmocka_unit_test(test_old_configd),
	        cmocka_unit_test(test_notify),
	        cmocka_unit_test(test_batch),
	        cmocka_unit_test(test_batch_merged),
	        cmocka_unit_test(test_resolve),
	        cmocka_unit_test(test_restarter),
	        /* These stop, kill and restart configd: keep them last and in this order. */
	        cmocka_unit_test(test_stuck_configd),
	        cmocka_unit_test(test_dead_configd),
	        cmocka_unit_test(test_restart_persistence),
	};

	T.configd = getenv("SVC_CONFIGD");
	if (!T.configd || access(T.configd, X_OK) < 0) {
		fprintf(stderr, "SKIP: SVC_CONFIGD is not set or not executable\n");
		return 77;
	}
	return cmocka_run_group_tests_name("libscf", tests, group_setup, group_teardown);
}
