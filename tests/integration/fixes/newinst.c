/*
 * newinst: libscf's side of issue 10, against the real daemons (test-fixes.sh drives it).
 *
 *   newinst notify               scf_notify_add_instances(): one SCF_NOTIFY_INSTANCE_ADDED per
 *                                instance created (scf_instance_add() or a batch), in commit
 *                                order with the pg notifications, each with the commit id of
 *                                the write that created it (a batch's pgs share it), to that
 *                                handle only, and none after scf_notify_reset(); exit 0 when
 *                                all holds
 *   newinst wait FMRI EXPECT [TIMEOUT_S]
 *                                creates the instance FMRI (its service must exist), then
 *                                scf_instance_wait_restarter(); exits 0 when the outcome is
 *                                EXPECT: done, no-restarter, emi-pending or timeout (with the
 *                                instance named in the detail and the errmsg)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libscf.h"

static int failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "newinst: " __VA_ARGS__);                                  \
			fputc('\n', stderr);                                                       \
			failed = 1;                                                                \
		}                                                                                  \
	} while (0)

static scf_handle_t *handle(void)
{
	scf_handle_t *h = NULL;
	int r = scf_handle_create(NULL, &h);

	if (r < 0) {
		fprintf(stderr, "newinst: no repository: %s\n", scf_strerror(r));
		exit(1);
	}
	return h;
}

/* The next notification on h within 5 s; kind 0 when none came. */
static scf_notification_t next(scf_handle_t *h, uint64_t usec)
{
	scf_notification_t n = {0};

	if (scf_notify_wait(h, usec, &n) <= 0)
		n.kind = 0;
	return n;
}

static int do_notify(void)
{
	scf_handle_t *w = handle(), *o = handle(), *p = handle();
	scf_batch_t *b = NULL;
	scf_notification_t n;
	const char *one[] = {"1"};
	uint64_t id_a, id_b;

	CHECK(scf_notify_add_instances(w) == 0, "NotifyAddInstances: %s", scf_handle_errmsg(w));
	CHECK(scf_notify_add_pgname(w, "cfg") == 0, "NotifyAddPgName: %s", scf_handle_errmsg(w));
	CHECK(scf_notify_add_pgname(o, "cfg") == 0, "NotifyAddPgName: %s", scf_handle_errmsg(o));
	CHECK(scf_service_add(p, "svc:/t/n") == 0, "add service: %s", scf_handle_errmsg(p));
	CHECK(scf_instance_add(p, "svc:/t/n:a") == 0, "add instance: %s", scf_handle_errmsg(p));
	/* A batch: the instance, then a pg of it. */
	CHECK(scf_batch_new(p, &b) == 0, "batch");
	CHECK(scf_batch_instance_ensure(b, "svc:/t/n:b") == 0, "batch instance");
	CHECK(scf_batch_pg_ensure(b, "svc:/t/n:b", "cfg", "application", 0) == 0, "batch pg");
	CHECK(scf_batch_prop_set(b, "svc:/t/n:b", "cfg", "x", SCF_TYPE_COUNT, one, 1) == 0, "prop");
	CHECK(scf_batch_commit(b) == 1, "batch commit: %s", scf_handle_errmsg(p));
	scf_batch_free(b);

	n = next(w, 5000000);
	CHECK(n.kind == SCF_NOTIFY_INSTANCE_ADDED && n.entity && !strcmp(n.entity, "svc:/t/n:a") &&
	                !n.pg,
	        "first: expected InstanceAdded svc:/t/n:a, got kind %d %s", n.kind,
	        n.entity ? n.entity : "-");
	/* Each carries the commit id of the write that created the instance (protocol.h). */
	id_a = n.commit_id;
	CHECK(id_a > 0, "InstanceAdded svc:/t/n:a without a commit id");
	scf_notification_clear(&n);
	n = next(w, 5000000);
	CHECK(n.kind == SCF_NOTIFY_INSTANCE_ADDED && n.entity && !strcmp(n.entity, "svc:/t/n:b"),
	        "second: expected InstanceAdded svc:/t/n:b, got kind %d %s", n.kind,
	        n.entity ? n.entity : "-");
	id_b = n.commit_id;
	CHECK(id_b > id_a, "InstanceAdded svc:/t/n:b: commit id %llu, not after svc:/t/n:a's %llu",
	        (unsigned long long)id_b, (unsigned long long)id_a);
	scf_notification_clear(&n);
	n = next(w, 5000000);
	CHECK(n.kind == SCF_NOTIFY_PG_UPDATED && n.pg && !strcmp(n.pg, "cfg"),
	        "third: expected PgChanged cfg after the instance, got kind %d", n.kind);
	CHECK(n.commit_id == id_b, "PgChanged cfg: commit id %llu, not its batch's %llu",
	        (unsigned long long)n.commit_id, (unsigned long long)id_b);
	scf_notification_clear(&n);
	/* A handle that did not ask hears of the pg only. */
	n = next(o, 5000000);
	CHECK(n.kind == SCF_NOTIFY_PG_UPDATED, "other handle: expected the pg, got kind %d",
	        n.kind);
	scf_notification_clear(&n);
	n = next(o, 200000);
	CHECK(n.kind == 0, "other handle: unexpected notification kind %d", n.kind);
	scf_notification_clear(&n);
	/* Reset drops the interest in instances too. */
	CHECK(scf_notify_reset(w) == 0, "reset");
	CHECK(scf_instance_add(p, "svc:/t/n:c") == 0, "add instance c");
	n = next(w, 200000);
	CHECK(n.kind == 0, "after reset: unexpected notification kind %d", n.kind);
	scf_notification_clear(&n);
	scf_handle_destroy(w);
	scf_handle_destroy(o);
	scf_handle_destroy(p);
	return failed;
}

static int do_wait(const char *fmri, const char *expect, const char *timeout)
{
	scf_handle_t *h = handle();
	uint64_t usec = timeout ? (uint64_t)(atof(timeout) * 1e6) : 0;
	bool done = false;
	char *detail = NULL;
	const char *got;
	int r;

	CHECK(scf_instance_add(h, fmri) == 0, "add %s: %s", fmri, scf_handle_errmsg(h));
	r = scf_instance_wait_restarter(h, &fmri, 1, usec, &done, &detail);
	switch (r) {
	case SCF_WAIT_RESTARTER_DONE:
		got = "done";
		CHECK(done && !detail, "done, but done[0] %d, detail %s", done, detail);
		break;
	case SCF_WAIT_RESTARTER_NO_RESTARTER:
		got = "no-restarter";
		break;
	case SCF_WAIT_RESTARTER_EMI_PENDING:
		got = "emi-pending";
		CHECK(detail && *detail, "EMI pending without its state");
		break;
	case -SCF_ERROR_TIMEOUT:
		got = "timeout";
		CHECK(!done && detail && !strcmp(detail, fmri), "timeout: detail %s",
		        detail ? detail : "-");
		CHECK(strstr(scf_handle_errmsg(h), fmri) != NULL, "timeout: errmsg \"%s\"",
		        scf_handle_errmsg(h));
		break;
	default:
		got = scf_strerror(r);
		break;
	}
	CHECK(!strcmp(got, expect), "%s: expected %s, got %s (%s)", fmri, expect, got,
	        scf_handle_errmsg(h));
	free(detail);
	scf_handle_destroy(h);
	return failed;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "notify"))
		return do_notify();
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "wait"))
		return do_wait(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: newinst notify | newinst wait FMRI EXPECT [TIMEOUT_S]\n");
	return 2;
}
