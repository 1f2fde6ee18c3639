/*
 * test-notify: the bounds on what configd queues for a subscriber that does not read.
 *
 * No daemon and no SQLite: one connection_t on one end of a socketpair whose peer never
 * authenticates, so sd-bus keeps every signal in its write queue (nothing reaches the socket)
 * and the queue grows exactly as it would for a stalled subscriber.  notify_pg_changed() must
 * close the connection at CONFIGD_MAX_QUEUED_SIGNALS signals, or earlier at
 * CONFIGD_MAX_QUEUED_SIGNAL_BYTES when the names are long.
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

/* Short names: the count bound comes first. */
static void test_count_bound(void **state)
{
	Fixture *f = *state;
	unsigned sent = send_until_dropped(f, "svc:/a", CONFIGD_MAX_QUEUED_SIGNALS + 10);

	assert_int_equal(sent, CONFIGD_MAX_QUEUED_SIGNALS);
}

/* Names near their limits (about 800 bytes a signal): the byte bound comes first. */
static void test_byte_bound(void **state)
{
	Fixture *f = *state;
	char entity[SCF_LIMIT_MAX_FMRI_LENGTH + 1] = "svc:/";
	unsigned sent;

	for (int i = 0; i < 5; i++) {
		size_t l = strlen(entity);

		memset(entity + l, 'a' + i, 110);
		strcpy(entity + l + 110, i < 4 ? "/" : "");
	}
	sent = send_until_dropped(f, entity, CONFIGD_MAX_QUEUED_SIGNALS + 10);
	assert_true(sent < CONFIGD_MAX_QUEUED_SIGNALS);
	/* Each counts at least its names and at most twice that plus the header. */
	assert_true((uint64_t)sent * (strlen(entity) + 4) <= CONFIGD_MAX_QUEUED_SIGNAL_BYTES);
	assert_true((uint64_t)(sent + 1) * (2 * strlen(entity) + 256) >
	        CONFIGD_MAX_QUEUED_SIGNAL_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_count_bound, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_byte_bound, setup, teardown),
	};

	log_set_level(LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
