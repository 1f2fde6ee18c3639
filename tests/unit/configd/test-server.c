/*
 * test-server: svc.configd over its socket, with raw sd-bus (no libscf).
 *
 * Starts the daemon given by $SVC_CONFIGD on a fresh root per test, waits for READY=1 on a
 * private $NOTIFY_SOCKET (a poll with a deadline), and checks what only the server can get
 * wrong: error names, notifications in commit order on the subscribing connection only,
 * the restarter registration and its end with the connection, --native, authorization of an
 * unprivileged peer, the Hello that busctl needs, the single-instance lock, connection churn,
 * a real write failure (a file size limit, so write() fails under SQLite), and a clean exit on
 * SIGTERM (exit status 0, which under ASan also means no leak).
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "libscf.h"
#include "macro.h"
#include "paths.h"
#include "protocol.h"
#include "test-root.h"
#include "timeutil.h"
#include "unixsock.h"

#define PATH SMF_BUS_PATH
#define IFACE SMF_BUS_INTERFACE
#define DEADLINE_USEC (60 * USEC_PER_SEC)

/* When not 0, the largest file the next spawned daemon may write (RLIMIT_FSIZE, in bytes). */
static rlim_t spawn_file_limit;
/* When >= 0, the umask the next spawned daemon starts with. */
static int spawn_umask = -1;

typedef struct Daemon {
	char root[64];
	char door[128];
	pid_t pid;
} Daemon;

/* Waits for pid with a deadline; returns its wait status or -1. */
static int wait_exit(pid_t pid)
{
	uint64_t deadline = deadline_after_usec(DEADLINE_USEC);
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 || deadline_left_usec(deadline) == 0)
			return -1;
		/* waitpid has no timeout; poll on nothing for 5 ms between looks. */
		poll(NULL, 0, 5);
	}
}

/* Starts svc.configd on root; returns its pid once it said READY=1, or -1 if it exited. */
static pid_t spawn(const char *root, const char *extra, int *ret_status)
{
	const char *exe = getenv("SVC_CONFIGD");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int nfd = -1;
	char buf[256];
	pid_t pid;

	assert_non_null(exe);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", root);
	nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(nfd >= 0);
	unlink(sa.sun_path);
	assert_int_equal(bind(nfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char log[128];
		int fd;

		snprintf(log, sizeof(log), "%s/configd.log", root);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(fd, STDERR_FILENO);
		setenv("NOTIFY_SOCKET", sa.sun_path, 1);
		setenv("SMF_LOG_LEVEL", "debug", 1);
		if (spawn_umask >= 0)
			umask((mode_t)spawn_umask);
		if (spawn_file_limit) {
			struct rlimit rl = {spawn_file_limit, spawn_file_limit};

			/* Ignored, so a write past the limit fails with EFBIG instead of killing. */
			signal(SIGXFSZ, SIG_IGN);
			if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
				_exit(126);
		}
		execl(exe, exe, "--root", root, extra, (char *)NULL);
		_exit(127);
	}
	for (uint64_t deadline = deadline_after_usec(DEADLINE_USEC);;) {
		struct pollfd p = {.fd = nfd, .events = POLLIN};
		int status;

		if (poll(&p, 1, 20) > 0) {
			ssize_t n = recv(nfd, buf, sizeof(buf) - 1, 0);

			if (n > 0) {
				buf[n] = 0;
				if (strstr(buf, "READY=1"))
					return pid;
			}
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (ret_status)
				*ret_status = status;
			return -1;
		}
		assert_true(deadline_left_usec(deadline) > 0);
	}
}

static int daemon_start(Daemon *d, const char *extra)
{
	assert_int_equal(test_root_make(d->root, sizeof(d->root), "test-server"), 0);
	snprintf(d->door, sizeof(d->door), "%s/%s", d->root, SMF_REL_DOOR);
	d->pid = spawn(d->root, extra, NULL);
	assert_true(d->pid > 0);
	/* Ready means the socket is there. */
	assert_int_equal(access(d->door, F_OK), 0);
	return 0;
}

static void dump_log(const Daemon *d)
{
	char path[128], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/configd.log", d->root);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		print_message("configd: %s", line);
	if (f)
		fclose(f);
}

/* SIGTERM, then the daemon must exit 0 and take its socket with it. */
static void daemon_stop(Daemon *d)
{
	int status;

	assert_int_equal(kill(d->pid, SIGTERM), 0);
	status = wait_exit(d->pid);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		dump_log(d);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(access(d->door, F_OK), -1);
	test_root_remove(d->root);
}

static int setup(void **state)
{
	Daemon *d = calloc(1, sizeof(*d));

	daemon_start(d, NULL);
	*state = d;
	return 0;
}

static int setup_native(void **state)
{
	Daemon *d = calloc(1, sizeof(*d));

	daemon_start(d, "--native");
	*state = d;
	return 0;
}

/* A daemon that may not grow a file past 1 MiB (RLIMIT_FSIZE). */
static int setup_file_limit(void **state)
{
	spawn_file_limit = 1024 * 1024;
	setup(state);
	spawn_file_limit = 0;
	return 0;
}

/* A daemon started with umask 077. */
static int setup_umask(void **state)
{
	spawn_umask = 077;
	setup(state);
	spawn_umask = -1;
	return 0;
}

static int teardown(void **state)
{
	daemon_stop(*state);
	free(*state);
	return 0;
}

static sd_bus *connect_bus(const Daemon *d)
{
	sd_bus *bus = NULL;
	int fd = smf_unix_connect(d->door);

	assert_true(fd >= 0);
	assert_int_equal(sd_bus_new(&bus), 0);
	assert_int_equal(sd_bus_set_fd(bus, fd, fd), 0);
	assert_true(sd_bus_start(bus) >= 0);
	return bus;
}

/* Calls a method with arguments of its signature (protocol.h); returns 0. */
static int vcall(sd_bus *bus, const smf_bus_method_t *method, const char *want_error,
        sd_bus_message **ret, va_list ap)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	const char *member = method->name;
	int r;

	assert_true(sd_bus_message_new_method_call(bus, &m, NULL, PATH, IFACE, member) >= 0);
	assert_true(sd_bus_message_appendv(m, method->in, ap) >= 0);
	r = sd_bus_call(bus, m, 0, &error, &reply);
	if (want_error) {
		if (r >= 0 || !sd_bus_error_has_name(&error, want_error))
			print_message("%s: wanted %s, got %s (%s)\n", member, want_error,
			        strna(error.name), strna(error.message));
		assert_true(r < 0);
		assert_true(sd_bus_error_has_name(&error, want_error));
		assert_non_null(error.message);
		assert_true(strlen(error.message) > 0);
		return 0;
	}
	if (r < 0)
		print_message(
		        "%s failed: %s: %s\n", member, strna(error.name), strna(error.message));
	assert_true(r >= 0);
	if (ret)
		*ret = TAKE_PTR(reply);
	return 0;
}

