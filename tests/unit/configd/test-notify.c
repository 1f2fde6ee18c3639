/*
 * test-notify: the bounds on what configd queues for a subscriber that does not read.
 *
 * No daemon and no SQLite: one connection_t on one end of a socketpair whose peer never
 * authenticates, so sd-bus keeps every signal in its write queue (nothing reaches the socket)
 * and the queue grows exactly as it would for a stalled subscriber.  notify_pg_changed() must
 * close the connection once its queued signals, each counted as CONFIGD_MESSAGE_OVERHEAD_BYTES
 * and half again its payload (limits.c), would pass CONFIGD_MAX_QUEUED_BYTES: sooner when names
 * are long.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "configd.h"
#include "log.h"

typedef struct Fixture {
	configd_t m;
	connection_t *c;
	int peer;
} Fixture;

static int setup(void **state)
{
	Fixture *f = calloc(1, sizeof(*f));
	int fds[2];

	assert_non_null(f);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
	f->peer = fds[1];
	f->m.listen_fd = -1;
	assert_true(sd_event_new(&f->m.event) >= 0);
	assert_true(sd_id128_randomize(&f->m.server_id) >= 0);
	f->c = calloc(1, sizeof(*f->c));
	assert_non_null(f->c);
	*f->c = (connection_t){.configd = &f->m, .id = 1, .pid = getpid()};
	f->m.connections = f->c;
	f->m.n_connections = 1;
	assert_true(sd_bus_new(&f->c->bus) >= 0);
	assert_true(sd_bus_set_fd(f->c->bus, fds[0], fds[0]) >= 0);
	assert_true(sd_bus_set_server(f->c->bus, 1, f->m.server_id) >= 0);
	assert_true(sd_bus_start(f->c->bus) >= 0);
	assert_int_equal(notify_add_interest(f->c, true, "t", NULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	Fixture *f = *state;

	/* A dropped connection is freed by its defer event; one still there, by hand. */
	while (f->m.connections && f->m.connections->defer_free)
		assert_true(sd_event_run(f->m.event, 0) >= 0);
	if (f->m.connections)
		server_stop(&f->m);
	sd_event_unref(f->m.event);
	close(f->peer);
	free(f);
	return 0;
}

/* Sends PgChanged for entity/pg of type "t" until the connection is dropped; how many went. */
static unsigned send_until_dropped(Fixture *f, const char *entity, unsigned max)
{
	char name[16];
	scf_pg_t pg = {.entity = (char *)entity, .name = name, .type = (char *)"t"};
	unsigned n;

	for (n = 0; n < max && !f->c->defer_free; n++) {
		snprintf(name, sizeof(name), "p%u", n);
		pg.generation = n + 1;
		notify_pg_changed(&f->m, &pg);
	}
	return f->c->defer_free ? n - 1 : n;
}

/*
 * Checks that the connection went after sent signals whose names take names bytes: each counts
 * CONFIGD_MESSAGE_OVERHEAD_BYTES and half again its payload, which is the names and at most 256
 * bytes of header and padding.
 */
static void assert_bound(unsigned sent, size_t names)
{
	uint64_t lo = CONFIGD_MESSAGE_OVERHEAD_BYTES + names * 3 / 2,
	         hi = CONFIGD_MESSAGE_OVERHEAD_BYTES + (names + 256) * 3 / 2;

	assert_true((uint64_t)sent * lo <= CONFIGD_MAX_QUEUED_BYTES);
	assert_true((uint64_t)(sent + 1) * hi > CONFIGD_MAX_QUEUED_BYTES);
}

/* Short names: about 10,000 signals. */
static void test_short_names(void **state)
{
	Fixture *f = *state;
	unsigned sent = send_until_dropped(f, "svc:/a", 1u << 20);

	assert_true(f->c->defer_free);
	assert_bound(sent, strlen("svc:/a") + strlen("p10000") + 1);
}

/* Names near their limits (about 800 bytes a signal): fewer. */
static void test_long_names(void **state)
{
	Fixture *f = *state;
	char entity[SCF_LIMIT_MAX_FMRI_LENGTH + 1] = "svc:/";
	unsigned sent;

	for (int i = 0; i < 5; i++) {
		size_t l = strlen(entity);

		memset(entity + l, 'a' + i, 110);
		strcpy(entity + l + 110, i < 4 ? "/" : "");
	}
	sent = send_until_dropped(f, entity, 1u << 20);
	assert_true(f->c->defer_free);
	assert_bound(sent, strlen(entity) + strlen("p1000") + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_short_names, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_long_names, setup, teardown),
	};

	log_set_level(LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
