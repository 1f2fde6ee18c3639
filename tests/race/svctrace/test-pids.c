/*
 * test-pids.c: svctrace's pids.c on hand-made event arrays (no file, no daemon): processes
 * that reuse a pid are told apart, and the pids events name are mapped to the process alive
 * then.  Pid reuse cannot be forced in a real run (make stress meets it when pids wrap).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "macro.h"

#include "svctrace.h"
#include "trace.h"

#define CONFIGD 5u
#define REUSED 100u
#define R1 (REUSED + TRACE_PID_REUSED)

/* An event of pid in file at t tenths of a second (far above pids.c's clock slack). */
static tr_event_t ev(uint32_t file, uint32_t pid, uint64_t t, uint16_t event, uint64_t arg1)
{
	return (tr_event_t){.file = file,
	        .pid = pid,
	        .tid = pid,
	        .ns = t * 100000000ull,
	        .event = event,
	        .arg1 = arg1};
}

/*
 * svccfg pid 100 (file 0) runs 10..20; configd (file 2) commits for it at 15; then another
 * program gets pid 100 (file 1) and runs 30..40, committing at 35; configd also names pid 100
 * at 25 (a commit: neither was alive), at 26 (a notification: the first had exited), at 50
 * (a notification: both gone) and pid 777, which left no file.
 */
static void test_reused_pid(void **state)
{
	tr_event_t e[] = {
	        ev(0, REUSED, 10, SMF_TRACE_PROC_START, 0),
	        ev(0, REUSED, 20, SMF_TRACE_PROC_EXIT, 0),
	        ev(1, REUSED, 30, SMF_TRACE_PROC_START, 0),
	        ev(1, REUSED, 40, SMF_TRACE_PROC_EXIT, 0),
	        ev(2, CONFIGD, 15, SMF_TRACE_CONFIGD_WRITE, REUSED),
	        ev(2, CONFIGD, 25, SMF_TRACE_CONFIGD_WRITE, REUSED),
	        ev(2, CONFIGD, 35, SMF_TRACE_CONFIGD_WRITE, REUSED),
	        ev(2, CONFIGD, 50, SMF_TRACE_CONFIGD_NOTIFY_SENT, REUSED),
	        ev(2, CONFIGD, 55, SMF_TRACE_CONFIGD_WRITE, 777),
	        ev(2, CONFIGD, 26, SMF_TRACE_CONFIGD_NOTIFY_SENT, REUSED),
	};
	trace_t t = {.events = e, .n_events = ELEMENTSOF(e)};

	(void)state;
	assert_int_equal(trace_resolve_pids(&t), 1);
	/* The first process keeps its pid, the second gets one of its own (its tid too). */
	assert_int_equal(e[0].pid, REUSED);
	assert_int_equal(e[1].pid, REUSED);
	assert_int_equal(e[2].pid, R1);
	assert_int_equal(e[2].tid, R1);
	assert_int_equal(e[3].pid, R1);
	assert_int_equal(e[4].pid, CONFIGD);
	/*
	 * What configd names: a committer alive then, else none (0); a subscriber may have exited
	 * (its connection outlives it): the last of that pid that had started.  A pid with no
	 * file stays.
	 */
	assert_int_equal(e[4].arg1, REUSED);
	assert_int_equal(e[5].arg1, 0);
	assert_int_equal(e[6].arg1, R1);
	assert_int_equal(e[7].arg1, R1);
	assert_int_equal(e[8].arg1, 777);
	assert_int_equal(e[9].arg1, REUSED);
}

/*
 * A child forked without exec writes into its parent's file (file 0) under its own pid 200,
 * then execs a traced program (file 1), same pid, no exit between: one process.  The parent,
 * a daemon, records no exit and keeps its pid.
 */
static void test_same_process(void **state)
{
	tr_event_t e[] = {
	        ev(0, 50, 1, SMF_TRACE_STARTD_NOTIFY_RECEIVED, 0),
	        ev(0, 200, 5, SMF_TRACE_STARTD_METHOD_EXIT, 0),
	        ev(1, 200, 8, SMF_TRACE_PROC_START, 0),
	        ev(1, 200, 9, SMF_TRACE_PROC_EXIT, 0),
	        ev(2, CONFIGD, 7, SMF_TRACE_CONFIGD_WRITE, 200),
	        ev(2, CONFIGD, 8, SMF_TRACE_CONFIGD_WRITE, 50),
	};
	trace_t t = {.events = e, .n_events = ELEMENTSOF(e)};

	(void)state;
	assert_int_equal(trace_resolve_pids(&t), 0);
	for (size_t k = 0; k < ELEMENTSOF(e); k++)
		assert_true(e[k].pid < TRACE_PID_REUSED);
	assert_int_equal(e[4].arg1, 200);
	assert_int_equal(e[5].arg1, 50);
}

/*
 * Clocks: configd's record of a commit may read a few microseconds after its committer's
 * exit (each process converts its own TSC reads), and a daemon (no proc.start) may be named
 * before its first event, though not before it opened its file.  Neither is "no process".
 */
static void test_clock_slack(void **state)
{
	tr_event_t e[] = {
	        ev(0, 300, 1, SMF_TRACE_PROC_START, 0),
	        ev(0, 300, 2, SMF_TRACE_PROC_EXIT, 0),
	        ev(1, 50, 5, SMF_TRACE_STARTD_NOTIFY_RECEIVED, 0),
	        ev(2, CONFIGD, 2, SMF_TRACE_CONFIGD_WRITE, 300),
	        ev(2, CONFIGD, 3, SMF_TRACE_CONFIGD_NOTIFY_SENT, 50),
	};
	/* svccfg's file, startd's (opened at 0.1 s, its first event at 0.5 s), configd's */
	tr_file_t files[] = {{.pid = 300, .start_ns = 100000000},
	        {.pid = 50, .start_ns = 100000000}, {.pid = CONFIGD}};
	trace_t t = {.events = e, .n_events = ELEMENTSOF(e), .files = files, .n_files = 3};

	(void)state;
	e[3].ns += 5000; /* 5 us after svccfg's exit */
	assert_int_equal(trace_resolve_pids(&t), 0);
	assert_int_equal(e[3].arg1, 300);
	assert_int_equal(e[4].arg1, 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_reused_pid),
	        cmocka_unit_test(test_same_process),
	        cmocka_unit_test(test_clock_slack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