static void call(sd_bus *bus, const smf_bus_method_t *method, ...)
{
	va_list ap;

	va_start(ap, method);
	vcall(bus, method, NULL, NULL, ap);
	va_end(ap);
}

static void call_fail(sd_bus *bus, const char *want, const smf_bus_method_t *method, ...)
{
	va_list ap;

	va_start(ap, method);
	vcall(bus, method, want, NULL, ap);
	va_end(ap);
}

/* A method without arguments that answers a boolean. */
static int call_bool(sd_bus *bus, const smf_bus_method_t *method)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int b = -1;

	assert_true(
	        sd_bus_call_method(bus, NULL, PATH, IFACE, method->name, NULL, &reply, "") >= 0);
	assert_true(sd_bus_message_read(reply, method->out, &b) >= 0);
	return b;
}

static void commit_one(sd_bus *bus, const char *ent, const char *pg, uint64_t gen, unsigned op,
        const char *prop, const char *type, const char *value, const char *want_error)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	int r;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_commit.name) >= 0);
	assert_true(sd_bus_message_append(m, "sst", ent, pg, gen) >= 0);
	assert_true(sd_bus_message_append(
	                    m, "a(" SMF_BUS_COMMAND ")", 1, op, prop, type, 1, value) >= 0);
	r = sd_bus_call(bus, m, 0, &error, &reply);
	if (want_error) {
		assert_true(r < 0);
		assert_true(sd_bus_error_has_name(&error, want_error));
	} else {
		if (r < 0)
			print_message("Commit: %s\n", error.message);
		assert_true(r >= 0);
	}
}

/* Sends a Batch of one step with op code op (a service ensure's fields), wanting want_error. */
static void batch_op(sd_bus *bus, uint32_t op, uint32_t cmd_op, const char *want_error)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	int r;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_batch.name) >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "(" SMF_BUS_STEP ")") >= 0);
	assert_true(sd_bus_message_append(m, "(" SMF_BUS_STEP ")", op, "svc:/batch", "general", "",
	                    "framework", 0, 1, cmd_op, "p", "count", 1, "1") >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	r = sd_bus_call(bus, m, 0, &error, &reply);
	if (r >= 0 || !sd_bus_error_has_name(&error, want_error))
		print_message("Batch op %u/%u: wanted %s, got %s (%s)\n", op, cmd_op, want_error,
		        strna(error.name), strna(error.message));
	assert_true(r < 0);
	assert_true(sd_bus_error_has_name(&error, want_error));
}

static void test_errors_and_version(void **state)
{
	Daemon *d = *state;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	uint32_t version = 0;

	assert_true(sd_bus_get_property_trivial(bus, NULL, PATH, IFACE, smf_property_version.name,
	                    &error, 'u', &version) >= 0);
	assert_int_equal(version, 1);
	call(bus, &smf_method_add_service, "svc:/a");
	call(bus, &smf_method_add_instance, "a:i");
	call_fail(bus, SMF_BUS_ERROR_EXISTS, &smf_method_add_service, "/a");
	call_fail(bus, SMF_BUS_ERROR_NOT_FOUND, &smf_method_add_instance, "svc:/b:i");
	call_fail(bus, SMF_BUS_ERROR_TYPE_MISMATCH, &smf_method_add_instance, "svc:/b");
	call_fail(bus, SMF_BUS_ERROR_INVALID_ARGUMENT, &smf_method_add_service, "svc:/a b");
	call(bus, &smf_method_add_pg, "svc:/a:i", "general", "framework", 0);
	commit_one(bus, "svc:/a:i", "general", 1, 0, "enabled", "boolean", "true", NULL);
	commit_one(bus, "svc:/a:i", "general", 1, 0, "x", "count", "1", SMF_BUS_ERROR_NOT_LATEST);
	commit_one(bus, "svc:/a:i", "general", 2, 0, "x", "count", "-1",
	        SMF_BUS_ERROR_INVALID_ARGUMENT);
	commit_one(bus, "svc:/a:i", "general", 2, 0, "enabled", "boolean", "true",
	        SMF_BUS_ERROR_EXISTS);
	commit_one(bus, "svc:/a:i", "nope", 1, 0, "x", "count", "1", SMF_BUS_ERROR_DELETED);
	call_fail(bus, SMF_BUS_ERROR_NOT_FOUND, &smf_method_get_pg, "svc:/a:i", "nope", "", 0);
	/* Op codes off the wire are range-checked: Commit takes 0-2, Batch steps 0-7. */
	commit_one(bus, "svc:/a:i", "general", 2, 3, "x", "count", "1",
	        SMF_BUS_ERROR_INVALID_ARGUMENT);
	commit_one(bus, "svc:/a:i", "general", 2, UINT32_MAX, "x", "count", "1",
	        SMF_BUS_ERROR_INVALID_ARGUMENT);
	batch_op(bus, 8, 0, SMF_BUS_ERROR_INVALID_ARGUMENT);
	batch_op(bus, UINT32_MAX, 0, SMF_BUS_ERROR_INVALID_ARGUMENT);
	batch_op(bus, 3, 5, SMF_BUS_ERROR_INVALID_ARGUMENT);
	/* Nothing of a refused batch was applied. */
	call_fail(bus, SMF_BUS_ERROR_NOT_FOUND, &smf_method_list_instances, "svc:/batch");
	call_fail(bus, SMF_BUS_ERROR_NOT_SUPPORTED, &smf_method_register_restarter);
	assert_int_equal(call_bool(bus, &smf_method_restarter_attached), 0);
}

/* One ReadPgs page of the instances after `after`, one query (general), budget 1. */
static void read_page(
        sd_bus *bus, const char *after, const char *want, size_t want_len, int want_more)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	const void *page;
	size_t len;
	int more = -1;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_read_pgs.name) >= 0);
	assert_true(sd_bus_message_append(m, smf_method_read_pgs.in, 0, "", after, 1, "general", "",
	                    "", 0, 1) >= 0);
	assert_true(sd_bus_call(bus, m, 0, &error, &reply) >= 0);
	assert_true(sd_bus_message_read_array(reply, 'y', &page, &len) >= 0);
	assert_true(sd_bus_message_read(reply, "b", &more) >= 0);
	assert_int_equal(len, want_len);
	assert_memory_equal(page, want, want_len);
	assert_int_equal(more, want_more);
}

