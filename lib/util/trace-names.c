/*
 * trace-names.c: the names of the trace's event ids ("import.begin", "configd.commit"), as
 * docs/trace-format.md lists them.  Only readers print names, so this is part of the reader's
 * library; a recording program stores the ids alone.
 */
#include <stddef.h>
#include <stdint.h>

#include "trace-reader.h"

const char *smf_trace_event_name(uint16_t event)
{
	switch (event) {
	case SMF_TRACE_IMPORT_BEGIN:
		return "import.begin";
	case SMF_TRACE_IMPORT_INSTANCE_COMMITTED:
		return "import.instance_committed";
	case SMF_TRACE_IMPORT_REFRESH:
		return "import.refresh";
	case SMF_TRACE_IMPORT_WAIT_BEGIN:
		return "import.wait_begin";
	case SMF_TRACE_IMPORT_WAIT_DONE:
		return "import.wait_done";
	case SMF_TRACE_IMPORT_RETURN:
		return "import.return";
	case SMF_TRACE_ADD_WAIT_BEGIN:
		return "add.wait_begin";
	case SMF_TRACE_ADD_WAIT_DONE:
		return "add.wait_done";
	case SMF_TRACE_CONFIGD_COMMIT:
		return "configd.commit";
	case SMF_TRACE_CONFIGD_NOTIFY_SENT:
		return "configd.notify_sent";
	case SMF_TRACE_CONFIGD_PG_CREATED:
		return "configd.pg_created";
	case SMF_TRACE_CONFIGD_INSTANCE_ADDED:
		return "configd.instance_added";
	case SMF_TRACE_CONFIGD_WRITE:
		return "configd.write";
	case SMF_TRACE_CONFIGD_PG_DELETED:
		return "configd.pg_deleted";
	case SMF_TRACE_STARTD_NOTIFY_RECEIVED:
		return "startd.notify_received";
	case SMF_TRACE_STARTD_GRAPH_INSERT:
		return "startd.graph_insert";
	case SMF_TRACE_STARTD_RESTARTER_ENQUEUE:
		return "startd.restarter_enqueue";
	case SMF_TRACE_STARTD_RESTARTER_DEQUEUE:
		return "startd.restarter_dequeue";
	case SMF_TRACE_STARTD_RESTARTER_PG_WRITTEN:
		return "startd.restarter_pg_written";
	case SMF_TRACE_STARTD_STATE_CHANGE:
		return "startd.state_change";
	case SMF_TRACE_STARTD_METHOD_START:
		return "startd.method_start";
	case SMF_TRACE_STARTD_METHOD_EXIT:
		return "startd.method_exit";
	case SMF_TRACE_STARTD_FIRST_SIGHT:
		return "startd.first_sight";
	case SMF_TRACE_STARTD_WRITE:
		return "startd.write";
	case SMF_TRACE_SVCADM_READ_RESTARTER_PG:
		return "svcadm.read_restarter_pg";
	case SMF_TRACE_SVCADM_RESULT:
		return "svcadm.result";
	case SMF_TRACE_SVCADM_WAIT_RESTARTER_BEGIN:
		return "svcadm.wait_restarter_begin";
	case SMF_TRACE_SVCADM_WAIT_RESTARTER_DONE:
		return "svcadm.wait_restarter_done";
	case SMF_TRACE_SCF_READ:
		return "scf.read";
	case SMF_TRACE_SCF_NOTIFY_INTEREST:
		return "scf.notify_interest";
	case SMF_TRACE_SCF_NOTIFY_RECEIVED:
		return "scf.notify_received";
	case SMF_TRACE_PROC_START:
		return "proc.start";
	case SMF_TRACE_PROC_EXIT:
		return "proc.exit";
	case SMF_TRACE_TEST:
		return "test";
	default:
		return NULL;
	}
}