/*
 * A client of protocol 1.0 (it checks Version and uses the single reads) still works, and a
 * client of 1.1 gets ReadPgs' records as docs/protocol.md spells them, one entity per page when
 * the page is one byte, with the next page after the last FMRI answered.
 */
static void test_old_and_bulk_clients(void **state)
{
	static const char page1[] = "E\0svc:/w:a\0000\0P\0000\0general\0framework\0000\0002\0001\0"
	                            "enabled\0boolean\0001\0true";
	static const char page2[] = "E\0svc:/w:b\0000\0P\0000\0general\0framework\0000\0001\0000";
	Daemon *d = *state;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	uint32_t version = 0, minor = 0, flags;
	const char *type, *name, *ptype;
	uint64_t gen;
	char **values = NULL;

	assert_true(sd_bus_get_property_trivial(bus, NULL, PATH, IFACE, smf_property_version.name,
	                    &error, 'u', &version) >= 0);
	assert_int_equal(version, 1);
	assert_true(sd_bus_get_property_trivial(bus, NULL, PATH, IFACE,
	                    smf_property_minor_version.name, &error, 'u', &minor) >= 0);
	assert_int_equal(minor, SMF_PROTOCOL_MINOR_VERSION);
	call(bus, &smf_method_add_service, "svc:/w");
	call(bus, &smf_method_add_instance, "svc:/w:a");
	call(bus, &smf_method_add_instance, "svc:/w:b");
	call(bus, &smf_method_add_pg, "svc:/w:a", "general", "framework", 0);
	call(bus, &smf_method_add_pg, "svc:/w:b", "general", "framework", 0);
	commit_one(bus, "svc:/w:a", "general", 1, 0, "enabled", "boolean", "true", NULL);

	/* 1.0: GetPg, twice (the second from configd's cache), as before. */
	for (int k = 0; k < 2; k++) {
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

		reply = sd_bus_message_unref(reply);
		assert_true(sd_bus_message_new_method_call(
		                    bus, &m, NULL, PATH, IFACE, smf_method_get_pg.name) >= 0);
		assert_true(sd_bus_message_append(
		                    m, smf_method_get_pg.in, "svc:/w:a", "general", "", 0) >= 0);
		assert_true(sd_bus_call(bus, m, 0, &error, &reply) >= 0);
	}
	assert_true(sd_bus_message_read(reply, "sut", &type, &flags, &gen) >= 0);
	assert_string_equal(type, "framework");
	assert_int_equal(gen, 2);
	assert_true(sd_bus_message_enter_container(reply, 'a', "(" SMF_BUS_PROPERTY ")") > 0);
	assert_true(sd_bus_message_enter_container(reply, 'r', SMF_BUS_PROPERTY) > 0);
	assert_true(sd_bus_message_read(reply, "ss", &name, &ptype) >= 0);
	assert_true(sd_bus_message_read_strv(reply, &values) >= 0);
	assert_string_equal(name, "enabled");
	assert_string_equal(ptype, "boolean");
	assert_string_equal(values[0], "true");
	assert_null(values[1]);
	free(values[0]);
	free(values);

	/* 1.1: two pages of one entity each. */
	read_page(bus, "", page1, sizeof(page1), 1);
	read_page(bus, "svc:/w:a", page2, sizeof(page2), 0);
}

/* Collects signals as "Member entity pg type [generation]" lines. */
static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	char *log = userdata, line[256];
	const char *ent, *pg, *type;
	uint64_t gen = 0;

	if (sd_bus_message_is_signal(m, IFACE, smf_signal_pg_changed.name)) {
		assert_true(sd_bus_message_read(m, "ssst", &ent, &pg, &type, &gen) >= 0);
		snprintf(line, sizeof(line), "changed %s %s %s %llu\n", ent, pg, type,
		        (unsigned long long)gen);
	} else {
		assert_true(sd_bus_message_read(m, "sss", &ent, &pg, &type) >= 0);
		snprintf(line, sizeof(line), "deleted %s %s %s\n", ent, pg, type);
	}
	strcat(log, line);
	return 0;
}

/* Processes bus until log ends with last (or the deadline passes). */
static void wait_log(sd_bus *bus, const char *log, const char *last)
{
	uint64_t deadline = deadline_after_usec(DEADLINE_USEC);
	size_t n = strlen(last);

	for (;;) {
		size_t l = strlen(log);

		if (l >= n && streq(log + l - n, last))
			return;
		if (sd_bus_process(bus, NULL) > 0)
			continue;
		assert_true(deadline_left_usec(deadline) > 0);
		assert_true(sd_bus_wait(bus, deadline_left_usec(deadline)) >= 0);
	}
}

static void test_notifications(void **state)
{
	Daemon *d = *state;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *w = connect_bus(d), *a = connect_bus(d),
	                                            *t = connect_bus(d);
	static char alog[4096], tlog[4096], wlog[4096];

	alog[0] = tlog[0] = wlog[0] = 0;
	assert_true(sd_bus_match_signal(a, NULL, NULL, PATH, IFACE, NULL, on_signal, alog) >= 0);
	assert_true(sd_bus_match_signal(t, NULL, NULL, PATH, IFACE, NULL, on_signal, tlog) >= 0);
	assert_true(sd_bus_match_signal(w, NULL, NULL, PATH, IFACE, NULL, on_signal, wlog) >= 0);
	call(a, &smf_method_notify_add_pg_name, "general");
	call(t, &smf_method_notify_add_pg_type, "application");
	call_fail(t, SMF_BUS_ERROR_INVALID_ARGUMENT, &smf_method_notify_add_pg_type, "bad name");

	call(w, &smf_method_add_service, "svc:/s");
	call(w, &smf_method_add_instance, "svc:/s:i");
	call(w, &smf_method_add_pg, "svc:/s:i", "general", "framework", 0);
	for (unsigned g = 1; g <= 3; g++)
		commit_one(w, "svc:/s:i", "general", g, g == 1 ? 0 : 1, "p", "count", "1", NULL);
	/* A failed commit and an empty one send nothing. */
	commit_one(w, "svc:/s:i", "general", 1, 1, "p", "count", "1", SMF_BUS_ERROR_NOT_LATEST);
	call(w, &smf_method_add_pg, "svc:/s", "app", "application", 0);
	call(w, &smf_method_add_pg, "svc:/s", "general", "framework", 0);
	call(w, &smf_method_delete_pg, "svc:/s:i", "general");
	call(w, &smf_method_delete, "svc:/s");
	wait_log(a, alog, "deleted svc:/s general framework\n");
	assert_string_equal(alog,
	        "changed svc:/s:i general framework 1\n"
	        "changed svc:/s:i general framework 2\n"
	        "changed svc:/s:i general framework 3\n"
	        "changed svc:/s:i general framework 4\n"
	        "changed svc:/s general framework 1\n"
	        "deleted svc:/s:i general framework\n"
	        "deleted svc:/s general framework\n");
	wait_log(t, tlog, "deleted svc:/s app application\n");
	assert_string_equal(tlog,
	        "changed svc:/s app application 1\n"
	        "deleted svc:/s app application\n");
	/* After a reset, nothing more; the writer, who asked for nothing, got nothing. */
	call(a, &smf_method_notify_reset);
	call(w, &smf_method_add_service, "svc:/s2");
	call(w, &smf_method_add_pg, "svc:/s2", "general", "framework", 0);
	call(a, &smf_method_list_services); /* a round trip: a signal sent before it would be here */
	while (sd_bus_process(a, NULL) > 0)
		;
	assert_null(strstr(alog, "s2"));
	while (sd_bus_process(w, NULL) > 0)
		;
	assert_string_equal(wlog, "");
}

static void test_restarter(void **state)
{
	Daemon *d = *state;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *q = connect_bus(d);
	sd_bus *r = connect_bus(d);
	uint64_t deadline;

	assert_int_equal(call_bool(q, &smf_method_restarter_attached), 0);
	call(r, &smf_method_register_restarter);
	call(r, &smf_method_register_restarter); /* again on the same connection: fine */
	assert_int_equal(call_bool(q, &smf_method_restarter_attached), 1);
	call_fail(q, SMF_BUS_ERROR_EXISTS, &smf_method_register_restarter);
	sd_bus_flush_close_unref(r);
	/* configd notices the close asynchronously: poll the answer with a deadline. */
	deadline = deadline_after_usec(DEADLINE_USEC);
	while (call_bool(q, &smf_method_restarter_attached) != 0)
		assert_true(deadline_left_usec(deadline) > 0);
	call(q, &smf_method_register_restarter);
	assert_int_equal(call_bool(q, &smf_method_restarter_attached), 1);
}

static void test_hello(void **state)
{
	Daemon *d = *state;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *name;

	assert_true(sd_bus_call_method(bus, NULL, SMF_BUS_DRIVER_PATH, SMF_BUS_DRIVER_INTERFACE,
	                    smf_method_hello.name, &error, &reply, "") >= 0);
	assert_true(sd_bus_message_read(reply, smf_method_hello.out, &name) >= 0);
	assert_true(strneq(name, ":1.", 3));
}

static void test_churn(void **state)
{
	Daemon *d = *state;

	/* Connect, ask, go: thousands of times.  Leaks show as a non-zero exit under ASan. */
	for (int i = 0; i < 1500; i++) {
		sd_bus *bus = connect_bus(d);

		if (i % 2)
			call(bus, &smf_method_notify_add_pg_name, "general");
		if (i % 3 == 0)
			call(bus, &smf_method_list_services);
		sd_bus_flush_close_unref(bus);
	}
	{
		_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);

		call(bus, &smf_method_add_service, "svc:/after");
	}
}

/* One database's record from StoreStatus (the strings point into *reply); r of the call. */
typedef struct store_rec {
	const char *path, *kind, *error;
	uint64_t ok, fail, failures;
} store_rec_t;

static int store_status(sd_bus *bus, const char *store, sd_bus_message **reply, store_rec_t *ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	const char *name;
	int r;

	r = sd_bus_call_method(bus, NULL, PATH, IFACE, smf_method_store_status.name, &e, reply, "");
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(*reply, 'a', "(" SMF_BUS_STORE_RECORD ")");
	while (r > 0) {
		r = sd_bus_message_read(*reply, "(" SMF_BUS_STORE_RECORD ")", &name, &ret->path,
		        &ret->ok, &ret->fail, &ret->failures, &ret->kind, &ret->error);
		if (r > 0 && streq(name, store))
			return 0;
	}
	return r < 0 ? r : -ENOENT;
}

static void test_unprivileged(void **state)
{
	Daemon *d = *state;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sd_bus *bus;
		int r;

		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(10);
		bus = connect_bus(d);
		{
			_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

			r = sd_bus_call_method(bus, NULL, PATH, IFACE,
			        smf_method_list_services.name, &e, NULL, "");
			if (r < 0)
				_exit(11);
		}
		{
			_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

			r = sd_bus_call_method(bus, NULL, PATH, IFACE, smf_method_add_service.name,
			        &e, NULL, "s", "svc:/x");
			if (r >= 0 || !sd_bus_error_has_name(&e, SMF_BUS_ERROR_PERMISSION_DENIED))
				_exit(12);
		}
		{
			_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

			/*
			 * Refused before configd parses the steps: the refusal cannot name them.
			 * (It named the first step's FMRI when it parsed the whole batch first.)
			 */
			r = sd_bus_call_method(bus, NULL, PATH, IFACE, smf_method_batch.name, &e,
			        NULL, smf_method_batch.in, 1, 0, "svc:/batched", "", "", "", 0, 0);
			if (r >= 0 || !sd_bus_error_has_name(&e, SMF_BUS_ERROR_PERMISSION_DENIED))
				_exit(13);
			if (strstr(e.message, "svc:/batched") || !strstr(e.message, "(Batch)"))
				_exit(14);
		}
		{
			/* A read: the store's record is every reader's. */
			_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
			store_rec_t st;

			if (store_status(bus, SMF_STORE_NONPERSISTENT, &reply, &st) < 0)
				_exit(15);
		}
		sd_bus_flush_close_unref(bus);
		_exit(0);
	}
	status = wait_exit(pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	{
		_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);

		call(bus, &smf_method_add_service,
		        "svc:/x"); /* root may; and the refused add left nothing */
	}
}

static void test_second_refused(void **state)
{
	Daemon *d = *state;
	char path[128], buf[512] = "";
	int status = 0;
	FILE *f;

	assert_int_equal(spawn(d->root, NULL, &status), -1);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	snprintf(path, sizeof(path), "%s/configd.log", d->root);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	assert_non_null(strstr(buf, "already serves"));
	/* The first one still serves. */
	{
		_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);

		call(bus, &smf_method_list_services);
	}
}

static bool log_contains(const Daemon *d, const char *what)
{
	char path[128], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/configd.log", d->root);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	assert_false(sd_bus_message_is_method_error(m, NULL));
	(*(int *)userdata)++;
	return 0;
}

/* Dispatches bus until a reply came or timeout passed. */
static void pump(sd_bus *bus, const int *replies, uint64_t timeout)
{
	uint64_t deadline = deadline_after_usec(timeout);

	while (*replies == 0 && deadline_left_usec(deadline) > 0)
		if (sd_bus_process(bus, NULL) == 0)
			assert_true(sd_bus_wait(bus, deadline_left_usec(deadline)) >= 0);
}

static void test_connection_bound(void **state)
{
	enum { BOUND = 4096 };
	Daemon *d = *state;
	_cleanup_free_ int *fds = calloc(BOUND, sizeof(int));
	struct rlimit rl;
	int replies = 0;
	uint64_t deadline;
	sd_bus *bus;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < BOUND + 256)
		skip();
	rl.rlim_cur = rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	for (int i = 0; i < BOUND; i++) {
		fds[i] = smf_unix_connect(d->door);
		assert_true(fds[i] >= 0);
	}
	/* One more waits in the backlog; configd says once that it stopped accepting. */
	bus = connect_bus(d);
	assert_true(sd_bus_call_method_async(bus, NULL, NULL, PATH, IFACE,
	                    smf_method_list_services.name, on_reply, &replies, "") >= 0);
	deadline = deadline_after_usec(DEADLINE_USEC);
	while (!log_contains(d, "too many connections")) {
		assert_true(deadline_left_usec(deadline) > 0);
		poll(NULL, 0, 10);
	}
	pump(bus, &replies, 200 * USEC_PER_MSEC);
	assert_int_equal(replies, 0);
	/* A slot frees up: the waiting client is served. */
	close(fds[0]);
	pump(bus, &replies, DEADLINE_USEC);
	assert_int_equal(replies, 1);
	sd_bus_flush_close_unref(bus);
	for (int i = 1; i < BOUND; i++)
		close(fds[i]);
}

/*
 * accept() out of fds with no client connected: nothing will ever close and resume accepting,
 * so configd must retry by itself.  The test lowers the daemon's fd limit below what it holds
 * (prlimit), lets a client arrive, waits for the pause to be logged, and restores the limit.
 */
static void test_accept_retry(void **state)
{
	Daemon *d = *state;
	struct rlimit old, low;
	int replies = 0;
	uint64_t deadline;
	sd_bus *bus;

	assert_int_equal(prlimit(d->pid, RLIMIT_NOFILE, NULL, &old), 0);
	low = (struct rlimit){.rlim_cur = 3, .rlim_max = old.rlim_max};
	assert_int_equal(prlimit(d->pid, RLIMIT_NOFILE, &low, NULL), 0);
	bus = connect_bus(d);
	assert_true(sd_bus_call_method_async(bus, NULL, NULL, PATH, IFACE,
	                    smf_method_list_services.name, on_reply, &replies, "") >= 0);
	deadline = deadline_after_usec(DEADLINE_USEC);
	while (!log_contains(d, "not accepting clients for now")) {
		assert_true(deadline_left_usec(deadline) > 0);
		pump(bus, &replies, 10 * USEC_PER_MSEC);
	}
	assert_int_equal(replies, 0);
	assert_int_equal(prlimit(d->pid, RLIMIT_NOFILE, &old, NULL), 0);
	pump(bus, &replies, DEADLINE_USEC);
	assert_int_equal(replies, 1);
	sd_bus_flush_close_unref(bus);
}

static uint64_t pg_generation(sd_bus *bus, const char *ent, const char *pg)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	const char *type;
	uint32_t flags;
	uint64_t gen = 0;

	assert_true(sd_bus_call_method(bus, NULL, PATH, IFACE, smf_method_get_pg.name, &error,
	                    &reply, smf_method_get_pg.in, ent, pg, "", 0) >= 0);
	assert_true(sd_bus_message_read(reply, "sut", &type, &flags, &gen) >= 0);
	return gen;
}

/* Commits NEW prop (n copies of value) to ent/pg at gen; sd_bus_call()'s result. */
static int commit_values(sd_bus *bus, const char *ent, const char *pg, uint64_t gen,
        const char *prop, const char *value, size_t n, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_commit.name) >= 0);
	assert_true(sd_bus_message_append(m, "sst", ent, pg, gen) >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "(" SMF_BUS_COMMAND ")") >= 0);
	assert_true(sd_bus_message_open_container(m, 'r', SMF_BUS_COMMAND) >= 0);
	assert_true(sd_bus_message_append(m, "uss", 0, prop, "astring") >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "s") >= 0);
	for (size_t i = 0; i < n; i++)
		assert_true(sd_bus_message_append(m, "s", value) >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	return sd_bus_call(bus, m, 0, error, NULL);
}

/*
 * A real write failure, not one simulated inside SQLite: the daemon may not grow any file past
 * 1 MiB (RLIMIT_FSIZE), so the write-ahead log hits the limit after a few commits of 256 KiB and
 * write() fails under SQLite.  The failing commit must answer Backend and change nothing, and
 * the daemon must go on serving, take a small commit, and still exit cleanly.  StoreStatus
 * records the refusal (an I/O error: EFBIG is not ENOSPC) against the persistent database
 * alone, until the small commit is taken.
 */
static void test_write_failure(void **state)
{
	Daemon *d = *state;
	_cleanup_free_ char *value = malloc(4096);
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);
	char prop[16];
	uint64_t gen;
	int i, r = 0;

	assert_non_null(value);
	memset(value, 'x', 4095);
	value[4095] = 0;
	call(bus, &smf_method_add_service, "svc:/a");
	call(bus, &smf_method_add_instance, "svc:/a:i");
	call(bus, &smf_method_add_pg, "svc:/a:i", "big", "application", 0);
	for (i = 0; i < 16; i++) {
		_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

		gen = pg_generation(bus, "svc:/a:i", "big");
		snprintf(prop, sizeof(prop), "p%d", i);
		r = commit_values(bus, "svc:/a:i", "big", gen, prop, value, 64, &error);
		if (r < 0) {
			if (!sd_bus_error_has_name(&error, SMF_BUS_ERROR_BACKEND))
				print_message("commit %d: %s: %s\n", i, strna(error.name),
				        strna(error.message));
			assert_true(sd_bus_error_has_name(&error, SMF_BUS_ERROR_BACKEND));
			break;
		}
	}
	assert_true(r < 0); /* 16 x 256 KiB cannot fit under a 1 MiB file limit */
	assert_true(i > 0); /* ... but the first commits did */
	/* Nothing of the failed commit: same generation, no such property; the rest is there. */
	assert_int_equal(pg_generation(bus, "svc:/a:i", "big"), gen);
	{
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
		_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
		const char *type, *name;
		uint32_t flags;
		int n = 0;

		assert_true(
		        sd_bus_call_method(bus, NULL, PATH, IFACE, smf_method_get_pg.name, &error,
		                &reply, smf_method_get_pg.in, "svc:/a:i", "big", "", 0) >= 0);
		assert_true(sd_bus_message_read(reply, "sut", &type, &flags, &gen) >= 0);
		assert_true(
		        sd_bus_message_enter_container(reply, 'a', "(" SMF_BUS_PROPERTY ")") >= 0);
		while (sd_bus_message_enter_container(reply, 'r', SMF_BUS_PROPERTY) > 0) {
			assert_true(sd_bus_message_read(reply, "ss", &name, &type) >= 0);
			assert_string_not_equal(name, prop);
			assert_true(sd_bus_message_skip(reply, "as") >= 0);
			assert_true(sd_bus_message_exit_container(reply) >= 0);
			n++;
		}
		assert_int_equal(n, i);
	}
	{
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *np_reply = NULL;
		store_rec_t st, np;

		assert_int_equal(store_status(bus, SMF_STORE_PERSISTENT, &reply, &st), 0);
		assert_non_null(strstr(st.path, "/etc/svc/repository.db"));
		assert_int_equal(st.failures, 1);
		assert_string_equal(st.kind, SMF_STORE_FAIL_IO);
		assert_true(st.fail >= st.ok && st.ok > 0);
		assert_string_not_equal(st.error, "");
		assert_int_equal(store_status(bus, SMF_STORE_NONPERSISTENT, &np_reply, &np), 0);
		assert_non_null(strstr(np.path, "/etc/svc/volatile/svc_nonpersist.db"));
		assert_int_equal(np.failures, 0);
		assert_int_equal(np.fail, 0);
		assert_string_equal(np.kind, "");
	}
	/* Still serving, and still writing what fits. */
	commit_one(bus, "svc:/a:i", "big", gen, 0, "small", "count", "1", NULL);
	assert_int_equal(pg_generation(bus, "svc:/a:i", "big"), gen + 1);
	{
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
		store_rec_t st;

		assert_int_equal(store_status(bus, SMF_STORE_PERSISTENT, &reply, &st), 0);
		assert_int_equal(st.failures, 0);
		assert_true(st.ok >= st.fail);
	}
}

/*
 * SIGTERM while a reply larger than the socket's buffer (sd-bus makes it 8 MiB, which the kernel
 * doubles) is still queued: configd must let the client read all of it before it closes the
 * connection (it used to drop the rest).  The reply is a composed read of two pgs of 15.6 MB.
 */
static void test_exit_flush(void **state)
{
	static const char *const ents[] = {"svc:/a", "svc:/a:i"};
	Daemon *d = *state;
	_cleanup_free_ char *value = malloc(4096);
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);
	uint64_t deadline;
	struct pollfd p;
	int replies = 0;

	assert_non_null(value);
	memset(value, 'x', 4095);
	value[4095] = 0;
	call(bus, &smf_method_add_service, "svc:/a");
	call(bus, &smf_method_add_instance, "svc:/a:i");
	for (int i = 0; i < 2; i++) {
		char p1[8], p2[8];

		snprintf(p1, sizeof(p1), "%c1", 'a' + i);
		snprintf(p2, sizeof(p2), "%c2", 'a' + i);
		call(bus, &smf_method_add_pg, ents[i], "big", "application", 0);
		assert_true(commit_values(bus, ents[i], "big", 1, p1, value, 1900, NULL) >= 0);
		assert_true(commit_values(bus, ents[i], "big", 2, p2, value, 1900, NULL) >= 0);
	}
	assert_true(
	        sd_bus_call_method_async(bus, NULL, NULL, PATH, IFACE, smf_method_get_pg.name,
	                on_reply, &replies, smf_method_get_pg.in, "svc:/a:i", "big", "", 1) >= 0);
	assert_true(sd_bus_flush(bus) >= 0);
	/* The first bytes of the reply are here: configd queued the rest. */
	p = (struct pollfd){.fd = sd_bus_get_fd(bus), .events = POLLIN};
	assert_int_equal(poll(&p, 1, DEADLINE_USEC / USEC_PER_MSEC), 1);
	assert_int_equal(kill(d->pid, SIGTERM), 0);
	/* Read nothing more until configd is on its way out, or it could finish writing first. */
	deadline = deadline_after_usec(DEADLINE_USEC);
	while (!log_contains(d, "shutting down")) {
		assert_true(deadline_left_usec(deadline) > 0);
		poll(NULL, 0, 5);
	}
	pump(bus, &replies, DEADLINE_USEC);
	assert_int_equal(replies, 1);
}

/*
 * Readers reach the socket through $ROOT/etc/svc/volatile, so every directory configd creates
 * there must be searchable by all, whatever umask it was started with.
 */
static void test_umask(void **state)
{
	static const char *const dirs[] = {"etc", "etc/svc", SMF_REL_VOLATILE_DIR};
	Daemon *d = *state;

	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		char path[256];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", d->root, dirs[i]);
		assert_int_equal(stat(path, &st), 0);
		if ((st.st_mode & 0755) != 0755)
			print_message("%s: mode %o\n", path, (unsigned)(st.st_mode & 07777));
		assert_int_equal(st.st_mode & 0755, 0755);
	}
}

/*
 * A server that does not accept: once its backlog is full, a connect waits, but no longer than
 * its timeout, and succeeds as soon as the server accepts again.  No daemon: a bare listener
 * with a backlog of 0 (which the kernel lets hold one waiting connection).
 */
static void test_connect_timeout(void **state)
{
	char dir[64], path[80];
	_cleanup_close_ int lfd = -1, first = -1, third = -1;
	uint64_t start, took;
	int fd;

	assert_int_equal(test_root_make(dir, sizeof(dir), "test-connect"), 0);
	snprintf(path, sizeof(path), "%s/door", dir);
	lfd = smf_unix_listen(path, 0666, 0);
	assert_true(lfd >= 0);
	first = smf_unix_connect_timeout(path, DEADLINE_USEC);
	assert_true(first >= 0);
	start = now_monotonic_usec();
	fd = smf_unix_connect_timeout(path, 200 * USEC_PER_MSEC);
	took = now_monotonic_usec() - start;
	if (fd >= 0)
		close(fd);
	assert_int_equal(fd, -ETIMEDOUT);
	assert_true(took >= 150 * USEC_PER_MSEC);
	assert_true(took < 5 * USEC_PER_SEC);
	/* Room in the backlog again: the next connect gets in. */
	close(accept4(lfd, NULL, NULL, SOCK_CLOEXEC));
	third = smf_unix_connect_timeout(path, DEADLINE_USEC);
	assert_true(third >= 0);
	assert_int_equal(smf_unix_connect_timeout("/nonexistent/door", DEADLINE_USEC), -ENOENT);
	test_root_remove(dir);
}

/* ---- Requests whose size is the attack: refused or served in time linear in their size ---- */

/* A call too slow to wait for: minutes before issue 18 for the sizes below, milliseconds now. */
#define BIG_CALL_USEC (60 * USEC_PER_SEC)

/* configd's CPU time so far in ns (every thread's, from schedstat): what a request cost it. */
static uint64_t daemon_cpu_ns(const Daemon *d)
{
	char path[320], line[128];
	uint64_t sum = 0;
	DIR *dir;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)d->pid);
	dir = opendir(path);
	assert_non_null(dir);
	while ((e = readdir(dir))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)d->pid, e->d_name);
		f = fopen(path, "re");
		if (f && fgets(line, sizeof(line), f))
			sum += strtoull(line, NULL, 10);
		if (f)
			fclose(f);
	}
	closedir(dir);
	return sum;
}

/* A Commit of one NEW property "p" with n values "v". */
static sd_bus_message *big_commit(sd_bus *bus, size_t n)
{
	sd_bus_message *m = NULL;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_commit.name) >= 0);
	assert_true(sd_bus_message_append(m, "sst", "svc:/a:i", "pg", (uint64_t)1) >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "(" SMF_BUS_COMMAND ")") >= 0);
	assert_true(sd_bus_message_open_container(m, 'r', SMF_BUS_COMMAND) >= 0);
	assert_true(sd_bus_message_append(m, "uss", 0, "p", "astring") >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "s") >= 0);
	for (size_t i = 0; i < n; i++)
		assert_true(sd_bus_message_append_basic(m, 's', "v") >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	return m;
}

/* A Batch of one PROPS step on svc:/a:i/pg with one SET of n values. */
static sd_bus_message *big_batch_values(sd_bus *bus, size_t n)
{
	sd_bus_message *m = NULL;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_batch.name) >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "(" SMF_BUS_STEP ")") >= 0);
	assert_true(sd_bus_message_open_container(m, 'r', SMF_BUS_STEP) >= 0);
	assert_true(sd_bus_message_append(m, "ussssu", 3, "svc:/a:i", "pg", "", "", 0) >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "(" SMF_BUS_COMMAND ")") >= 0);
	assert_true(sd_bus_message_open_container(m, 'r', SMF_BUS_COMMAND) >= 0);
	assert_true(sd_bus_message_append(m, "uss", 3, "p", "astring") >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "s") >= 0);
	for (size_t i = 0; i < n; i++)
		assert_true(sd_bus_message_append_basic(m, 's', "v") >= 0);
	for (int k = 0; k < 5; k++)
		assert_true(sd_bus_message_close_container(m) >= 0);
	return m;
}

/* A Batch of n PROPS steps on svc:/a:i/pg, each setting one more property ("q0", "q1", ...). */
static sd_bus_message *big_batch_steps(sd_bus *bus, size_t n)
{
	sd_bus_message *m = NULL;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_batch.name) >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "(" SMF_BUS_STEP ")") >= 0);
	for (size_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "q%zu", i);
		assert_true(sd_bus_message_append(m, "(" SMF_BUS_STEP ")", 3, "svc:/a:i", "pg", "",
		                    "", 0, 1, 3, name, "astring", 1, "v") >= 0);
	}
	assert_true(sd_bus_message_close_container(m) >= 0);
	return m;
}

/* A ReadPgs of n listed entities (or of every instance, n = 0) and q queries of general. */
static sd_bus_message *big_read(sd_bus *bus, size_t n, size_t q)
{
	sd_bus_message *m = NULL;

	assert_true(sd_bus_message_new_method_call(
	                    bus, &m, NULL, PATH, IFACE, smf_method_read_pgs.name) >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "s") >= 0);
	for (size_t i = 0; i < n; i++)
		assert_true(sd_bus_message_append_basic(m, 's', "svc:/a:i") >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	assert_true(sd_bus_message_append(m, "ss", "", "") >= 0);
	assert_true(sd_bus_message_open_container(m, 'a', "(" SMF_BUS_BULK_QUERY ")") >= 0);
	for (size_t i = 0; i < q; i++)
		assert_true(sd_bus_message_append(
		                    m, "(" SMF_BUS_BULK_QUERY ")", "general", "", "", 0) >= 0);
	assert_true(sd_bus_message_close_container(m) >= 0);
	assert_true(sd_bus_message_append(m, "u", 1) >= 0);
	return m;
}

typedef struct outcome {
	int r;             /* the call's result: 1 answered, an error's -errno, 0 not yet */
	char name[64];     /* the error's name, "" for success */
	char message[256]; /* ... and its message */
	double seconds;    /* the call's wall time */
	uint64_t cpu_ns;   /* what it cost configd */
} outcome_t;

static int on_big_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	outcome_t *o = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(m);

	o->r = 1;
	if (e) {
		o->r = -sd_bus_error_get_errno(e);
		snprintf(o->name, sizeof(o->name), "%s", strna(e->name));
		snprintf(o->message, sizeof(o->message), "%s", strna(e->message));
	}
	return 0;
}

/*
 * Sends m (unref'd here), and while it is on its way or being served, a second connection asks
 * for something small: configd is one thread serving everyone, so that answer waits for m's
 * refusal and must come within the same deadline.  Then waits for m's answer.
 */
static outcome_t send_big(const Daemon *d, sd_bus *bus, sd_bus_message *m)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *other = connect_bus(d);
	_cleanup_(sd_bus_error_free) sd_bus_error other_error = SD_BUS_ERROR_NULL;
	outcome_t o = {};
	uint64_t cpu0 = daemon_cpu_ns(d), t0 = now_monotonic_usec(), deadline;

	assert_true(sd_bus_set_method_call_timeout(other, BIG_CALL_USEC) >= 0);
	assert_true(sd_bus_call_async(bus, NULL, m, on_big_reply, &o, BIG_CALL_USEC) >= 0);
	sd_bus_message_unref(m);
	assert_true(sd_bus_flush(bus) >= 0);
	if (sd_bus_call_method(other, NULL, PATH, IFACE, smf_method_list_services.name,
	            &other_error, NULL, NULL) < 0)
		print_message("another client: %s\n", strna(other_error.message));
	assert_false(sd_bus_error_is_set(&other_error));
	deadline = deadline_after_usec(BIG_CALL_USEC);
	while (o.r == 0 && deadline_left_usec(deadline) > 0)
		if (sd_bus_process(bus, NULL) == 0)
			assert_true(sd_bus_wait(bus, deadline_left_usec(deadline)) >= 0);
	o.seconds = (double)(now_monotonic_usec() - t0) / USEC_PER_SEC;
	o.cpu_ns = daemon_cpu_ns(d) - cpu0;
	if (o.r == 0 || o.r == -ETIMEDOUT)
		print_message("no answer within %d s\n", (int)(BIG_CALL_USEC / USEC_PER_SEC));
	assert_true(o.r != 0);
	return o;
}

static void assert_refused(const outcome_t *o, const char *name, const char *words)
{
	if (o->r >= 0 || strcmp(o->name, name) || !strstr(o->message, words))
		print_message("wanted %s (\"%s\"), got %d %s: %s\n", name, words, o->r, o->name,
		        o->message);
	assert_true(o->r < 0);
	assert_string_equal(o->name, name);
	assert_non_null(strstr(o->message, words));
}

/*
 * Linear means 10 times the input costs about 10 times as much, never 100: the bound allows 10
 * times plus a constant for what costs nothing measurable at the small size (the reading of a
 * few MB), so a slow or busy machine does not fail it, and a quadratic step (100 times, and
 * minutes at the large size) cannot pass it.  CPU time of configd, not wall time, so other
 * processes on the machine do not count.
 */
static void assert_linear(
        const char *what, size_t n1, const outcome_t *o1, size_t n2, const outcome_t *o2)
{
	print_message(
	        "%s: %zu in %.3f s (configd CPU %.3f s), %zu in %.3f s (configd CPU %.3f s)\n",
	        what, n1, o1->seconds, (double)o1->cpu_ns / 1e9, n2, o2->seconds,
	        (double)o2->cpu_ns / 1e9);
	assert_true(n2 == 10 * n1);
	assert_true(o2->cpu_ns < 10 * o1->cpu_ns + 500 * 1000 * 1000ull);
}

/*
 * Issue 18: a Commit or Batch of 2 million values is refused before the repository is touched,
 * reading no further than the 4,097th value, and a ReadPgs past its bounds likewise; a batch of
 * 40,000 steps on one pg is applied in time linear in its steps.  Before, each value list was read
 * in O(n^2) (a Commit of 100,000 values took 1.5 s, one of 2 million minutes, while every other
 * client waited) and every batch step measured its whole pg again (40,000 steps: 71 s).
 */
static void test_big_requests(void **state)
{
	Daemon *d = *state;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_bus(d);
	outcome_t small, large;
	char want[128];

	call(bus, &smf_method_add_service, "svc:/a");
	call(bus, &smf_method_add_instance, "svc:/a:i");
	call(bus, &smf_method_add_pg, "svc:/a:i", "pg", "application", 0);
	call(bus, &smf_method_add_pg, "svc:/a:i", "general", "framework", 0);
	snprintf(want, sizeof(want), "svc:/a:i/:properties/pg/p: more than %d values",
	        SCF_LIMIT_MAX_VALUES);

	small = send_big(d, bus, big_commit(bus, 200000));
	large = send_big(d, bus, big_commit(bus, 2000000));
	assert_linear("Commit refused", 200000, &small, 2000000, &large);
	assert_refused(&small, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, want);
	assert_refused(&large, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, want);
	/* Exactly the limit is fine: one more is refused. */
	large = send_big(d, bus, big_commit(bus, SCF_LIMIT_MAX_VALUES + 1));
	assert_refused(&large, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, want);
	small = send_big(d, bus, big_commit(bus, SCF_LIMIT_MAX_VALUES));
	assert_true(small.r > 0);
	call(bus, &smf_method_delete_pg, "svc:/a:i", "pg");
	call(bus, &smf_method_add_pg, "svc:/a:i", "pg", "application", 0);

	small = send_big(d, bus, big_batch_values(bus, 200000));
	large = send_big(d, bus, big_batch_values(bus, 2000000));
	assert_linear("Batch refused", 200000, &small, 2000000, &large);
	assert_refused(
	        &small, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, "step 1 (svc:/a:i/:properties/pg)");
	assert_refused(&large, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, want);
	/* Nothing of either was written: the pg is as AddPg left it. */
	assert_int_equal(pg_generation(bus, "svc:/a:i", "pg"), 3);

	small = send_big(d, bus, big_read(bus, 200000, 1));
	large = send_big(d, bus, big_read(bus, 2000000, 1));
	assert_linear("ReadPgs refused", 200000, &small, 2000000, &large);
	assert_refused(&small, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, "more than 65536 entities");
	assert_refused(&large, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, "more than 65536 entities");
	large = send_big(d, bus, big_read(bus, 0, 17));
	assert_refused(&large, SMF_BUS_ERROR_CONSTRAINT_VIOLATED, "more than 16 queries");
	large = send_big(d, bus, big_read(bus, 65536, 1));
	assert_true(large.r > 0);

	/* Accepted work: every step grows the same pg, which is measured once, not 40,000 times. */
	small = send_big(d, bus, big_batch_steps(bus, 4000));
	assert_true(small.r > 0);
	call(bus, &smf_method_delete_pg, "svc:/a:i", "pg");
	call(bus, &smf_method_add_pg, "svc:/a:i", "pg", "application", 0);
	large = send_big(d, bus, big_batch_steps(bus, 40000));
	assert_true(large.r > 0);
	assert_linear("Batch of steps on one pg", 4000, &small, 40000, &large);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_errors_and_version, setup_native, teardown),
	        cmocka_unit_test_setup_teardown(test_notifications, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_old_and_bulk_clients, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_restarter, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_hello, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_churn, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_unprivileged, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_second_refused, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_connection_bound, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_accept_retry, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_write_failure, setup_file_limit, teardown),
	        cmocka_unit_test_setup_teardown(test_umask, setup_umask, teardown),
	        cmocka_unit_test_setup_teardown(test_exit_flush, setup, teardown),
	        cmocka_unit_test(test_connect_timeout),
	        cmocka_unit_test_setup_teardown(test_big_requests, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
